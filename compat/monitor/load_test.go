//go:build interop

package monitor

import (
	"fmt"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/zkwire"
	"github.com/gozk/gozk/proto"
)

var openACL = []proto.ACL{{Perms: proto.PermAll, Id: proto.Id{Scheme: "world", Id: "anyone"}}}

// load puts a server into a state where every counter the monitoring
// commands show is non-zero: two sessions with ephemerals, data, exist,
// child, persistent and recursive watches, reads and writes under two
// namespaces. The sessions stay open until the test ends.
func load(t *testing.T, addr string) []*zkwire.Client {
	t.Helper()
	var clients []*zkwire.Client
	for i := 0; i < 2; i++ {
		c, err := zkwire.Connect(addr, 30*time.Second, zkwire.Options{})
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		t.Cleanup(func() { c.Close() })
		clients = append(clients, c)
	}
	a, b := clients[0], clients[1]
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"/app-1", "/app-2", "/app-1/data"} {
		_, err := a.Create(p, []byte("value of "+p), openACL, 0)
		must(err)
	}
	_, err := a.Create("/app-1/eph-a", []byte("a"), openACL, 1) // ephemeral
	must(err)
	_, err = b.Create("/app-2/eph-b", []byte("b"), openACL, 1)
	must(err)
	_, err = b.Create("/app-2/eph-b2", nil, openACL, 1)
	must(err)
	for i := 0; i < 5; i++ {
		_, err := a.SetData("/app-1/data", []byte(fmt.Sprint("v", i)), -1)
		must(err)
		_, err = b.GetData("/app-1/data", false)
		must(err)
	}
	_, err = a.GetData("/app-1/data", true) // data watch
	must(err)
	_, err = b.GetData("/app-1/data", true)
	must(err)
	if _, err := a.Exists("/app-1/missing", true); err == nil { // exist watch
		t.Fatal("exists on a missing node succeeded")
	}
	_, err = b.GetChildren("/app-2", true) // child watch
	must(err)
	must(a.AddWatch("/app-2", proto.AddWatchPersistent))
	must(b.AddWatch("/app-1", proto.AddWatchPersistentRecursive))
	_, err = a.GetChildren2("/", false)
	must(err)
	// More than 128 txns, so that hash has a digest to show.
	for i := 0; i < 130; i++ {
		_, err := b.SetData("/app-2", []byte(fmt.Sprint(i)), -1)
		must(err)
	}
	return clients
}
