//go:build interop

package ensemble

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/compat/javazk"
	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/fle"
	"github.com/gozk/gozk/peer"
	"github.com/gozk/gozk/quorum"
	"github.com/gozk/gozk/quorum/electionport"
)

// mixed is an ensemble of three servers on loopback, some of them Java.
type mixed struct {
	t       *testing.T
	dir     string
	servers []string // server.N lines
	client  map[int64]int
	java    map[int64]*javazk.Server
}

func newMixed(t *testing.T, ids ...int64) *mixed {
	t.Helper()
	return newMixedWithObservers(t, ids, nil)
}

// newMixedWithObservers is newMixed with observer lines for observers.
func newMixedWithObservers(t *testing.T, ids, observers []int64) *mixed {
	t.Helper()
	if _, err := javazk.Lookup(); err != nil {
		if javazk.JavaRequired() {
			t.Fatal(err)
		}
		t.Skipf("skipping: %v", err)
	}
	m := &mixed{t: t, dir: t.TempDir(), client: map[int64]int{}, java: map[int64]*javazk.Server{}}
	isObserver := map[int64]bool{}
	for _, id := range observers {
		isObserver[id] = true
	}
	for _, id := range append(append([]int64(nil), ids...), observers...) {
		var ports [3]int
		for i := range ports {
			p, err := javazk.FreePort()
			if err != nil {
				t.Fatal(err)
			}
			ports[i] = p
		}
		m.client[id] = ports[2]
		role := "participant"
		if isObserver[id] {
			role = "observer"
		}
		m.servers = append(m.servers, fmt.Sprintf("server.%d=127.0.0.1:%d:%d:%s;127.0.0.1:%d", id, ports[0], ports[1], role, ports[2]))
	}
	return m
}

func (m *mixed) startJava(ctx context.Context, id int64) *javazk.Server {
	m.t.Helper()
	s, err := javazk.StartPeer(ctx, javazk.PeerOptions{ID: id, Dir: filepath.Join(m.dir, "java"+strconv.FormatInt(id, 10)),
		ClientPort: m.client[id], Servers: m.servers})
	if err != nil {
		m.t.Fatal(err)
	}
	m.java[id] = s
	m.t.Cleanup(func() {
		if m.t.Failed() {
			m.t.Logf("log of Java server %d:\n%s", id, lastLines(s.Log(), 60))
		}
		s.Stop()
	})
	return s
}

// gozkElector is gozk's election for server id, configured from the
// same zoo.cfg lines through conf, as `gozk server` reads them.
type gozkElector struct {
	el   *peer.Elector
	self fle.Self
	mgr  *electionport.Manager
}

func (m *mixed) startGozk(id int64) *gozkElector {
	m.t.Helper()
	dir := filepath.Join(m.dir, "gozk"+strconv.FormatInt(id, 10))
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		m.t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "data", "myid"), []byte(strconv.FormatInt(id, 10)), 0o644)
	cfgText := fmt.Sprintf("tickTime=2000\ninitLimit=10\nsyncLimit=5\ndataDir=%s\nclientPort=%d\n%s\n",
		filepath.Join(dir, "data"), m.client[id], strings.Join(m.servers, "\n"))
	path := filepath.Join(dir, "zoo.cfg")
	if err := os.WriteFile(path, []byte(cfgText), 0o644); err != nil {
		m.t.Fatal(err)
	}
	c, err := conf.Load(path, "")
	if err != nil {
		m.t.Fatal(err)
	}
	logger := zerolog.Nop()
	if testing.Verbose() {
		logger = zerolog.New(zerolog.ConsoleWriter{Out: os.Stderr}).With().Int64("gozk", id).Logger()
	}
	pc, err := peer.ElectionPortConfig(c, logger)
	if err != nil {
		m.t.Fatal(err)
	}
	mgr, err := electionport.Start(pc)
	if err != nil {
		m.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	el := peer.NewElector(mgr, peer.ElectionTimersOf(c), logger)
	go el.Run(ctx)
	m.t.Cleanup(func() { cancel(); mgr.Close() })
	return &gozkElector{el: el, mgr: mgr, self: fle.Self{
		ID: id, Verifier: quorum.New(c.Quorum.Ensemble), LastLoggedZxid: 0, CurrentEpoch: 0,
		Current: fle.Vote{Leader: id}, Config: []byte(c.Quorum.Ensemble.QuorumConfig()),
	}}
}

func (g *gozkElector) elect(t *testing.T, ctx context.Context) peer.ElectionResult {
	t.Helper()
	r, err := g.el.Elect(ctx, g.self)
	if err != nil {
		t.Fatalf("gozk's election: %v", err)
	}
	return r
}

