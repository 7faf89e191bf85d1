package peer

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/fle"
	"github.com/gozk/gozk/internal/testport"
	"github.com/gozk/gozk/quorum"
	"github.com/gozk/gozk/quorum/electionport"
)

// testEnsemble is a majority ensemble on loopback: voters and observers by
// id, each with a free election port.
type testEnsemble struct {
	ens   *conf.Ensemble
	addrs map[int64]string
}

func newTestEnsemble(t *testing.T, voters []int64, observers ...int64) *testEnsemble {
	t.Helper()
	te := &testEnsemble{ens: &conf.Ensemble{Servers: map[int64]*conf.ServerSpec{}}, addrs: map[int64]string{}}
	add := func(id int64, typ conf.LearnerType) {
		port := testport.MustFree(t)
		te.addrs[id] = "127.0.0.1:" + strconv.Itoa(port)
		te.ens.Servers[id] = &conf.ServerSpec{ID: id, Type: typ,
			Addrs: []conf.QuorumAddr{{Host: "127.0.0.1", QuorumPort: 1, ElectionPort: port}}}
	}
	for _, id := range voters {
		add(id, conf.Participant)
	}
	for _, id := range observers {
		add(id, conf.Observer)
	}
	return te
}

// member is one server's election stack.
type member struct {
	id     int64
	mgr    *electionport.Manager
	el     *Elector
	cancel context.CancelFunc
	self   fle.Self
}

