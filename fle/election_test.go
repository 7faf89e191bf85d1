package fle

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/quorum"
)

// majority builds a majority verifier of participants 1..voters and
// observers after them.
func majority(voters, observers int) quorum.Verifier {
	e := &conf.Ensemble{Servers: map[int64]*conf.ServerSpec{}}
	for i := 1; i <= voters+observers; i++ {
		typ := conf.Participant
		if i > voters {
			typ = conf.Observer
		}
		e.Servers[int64(i)] = &conf.ServerSpec{ID: int64(i), Type: typ}
	}
	return quorum.New(e)
}

func TestBeats(t *testing.T) {
	qv := majority(3, 0)
	for _, c := range []struct {
		newL, newZ, newE, curL, curZ, curE int64
		want                               bool
	}{
		{1, 0, 2, 3, 100, 1, true}, // a higher epoch wins over any zxid
		{1, 5, 1, 3, 4, 1, true},   // same epoch: the higher zxid
		{3, 4, 1, 2, 4, 1, true},   // same epoch and zxid: the higher id
		{2, 4, 1, 3, 4, 1, false},  // ... not the lower
		{3, 4, 1, 3, 4, 1, false},  // a vote does not beat itself
		{1, 9, 0, 2, 1, 1, false},  // a lower epoch loses whatever its zxid
		{7, 9, 9, 1, 0, 0, true},   // majority weighs any id 1, as Java; Receive drops non-voting leaders first
	} {
		if got := Beats(qv, c.newL, c.newZ, c.newE, c.curL, c.curZ, c.curE); got != c.want {
			t.Errorf("Beats(%d/%d/%d over %d/%d/%d) = %v, want %v", c.newL, c.newZ, c.newE, c.curL, c.curZ, c.curE, got, c.want)
		}
	}
	// A zero-weight server of a hierarchical ensemble never wins.
	e := &conf.Ensemble{Servers: map[int64]*conf.ServerSpec{1: {ID: 1}, 2: {ID: 2}, 3: {ID: 3}}, Hierarchical: true,
		Groups: map[int64][]int64{1: {1, 2, 3}}, Weights: map[int64]int64{1: 1, 2: 1, 3: 0}}
	if Beats(quorum.New(e), 3, 100, 100, 1, 0, 0) {
		t.Error("a server of weight 0 beat another")
	}
}

func TestVoteSame(t *testing.T) {
	base := Vote{Leader: 3, Zxid: 10, ElectionEpoch: 2, PeerEpoch: 1, State: Looking}
	with := func(f func(*Vote)) Vote { v := base; f(&v); return v }
	for _, c := range []struct {
		name string
		a, b Vote
		want bool
	}{
		{"looking: all four fields", base, base, true},
		{"looking: another zxid", base, with(func(v *Vote) { v.Zxid = 11 }), false},
		{"looking: another round", base, with(func(v *Vote) { v.ElectionEpoch = 3 }), false},
		{"one side looking is enough for the full check", base, with(func(v *Vote) { v.State = Following; v.Zxid = 11 }), false},
		{"out of election: zxid and round do not count",
			with(func(v *Vote) { v.State = Following; v.Version = 2 }),
			with(func(v *Vote) { v.State = Leading; v.Version = 2; v.Zxid = 99; v.ElectionEpoch = 9 }), true},
		{"out of election: the peer epoch counts",
			with(func(v *Vote) { v.State = Following; v.Version = 2 }),
			with(func(v *Vote) { v.State = Following; v.Version = 2; v.PeerEpoch = 2 }), false},
		{"out of election, one side without a version: the leader alone",
			with(func(v *Vote) { v.State = Following }),
			with(func(v *Vote) { v.State = Following; v.Version = 2; v.PeerEpoch = 5 }), true},
	} {
		if got := c.a.Same(c.b); got != c.want {
			t.Errorf("%s: Same = %v, want %v", c.name, got, c.want)
		}
	}
}

