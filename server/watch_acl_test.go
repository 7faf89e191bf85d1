package server

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// TestWatchEventsNeedRead checks that a watch event reaches only a
// connection that may READ the node it is about (the parent for
// NodeChildrenChanged), as 3.8.0 with the fix of CVE-2024-23944 does
// (Debian's 3.8.0, Apache's 3.8.4); compat/javaapi's noauth-sets-no-watch
// is the same check against Java.
func TestWatchEventsNeedRead(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	owner, _ := connect(t, s)
	if err := owner.AddAuth("digest", []byte("u:p")); err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Create("/open", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Create("/open/s", nil, 0, zk.DigestACL(zk.PermAll, "u", "p")); err != nil {
		t.Fatal(err)
	}
	anon, _ := connect(t, s)
	_, _, anonData, err := anon.ExistsW("/open/s")
	if err != nil {
		t.Fatal(err)
	}
	_, _, anonChildren, err := anon.ChildrenW("/open")
	if err != nil {
		t.Fatal(err)
	}
	_, _, ownerData, err := owner.ExistsW("/open/s")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Set("/open/s", []byte("x"), -1); err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Create("/open/t", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-ownerData:
		if ev.Type != zk.EventNodeDataChanged {
			t.Errorf("owner got %+v", ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the owner, who may read /open/s, was not told of its change")
	}
	select {
	case ev := <-anonChildren:
		if ev.Type != zk.EventNodeChildrenChanged || ev.Path != "/open" {
			t.Errorf("anon child watch got %+v", ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no NodeChildrenChanged for the open parent")
	}
	select {
	case ev := <-anonData:
		t.Fatalf("a connection without READ on /open/s was told %+v", ev)
	case <-time.After(300 * time.Millisecond):
	}
}

// TestClosedConnectionTakesNoWatch: a read that registers its watch after
// the connection closed (OnClose ran between the read's check and the
// registration) leaves nothing behind in the registry.
func TestClosedConnectionTakesNoWatch(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	c := &connection{srv: s}
	c.closed.Store(true)
	s.watches.AddDataWatch("/a", c)
	s.watches.AddChildWatch("/a", c)
	s.watches.AddPersistentWatch("/a", c, true)
	if n := s.watches.WatchCount(); n != 0 {
		t.Fatalf("a closed connection holds %d watches", n)
	}
	open := &connection{srv: s}
	s.watches.AddDataWatch("/a", open)
	if n := s.watches.WatchCount(); n != 1 {
		t.Fatalf("an open connection holds %d watches, want 1", n)
	}
}
