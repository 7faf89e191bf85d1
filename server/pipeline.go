package server

import (
	"bytes"
	"errors"
	"sync"
	"time"

	"github.com/gozk/gozk/internal/invariants"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/persistence"
	"github.com/gozk/gozk/proto"
)

// requestQueue is an unbounded FIFO that never blocks its producers, so an
// event loop can hand a write to prep without waiting. Memory is bounded
// elsewhere: connections stop reading once globalOutstandingLimit requests
// are in flight.
type requestQueue struct {
	mu     sync.Mutex
	items  []*request
	signal chan struct{}
	closed bool
}

func newRequestQueue() *requestQueue { return &requestQueue{signal: make(chan struct{}, 1)} }

func (q *requestQueue) push(r *request) bool {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return false
	}
	q.items = append(q.items, r)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
	return true
}

// popAll waits for work and takes everything queued; it returns nil once
// the queue is closed and empty, or stop is closed (nil: never).
func (q *requestQueue) popAll(dst []*request, stop <-chan struct{}) []*request {
	for {
		q.mu.Lock()
		n := len(q.items)
		dst = q.takeLocked(dst)
		closed := q.closed
		q.mu.Unlock()
		switch {
		case n > 0:
			return dst
		case closed:
			return nil
		}
		select {
		case <-q.signal:
		case <-stop:
			return nil
		}
	}
}

// tryPopAll takes everything queued without waiting (nothing when the
// queue is empty or closed).
func (q *requestQueue) tryPopAll(dst []*request) []*request {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.takeLocked(dst)
}

// takeLocked moves the queued requests to dst, keeping the queue's array.
func (q *requestQueue) takeLocked(dst []*request) []*request {
	dst = append(dst, q.items...)
	clear(q.items)
	q.items = q.items[:0]
	return dst
}

