package server

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/internal/failpoint"
	"github.com/gozk/gozk/persistence"
	"github.com/gozk/gozk/persistence/zkfiles"
	"github.com/gozk/gozk/proto"
)

// LeaderLink is how a learner's server reaches its leader: the peer's
// connection to it. Its calls queue a packet and return; an error means
// the connection is gone, and the peer will stop the learner's serving.
type LeaderLink interface {
	// Forward sends a client's write, sync, createSession or
	// closeSession to the leader as a REQUEST, with the identities of
	// the connection that sent it (the leader checks ACLs with them).
	Forward(sid int64, cxid int32, op proto.OpCode, body []byte, ids []proto.Id) error
	// Revalidate asks the leader whether session sid is still alive, for
	// a client reconnecting here with it.
	Revalidate(sid int64, timeout int32) error
}

// learnerState is the pipeline of a follower or observer: writes are
// forwarded to the leader and wait, each in its session's queue, for the
// commit of the txn the leader made of it; committed txns are applied in
// zxid order whether or not a local request waits for them, matched to
// local requests by session and cxid as Java's CommitProcessor does.
type learnerState struct {
	link     LeaderLink
	observer bool
	stop     chan struct{} // closed to end forwardLoop
	done     chan struct{} // closed by forwardLoop

	mu sync.Mutex
	// forwarded are the writes sent to the leader and not yet committed,
	// per session, oldest first.
	forwarded map[int64][]*request
	// syncs are the forwarded syncs, oldest first: the leader answers
	// each learner's in order. Those of this follower's observers
	// (RelaySync) wait in the same line; syncMu keeps the line in the
	// order the leader is sent them.
	syncs  []pendingSync
	syncMu sync.Mutex
	// revalidating are the connections waiting for the leader's answer
	// about their session.
	revalidating map[int64][]revalidation
	// touched is the touch table: the sessions seen since the last ping
	// and their timeouts, which the leader uses to keep them alive.
	touched map[int64]int32
}

// pendingSync is a forwarded sync: a client's request, or an observer's
// that relayed runs for once the leader answers it.
type pendingSync struct {
	r       *request
	relayed func()
}

type revalidation struct {
	conn    *connection
	timeout int32
}

// learnerLog is an ensemble member's side of the txn log: what its peer
// logs (proposals, informs, the txns of a sync) goes to the log
// asynchronously, so that many txns share an fsync, and its durability
// is reported in order on Logged.
type learnerLog struct {
	waits  chan loggedAppend
	logged chan int64 // the highest durable zxid, newest only

	mu        sync.Mutex
	cond      *sync.Cond
	submitted int64
	durable   int64
	err       error
	// uncommitted are the txns logged and not yet committed, oldest
	// first: a COMMIT names only a zxid.
	uncommitted []loggedTxn
}

type loggedAppend struct {
	pending persistence.PendingAppend
	zxid    int64
}

type loggedTxn struct {
	zxid int64
	data []byte
}

func newLearnerLog() *learnerLog {
	l := &learnerLog{waits: make(chan loggedAppend, 4096), logged: make(chan int64, 1)}
	l.cond = sync.NewCond(&l.mu)
	return l
}

// waitDurable reports the appends' durability in order until waits is
// closed; a failed fsync fails the server.
func (s *Server) waitDurable(l *learnerLog) {
	defer close(s.ensembleDone)
	for a := range l.waits {
		err := a.pending.Wait()
		l.mu.Lock()
		if err != nil && l.err == nil {
			l.err = err
		}
		if err == nil && a.zxid > l.durable {
			l.durable = a.zxid
		}
		failed, durable := l.err, l.durable
		l.cond.Broadcast()
		l.mu.Unlock()
		if failed != nil {
			s.fatal(failed)
			continue
		}
		// Keep only the newest report: durability only rises.
		select {
		case l.logged <- durable:
		default:
			select {
			case <-l.logged:
			default:
			}
			select {
			case l.logged <- durable:
			default:
			}
		}
	}
}

// truncatedTo forgets what the log held after zxid: the uncommitted txns
// and the durability reported beyond it.
func (l *learnerLog) truncatedTo(zxid int64) {
	l.mu.Lock()
	l.uncommitted = nil
	l.submitted = min(l.submitted, zxid)
	l.durable = min(l.durable, zxid)
	l.mu.Unlock()
}

