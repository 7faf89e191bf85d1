package peer

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"
	"github.com/rs/zerolog"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/netio"
	"github.com/gozk/gozk/server"
)

// gozkMember is one in-process ensemble member: a server and its peer.
type gozkMember struct {
	id     int64
	dir    string
	cfg    *conf.Config
	srv    *server.Server
	member *Member
	cancel context.CancelFunc
	done   chan error
}

func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// writeEnsemble writes a zoo.cfg and myid for n members under root and
// returns their config paths.
func writeEnsemble(t *testing.T, root string, n int) []string {
	t.Helper()
	var lines []string
	clients := make([]int, n)
	for i := 1; i <= n; i++ {
		lines = append(lines, fmt.Sprintf("server.%d=127.0.0.1:%d:%d", i, freeLoopbackPort(t), freeLoopbackPort(t)))
		clients[i-1] = freeLoopbackPort(t)
	}
	var paths []string
	for i := 1; i <= n; i++ {
		dir := filepath.Join(root, fmt.Sprint(i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "myid"), []byte(fmt.Sprint(i)), 0o644)
		text := fmt.Sprintf("tickTime=100\ninitLimit=20\nsyncLimit=10\ndataDir=%s\nclientPort=%d\n%s\n",
			dir, clients[i-1], strings.Join(lines, "\n"))
		p := filepath.Join(dir, "zoo.cfg")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

func startMember(t *testing.T, path string) *gozkMember {
	t.Helper()
	c, err := conf.Load(path, "")
	if err != nil {
		t.Fatal(err)
	}
	logger := zerolog.Nop()
	if testing.Verbose() {
		logger = zerolog.New(zerolog.ConsoleWriter{Out: os.Stderr}).With().Int64("member", c.Quorum.ServerID).Logger()
	}
	sc := server.FromConf(c, logger)
	sc.Ensemble = true
	sc.ServerID = c.Quorum.ServerID
	sc.ForceSync = false
	sc.QuorumConfig = c.Quorum.Ensemble.QuorumConfig()
	srv, err := server.Open(sc)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := netio.Listen(srv.ClientPortConfig(), srv)
	if err != nil {
		t.Fatal(err)
	}
	srv.Serve(ln)
	m, err := NewMember(c, srv, jute.DefaultMaxBuffer, logger)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	gm := &gozkMember{id: c.Quorum.ServerID, dir: c.DataDir, cfg: c, srv: srv, member: m, cancel: cancel, done: make(chan error, 1)}
	go func() { gm.done <- m.Run(ctx) }()
	t.Cleanup(gm.stop)
	return gm
}

func (g *gozkMember) stop() {
	if g.cancel == nil {
		return
	}
	g.cancel()
	<-g.done
	g.member.Close()
	g.srv.Close()
	g.cancel = nil
}

// waitRoles waits until one member leads and the others follow, and
// returns the leader.
func waitRoles(t *testing.T, members ...*gozkMember) *gozkMember {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		var leader *gozkMember
		followers := 0
		for _, m := range members {
			switch {
			case m.srv.Role() == server.RoleLeader && m.srv.Serving():
				leader = m
			case m.srv.Role() == server.RoleFollower && m.srv.Serving():
				followers++
			}
		}
		if leader != nil && followers == len(members)-1 {
			return leader
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, m := range members {
		t.Logf("member %d: %s", m.id, m.srv.PeerState())
	}
	t.Fatal("no leader with every other member following")
	return nil
}

func clientOf(t *testing.T, m *gozkMember) *gozk.Conn {
	t.Helper()
	c, ev, err := gozk.Connect([]string{m.srv.Addr().String()}, 10*time.Second, gozk.WithLogger(quietLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	deadline := time.After(20 * time.Second)
	for c.State() != gozk.StateHasSession {
		select {
		case <-ev:
		case <-deadline:
			t.Fatalf("no session with member %d", m.id)
		}
	}
	return c
}

// TestGozkEnsembleLeadsFollowsAndFailsOver: three gozk members elect a
// leader, serve writes through every member, lose the leader, elect
// another, keep every acknowledged write, and take the old leader back
// as a follower.
func TestGozkEnsembleLeadsFollowsAndFailsOver(t *testing.T) {
	paths := writeEnsemble(t, t.TempDir(), 3)
	members := []*gozkMember{startMember(t, paths[0]), startMember(t, paths[1]), startMember(t, paths[2])}
	leader := waitRoles(t, members...)
	var written []string
	for _, m := range members {
		c := clientOf(t, m)
		for i := 0; i < 5; i++ {
			p, err := c.Create(fmt.Sprintf("/from-%d-", m.id), []byte("v"), gozk.FlagSequence, gozk.WorldACL(gozk.PermAll))
			if err != nil {
				t.Fatalf("create through member %d: %v", m.id, err)
			}
			written = append(written, p)
		}
		c.Close()
	}
	leader.stop()
	var rest []*gozkMember
	for _, m := range members {
		if m != leader {
			rest = append(rest, m)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	var next *gozkMember
	for next == nil && time.Now().Before(deadline) {
		for _, m := range rest {
			if m.srv.Role() == server.RoleLeader && m.srv.Serving() {
				next = m
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if next == nil {
		t.Fatal("no new leader after the leader stopped")
	}
	c := clientOf(t, rest[0])
	if _, err := c.Create("/after-failover", nil, 0, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatalf("write after the failover: %v", err)
	}
	c.Close()
	back := startMember(t, filepath.Join(leader.dir, "zoo.cfg"))
	waitRoles(t, append(rest, back)...)
	for _, m := range append(rest, back) {
		c := clientOf(t, m)
		if _, err := c.Sync("/"); err != nil {
			t.Fatal(err)
		}
		for _, p := range append(written, "/after-failover") {
			if ok, _, err := c.Exists(p); err != nil || !ok {
				t.Errorf("member %d lacks %s (%v)", m.id, p, err)
			}
		}
		c.Close()
	}
}
