package zab

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/quorum"
)

// simLearner is a Learner on one connection to the leader, with what it
// applied and what crossed the connection.
type simLearner struct {
	conn      int64
	l         *Learner
	connected bool
	toLearner []proto.QuorumPacket
	toLeader  []proto.QuorumPacket
	tree      []int64 // zxids applied, in order
	logged    int64   // last zxid asked to log
	// What a Java 3.8.0 learner would fail on.
	sawNewLeader, sawUpToDate bool
	lastProposal              int64
}

type leaderSim struct {
	t        *testing.T
	rng      *rand.Rand
	leader   *Leader
	log      *fakeLog
	history  []int64 // every committed zxid, in order: the tree's before the leader and the leader's commits
	applied  int     // how much of history the leader's tree holds
	learners []*simLearner
	next     int64 // next zxid to propose
	trace    []string
}

func (s *leaderSim) fail(format string, args ...any) {
	s.t.Helper()
	for _, line := range s.trace[max(0, len(s.trace)-40):] {
		s.t.Log(line)
	}
	s.t.Fatalf(format, args...)
}

func (s *leaderSim) learnerOn(conn int64) *simLearner {
	for _, sl := range s.learners {
		if sl.conn == conn {
			return sl
		}
	}
	s.fail("no learner on connection %d", conn)
	return nil
}

func (s *leaderSim) leaderActions(acts []LeaderAction) {
	for _, a := range acts {
		switch a.Kind {
		case LeadSend, LeadSendSnap:
			sl := s.learnerOn(a.Conn)
			sl.toLearner = append(sl.toLearner, a.Packet)
		case LeadClose:
			s.fail("leader closed %d: %s", a.Conn, a.Reason)
		case LeadStepDown:
			s.fail("leader stepped down: %s", a.Reason)
		case LeadCommit:
			if a.Zxid <= s.history[len(s.history)-1] {
				s.fail("commit 0x%x after 0x%x", a.Zxid, s.history[len(s.history)-1])
			}
			s.history = append(s.history, a.Zxid)
		}
	}
}

// deliverToLearner gives sl the next packet from the leader, checking
// the rules a Java 3.8.0 learner lives by.
func (s *leaderSim) deliverToLearner(sl *simLearner) {
	p := sl.toLearner[0]
	sl.toLearner = sl.toLearner[1:]
	t := PacketType(p.Type)
	s.trace = append(s.trace, fmt.Sprintf("leader -> %d: %s 0x%x", sl.conn, t, p.Zxid))
	switch t {
	case NewLeader:
		sl.sawNewLeader = true
	case UpToDate:
		sl.sawUpToDate = true
	case Commit:
		if sl.sawNewLeader && !sl.sawUpToDate {
			s.fail("learner %d: COMMIT 0x%x between NEWLEADER and UPTODATE", sl.conn, p.Zxid)
		}
	case Proposal:
		if p.Zxid <= sl.lastProposal {
			s.fail("learner %d: PROPOSAL 0x%x after 0x%x", sl.conn, p.Zxid, sl.lastProposal)
		}
		sl.lastProposal = p.Zxid
	case Inform:
		// Observers are sent no PROPOSAL in the broadcast.
		if sl.sawUpToDate && p.Zxid <= sl.lastProposal {
			s.fail("learner %d: INFORM 0x%x after 0x%x", sl.conn, p.Zxid, sl.lastProposal)
		}
		sl.lastProposal = max(sl.lastProposal, p.Zxid)
	}
	acts, err := sl.l.Receive(p)
	if err != nil {
		s.fail("learner %d: %v", sl.conn, err)
	}
	for _, w := range sl.l.TakeWarnings() {
		// Java's learner also warns of the first zxid of an epoch,
		// which does not follow the last of the previous one.
		if !strings.Contains(w, fmt.Sprintf("for zxid 0x%x,", MakeZxid(2, 1))) {
			s.fail("learner %d warns: %v", sl.conn, w)
		}
	}
	for _, a := range acts {
		switch a.Kind {
		case SendPacket, ReplyPing:
			sl.toLeader = append(sl.toLeader, a.Packet)
		case TruncateLog:
			sl.tree = slices.DeleteFunc(sl.tree, func(z int64) bool { return z > a.Zxid })
		case LoadSnapshot:
			sl.tree = nil
			for _, z := range s.history[:s.applied] {
				if z <= a.Zxid {
					sl.tree = append(sl.tree, z)
				}
			}
		case ApplyTxn:
			sl.tree = append(sl.tree, a.Txn.Zxid)
		case CommitTxn:
			sl.tree = append(sl.tree, a.Zxid)
		case LogTxn:
			sl.logged = a.Txn.Zxid
		}
	}
	for i, z := range sl.tree {
		if i >= len(s.history) || s.history[i] != z {
			s.fail("learner %d applied %x, the committed history is %x", sl.conn, sl.tree, s.history)
		}
	}
}

func (s *leaderSim) deliverToLeader(sl *simLearner) {
	p := sl.toLeader[0]
	sl.toLeader = sl.toLeader[1:]
	s.trace = append(s.trace, fmt.Sprintf("%d -> leader: %s 0x%x", sl.conn, PacketType(p.Type), p.Zxid))
	s.leaderActions(s.leader.Receive(sl.conn, p))
}

func (s *leaderSim) flushLearner(sl *simLearner) {
	for _, a := range sl.l.Logged(sl.logged) {
		sl.toLeader = append(sl.toLeader, a.Packet)
	}
}

func (s *leaderSim) apply() {
	for ; s.applied < len(s.history); s.applied++ {
		z := s.history[s.applied]
		if z > s.log.last {
			s.log.committed = append(s.log.committed, z)
			s.log.last = z
		}
	}
	s.trace = append(s.trace, fmt.Sprintf("leader applied up to 0x%x", s.log.last))
}