// Logged delivers the zxid up to which the txns given to LogTxn are
// durable, rising; when reports come faster than they are read, only the
// newest waits.
func (s *Server) Logged() <-chan int64 { return s.ens.logged }

// LogTxn appends a txn the leader sent (a PROPOSAL's or INFORM's data, a
// txn of the sync) to the log without waiting for the fsync; Logged
// reports it durable. It is kept until CommitTxn applies it.
func (s *Server) LogTxn(zxid int64, data []byte) error {
	l := s.ens
	pending, err := s.txnLog.AppendAsync([]persistence.Entry{{Zxid: zxid, Data: data}})
	if err != nil {
		s.fatal(err)
		return err
	}
	l.mu.Lock()
	l.submitted = zxid
	l.uncommitted = append(l.uncommitted, loggedTxn{zxid: zxid, data: data})
	l.mu.Unlock()
	s.countLogged(1)
	l.waits <- loggedAppend{pending: pending, zxid: zxid}
	return nil
}

// FlushLog returns once every txn given to LogTxn is durable.
func (s *Server) FlushLog() error {
	l := s.ens
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.durable < l.submitted && l.err == nil {
		l.cond.Wait()
	}
	return l.err
}

// CommitTxn applies the oldest logged txn, which must be zxid (the
// learner's state machine checks the leader's order), and answers the
// local request it came from, if any.
func (s *Server) CommitTxn(zxid int64) error {
	l := s.ens
	l.mu.Lock()
	if len(l.uncommitted) == 0 || l.uncommitted[0].zxid != zxid {
		next := int64(-1)
		if len(l.uncommitted) > 0 {
			next = l.uncommitted[0].zxid
		}
		l.mu.Unlock()
		return fmt.Errorf("server: commit of 0x%x, but the oldest uncommitted txn is 0x%x", zxid, next)
	}
	txn := l.uncommitted[0]
	l.uncommitted[0] = loggedTxn{}
	l.uncommitted = l.uncommitted[1:]
	if len(l.uncommitted) == 0 {
		l.uncommitted = nil
	}
	l.mu.Unlock()
	return s.applyCommitted(txn.data)
}

// ApplyTxn applies a txn the leader committed during the sync: one that
// a SNAP's or TRUNC's snapshot at NEWLEADER will cover, or one just given
// to LogTxn (a DIFF's txns are logged at NEWLEADER, then applied).
func (s *Server) ApplyTxn(data []byte) error {
	if len(data) >= txnHeaderZxidEnd {
		zxid := int64(binary.BigEndian.Uint64(data[txnHeaderZxidEnd-8:]))
		l := s.ens
		l.mu.Lock()
		if len(l.uncommitted) > 0 && l.uncommitted[0].zxid == zxid {
			l.uncommitted[0] = loggedTxn{}
			l.uncommitted = l.uncommitted[1:]
		}
		l.mu.Unlock()
	}
	return s.applyCommitted(data)
}

// txnHeaderZxidEnd is where a TxnHeader's zxid ends: after the client id
// (8 bytes) and cxid (4), the zxid's 8.
const txnHeaderZxidEnd = 20

