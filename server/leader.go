package server

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gozk/gozk/proto"
)

// LeaderSink is how a leading server hands its txns to Zab: the peer's
// leader, which proposes them to the followers and counts the ACKs.
type LeaderSink interface {
	// Propose is called for every txn prep made, in zxid order, once the
	// log has it queued: PROPOSAL to the followers. data is the txn as
	// Java encodes it (header, record, digest), owned by the callee.
	Propose(zxid int64, data []byte)
	// Logged reports the leader's own log durable up to zxid: its ACK.
	Logged(zxid int64)
	// RolledOver says prep has no zxid left in this epoch (the counter
	// would reach 0xffffffff): the leader must step down, so that an
	// election starts a new epoch, as Java's does.
	RolledOver()
}

// errRoleEnded ends a leader's write loop when its role ends with
// batches still waiting for their quorum.
var errRoleEnded = errors.New("server: the leader's role ended")

// leaderRun is one term of this server as leader: the write loop runs
// with a quorum as its commit source, and the leader expires sessions and
// reaps containers for the whole ensemble.
type leaderRun struct {
	sink LeaderSink
	self int64 // this server's id: the owner of its own clients' sessions
	stop chan struct{}
	done chan struct{} // closed when the write loop has ended
	bg   sync.WaitGroup

	rollOnce sync.Once

	mu        sync.Mutex
	cond      *sync.Cond
	committed int64
	stopped   bool
}

// rolledOver tells the peer, once, that the zxids of this epoch ran out.
func (lr *leaderRun) rolledOver() {
	lr.rollOnce.Do(lr.sink.RolledOver)
}

// waitCommitted returns once zxid is committed, or errRoleEnded when the
// role ends first.
func (lr *leaderRun) waitCommitted(zxid int64) error {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	for lr.committed < zxid && !lr.stopped {
		lr.cond.Wait()
	}
	if lr.committed < zxid {
		return errRoleEnded
	}
	return nil
}

// end makes every waitCommitted, present and future, return
// errRoleEnded.
func (lr *leaderRun) end() {
	lr.mu.Lock()
	lr.stopped = true
	lr.cond.Broadcast()
	lr.mu.Unlock()
}

// Leading is what StartLeading needs.
type Leading struct {
	Sink LeaderSink
	// Epoch is the new epoch: the first txn is Epoch<<32 | 1, or
	// Epoch<<32 | InitialCounter+1 (zookeeper.testingonly.initialZxid).
	Epoch          int64
	InitialCounter int64
}

// StartLeading serves clients as the leader: writes are prepared here
// with zxids of the new epoch, proposed through the sink and applied as
// Committed reports them; sessions of every server expire here. Called by
// the peer once a quorum has acknowledged NEWLEADER.
func (s *Server) StartLeading(l Leading) error {
	if !s.cfg.Ensemble {
		return errors.New("server: a standalone server cannot lead")
	}
	if s.leading.Load() != nil {
		return errors.New("server: already leading")
	}
	lr := &leaderRun{sink: l.Sink, self: s.cfg.ServerID, stop: make(chan struct{}), done: make(chan struct{})}
	lr.cond = sync.NewCond(&lr.mu)
	// Java's leader sets its tree's last processed zxid to the new
	// epoch's first ("starting up and setting last processed zxid"): the
	// zxid srvr reports, the one learners are synced against and the one
	// its next election proposes.
	if start := l.Epoch << 32; s.tree.LastProcessedZxid() < start {
		s.tree.SetLastProcessedZxid(start)
	}
	lr.committed = s.tree.LastProcessedZxid()
	// The leader's tree is the one the digests are computed from.
	s.endFuzzyWindow(false)
	s.prep.lastZxid = l.Epoch<<32 | (l.InitialCounter & 0xffffffff)
	// Java's leader tracks every session the tree holds, each given a
	// full timeout from now; their owners are unknown until their
	// clients or learners speak up.
	s.tracker.reset(s.cfg.ServerID)
	for id, timeout := range s.tree.Sessions() {
		s.tracker.add(id, timeout)
	}
	s.leading.Store(lr)
	s.SetRole(RoleLeader)
	s.SetSyncMode("")
	go s.writeLoop(lr, lr.done)
	lr.bg.Add(2)
	go func() { defer lr.bg.Done(); s.expiryLoopUntil(lr.stop) }()
	go func() { defer lr.bg.Done(); s.containerLoopUntil(lr.stop) }()
	s.SetPhase(PhaseBroadcast) // Serving is true from here
	s.logger.Info().Int64("epoch", l.Epoch).Msg("leading; serving clients")
	return nil
}