// network delivers notifications between elections in a random order and
// fires finalize timers only when nothing is in flight, as a 200 ms
// finalize wait would on a network that delivers within it.
type network struct {
	t        *testing.T
	rng      *rand.Rand
	nodes    map[int64]*Election
	inflight []msg
	waiting  map[int64]bool // finalize timer running
	sent     int
}

type msg struct {
	from int64
	Outgoing
}

func (nw *network) send(from int64, out []Outgoing) {
	for _, o := range out {
		if _, ok := nw.nodes[o.To]; ok {
			nw.inflight = append(nw.inflight, msg{from, o})
			nw.sent++
		}
	}
}

// start starts elections on servers that are all up before any of them
// sends: a notification to a server not yet up would be lost, and the
// others could then rightly elect without it.
func (nw *network) start(selves ...Self) {
	outs := make([][]Outgoing, len(selves))
	for i, s := range selves {
		nw.nodes[s.ID], outs[i] = NewElection(s, 0)
	}
	for i, s := range selves {
		nw.send(s.ID, outs[i])
	}
}

// run delivers until every node has decided, or fails after a bound.
func (nw *network) run() {
	for steps := 0; ; steps++ {
		if steps > 100000 {
			nw.t.Fatalf("no decision after %d steps", steps)
		}
		if len(nw.inflight) > 0 {
			i := nw.rng.IntN(len(nw.inflight))
			m := nw.inflight[i]
			nw.inflight = append(nw.inflight[:i], nw.inflight[i+1:]...)
			e := nw.nodes[m.To]
			out, ev := e.Receive(m.from, m.N)
			nw.waiting[m.To] = ev == StartFinalizeWait
			nw.send(m.To, out)
			continue
		}
		fired := false
		for id, w := range nw.waiting {
			if w {
				nw.waiting[id] = false
				nw.nodes[id].FinalizeExpired()
				fired = true
			}
		}
		if fired {
			continue
		}
		undecided := false
		for id, e := range nw.nodes {
			if _, _, ok := e.Result(); !ok {
				undecided = true
				nw.send(id, e.Resend()) // the notification interval ran out
			}
		}
		if !undecided {
			return
		}
	}
}

// TestElectionsAgree: in ensembles of 3 and 5 voters whose servers start
// with random epochs and zxids, every delivery order elects the same
// leader, the best vote (peer epoch, then zxid, then id), everywhere;
// the leader leads and the others follow. A voter and an observer that
// start after the election learn its outcome from the servers' replies.
func TestElectionsAgree(t *testing.T) {
	for _, voters := range []int{1, 3, 5} {
		for seed := uint64(0); seed < 200; seed++ {
			t.Run(fmt.Sprintf("%d-voters/seed-%d", voters, seed), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, uint64(voters)))
				qv := majority(voters+1, 1) // the last voter joins late
				late, observer := int64(voters+1), int64(voters+2)
				nw := &network{t: t, rng: rng, nodes: map[int64]*Election{}, waiting: map[int64]bool{}}
				selves := map[int64]Self{}
				var best Vote
				for id := int64(1); id <= int64(voters); id++ {
					s := Self{ID: id, Verifier: qv, LastLoggedZxid: rng.Int64N(4), CurrentEpoch: rng.Int64N(3)}
					s.Current = Vote{Leader: id, Zxid: s.LastLoggedZxid, PeerEpoch: s.CurrentEpoch, ElectionEpoch: -1, State: Looking}
					selves[id] = s
					// The best vote, by peer epoch, then zxid, then id.
					if id == 1 || s.CurrentEpoch > best.PeerEpoch ||
						s.CurrentEpoch == best.PeerEpoch && (s.LastLoggedZxid > best.Zxid || s.LastLoggedZxid == best.Zxid) {
						best = Vote{Leader: id, Zxid: s.LastLoggedZxid, PeerEpoch: s.CurrentEpoch}
					}
				}
				if voters < 3 {
					// One voter of a 2-voter ensemble (with the late one)
					// is no quorum: give it the whole ensemble.
					qv = majority(voters, 1)
					observer = int64(voters + 1)
					late = 0
					for id, s := range selves {
						s.Verifier = qv
						selves[id] = s
					}
				}
				var first []Self
				for id := int64(1); id <= int64(voters); id++ {
					first = append(first, selves[id])
				}
				nw.start(first...)
				nw.run()
				check := func(id int64, wantState ServerState) {
					t.Helper()
					v, state, ok := nw.nodes[id].Result()
					if !ok || v.Leader != best.Leader || state != wantState {
						t.Fatalf("server %d: decided %v, leader %d as %v; want leader %d as %v (best vote %+v)", id, ok, v.Leader, state, best.Leader, wantState, best)
					}
				}
				for id := int64(1); id <= int64(voters); id++ {
					want := Following
					if id == best.Leader {
						want = Leading
					}
					check(id, want)
				}
				joiners := []int64{observer}
				if late != 0 {
					joiners = append(joiners, late)
				}
				var later []Self
				for _, id := range joiners {
					s := Self{ID: id, Verifier: qv, LastLoggedZxid: 0, CurrentEpoch: 0}
					s.Current = Vote{Leader: id, ElectionEpoch: -1, PeerEpoch: -1}
					later = append(later, s)
				}
				nw.start(later...)
				nw.run()
				check(observer, Observing)
				if late != 0 {
					check(late, Following)
				}
			})
		}
	}
}