// applyCommitted applies one committed txn in the final stage's way:
// watches fire, and the local request it answers (matched by session and
// cxid) gets its reply, as do the reads queued behind it.
func (s *Server) applyCommitted(data []byte) error {
	txn, err := proto.DecodeTxn(data, s.fieldLimit)
	if err != nil {
		return fmt.Errorf("server: a txn from the leader cannot be decoded: %w", err)
	}
	h := &txn.Header
	if last := s.tree.LastProcessedZxid(); h.Zxid <= last {
		// Already in the tree: the same txn delivered twice. (A SNAP's
		// tree is set at the SNAP's zxid, so the txns after it, which
		// its fuzzy stream may partly hold, are still applied.)
		return nil
	}
	var r *request
	if ls := s.learner.Load(); ls != nil {
		r = ls.matchCommit(h.ClientId, h.Cxid, s.logger)
	}
	if r == nil {
		r = &request{sid: h.ClientId, xid: h.Cxid, op: proto.OpCode(h.Type), remote: true}
		if cs, ok := txn.Body.(*proto.CreateSessionTxn); ok {
			r.sessionTimeout = cs.TimeOut
		}
	}
	r.txn = txn
	r.zxid = h.Zxid
	if r.conn != nil {
		s.holdOutput(r.conn)
	}
	s.apply(r)
	if d := txn.Digest; d != nil && s.cfg.DigestEnabled && d.Version == proto.DigestVersion {
		got := s.tree.Digest()
		switch {
		case s.fuzzy.Load():
			// Within a SNAP's fuzzy window the tree may already hold
			// later txns' effects. Digests that match say it holds
			// none (the trees are the same), and the window is over.
			if got == d.TreeDigest {
				s.endFuzzyWindow(false)
			} else {
				s.fuzzyMu.Lock()
				s.fuzzyDigest = zxidDigest{zxid: h.Zxid, digest: d.TreeDigest}
				s.fuzzyMu.Unlock()
			}
		case got != d.TreeDigest:
			s.reportDivergence(h.Zxid, got, d.TreeDigest)
		}
	}
	s.releaseOutput()
	return nil
}

// zxidDigest is the leader's tree digest after a txn.
type zxidDigest struct {
	zxid   int64
	digest int64
}

func (s *Server) reportDivergence(zxid, digest, leaderDigest int64) {
	s.mon.metrics.DigestMismatches.Add(1)
	s.logger.Error().Str("zxid", fmt.Sprintf("0x%x", zxid)).Int64("digest", digest).Int64("leaderDigest", leaderDigest).
		Msg("the tree's digest differs from the leader's after this txn; the trees have diverged")
}

// endFuzzyWindow ends a fuzzy window (see Server.fuzzy). Where it ends
// at the first PING of the broadcast (settled), the tree holds exactly
// the txns it applied: every txn a leader's SNAP stream can hold was
// applied by the leader before the walk ended, so it was committed and
// its COMMIT (or INFORM) sent before the learner's UPTODATE (Java's
// leader walks the tree before it queues NEWLEADER) or right after it
// (gozk's holds the COMMITs made after NEWLEADER until UPTODATE), and a
// learner answers PINGs only from UPTODATE on, and in order. Its digest
// must then be the leader's after the last txn it applied.
func (s *Server) endFuzzyWindow(settled bool) {
	if !s.fuzzy.Load() {
		return
	}
	s.fuzzyMu.Lock()
	d := s.fuzzyDigest
	s.fuzzyDigest = zxidDigest{}
	s.fuzzy.Store(false)
	s.fuzzyMu.Unlock()
	if !settled || d.zxid == 0 || d.zxid != s.tree.LastProcessedZxid() {
		return
	}
	if got := s.tree.Digest(); got != d.digest {
		s.reportDivergence(d.zxid, got, d.digest)
	}
}

// startFuzzyWindow begins a fuzzy window for a tree that may hold effects
// of txns after its zxid.
func (s *Server) startFuzzyWindow(fuzzy bool) {
	s.fuzzyMu.Lock()
	s.fuzzyDigest = zxidDigest{}
	s.fuzzy.Store(fuzzy)
	s.fuzzyMu.Unlock()
}

// matchCommit returns the forwarded request a committed txn of session
// sid with cxid answers: the oldest forwarded write of that session. A
// commit for another cxid is applied alone, with a warning, as Java's
// CommitProcessor does.
func (l *learnerState) matchCommit(sid int64, cxid int32, logger zerolog.Logger) *request {
	l.mu.Lock()
	defer l.mu.Unlock()
	q := l.forwarded[sid]
	if len(q) == 0 {
		return nil
	}
	head := q[0]
	if head.xid != cxid {
		logger.Warn().Str("session", fmt.Sprintf("0x%x", sid)).Int32("cxid", cxid).Int32("expected", head.xid).
			Msg("committed txn does not match the session's oldest forwarded request")
		return nil
	}
	q[0] = nil
	if len(q) == 1 {
		delete(l.forwarded, sid)
	} else {
		l.forwarded[sid] = q[1:]
	}
	return head
}

// Learning is what StartLearning needs: the link to the leader, and
// whether this server observes.
type Learning struct {
	Link     LeaderLink
	Observer bool
}

