package peer

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"
	"github.com/rs/zerolog"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/internal/testport"
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

func freeLoopbackPort(t *testing.T) int { return testport.MustFree(t) }

// writeEnsemble writes a zoo.cfg and myid for n members under root and
// returns their config paths; extra lines go into every zoo.cfg.
func writeEnsemble(t *testing.T, root string, n int, extra ...string) []string {
	t.Helper()
	var lines []string
	for i := 1; i <= n; i++ {
		lines = append(lines, fmt.Sprintf("server.%d=127.0.0.1:%d:%d", i, freeLoopbackPort(t), freeLoopbackPort(t)))
	}
	return writeEnsembleLines(t, root, lines, extra...)
}

// writeEnsembleLines is writeEnsemble with the server.N lines given, one
// per member, member i+1 being lines[i].
func writeEnsembleLines(t *testing.T, root string, lines []string, extra ...string) []string {
	t.Helper()
	n := len(lines)
	clients := make([]int, n)
	for i := range clients {
		clients[i] = freeLoopbackPort(t)
	}
	var paths []string
	for i := 1; i <= n; i++ {
		dir := filepath.Join(root, fmt.Sprint(i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "myid"), []byte(fmt.Sprint(i)), 0o644)
		text := fmt.Sprintf("tickTime=100\ninitLimit=20\nsyncLimit=10\ndataDir=%s\nclientPort=%d\n%s\n%s\n",
			dir, clients[i-1], strings.Join(lines, "\n"), strings.Join(extra, "\n"))
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
	return startMemberWith(t, path, "", nil)
}

// startMemberWith starts the member of zoo.cfg path with the -D flags
// jvmFlags, its log also going to log when that is not nil.
func startMemberWith(t *testing.T, path, jvmFlags string, log io.Writer) *gozkMember {
	t.Helper()
	c, err := conf.Load(path, jvmFlags)
	if err != nil {
		t.Fatal(err)
	}
	var outs []io.Writer
	if log != nil {
		outs = append(outs, log)
	}
	if testing.Verbose() {
		outs = append(outs, zerolog.ConsoleWriter{Out: os.Stderr})
	}
	logger := zerolog.Nop()
	if len(outs) > 0 {
		logger = zerolog.New(zerolog.MultiLevelWriter(outs...)).With().Int64("member", c.Quorum.ServerID).Logger()
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
		srv.Close()
		t.Fatal(err)
	}
	srv.Serve(ln)
	m, err := NewMember(c, srv, jute.DefaultMaxBuffer, logger)
	if err != nil {
		srv.Close()
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

// leaderOf waits until exactly one of members leads and serves, and
// returns it; nil when none does within wait.
func leaderOf(members []*gozkMember, wait time.Duration) *gozkMember {
	deadline := time.Now().Add(wait)
	for {
		var leader *gozkMember
		for _, m := range members {
			if m.srv.Role() == server.RoleLeader && m.srv.Serving() {
				leader = m
			}
		}
		if leader != nil || time.Now().After(deadline) {
			return leader
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFiveGozkMembers: a 5-server ensemble keeps a leader with two
// members down and none with three.
func TestFiveGozkMembers(t *testing.T) {
	paths := writeEnsemble(t, t.TempDir(), 5)
	var members []*gozkMember
	for _, p := range paths {
		members = append(members, startMember(t, p))
	}
	leader := waitRoles(t, members...)
	c := clientOf(t, leader)
	if _, err := c.Create("/five", nil, 0, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatal(err)
	}
	c.Close()
	// Two followers down: three of five are a quorum.
	var down, up []*gozkMember
	for _, m := range members {
		if m != leader && len(down) < 2 {
			down = append(down, m)
		} else {
			up = append(up, m)
		}
	}
	for _, m := range down {
		m.stop()
	}
	if l := leaderOf(up, 30*time.Second); l == nil {
		t.Fatal("three of five members have no leader")
	}
	c = clientOf(t, up[0])
	if _, err := c.Create("/three-of-five", nil, 0, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatal(err)
	}
	c.Close()
	// A third one down: two of five are not.
	up[len(up)-1].stop()
	up = up[:len(up)-1]
	deadline := time.Now().Add(30 * time.Second)
	for leaderOf(up, 0) != nil {
		if time.Now().After(deadline) {
			t.Fatal("two of five members still have a serving leader")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestHierarchicalQuorumAndZeroWeight: groups and weights decide as
// Java's QuorumHierarchical does: a quorum needs a majority of the groups
// each with a majority of its weight; a zero-weight member never leads,
// even with the highest id.
func TestHierarchicalQuorumAndZeroWeight(t *testing.T) {
	// Groups {1,2,3} and {4,5}; member 5 weighs nothing, so group 2's
	// weight is member 4's alone.
	paths := writeEnsemble(t, t.TempDir(), 5,
		"group.1=1:2:3", "group.2=4:5", "weight.1=1", "weight.2=1", "weight.3=1", "weight.4=1", "weight.5=0")
	var members []*gozkMember
	for _, p := range paths {
		members = append(members, startMember(t, p))
	}
	leader := leaderOf(members, 60*time.Second)
	if leader == nil {
		t.Fatal("no leader")
	}
	if leader.id == 5 {
		t.Fatal("the zero-weight member leads")
	}
	// Member 4 down: group 2 has no weight left, and one group of two
	// is not a majority of the groups.
	for _, m := range members {
		if m.id == 4 {
			m.stop()
		}
	}
	var rest []*gozkMember
	for _, m := range members {
		if m.id != 4 {
			rest = append(rest, m)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for leaderOf(rest, 0) != nil {
		if time.Now().After(deadline) {
			t.Fatal("a leader serves with only one group of two having a majority of its weight")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Member 4 back: both groups again.
	back := startMember(t, paths[3])
	if l := leaderOf(append(rest, back), 60*time.Second); l == nil || l.id == 5 {
		t.Fatalf("with both groups up the leader is %v", l)
	}
}

// TestZxidRolloverMovesToANewEpoch: a leader whose zxid counter starts
// near its end (zookeeper.testingonly.initialZxid) steps down when it
// runs out; the ensemble elects again into a new epoch and loses nothing.
func TestZxidRolloverMovesToANewEpoch(t *testing.T) {
	// zookeeper.<key>, as Java takes zoo.cfg keys it does not know. The
	// session outlives an election that splits first (a member that
	// decided for a non-leader waits initLimit before electing again).
	paths := writeEnsemble(t, t.TempDir(), 3, "testingonly.initialZxid=4294967280", "maxSessionTimeout=20000")
	members := []*gozkMember{startMember(t, paths[0]), startMember(t, paths[1]), startMember(t, paths[2])}
	waitRoles(t, members...)
	c := clientOf(t, members[0])
	var written []string
	epochs := map[int64]bool{}
	for i := 0; len(written) < 40; i++ {
		if i > 400 {
			t.Fatalf("only %d writes in 400 tries", len(written))
		}
		p := fmt.Sprintf("/roll-%03d", len(written))
		if _, err := c.Create(p, nil, 0, gozk.WorldACL(gozk.PermAll)); err != nil {
			// The write in flight when the leader gave up; the client
			// reconnects and goes on.
			// go-zookeeper's Exists says true with any error.
			time.Sleep(50 * time.Millisecond)
			if ok, _, err := c.Exists(p); err != nil || !ok {
				continue
			}
		}
		written = append(written, p)
		_, st, err := c.Exists(p)
		if err == nil {
			epochs[st.Czxid>>32] = true
		}
	}
	if len(epochs) < 2 {
		t.Fatalf("every write in epochs %v: the counter never rolled over", epochs)
	}
	leader := waitRoles(t, members...)
	lc := clientOf(t, leader)
	deadline := time.Now().Add(60 * time.Second)
	for _, p := range written {
		// The leader's own createSession may be the one that runs the
		// counter out again; the client reconnects and asks again.
		ok, _, err := lc.Exists(p)
		for err != nil && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
			ok, _, err = lc.Exists(p)
		}
		if err != nil || !ok {
			t.Errorf("%s lost (%v)", p, err)
		}
	}
}