// TestFinalizeWait: a quorum for the proposal starts the finalize wait; a
// vote no better restarts it and is dropped; a better one ends it and is
// taken, and the wait ends in a decision only when it expires.
func TestFinalizeWait(t *testing.T) {
	qv := majority(3, 0)
	self := Self{ID: 3, Verifier: qv, LastLoggedZxid: 5, CurrentEpoch: 1}
	e, out := NewElection(self, 0)
	if len(out) != 3 || out[0].N.Leader != 3 || out[0].N.ElectionEpoch != 1 {
		t.Fatalf("initial notifications %+v", out)
	}
	mine := out[0].N
	if _, ev := e.Receive(3, mine); ev != Nothing {
		t.Fatalf("its own vote alone: %v", ev)
	}
	// Server 2 votes for 3 too: a quorum of 3.
	agree := mine
	if _, ev := e.Receive(2, agree); ev != StartFinalizeWait {
		t.Fatalf("a quorum for the proposal: %v, want StartFinalizeWait", ev)
	}
	// Server 2 now votes for 1 (lower zxid): no better, so Java drops it
	// without recording it; 2 still counts for 3, and the wait goes on.
	if _, ev := e.Receive(2, Notification{State: Looking, Leader: 1, Zxid: 4, ElectionEpoch: 1, PeerEpoch: 1, Version: 2}); ev != StartFinalizeWait {
		t.Fatalf("a worse vote from a server counted in the quorum: %v, want StartFinalizeWait", ev)
	}
	// Server 1's vote for itself (lower zxid) is no better: dropped.
	worse := Notification{State: Looking, Leader: 1, Zxid: 4, ElectionEpoch: 1, PeerEpoch: 1, Version: 2}
	if _, ev := e.Receive(1, worse); ev != StartFinalizeWait {
		t.Fatalf("a worse vote while waiting: %v, want StartFinalizeWait", ev)
	}
	// A better vote (server 1 with a higher zxid) ends the wait and is taken.
	better := Notification{State: Looking, Leader: 1, Zxid: 9, ElectionEpoch: 1, PeerEpoch: 1, Version: 2}
	out, ev := e.Receive(1, better)
	if ev != Nothing || len(out) != 3 || out[0].N.Leader != 1 {
		t.Fatalf("a better vote while waiting: %v, %+v; want the new proposal to all, no quorum yet", ev, out)
	}
	if e.FinalizeExpired() {
		t.Fatal("a finalize timer decided after the wait had ended")
	}
	if p := e.Proposal(); p.Leader != 1 || p.Zxid != 9 {
		t.Fatalf("proposal %+v", p)
	}
	// Server 1's better vote was recorded when taken: with this server's
	// new proposal back, 2 of 3 vote for 1.
	if _, ev := e.Receive(3, out[2].N); ev != StartFinalizeWait {
		t.Fatalf("own new proposal with server 1's vote: %v, want StartFinalizeWait", ev)
	}
	if !e.FinalizeExpired() {
		t.Fatal("the wait expired without a decision")
	}
	if v, state, _ := e.Result(); v.Leader != 1 || state != Following {
		t.Fatalf("decided %+v as %v", v, state)
	}
}