// StartLearning serves clients as a follower or observer of the leader
// behind link: called by the peer once the learner is in sync (UPTODATE).
func (s *Server) StartLearning(lc Learning) error {
	if !s.cfg.Ensemble {
		return errors.New("server: a standalone server cannot learn")
	}
	ls := &learnerState{
		link:         lc.Link,
		observer:     lc.Observer,
		stop:         make(chan struct{}),
		done:         make(chan struct{}),
		forwarded:    map[int64][]*request{},
		revalidating: map[int64][]revalidation{},
		touched:      map[int64]int32{},
	}
	s.tracker.reset(s.cfg.ServerID)
	s.learner.Store(ls)
	role := RoleFollower
	if lc.Observer {
		role = RoleObserver
	}
	s.SetRole(role)
	s.SetSyncMode("")
	go s.forwardLoop(ls)
	s.SetPhase(PhaseBroadcast) // Serving is true from here
	// The member logs this moment with the sync's mode, size and time
	// ("synced with the leader; serving clients").
	s.logger.Debug().Str("role", role.String()).Msg("serving clients")
	return nil
}

// forwardLoop sends the writes the event loops queued to the leader, in
// arrival order, each registered first so that its commit finds it.
func (s *Server) forwardLoop(ls *learnerState) {
	defer close(ls.done)
	var batch []*request
	for {
		batch = s.prepQueue.tryPopAll(batch[:0])
		if len(batch) == 0 {
			select {
			case <-s.prepQueue.signal:
				continue
			case <-ls.stop:
				return
			}
		}
		s.mon.metrics.PrepRequestQueued.Add(int64(len(batch)))
		for i, r := range batch {
			s.forward(ls, r)
			batch[i] = nil
		}
	}
}

// forward registers r as waiting for its commit (or the leader's SYNC)
// and sends it to the leader.
func (s *Server) forward(ls *learnerState, r *request) {
	if r.conn == nil {
		// Server-made writes (expiry, reaping) belong to the leader.
		s.outstanding.Add(-1)
		return
	}
	body := r.body
	if r.op == proto.OpCreateSession {
		body = binary.BigEndian.AppendUint32(nil, uint32(r.sessionTimeout))
	}
	if r.op == proto.OpSync {
		ls.syncMu.Lock()
		defer ls.syncMu.Unlock()
	}
	ls.mu.Lock()
	if r.op == proto.OpSync {
		ls.syncs = append(ls.syncs, pendingSync{r: r})
	} else {
		ls.forwarded[r.sid] = append(ls.forwarded[r.sid], r)
	}
	ls.mu.Unlock()
	if err := ls.link.Forward(r.sid, r.xid, r.op, body, r.ids); err != nil {
		// The leader is gone: the peer stops serving, which drops this
		// request with its connection.
		s.logger.Debug().Err(err).Msg("cannot forward a request to the leader")
	}
}

// SyncDone completes the oldest forwarded sync: the leader has committed
// everything proposed before it, and this server applied it (COMMITs
// come before the SYNC on the connection).
func (s *Server) SyncDone() {
	ls := s.learner.Load()
	if ls == nil {
		return
	}
	ls.mu.Lock()
	if len(ls.syncs) == 0 {
		ls.mu.Unlock()
		s.logger.Warn().Msg("the leader answered a sync this server did not send")
		return
	}
	p := ls.syncs[0]
	ls.syncs[0] = pendingSync{}
	ls.syncs = ls.syncs[1:]
	ls.mu.Unlock()
	if p.relayed != nil {
		p.relayed()
		return
	}
	s.finishRequest(p.r)
}

// errNotLearning: a relay call on a server that is not serving as a
// learner.
var errNotLearning = errors.New("server: not serving as a learner")

// RelaySync forwards an observer's sync (with the identities it came
// with) for this follower's observer master, in line with this server's
// own syncs: done runs when the leader answers it, as Java's follower
// answers a LearnerSyncRequest.
func (s *Server) RelaySync(sid int64, cxid int32, body []byte, ids []proto.Id, done func()) error {
	ls := s.learner.Load()
	if ls == nil {
		return errNotLearning
	}
	ls.syncMu.Lock()
	defer ls.syncMu.Unlock()
	ls.mu.Lock()
	ls.syncs = append(ls.syncs, pendingSync{relayed: done})
	ls.mu.Unlock()
	return ls.link.Forward(sid, cxid, proto.OpSync, body, ids)
}