func (te *testEnsemble) start(t *testing.T, id, zxid, epoch int64) *member {
	t.Helper()
	peers := map[int64][]string{}
	for sid, a := range te.addrs {
		peers[sid] = []string{a}
	}
	mgr, err := electionport.Start(electionport.Config{ID: id, ListenAddrs: []string{te.addrs[id]},
		Advertise: []string{te.addrs[id]}, Peers: peers, HandshakeTimeout: 2 * time.Second, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Short intervals keep the tests quick; the protocol does not depend
	// on their length.
	el := NewElector(mgr, ElectionTimers{FinalizeWait: 200 * time.Millisecond, MinNotificationInterval: 50 * time.Millisecond, MaxNotificationInterval: 400 * time.Millisecond}, testLogger(id))
	go el.Run(ctx)
	qv := quorum.New(te.ens)
	m := &member{id: id, mgr: mgr, el: el, cancel: cancel, self: fle.Self{
		ID: id, Verifier: qv, LastLoggedZxid: zxid, CurrentEpoch: epoch,
		Current: fle.Vote{Leader: id, Zxid: zxid, PeerEpoch: epoch}, Config: []byte(te.ens.QuorumConfig()),
	}}
	t.Cleanup(m.stop)
	return m
}

func (m *member) stop() {
	m.cancel()
	m.mgr.Close()
}

type outcome struct {
	id  int64
	r   ElectionResult
	err error
}

func electAll(members ...*member) chan outcome {
	out := make(chan outcome, len(members))
	for _, m := range members {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			r, err := m.el.Elect(ctx, m.self)
			out <- outcome{m.id, r, err}
		}()
	}
	return out
}

func collect(t *testing.T, ch chan outcome, n int) map[int64]ElectionResult {
	t.Helper()
	got := map[int64]ElectionResult{}
	for i := 0; i < n; i++ {
		o := <-ch
		if o.err != nil {
			t.Fatalf("server %d: %v", o.id, o.err)
		}
		got[o.id] = o.r
	}
	return got
}

// agreed checks that every server decided the same leader, one of
// allowed, and returns it. Which of the best servers wins depends on
// which votes formed the first quorum (a server slow to start may find
// the others decided without it), so tests name the servers that may.
func agreed(t *testing.T, got map[int64]ElectionResult, allowed ...int64) int64 {
	t.Helper()
	leader := int64(-1)
	for id, r := range got {
		if leader == -1 {
			leader = r.Vote.Leader
		}
		if r.Vote.Leader != leader {
			t.Fatalf("server %d decided leader %d, another decided %d", id, r.Vote.Leader, leader)
		}
	}
	for _, a := range allowed {
		if leader == a {
			return leader
		}
	}
	t.Fatalf("leader %d elected, want one of %v", leader, allowed)
	return leader
}

func checkOutcome(t *testing.T, got map[int64]ElectionResult, leader int64, observers ...int64) {
	t.Helper()
	isObserver := map[int64]bool{}
	for _, o := range observers {
		isObserver[o] = true
	}
	for id, r := range got {
		want := fle.Following
		switch {
		case id == leader:
			want = fle.Leading
		case isObserver[id]:
			want = fle.Observing
		}
		if r.Vote.Leader != leader || r.State != want {
			t.Errorf("server %d: leader %d as %v, want leader %d as %v", id, r.Vote.Leader, r.State, leader, want)
		}
	}
}

func TestFreshEnsembleElectsTheLargestID(t *testing.T) {
	te := newTestEnsemble(t, []int64{1, 2, 3})
	ms := []*member{te.start(t, 1, 0, 0), te.start(t, 2, 0, 0), te.start(t, 3, 0, 0)}
	got := collect(t, electAll(ms...), 3)
	// Server 1 never wins: every quorum holds 2 or 3, who beat it.
	checkOutcome(t, got, agreed(t, got, 2, 3))
}

func TestTheMostUpToDateServerLeads(t *testing.T) {
	te := newTestEnsemble(t, []int64{1, 2, 3, 4, 5})
	// Server 2 has the newest epoch; 5 has more txns of an older one.
	ms := []*member{
		te.start(t, 1, 0x100000005, 1),
		te.start(t, 2, 0x200000001, 2),
		te.start(t, 3, 0x100000007, 1),
		te.start(t, 4, 0x200000000, 2),
		te.start(t, 5, 0x100000009, 1),
	}
	got := collect(t, electAll(ms...), 5)
	// The newest epoch wins: server 2, or server 4 (same epoch, fewer
	// txns) when 2 was not among the first quorum.
	checkOutcome(t, got, agreed(t, got, 2, 4))
}

func TestLateServersLearnTheLeader(t *testing.T) {
	te := newTestEnsemble(t, []int64{1, 2, 3}, 4)
	m1, m3 := te.start(t, 1, 0, 0), te.start(t, 3, 0, 0)
	checkOutcome(t, collect(t, electAll(m1, m3), 2), 3)
	// A voter and an observer that start afterwards are told the outcome
	// by the servers out of the election.
	m2, m4 := te.start(t, 2, 0, 0), te.start(t, 4, 0, 0)
	checkOutcome(t, collect(t, electAll(m2, m4), 2), 3, 4)
}

func TestLeaderLostElectsAgain(t *testing.T) {
	te := newTestEnsemble(t, []int64{1, 2, 3})
	ms := map[int64]*member{1: te.start(t, 1, 0, 0), 2: te.start(t, 2, 0, 0), 3: te.start(t, 3, 0, 0)}
	first := collect(t, electAll(ms[1], ms[2], ms[3]), 3)
	leader := agreed(t, first, 2, 3)
	checkOutcome(t, first, leader)
	ms[leader].stop()
	var rest []*member
	best := int64(0)
	for id, m := range ms {
		if id != leader {
			rest = append(rest, m)
			best = max(best, id)
		}
	}
	// The two left both vote, and the larger id wins.
	again := collect(t, electAll(rest...), 2)
	checkOutcome(t, again, agreed(t, again, best))
	for id, r := range again {
		if r.Vote.ElectionEpoch <= first[id].Vote.ElectionEpoch {
			t.Errorf("server %d: round %d did not move past %d", id, r.Vote.ElectionEpoch, first[id].Vote.ElectionEpoch)
		}
	}
}

func TestNoQuorumNoLeader(t *testing.T) {
	te := newTestEnsemble(t, []int64{1, 2, 3})
	m1 := te.start(t, 1, 0, 0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if r, err := m1.el.Elect(ctx, m1.self); err == nil {
		t.Fatalf("one server of three elected %+v", r)
	}
}

func TestUpdatedEpochReachesJoiners(t *testing.T) {
	te := newTestEnsemble(t, []int64{1, 2, 3})
	m1, m3 := te.start(t, 1, 0, 0), te.start(t, 3, 0, 0)
	checkOutcome(t, collect(t, electAll(m1, m3), 2), 3)
	// After syncing, both answer with the new epoch; a joiner adopts it.
	m1.el.UpdatePeerEpoch(1)
	m3.el.UpdatePeerEpoch(1)
	m2 := te.start(t, 2, 0, 0)
	got := collect(t, electAll(m2), 1)
	if r := got[2]; r.Vote.Leader != 3 || r.Vote.PeerEpoch != 1 || r.State != fle.Following {
		t.Fatalf("joiner decided %+v as %v, want leader 3 with peer epoch 1", r.Vote, r.State)
	}
}

func testLogger(id int64) zerolog.Logger {
	if testing.Verbose() {
		return zerolog.New(zerolog.ConsoleWriter{Out: os.Stderr}).With().Int64("me", id).Logger()
	}
	return zerolog.Nop()
}
