//go:build interop

package confdiff

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/javazk"
	"github.com/gozk/gozk/conf"
)

// TestJavaRewrittenConfig: Java 3.8.0 members started with
// reconfigEnabled=true and their server lines in zoo.cfg move those lines
// into a zoo.cfg.dynamic.<version> file of their own writing and point
// zoo.cfg at it. gozk loads each rewritten zoo.cfg to the ensemble it
// was started with (every server's addresses, role and client address),
// at the version in the file's name, with its client address from its
// own line (Java erased clientPort from zoo.cfg), and gives the
// reconfiguration warning naming that file.
func TestJavaRewrittenConfig(t *testing.T) {
	if _, err := javazk.Lookup(); err != nil {
		if javazk.JavaRequired() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	root := t.TempDir()
	var servers []string
	clients := map[int64]int{}
	for id := int64(1); id <= 3; id++ {
		var ports [3]int
		for i := range ports {
			p, err := javazk.FreePort()
			if err != nil {
				t.Fatal(err)
			}
			ports[i] = p
		}
		clients[id] = ports[2]
		servers = append(servers, fmt.Sprintf("server.%d=127.0.0.1:%d:%d:participant;127.0.0.1:%d", id, ports[0], ports[1], ports[2]))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	peers := map[int64]*javazk.Server{}
	defer func() {
		for _, p := range peers {
			p.Stop()
		}
	}()
	for id := int64(1); id <= 3; id++ {
		p, err := javazk.StartPeer(ctx, javazk.PeerOptions{ID: id, Dir: filepath.Join(root, "java"+strconv.FormatInt(id, 10)),
			ClientPort: clients[id], Servers: servers, Config: []string{"reconfigEnabled=true"}})
		if err != nil {
			t.Fatal(err)
		}
		peers[id] = p
	}
	for id, p := range peers {
		if _, err := p.WaitMode(ctx, "leader", "follower"); err != nil {
			t.Fatalf("member %d: %v\n%s", id, err, p.Log())
		}
	}
	// Java rewrites the files as it starts; stop the members so that
	// none is half written.
	for _, p := range peers {
		p.Stop()
	}

	// The ensemble as gozk reads the original lines.
	want := map[int64]string{}
	for _, line := range servers {
		k, v, _ := strings.Cut(line, "=")
		id, _ := strconv.ParseInt(strings.TrimPrefix(k, "server."), 10, 64)
		want[id] = v
	}
	for id, p := range peers {
		text, err := os.ReadFile(p.ConfigPath)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(text), "server.") || !strings.Contains(string(text), "dynamicConfigFile=") {
			t.Fatalf("member %d: Java did not move the server lines out of zoo.cfg:\n%s", id, text)
		}
		c, err := conf.Load(p.ConfigPath, "")
		if err != nil {
			t.Fatalf("member %d: gozk refuses the config Java rewrote: %v\n%s", id, err, text)
		}
		e := c.Quorum.Ensemble
		dyn, _ := os.ReadFile(e.File)
		t.Logf("member %d: zoo.cfg:\n%s\n%s:\n%s", id, text, e.File, dyn)
		if !strings.Contains(filepath.Base(e.File), ".dynamic.") || e.Version == 0 || c.Quorum.ServerID != id || !c.Quorum.Distributed {
			t.Errorf("member %d: ensemble from %s at version %x, myid %d, distributed %v", id, e.File, e.Version, c.Quorum.ServerID, c.Quorum.Distributed)
		}
		for sid, line := range want {
			s, ok := e.Servers[sid]
			if !ok {
				t.Errorf("member %d: server %d missing", id, sid)
				continue
			}
			if s.String() != line {
				t.Errorf("member %d: server.%d=%s, started as %s", id, sid, s.String(), line)
			}
		}
		// Java erased clientPort from zoo.cfg: the server line has it.
		if c.ClientAddr() != "127.0.0.1:"+strconv.Itoa(clients[id]) {
			t.Errorf("member %d: client address %s", id, c.ClientAddr())
		}
		if len(e.Servers) != len(want) {
			t.Errorf("member %d: %d servers", id, len(e.Servers))
		}
		wantWarning := "dynamic reconfiguration is not supported by this gozk; the ensemble's membership is the static one in " + e.File
		if got := c.ReconfigWarning(); got != wantWarning {
			t.Errorf("member %d: warning %q", id, got)
		}
	}
}