// RelayTouches records sessions an observer of this follower's observer
// master saw, for this server's next PING reply, as Java's ObserverMaster
// touches them in its follower's session tracker.
func (s *Server) RelayTouches(touches map[int64]int32) {
	ls := s.learner.Load()
	if ls == nil {
		return
	}
	ls.mu.Lock()
	maps.Copy(ls.touched, touches)
	ls.mu.Unlock()
}

// finishRequest ends a request that applies nothing (a sync) as apply
// ends a write: its reply and those queued behind it go out.
func (s *Server) finishRequest(r *request) {
	s.outstanding.Add(-1)
	r.session.mu.Lock()
	r.done = true
	r.session.mu.Unlock()
	s.drain(r.session)
	r.conn.requestFinished()
}

// TouchTable returns the sessions touched since the last call and their
// timeouts, for the reply to the leader's PING, and starts a new table.
func (s *Server) TouchTable() map[int64]int32 {
	ls := s.learner.Load()
	if ls == nil {
		return nil
	}
	s.endFuzzyWindow(true)
	ls.mu.Lock()
	t := ls.touched
	ls.touched = make(map[int64]int32, len(t))
	ls.mu.Unlock()
	return t
}

// touchForLeader records a session's activity for the next PING reply.
func (ls *learnerState) touch(sid int64, timeout int32) {
	ls.mu.Lock()
	ls.touched[sid] = timeout
	ls.mu.Unlock()
}

// revalidate asks the leader about a session a client reconnects here
// with; the connection waits, reading nothing, for Revalidated.
func (s *Server) revalidate(ls *learnerState, c *connection, sid int64, timeout int32) {
	c.nc.PauseReading()
	ls.mu.Lock()
	first := len(ls.revalidating[sid]) == 0
	ls.revalidating[sid] = append(ls.revalidating[sid], revalidation{conn: c, timeout: timeout})
	ls.mu.Unlock()
	s.mon.metrics.ConnectionRevalidateCount.Add(1)
	if !first {
		return // the answer to the question in flight serves both
	}
	if err := ls.link.Revalidate(sid, timeout); err != nil {
		s.logger.Debug().Err(err).Msg("cannot ask the leader to revalidate a session")
	}
}

// Revalidated takes the leader's answer about session sid: the waiting
// connections get the session (valid) or a ConnectResponse with timeout
// 0, Java's "session expired", and are closed.
func (s *Server) Revalidated(sid int64, valid bool) {
	ls := s.learner.Load()
	if ls == nil {
		return
	}
	ls.mu.Lock()
	waiting := ls.revalidating[sid]
	delete(ls.revalidating, sid)
	ls.mu.Unlock()
	for _, w := range waiting {
		c := w.conn
		if c.closed.Load() {
			continue
		}
		if !valid {
			if ev := s.logger.Debug(); ev.Enabled() {
				ev.Str("session", fmt.Sprintf("0x%x", sid)).Str("remote", c.nc.RemoteAddr().String()).
					Msg("the leader says the session is gone; renewal refused")
			}
			s.sendHandshakeReply(c, 0, 0, nil)
			c.nc.CloseAfterFlush()
			continue
		}
		sess := s.tracker.get(sid)
		if sess == nil {
			sess = s.tracker.add(sid, w.timeout)
		} else {
			s.tracker.setTimeout(sess, w.timeout)
		}
		if old := s.tracker.bind(sess, c); old != nil {
			old.nc.Close()
		}
		c.mu.Lock()
		c.session = sess
		c.mu.Unlock()
		ls.touch(sid, w.timeout)
		pw := proto.SessionPassword(sid)
		s.sendHandshakeReply(c, w.timeout, sid, pw[:])
		c.nc.ResumeReading()
		if ev := s.logger.Debug(); ev.Enabled() {
			ev.Str("session", fmt.Sprintf("0x%x", sid)).Int32("timeout", w.timeout).
				Str("remote", c.nc.RemoteAddr().String()).Msg("session revalidated by the leader")
		}
	}
}