// reportApplied tells the leader what its tree holds, which a real
// caller does some time after applying.
func (s *leaderSim) reportApplied() {
	s.leader.Applied(s.log.last)
	s.trace = append(s.trace, fmt.Sprintf("leader reports applied up to 0x%x", s.log.last))
}

// TestLeaderWithLearners runs a leader with followers and an observer
// (this package's Learner) that join at random moments, while the leader
// proposes, logs, commits and applies in random order: every learner
// must end with the leader's history, no learner may see a COMMIT between
// NEWLEADER and UPTODATE or a proposal twice, and no Learner may fail or
// warn.
func TestLeaderWithLearners(t *testing.T) {
	for seed := range uint64(300) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { runLeaderSim(t, seed) })
	}
}

func runLeaderSim(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	// Epoch 1 committed 0x100000001 to 0x100000006; the leader's
	// committed log keeps the last three, its txn log all of them.
	var initial []int64
	for c := uint32(1); c <= 6; c++ {
		initial = append(initial, MakeZxid(1, c))
	}
	log := &fakeLog{last: initial[5], committed: slices.Clone(initial[3:]), txnLog: slices.Clone(initial)}
	if rng.IntN(4) == 0 {
		log.txnLog = nil // learners behind the committed log get a SNAP
	}
	en := ensembleOf([]int64{1, 2, 3, 4, 5}, []int64{6}, "", nil)
	leader, err := Lead(LeaderConfig{ID: 1, AcceptedEpoch: 1, CurrentEpoch: 1, LastZxid: initial[5],
		Verifier: quorum.New(en), InitLimit: 1000, SyncLimit: 1000, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	s := &leaderSim{t: t, rng: rng, leader: leader, log: log, history: slices.Clone(initial), applied: len(initial),
		next: MakeZxid(2, 1)}
	s.leaderActions(leader.Start())
	for sid := int64(2); sid <= 6; sid++ {
		k := rng.IntN(len(initial) + 1)
		last := MakeZxid(1, 0)
		if k > 0 {
			last = initial[k-1]
		}
		l := NewLearner(LearnerConfig{ID: sid, Observer: sid == 6, AcceptedEpoch: 1, CurrentEpoch: 1, LastZxid: last})
		s.learners = append(s.learners, &simLearner{conn: 100 + sid, l: l, tree: slices.Clone(initial[:k])})
	}
	const proposals = 30
	for step := 0; step < 2000; step++ {
		sl := s.learners[rng.IntN(len(s.learners))]
		switch rng.IntN(8) {
		case 0:
			if !sl.connected {
				sl.connected = true
				if err := leader.Connect(sl.conn); err != nil {
					t.Fatal(err)
				}
				for _, a := range sl.l.Start() {
					sl.toLeader = append(sl.toLeader, a.Packet)
				}
			}
		case 1, 2:
			if len(sl.toLearner) > 0 {
				s.deliverToLearner(sl)
			}
		case 3, 4:
			if len(sl.toLeader) > 0 {
				s.deliverToLeader(sl)
			}
		case 5:
			if leader.Serving() && s.next <= MakeZxid(2, proposals) {
				acts, err := leader.Propose(s.next, txnData(s.next))
				if err != nil {
					t.Fatal(err)
				}
				s.trace = append(s.trace, fmt.Sprintf("propose 0x%x", s.next))
				s.next++
				s.leaderActions(acts)
			}
		case 6:
			switch rng.IntN(4) {
			case 0:
				s.leaderActions(leader.LocalLogged(leader.LastProposed()))
			case 1:
				s.apply()
			case 2:
				s.reportApplied()
			default:
				s.flushLearner(sl)
			}
		case 7:
			if rng.IntN(10) == 0 {
				s.leaderActions(leader.Tick())
			}
		}
	}
	// Everyone joins; everything is delivered and made durable, and the
	// rest proposed.
	for _, sl := range s.learners {
		if !sl.connected {
			sl.connected = true
			if err := leader.Connect(sl.conn); err != nil {
				t.Fatal(err)
			}
			for _, a := range sl.l.Start() {
				sl.toLeader = append(sl.toLeader, a.Packet)
			}
		}
	}
	for busy := true; busy; {
		busy = false
		for _, sl := range s.learners {
			for len(sl.toLearner) > 0 || len(sl.toLeader) > 0 {
				busy = true
				if len(sl.toLearner) > 0 {
					s.deliverToLearner(sl)
				}
				if len(sl.toLeader) > 0 {
					s.deliverToLeader(sl)
				}
			}
			s.flushLearner(sl)
			if len(sl.toLeader) > 0 {
				busy = true
			}
		}
		if leader.Serving() && s.next <= MakeZxid(2, proposals) {
			acts, err := leader.Propose(s.next, txnData(s.next))
			if err != nil {
				t.Fatal(err)
			}
			s.next++
			s.leaderActions(acts)
			busy = true
		}
		if leader.LastCommitted() < leader.LastProposed() {
			s.leaderActions(leader.LocalLogged(leader.LastProposed()))
		}
		s.apply()
		s.reportApplied()
	}
	if !leader.Serving() || leader.LastCommitted() != MakeZxid(2, proposals) {
		s.fail("leader serving %v, last committed 0x%x", leader.Serving(), leader.LastCommitted())
	}
	for _, sl := range s.learners {
		if !sl.l.Serving() || !slices.Equal(sl.tree, s.history) {
			s.fail("learner %d (serving %v) applied %x, the history is %x", sl.conn, sl.l.Serving(), sl.tree, s.history)
		}
	}
	for _, w := range leader.TakeWarnings() {
		t.Log(w)
	}
}