// Committed reports that a quorum has acknowledged every txn up to zxid:
// the write loop applies them and answers.
func (s *Server) Committed(zxid int64) {
	lr := s.leading.Load()
	if lr == nil {
		return
	}
	lr.mu.Lock()
	if zxid > lr.committed {
		lr.committed = zxid
		lr.cond.Broadcast()
	}
	lr.mu.Unlock()
}

// stopLeading ends the leader's term: the write loop stops (batches
// waiting for their quorum are dropped unanswered with their
// connections), and so do expiry and reaping.
func (s *Server) stopLeading() {
	lr := s.leading.Swap(nil)
	if lr == nil {
		return
	}
	lr.end()
	close(lr.stop)
	<-lr.done
	lr.bg.Wait()
	// What was queued and never prepared is dropped with its connection.
	left := s.prepQueue.tryPopAll(nil)
	s.outstanding.Add(-int64(len(left)))
	s.prep.changes.reset()
}

// LearnerRequest is a write, createSession or closeSession a learner
// forwarded (a REQUEST): prepared here in arrival order with the local
// writes, with the identities of the learner's client.
type LearnerRequest struct {
	Owner   int64 // the learner's server id
	Session int64
	Cxid    int32
	Op      proto.OpCode
	Body    []byte
	IDs     []proto.Id
	// Reached, for a sync, is called when prep reaches it, in order with
	// the writes before it: the leader answers the sync once everything
	// proposed until then has committed.
	Reached func()
}

// SubmitLearnerRequest queues a learner's request for prep. Every one of
// them becomes exactly one txn (an ErrorTxn when it fails), which the
// learner matches to its client's request.
func (s *Server) SubmitLearnerRequest(lq LearnerRequest) error {
	if s.leading.Load() == nil {
		return errors.New("server: not leading")
	}
	r := &request{sid: lq.Session, xid: lq.Cxid, op: lq.Op, body: lq.Body, ids: lq.IDs, owner: lq.Owner, fromLearner: true,
		syncReached: lq.Reached, start: monoNanos()}
	if lq.Op == proto.OpCreateSession {
		if len(lq.Body) < 4 {
			return fmt.Errorf("server: createSession from server %d without a timeout", lq.Owner)
		}
		r.sessionTimeout = s.negotiateTimeout(int32(binary.BigEndian.Uint32(lq.Body)))
	}
	s.outstanding.Add(1)
	if !s.prepQueue.push(r) {
		s.outstanding.Add(-1)
		return errors.New("server: stopping")
	}
	return nil
}

// TouchSessions keeps alive the sessions a learner reported in its PING
// reply. Their owners stay: Java's followers report every session they
// commit, and only a revalidation moves a session.
func (s *Server) TouchSessions(touches map[int64]int32) {
	for id, timeout := range touches {
		s.tracker.touchID(id, timeout, 0)
	}
}

// RevalidateSession answers a learner's REVALIDATE: whether the session
// lives, in which case it is touched and the learner becomes its owner.
func (s *Server) RevalidateSession(owner, session int64, timeout int32) bool {
	s.mon.metrics.RevalidateCount.Add(1)
	return s.tracker.touchID(session, timeout, owner)
}

// expiryLoopUntil is expiryLoop for a leader's term.
func (s *Server) expiryLoopUntil(stop <-chan struct{}) {
	s.tracker.expireLoop(stop, time.After, s.expireSession)
}

// containerLoopUntil is containerLoop for a leader's term.
func (s *Server) containerLoopUntil(stop <-chan struct{}) { s.reapContainers(stop) }