// StopServing ends whatever role the member had: every client connection
// is closed, new ones are refused until the next role starts, forwarded
// requests are dropped with their connections, and the tree is made to
// hold every txn this server logged (an election must count them,
// committed or not) and nothing a sync cut short left half done: a
// learner that was serving applies its logged, uncommitted txns; after a
// sync cut short or a leader's term the tree is reloaded from the log and
// snapshots, as Java's always is. It returns once the log is flushed.
func (s *Server) StopServing() error {
	if !s.cfg.Ensemble {
		return errors.New("server: a standalone server serves until it stops")
	}
	s.SetRole(RoleLooking) // Serving is false from here
	s.SetSyncMode("")
	s.stopLeading()
	// A learner that served was in sync: its tree holds every committed
	// txn, and the logged ones after them are in uncommitted.
	inSync := false
	if ls := s.learner.Swap(nil); ls != nil {
		inSync = true
		close(ls.stop)
		<-ls.done
		ls.mu.Lock()
		dropped := 0
		for _, p := range ls.syncs {
			if p.r != nil {
				dropped++
			}
		}
		for _, q := range ls.forwarded {
			dropped += len(q)
		}
		ls.forwarded, ls.syncs, ls.revalidating = nil, nil, nil
		ls.mu.Unlock()
		// What the event loops queued after forwardLoop stopped.
		left := s.prepQueue.tryPopAll(nil)
		dropped += len(left)
		s.outstanding.Add(-int64(dropped))
	}
	s.closeClients()
	if err := s.FlushLog(); err != nil {
		return err
	}
	s.ens.mu.Lock()
	tail := s.ens.uncommitted
	s.ens.uncommitted = nil
	s.ens.mu.Unlock()
	if inSync {
		// What a reload would give, without reading the tree back: the
		// logged txns no COMMIT reached yet, applied in order. The next
		// election then starts without waiting for the disk.
		for _, t := range tail {
			if err := s.applyCommitted(t.data); err != nil {
				return err
			}
		}
		if len(tail) > 0 {
			s.logger.Info().Int("txns", len(tail)).Str("zxid", fmt.Sprintf("0x%x", s.tree.LastProcessedZxid())).
				Msg("applied the logged txns the leader had not committed")
		}
		s.prep.lastZxid = s.tree.LastProcessedZxid()
		return nil
	}
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	return s.reload()
}

// closeClients closes every client connection.
func (s *Server) closeClients() {
	s.mon.connsMu.Lock()
	conns := make([]*connection, 0, len(s.mon.conns))
	for c := range s.mon.conns {
		conns = append(conns, c)
	}
	s.mon.connsMu.Unlock()
	for _, c := range conns {
		c.nc.Close()
	}
}

// reload rebuilds the tree from the store, as Java's ZKDatabase is
// reloaded when a role ends. The caller holds snapMu: no snapshot walks
// the tree it replaces.
func (s *Server) reload() error {
	began := time.Now()
	tree, rec, err := Recover(s.store, s.treeOptions(), s.fieldLimit)
	if err != nil {
		return fmt.Errorf("reloading the data tree: %w", err)
	}
	s.replaceTree(tree)
	s.startFuzzyWindow(rec.DigestUnverified(s.cfg.DigestEnabled))
	// A SNAP's tree not yet snapshotted is gone with the tree it
	// replaced: the next sync's snapshot must not purge the log below
	// itself as if one had been.
	s.snapReplaced = 0
	s.logger.Info().Str("zxid", fmt.Sprintf("0x%x", rec.Zxid)).Int("txns", rec.Txns).
		Dur("tookMs", time.Since(began)).Msg("data reloaded from the log")
	return nil
}

// replaceTree makes tree the server's, with nothing outstanding; the
// caller holds snapMu.
func (s *Server) replaceTree(tree *db.Tree) {
	s.initConfigNode(tree)
	s.applyMu.Lock()
	s.tree.Replace(tree)
	s.applyMu.Unlock()
	s.prep.lastZxid = s.tree.LastProcessedZxid()
}

// TruncateLog drops every logged txn after zxid and every snapshot newer
// than it, then reloads the tree from what is left (the leader's TRUNC).
func (s *Server) TruncateLog(zxid int64) error {
	if err := s.FlushLog(); err != nil {
		return err
	}
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	if err := s.deleteSnapshotsAfter(zxid); err != nil {
		return err
	}
	if err := s.txnLog.TruncateAfter(zxid); err != nil {
		return err
	}
	s.ens.truncatedTo(zxid)
	if err := failpoint.Hit(failpoint.LearnerMidTrunc); err != nil {
		return err
	}
	return s.reload()
}