// TestReceiverReplies: a non-voter gets the current vote back at once; a
// looking voter a round behind gets the proposal; once decided, a looking
// voter gets the outcome with its round; unknown states are dropped.
func TestReceiverReplies(t *testing.T) {
	qv := majority(3, 1)
	self := Self{ID: 2, Verifier: qv, LastLoggedZxid: 5, CurrentEpoch: 1,
		Current: Vote{Leader: 2, Zxid: 5, ElectionEpoch: -1, PeerEpoch: 1, State: Looking}}
	e, _ := NewElection(self, 4) // round 5
	out, _ := e.Receive(4, Notification{State: Looking, Leader: minInt64, Zxid: minInt64, PeerEpoch: minInt64})
	if len(out) != 1 || out[0].To != 4 || out[0].N.Leader != 2 || out[0].N.ElectionEpoch != 5 || out[0].N.State != Looking {
		t.Fatalf("reply to an observer: %+v", out)
	}
	out, _ = e.Receive(1, Notification{State: Looking, Leader: 1, Zxid: 1, ElectionEpoch: 3, PeerEpoch: 1})
	if len(out) != 1 || out[0].To != 1 || out[0].N.Leader != 2 || out[0].N.ElectionEpoch != 5 {
		t.Fatalf("reply to a voter two rounds behind: %+v", out)
	}
	if out, _ := e.Receive(1, Notification{State: 7, Leader: 1, ElectionEpoch: 5}); len(out) != 0 {
		t.Fatalf("an unknown state got %+v", out)
	}
	// Servers 3 and 1 follow 3 in round 5; 3 says it leads: decided.
	lead := Notification{State: Leading, Leader: 3, Zxid: 8, ElectionEpoch: 5, PeerEpoch: 2, Version: 2}
	e.Receive(3, lead)
	follow := lead
	follow.State = Following
	if _, ev := e.Receive(1, follow); ev != Decided {
		t.Fatalf("a quorum following 3, which leads: %v", ev)
	}
	out, _ = e.Receive(1, Notification{State: Looking, Leader: 1, Zxid: 1, ElectionEpoch: 9, PeerEpoch: 1})
	if len(out) != 1 || out[0].N.State != Following || out[0].N.Leader != 3 || out[0].N.ElectionEpoch != 5 {
		t.Fatalf("reply once decided: %+v", out)
	}
	if out, _ := e.Receive(1, follow); len(out) != 0 {
		t.Fatalf("a following voter got %+v after the decision", out)
	}
}

// TestLeaderMustVote: a notification proposing a server that is not a
// voter (an observer, or one not in the configuration) changes nothing.
func TestLeaderMustVote(t *testing.T) {
	qv := majority(3, 1)
	e, _ := NewElection(Self{ID: 1, Verifier: qv, LastLoggedZxid: 1, CurrentEpoch: 1}, 0)
	for _, leader := range []int64{4, 9} {
		out, ev := e.Receive(2, Notification{State: Looking, Leader: leader, Zxid: 100, ElectionEpoch: 1, PeerEpoch: 100, Version: 2})
		if len(out) != 0 || ev != Nothing || e.Proposal().Leader != 1 {
			t.Errorf("a vote for %d: sent %+v, event %v, proposal %+v", leader, out, ev, e.Proposal())
		}
	}
}