func (q *requestQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// maxSyncBatch caps one group commit, as zookeeper.maxBatchSize does.
const maxSyncBatch = 1000

// maxReusedTxnBuffer bounds the encoding buffer the sync stage keeps
// between batches.
const maxReusedTxnBuffer = 4 << 20

// writeLoop runs the three stages of every write, prep, sync and final,
// on one goroutine: it takes what the event loops queued, prepares it in
// arrival order, logs the txns, then applies them in zxid order and
// answers. Stages on goroutines of their own would only add hand-offs: on
// a busy machine each wake-up of a parked goroutine costs more than what
// the stage does for a batch, and every write pays for each of them.
//
// Batches are handed to the log as soon as they are prepared, without
// waiting for the batches before them to be durable: Pebble's log writer
// syncs whatever is queued the moment the previous fsync returns, so
// writes arriving during an fsync join the next one, which starts without
// waiting for this goroutine to wake up (with one batch on the disk at a
// time, the disk sat idle between two fsyncs for as long as an fsync: the
// wake-up, the prep and the hand-off). This is Java's group commit too.
// Prep of a batch before the ones ahead of it are applied sees their
// effects through the outstanding changes, as Java's
// PrepRequestProcessor does. A helper goroutine waits for the batches'
// fsyncs in order and reports each; this goroutine then applies and
// answers the batch, after handing to the log whatever arrived meanwhile
// (the answers, a socket write per connection, are the costliest part of
// a batch, and the disk need not wait for them).
//
// The connections answered or notified in a batch are held
// (netio.Conn.Hold) and released once it is applied: each then gets its
// answers and notifications in one write, made directly from this
// goroutine when the connection is idle.
//
// A leader runs the same loop with another commit source: a batch is
// proposed to the followers as it goes to the log, and it is applied once
// the quorum has acknowledged it (leaderRun.waitCommitted), not when the
// local fsync returns. lr is nil for a standalone server; done is closed
// when the loop ends, and only once every batch it handed to the log has
// been waited for: a role that ends with fsyncs under way must not leave
// them running into the next role's truncation or snapshot (Java's
// ZOOKEEPER-4712).
func (s *Server) writeLoop(lr *leaderRun, done chan struct{}) {
	defer close(done)
	w := writeStage{
		entries: make([]persistence.Entry, 0, maxSyncBatch),
		ends:    make([]int, 0, maxSyncBatch),
		waits:   make(chan loggingBatch, maxLogging),
		durable: make(chan error, maxLogging),
		leader:  lr,
	}
	var stop <-chan struct{}
	if lr != nil {
		stop = lr.stop
	}
	waited := make(chan struct{})
	go func() {
		defer close(waited)
		for b := range w.waits {
			err := b.log.Wait()
			if err == nil && lr != nil && b.last != 0 {
				lr.sink.Logged(b.last)
				err = lr.waitCommitted(b.last)
			}
			w.durable <- err // never blocks: it holds maxLogging
		}
	}()
	defer func() {
		// The batches still on their way to the disk are waited for;
		// none of them is answered, so none waits for its quorum.
		if lr != nil {
			lr.end()
		}
		close(w.waits)
		<-waited
	}()
	for {
		if !s.logArrivals(&w) {
			return
		}
		if len(w.logging) == 0 {
			// Nothing on the disk: wait for work.
			if invariants.Enabled {
				// Every prepared write has been applied.
				s.prep.changes.checkIdle()
			}
			if w.backlog = s.prepQueue.popAll(w.backlog[:0], stop); w.backlog == nil {
				return
			}
			s.mon.metrics.PrepRequestQueued.Add(int64(len(w.backlog)))
			continue
		}
		var err error
		if len(w.logging) < maxLogging {
			select {
			case err = <-w.durable:
			case <-s.prepQueue.signal:
				continue // arrivals: to the log with them
			}
		} else {
			err = <-w.durable
		}
		if err != nil {
			s.writeFailed(err)
			return
		}
		// One fsync often makes several batches durable: they are all
		// answered together, one write per connection for all of them.
		w.ready = append(w.ready[:0], w.popLogging(s))
	collect:
		for len(w.logging) > 0 {
			select {
			case err := <-w.durable:
				if err != nil {
					s.writeFailed(err)
					return
				}
				w.ready = append(w.ready, w.popLogging(s))
			default:
				break collect
			}
		}
		// What arrived during that fsync goes to the disk before the
		// answers go out.
		w.answering = true
		if !s.logArrivals(&w) {
			return
		}
		w.answering = false
		for _, b := range w.ready {
			s.applyBatch(b.reqs)
		}
		s.releaseOutput()
		for i, b := range w.ready {
			clear(b.reqs)
			w.spares = append(w.spares, b.reqs[:0])
			w.ready[i] = syncBatch{}
		}
	}
}

// popLogging takes the oldest batch handed to the log, now durable.
func (w *writeStage) popLogging(s *Server) syncBatch {
	b := w.logging[0]
	w.logging = w.logging[:copy(w.logging, w.logging[1:])]
	if b.txns > 0 {
		s.mon.logged(b.txns, time.Since(b.began))
	}
	return b
}

// maxLogging bounds the batches handed to the log and not yet durable.
const maxLogging = 16

// writeStage is writeLoop's state.
type writeStage struct {
	backlog []*request  // queued, not yet prepared
	logging []syncBatch // handed to the log, not yet durable, oldest first
	ready   []syncBatch // durable, being answered
	// answering is set while ready batches wait for their answers: a
	// batch behind them must not be answered before them.
	answering bool
	spares    [][]*request
	entries   []persistence.Entry
	ends      []int
	encoded   jute.Writer
	waits     chan loggingBatch // to the fsync waiter, in log order
	durable   chan error        // from it, in the same order
	leader    *leaderRun        // nil unless this server leads
}

// loggingBatch is a batch handed to the log, for the fsync waiter: last
// is its newest zxid (0 for a batch without txns).
type loggingBatch struct {
	log  persistence.PendingAppend
	last int64
}

// writeFailed ends the write loop on err: the log failed (the server
// stops), or the leader's role ended while a batch waited for its quorum
// (the member goes back to electing; nothing of that batch is answered).
func (s *Server) writeFailed(err error) {
	if errors.Is(err, errRoleEnded) {
		return
	}
	s.fatal(err)
}

// logArrivals prepares what is queued and hands it to the log, one batch
// after another while there is room. A batch with nothing to wait for
// (no txns, or no forceSync) and nothing ahead of it is answered at once.
// It reports false when the log failed.
func (s *Server) logArrivals(w *writeStage) bool {
	if len(w.backlog) == 0 {
		w.backlog = s.prepQueue.tryPopAll(w.backlog[:0])
		s.mon.metrics.PrepRequestQueued.Add(int64(len(w.backlog)))
	}
	for len(w.backlog) > 0 && len(w.logging) < maxLogging {
		var spare []*request
		if n := len(w.spares); n > 0 {
			spare, w.spares = w.spares[n-1], w.spares[:n-1]
		}
		var b syncBatch
		b.reqs, w.backlog = takeBatch(spare, w.backlog)
		if !s.submitBatch(&b, &w.encoded, &w.entries, &w.ends, w.leader) {
			return false
		}
		// A batch with nothing to wait for is answered now, unless a
		// quorum must acknowledge its txns first.
		if len(w.logging) == 0 && !w.answering && !b.log.Syncing() && (b.txns == 0 || w.leader == nil) {
			if err := b.log.Wait(); err != nil {
				s.fatal(err)
				return false
			}
			if b.txns > 0 {
				s.mon.logged(b.txns, time.Since(b.began))
			}
			s.answer(b.reqs)
			clear(b.reqs)
			w.spares = append(w.spares, b.reqs[:0])
			continue
		}
		w.logging = append(w.logging, b)
		w.waits <- loggingBatch{log: b.log, last: b.last}
	}
	return true
}

// answer applies a durable batch in order and sends its answers.
func (s *Server) answer(reqs []*request) {
	s.applyBatch(reqs)
	s.releaseOutput()
}

// applyBatch applies a durable batch in order, holding the answers of its
// connections until releaseOutput.
func (s *Server) applyBatch(reqs []*request) {
	if invariants.Enabled {
		s.checkDurable(reqs)
	}
	for _, r := range reqs {
		if c := r.conn; c != nil {
			s.holdOutput(c)
		}
		s.apply(r)
	}
}

// checkDurable asserts that the log counts a batch durable before the
// batch is applied and answered: a write must never be acknowledged
// before its txn is on the disk.
func (s *Server) checkDurable(reqs []*request) {
	for i := len(reqs) - 1; i >= 0; i-- {
		if txn := reqs[i].txn; txn != nil {
			if durable := s.txnLog.LastZxid(); durable < txn.Header.Zxid {
				invariants.Violated("final stage: batch up to txn 0x%x applied while the log is durable up to 0x%x; a write is answered only once logged",
					txn.Header.Zxid, durable)
			}
			return
		}
	}
}

// syncBatch is a batch of prepared requests whose txns were handed to the
// log together.
type syncBatch struct {
	reqs  []*request
	log   persistence.PendingAppend
	txns  int
	last  int64 // the newest zxid of its txns
	began time.Time
}

// takeBatch moves up to maxSyncBatch requests from the head of backlog to
// dst (dst may be nil) and returns both. What stays in backlog is moved to
// its front so that its array is reused by the next pop.
func takeBatch(dst, backlog []*request) (batch, rest []*request) {
	n := min(len(backlog), maxSyncBatch)
	dst = append(dst, backlog[:n]...)
	left := copy(backlog, backlog[n:])
	clear(backlog[left:])
	return dst, backlog[:left]
}

// submitBatch prepares b's requests in order and hands their txns to the
// log with one fsync to come. Every txn is encoded into one buffer reused
// from batch to batch (the log copies what it logs); the entries are
// sliced from it once it has stopped growing. It reports false when the
// log failed: nothing after that could be made durable, so the server
// stops rather than acknowledge writes that may be lost.
//
// A leader (lr not nil) proposes each txn to its followers once the log
// has it, in zxid order.
func (s *Server) submitBatch(b *syncBatch, encoded *jute.Writer, entries *[]persistence.Entry, ends *[]int, lr *leaderRun) bool {
	// One reading of the wall clock per batch: txn times are whole
	// milliseconds, and a batch is prepared in a few microseconds.
	now := time.Now().UnixMilli()
	for _, r := range b.reqs {
		s.prep.prepare(r, now)
	}
	*entries, *ends = (*entries)[:0], (*ends)[:0]
	encoded.Reset()
	for _, r := range b.reqs {
		if r.txn != nil {
			r.txn.Encode(encoded)
			*entries = append(*entries, persistence.Entry{Zxid: r.txn.Header.Zxid})
			*ends = append(*ends, encoded.Len())
		}
	}
	b.txns, b.log, b.last = len(*entries), persistence.PendingAppend{}, 0
	if b.txns == 0 {
		return true
	}
	b.last = (*entries)[b.txns-1].Zxid
	buf, start := encoded.Bytes(), 0
	for i, end := range *ends {
		(*entries)[i].Data = buf[start:end:end]
		start = end
	}
	if encoded.Len() > maxReusedTxnBuffer {
		*encoded = jute.Writer{} // do not pin a burst's buffer
	}
	b.began = time.Now()
	pending, err := s.txnLog.AppendAsync(*entries)
	if err != nil {
		s.fatal(err)
		return false
	}
	b.log = pending
	s.countLogged(b.txns)
	if lr != nil {
		// The buffer is reused by the next batch: Zab keeps copies.
		for _, e := range *entries {
			lr.sink.Propose(e.Zxid, bytes.Clone(e.Data))
		}
	}
	return true
}

// apply applies r's txn, fires its watches and answers r, then anything
// of r's session that waited for it.
func (s *Server) apply(r *request) {
	if r.txn != nil {
		if invariants.Enabled {
			// Prep hands out zxids in order and every stage keeps it.
			if last := s.tree.LastProcessedZxid(); r.txn.Header.Zxid <= last {
				invariants.Violated("final stage: txn 0x%x (type %d, session 0x%x, xid %d) reached apply after 0x%x; zxids must rise",
					r.txn.Header.Zxid, r.txn.Header.Type, r.sid, r.xid, last)
			}
		}
		s.applyMu.Lock()
		r.result.Events = r.w.events[:0]
		s.tree.ApplyTo(r.txn, &r.result)
		if invariants.Enabled && r.txn.Digest != nil && !r.remote && s.cfg.DigestEnabled {
			// Prep's precalculated digest is what the tree now holds:
			// Java followers and recovery compare the two.
			if got := s.tree.Digest(); got != r.txn.Digest.TreeDigest {
				invariants.Violated("final stage: txn 0x%x (type %d) carries digest %d, the tree has %d after applying it",
					r.txn.Header.Zxid, r.txn.Header.Type, r.txn.Digest.TreeDigest, got)
			}
		}
		for _, ev := range r.result.Events {
			s.watches.Trigger(ev.Type, ev.Path, ev.ACL)
		}
		s.mon.applied(r.txn.Header.Zxid)
		s.mon.writeStats(r.result.Events)
		s.applyMu.Unlock()
		s.prep.changes.applied(r.txn.Header.Zxid)
	}
	if !r.remote {
		s.outstanding.Add(-1)
	}
	switch r.op {
	case proto.OpCreateSession:
		s.finishConnect(r)
		return
	case proto.OpCloseSession:
		s.finishClose(r)
	}
	if r.session == nil {
		return
	}
	r.session.mu.Lock()
	r.done = true
	r.session.mu.Unlock()
	s.drain(r.session)
	if r.conn != nil {
		r.conn.requestFinished()
	}
}

// drain answers the session's queued requests from the head for as long as
// the head is a read or an applied write.
func (s *Server) drain(sess *session) {
	sess.mu.Lock()
	if sess.draining {
		sess.mu.Unlock()
		return
	}
	sess.draining = true
	for len(sess.queue) > 0 {
		head := sess.queue[0]
		if head.isWrite() && !head.done {
			break
		}
		sess.queue[0] = nil
		sess.queue = sess.queue[1:]
		sess.mu.Unlock()
		switch {
		case head.isWrite():
			s.replyWrite(head)
			s.mon.done(head.conn, head.op, head.start, true)
		case head.conn == nil:
		case !s.tracker.isActive(sess):
			// Read behind a closeSession or an expiry: Java answers it
			// with SessionExpired.
			head.conn.reply(head.xid, s.tree.LastProcessedZxid(), proto.ErrSessionExpired, nil)
		default:
			s.executeRead(head.conn, head.xid, head.op, head.body, head.ids)
			s.mon.done(head.conn, head.op, head.start, false)
		}
		sess.mu.Lock()
	}
	if len(sess.queue) == 0 {
		sess.queue = nil
	}
	sess.draining = false
	sess.mu.Unlock()
}

// replyWrite answers an applied write.
func (s *Server) replyWrite(r *request) {
	c := r.conn
	if c == nil || r.op == proto.OpCheck || r.dropped {
		return
	}
	zxid := r.zxid
	if r.txn == nil {
		zxid = s.tree.LastProcessedZxid()
	}
	if sessionMoved(r) {
		// The leader found the session owned by another server: Java
		// answers nothing and closes the connection (a client that
		// moved must not be answered on the one it left).
		c.nc.Close()
		return
	}
	if r.err != proto.ErrOK && (r.op != proto.OpMulti || r.err == proto.ErrMarshallingError) {
		c.reply(r.xid, zxid, r.err, nil)
		return
	}
	res := &r.result
	switch r.op {
	case proto.OpMulti:
		c.reply(r.xid, zxid, proto.ErrOK, &proto.MultiResponse{Results: res.Multi})
		return
	case proto.OpSync:
		// A learner's sync forwarded through its leader, or the
		// leader's own ordered behind its writes: read as a standalone
		// server reads it.
		s.executeRead(c, r.xid, r.op, r.body, r.ids)
		return
	}
	if res.Err != proto.ErrOK {
		c.reply(r.xid, zxid, res.Err, nil)
		return
	}
	switch r.op {
	case proto.OpCreate:
		w := c.beginReply(r.xid, zxid)
		resp := proto.CreateResponse{Path: res.Path}
		resp.Encode(w)
		c.sendReply(w, r.xid, zxid)
	case proto.OpCreate2, proto.OpCreateContainer, proto.OpCreateTTL:
		w := c.beginReply(r.xid, zxid)
		resp := proto.Create2Response{Path: res.Path, Stat: res.Stat}
		resp.Encode(w)
		c.sendReply(w, r.xid, zxid)
	case proto.OpSetData:
		w := c.beginReply(r.xid, zxid)
		resp := proto.SetDataResponse{Stat: res.Stat}
		resp.Encode(w)
		c.sendReply(w, r.xid, zxid)
	case proto.OpSetACL:
		c.reply(r.xid, zxid, proto.ErrOK, &proto.SetACLResponse{Stat: res.Stat})
	default:
		c.reply(r.xid, zxid, proto.ErrOK, nil)
	}
	if r.op == proto.OpCloseSession {
		c.closeAfterFlush()
	}
}

// sessionMoved reports whether a committed write failed with SESSIONMOVED,
// alone or in one of a multi's ops; only a leader says so.
func sessionMoved(r *request) bool {
	if r.result.Err == proto.ErrSessionMoved {
		return true
	}
	for _, m := range r.result.Multi {
		if m.Type == proto.OpError && m.Err == proto.ErrSessionMoved {
			return true
		}
	}
	return false
}