// deleteSnapshotsAfter deletes every snapshot newer than zxid. The
// caller holds snapMu.
func (s *Server) deleteSnapshotsAfter(zxid int64) error {
	snaps, err := s.store.Snapshots()
	if err != nil {
		return err
	}
	for _, sn := range snaps {
		if sn.Zxid > zxid {
			if err := s.store.DeleteSnapshot(sn.Zxid); err != nil {
				return err
			}
		}
	}
	return nil
}

// LoadSnapStream reads the serialized tree and sessions a leader streams
// after SNAP (Java's format, up to its "BenWasHere" signature) from r and
// makes it the tree, at zxid. The log keeps what it holds up to zxid; the
// txns and snapshots after zxid came from another history and are
// dropped. The snapshot taken at NEWLEADER then stands in for the log
// below it.
func (s *Server) LoadSnapStream(r *bufio.Reader, zxid int64) error {
	tree := db.New(s.treeOptions())
	ld := tree.NewLoader()
	sessions := map[int64]int32{}
	nodes := 0
	_, err := zkfiles.DecodeSnapStream(r, s.fieldLimit, zkfiles.SnapshotHandler{
		Session: func(id int64, timeout int32) error { sessions[id] = timeout; return nil },
		ACL:     func(e proto.ACLCacheEntry) error { ld.ACL(e.Id, e.Acl); return nil },
		Node: func(n *zkfiles.Node) error {
			if err := ld.Node(n.Path, n.Data, n.ACLID, &n.Stat); err != nil {
				return err
			}
			if nodes++; nodes == 1 {
				return failpoint.Hit(failpoint.LearnerMidSnap)
			}
			return nil
		},
	})
	if err != nil {
		return fmt.Errorf("reading the leader's snapshot: %w", err)
	}
	tree.SetSessions(sessions)
	tree.FinishLoad()
	tree.SetLastProcessedZxid(zxid)
	if err := s.FlushLog(); err != nil {
		return err
	}
	s.snapMu.Lock()
	// The snapshots past zxid go, as the log past it does: a restart
	// loads the newest one. They go first, as in TruncateLog, so a crash
	// between the two steps leaves no snapshot of the other history
	// over a truncated log.
	if err := s.deleteSnapshotsAfter(zxid); err != nil {
		s.snapMu.Unlock()
		return err
	}
	if err := s.txnLog.TruncateAfter(zxid); err != nil {
		s.snapMu.Unlock()
		return err
	}
	s.ens.truncatedTo(zxid)
	s.replaceTree(tree)
	s.startFuzzyWindow(true)
	s.snapMu.Unlock()
	s.snapReplaced = zxid
	return nil
}

// SnapshotAfterSync takes the snapshot the NEWLEADER step asks for. After
// a SNAP the log has a gap below the snapshot: older snapshots and the
// txns below it belong to another history, so they go once the new
// snapshot is on the disk.
func (s *Server) SnapshotAfterSync() error {
	info, err := s.TakeSnapshot()
	if err != nil {
		return err
	}
	if s.snapReplaced == 0 {
		return nil
	}
	s.snapReplaced = 0
	snaps, err := s.store.Snapshots()
	if err != nil {
		return err
	}
	for _, sn := range snaps {
		if sn.Zxid < info.Zxid {
			if err := s.store.DeleteSnapshot(sn.Zxid); err != nil {
				return err
			}
		}
	}
	return s.txnLog.PurgeBefore(info.Zxid + 1)
}

// treeOptions are the data tree's options from the configuration.
func (s *Server) treeOptions() db.Options {
	logger := s.logger
	return db.Options{
		ExtendedTypesEnabled: s.cfg.ExtendedTypesEnabled,
		DigestEnabled:        s.cfg.DigestEnabled,
		Logger:               func(msg string) { logger.Warn().Msg(msg) },
	}
}

// Store is the server's data directory: the peer keeps its epochs there.
func (s *Server) Store() *persistence.Store { return s.store }