// checkJavaLog fails the test when Java logged trouble with what gozk
// sent it.
func checkJavaLog(t *testing.T, id int64, s *javazk.Server) {
	t.Helper()
	log := s.Log()
	for _, bad := range []string{
		"Something went wrong while processing config", // the configuration text
		"Initial message parsing error",
		"Received packet with invalid packet",
		"Invalid configLength",
		"BufferUnderflowException",
	} {
		if strings.Contains(log, bad) {
			t.Errorf("Java server %d logged %q:\n%s", id, bad, lastLines(log, 40))
		}
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestGozkFollowsJavaLeader: gozk (id 1) and two Java servers start
// together. Which Java server leads depends on who voted first (with
// server 3 late, gozk and server 2 make a quorum for 2); gozk must follow
// whichever it is. As in any FLE, a server can decide on a round that a
// better late vote then overturns for the others (server 2 switching to 3
// during its finalize wait); it then finds no leader where it decided and
// elects again, which must land on the Java servers' leader.
func TestGozkFollowsJavaLeader(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	m := newMixed(t, 1, 2, 3)
	g := m.startGozk(1)
	done := make(chan peer.ElectionResult, 1)
	go func() { done <- g.elect(t, ctx) }()
	j2, j3 := m.startJava(ctx, 2), m.startJava(ctx, 3)
	r := <-done
	if r.State != fle.Following || (r.Vote.Leader != 2 && r.Vote.Leader != 3) {
		t.Fatalf("gozk decided leader %d as %v", r.Vote.Leader, r.State)
	}
	// The Java servers form their quorum and serve.
	var leader int64
	for leader == 0 {
		switch {
		case j2.Mode() == "leader":
			leader = 2
		case j3.Mode() == "leader":
			leader = 3
		case ctx.Err() != nil:
			t.Fatal("no Java server leads")
		default:
			time.Sleep(100 * time.Millisecond)
		}
	}
	if r.Vote.Leader != leader {
		t.Logf("gozk decided on %d in round %d, the Java servers on %d: electing again", r.Vote.Leader, r.Vote.ElectionEpoch, leader)
		r = g.elect(t, ctx)
	}
	if r.Vote.Leader != leader || r.State != fle.Following {
		t.Fatalf("gozk decided leader %d as %v; Java's leader is %d", r.Vote.Leader, r.State, leader)
	}
	follower := j2
	if leader == 2 {
		follower = j3
	}
	if _, err := follower.WaitMode(ctx, "follower"); err != nil {
		t.Fatal(err)
	}
	checkJavaLog(t, 2, j2)
	checkJavaLog(t, 3, j3)
}

// TestJavaElectsGozk: gozk has the largest id, so both Java servers must
// vote it leader (they then find no leader on its quorum port, which gozk
// does not serve yet; the election is what is checked).
func TestJavaElectsGozk(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	m := newMixed(t, 1, 2, 3)
	g := m.startGozk(3)
	done := make(chan peer.ElectionResult, 1)
	go func() { done <- g.elect(t, ctx) }()
	j1, j2 := m.startJava(ctx, 1), m.startJava(ctx, 2)
	r := <-done
	if r.Vote.Leader != 3 || r.State != fle.Leading {
		t.Fatalf("gozk decided leader %d as %v, want itself leading", r.Vote.Leader, r.State)
	}
	for id, s := range map[int64]*javazk.Server{1: j1, 2: j2} {
		deadline := time.Now().Add(time.Minute)
		for !strings.Contains(s.Log(), "FOLLOWING - LEADER ELECTION TOOK") {
			if time.Now().After(deadline) {
				t.Fatalf("Java server %d never decided to follow:\n%s", id, lastLines(s.Log(), 40))
			}
			time.Sleep(100 * time.Millisecond)
		}
		if !strings.Contains(s.Log(), "Peer state changed: following") {
			t.Errorf("Java server %d did not follow", id)
		}
		checkJavaLog(t, id, s)
	}
}

// TestGozkJoinsRunningEnsemble: the Java servers have elected and serve;
// gozk starts afterwards and learns the leader from their answers.
func TestGozkJoinsRunningEnsemble(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	m := newMixed(t, 1, 2, 3)
	j2, j3 := m.startJava(ctx, 2), m.startJava(ctx, 3)
	if _, err := j3.WaitMode(ctx, "leader"); err != nil {
		t.Fatal(err)
	}
	g := m.startGozk(1)
	r := g.elect(t, ctx)
	if r.Vote.Leader != 3 || r.State != fle.Following {
		t.Fatalf("gozk decided leader %d as %v; Java's leader is 3", r.Vote.Leader, r.State)
	}
	// Java's leader has moved to epoch 1 and says so; gozk takes it.
	if r.Vote.PeerEpoch != 1 {
		t.Errorf("gozk took peer epoch %d from the running ensemble, want 1", r.Vote.PeerEpoch)
	}
	if mode := j2.Mode(); mode != "follower" {
		t.Errorf("Java server 2 is %q after gozk joined", mode)
	}
	checkJavaLog(t, 2, j2)
	checkJavaLog(t, 3, j3)
}

// TestGozkObserverLearnsJavaLeader: two Java voters and a gozk observer
// (its server line says observer). The voters elect among themselves; the
// observer votes for nobody and learns the leader from their answers.
func TestGozkObserverLearnsJavaLeader(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	m := newMixedWithObservers(t, []int64{1, 2}, []int64{3})
	j1, j2 := m.startJava(ctx, 1), m.startJava(ctx, 2)
	if _, err := j2.WaitMode(ctx, "leader"); err != nil {
		t.Fatal(err)
	}
	g := m.startGozk(3)
	r := g.elect(t, ctx)
	if r.Vote.Leader != 2 || r.State != fle.Observing {
		t.Fatalf("gozk observer decided leader %d as %v; Java's leader is 2", r.Vote.Leader, r.State)
	}
	checkJavaLog(t, 1, j1)
	checkJavaLog(t, 2, j2)
}
