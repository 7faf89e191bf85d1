package server

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gozk/gozk/acl"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/netio"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/sasl"
)

// connection is the server's state for one client connection. Its fields
// other than the atomics are only touched from the connection's event loop,
// except session and ids, which are published under mu.
type connection struct {
	srv *Server
	nc  *netio.Conn

	mu        sync.Mutex
	session   *session
	ids       []proto.Id // copy-on-write: requests keep the slice they saw
	ipID      [1]proto.Id
	oldClient bool
	// saslExchange is the connection's SASL exchange, made at its first
	// SASL packet; like Java's per-connection SaslServer it is never
	// replaced, so once failed or complete it refuses further tokens.
	saslExchange sasl.Server

	handshakeStarted bool
	throttled        atomic.Bool
	closed           atomic.Bool
	outstanding      atomic.Int64
	fourLetter       atomic.Bool // the connection asked a four-letter word

	// heldByFinal is the final stage's own mark: it holds the connection's
	// output while applying a batch (see writeLoop and holdOutput).
	heldByFinal bool

	// order checks the reply order under the invariants tag; without it
	// it takes no room.
	order replyOrder

	stats connStats
	hint  uint64 // picks the shard of the server's counters (netio.Conn.ID)
}

func (c *connection) currentSession() *session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session
}

func (c *connection) identities() []proto.Id {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ids
}

var writerPool = sync.Pool{New: func() any { return new(jute.Writer) }}

// reply sends a reply frame; an error reply never carries a body.
func (c *connection) reply(xid int32, zxid int64, err proto.ErrCode, body jute.Record) {
	w := writerPool.Get().(*jute.Writer)
	w.Reset()
	hdr := proto.ReplyHeader{Xid: xid, Zxid: zxid, Err: int32(err)}
	hdr.Encode(w)
	if body != nil && err == proto.ErrOK {
		body.Encode(w)
	}
	c.sendReply(w, xid, zxid)
}

// beginReply starts a successful reply whose body the caller encodes
// into the returned writer before sendReply. Hot paths use this pair
// instead of reply: a body passed as a jute.Record escapes to the heap, one
// allocation per reply.
func (c *connection) beginReply(xid int32, zxid int64) *jute.Writer {
	w := writerPool.Get().(*jute.Writer)
	w.Reset()
	hdr := proto.ReplyHeader{Xid: xid, Zxid: zxid}
	hdr.Encode(w)
	return w
}

// sendReply sends the reply encoded in w, the answer to a request
// expecting it in request order, and recycles w.
func (c *connection) sendReply(w *jute.Writer, xid int32, zxid int64) {
	c.order.replied(xid)
	c.send(w, xid, zxid)
}

// replyAtOnce answers a request that does not wait its turn (auth, and
// the refusal of a connection that did not authenticate): Java answers
// these as soon as it reads them.
func (c *connection) replyAtOnce(xid int32, err proto.ErrCode) {
	w := writerPool.Get().(*jute.Writer)
	w.Reset()
	hdr := proto.ReplyHeader{Xid: xid, Err: int32(err)}
	hdr.Encode(w)
	c.send(w, xid, 0)
}

// send sends the reply encoded in w and recycles w.
func (c *connection) send(w *jute.Writer, xid int32, zxid int64) {
	_ = c.nc.Send(w.Bytes())
	c.srv.mon.sent(c, w.Len(), xid, zxid, true)
	if w.Len() <= 64<<10 {
		writerPool.Put(w)
	}
}

// Notify sends a watch notification. ZooKeeper 3.8 puts zxid -1 in the
// header of every notification. As 3.8.0 with the fix of CVE-2024-23944
// (Debian's 3.8.0, Apache's 3.8.4), a connection that may not READ the
// node an event is about (nodeACL) is not told.
//
// The watches of the data tree are delivered by Server.notifyWatchers,
// which encodes each event once for all its connections; Notify serves
// setWatches, which tells one connection about changes it missed.
func (c *connection) Notify(ev proto.WatcherEvent, nodeACL []proto.ACL) {
	if c.closed.Load() || !c.srv.acl.Allowed(nodeACL, proto.PermRead, c.identities()) {
		return
	}
	w := writerPool.Get().(*jute.Writer)
	w.Reset()
	encodeNotification(w, ev)
	_ = c.nc.Send(w.Bytes())
	c.srv.mon.sent(c, w.Len(), 0, 0, false)
	writerPool.Put(w)
}

// Stale implements watches.StaleWatcher: a closed connection takes no
// new watches. OnClose marks the connection closed before it removes its
// watches, so a read that registers a watch as the connection closes
// cannot leave one behind for good.
func (c *connection) Stale() bool { return c.closed.Load() }

func (c *connection) closeAfterFlush() { c.nc.CloseAfterFlush() }

// requestFinished releases the connection's share of the global
// outstanding limit and resumes reading once the server is below it, or
// once the connection has nothing in flight: as in Java, whose throttle
// needs the connection's own count above zero, a connection whose last
// request finished while others kept the server over the limit would
// otherwise never read again.
func (c *connection) requestFinished() {
	own := c.outstanding.Add(-1)
	if c.throttled.Load() && (own <= 0 || c.srv.outstanding.Load() <= int64(c.srv.cfg.GlobalOutstandingLimit)) {
		if c.throttled.CompareAndSwap(true, false) {
			c.nc.ResumeReading()
		}
	}
}

// OnOpen implements netio.Handler.
func (s *Server) OnOpen(nc *netio.Conn) {
	c := &connection{srv: s, nc: nc}
	// The first identities live in the connection itself, which saves an
	// allocation per connection; authentication replaces the slice with
	// a copy, never writes into it.
	c.ipID[0] = acl.IPIdentity(nc.RemoteIP())
	c.ids = c.ipID[:]
	s.tlsOpened(c)
	s.mon.opened(c)
	nc.SetContext(c)
}

// OnClose implements netio.Handler.
func (s *Server) OnClose(nc *netio.Conn, err error) {
	c, _ := nc.Context().(*connection)
	if c == nil {
		return
	}
	c.closed.Store(true)
	s.mon.closed(c)
	if sess := c.currentSession(); sess != nil {
		s.tracker.unbind(sess, c)
	}
	s.watches.RemoveWatcher(c)
}

// OnFourLetterWord implements netio.Handler.
func (s *Server) OnFourLetterWord(nc *netio.Conn, cmd string) []byte {
	c, _ := nc.Context().(*connection)
	if c != nil {
		c.fourLetter.Store(true)
		s.mon.received(c, 0)
	}
	out := s.fourLetterOutput(nc, cmd)
	if c != nil {
		// Counted after the output is made: srvr and stat report the
		// packets sent before their own, as Java's do.
		s.mon.fourLetterSent(c, out)
	}
	return out
}

// fourLetterOutput is the answer to the four-letter word cmd.
func (s *Server) fourLetterOutput(nc *netio.Conn, cmd string) []byte {
	if !s.fourLetterAllowed(cmd) {
		return []byte(cmd + " is not executed because it is not in the whitelist.\n")
	}
	if cmd == "stmk" {
		mask, ok := nc.FourLetterWordArgument()
		if !ok {
			return nil // the mask did not come with the word
		}
		s.SetTraceMask(mask)
	}
	if s.fourLetterWords != nil {
		return s.fourLetterWords(cmd)
	}
	switch cmd {
	case "ruok":
		return []byte("imok")
	case "isro":
		return []byte("rw")
	}
	// The monitoring commands are not wired in yet: close without output.
	return nil
}

// fourLetterAllowed applies 4lw.commands.whitelist as Java does: a comma
// list, "*" for every word, and srvr always allowed.
func (s *Server) fourLetterAllowed(cmd string) bool {
	if cmd == "srvr" {
		return true
	}
	for _, w := range strings.Split(s.cfg.FourLetterWhitelist, ",") {
		w = strings.TrimSpace(w)
		if w == "*" || w == cmd {
			return true
		}
	}
	return false
}

// OnFrame implements netio.Handler: one complete frame from a client.
func (s *Server) OnFrame(nc *netio.Conn, payload []byte) {
	c, _ := nc.Context().(*connection)
	if c == nil || c.closed.Load() {
		return
	}
	start := monoNanos()
	s.mon.received(c, len(payload))
	if !c.handshakeStarted {
		c.handshakeStarted = true
		if !s.Serving() {
			// An ensemble member electing or syncing: Java closes the
			// connection ("ZooKeeperServer not running"), and the client
			// tries another server.
			s.mon.metrics.CnxnClosedWithoutServer.Add(1)
			nc.Close()
			return
		}
		s.handleConnect(c, payload)
		return
	}
	if len(payload) < 8 {
		// Not even a RequestHeader: Java fails to read it and drops the
		// connection.
		nc.Close()
		return
	}
	xid := int32(binary.BigEndian.Uint32(payload))
	op := proto.OpCode(int32(binary.BigEndian.Uint32(payload[4:])))
	body := payload[8:]
	sess := c.currentSession()
	if sess == nil {
		// Frames behind the ConnectRequest are held back until it is
		// answered; one arriving anyway belongs to a failed handshake.
		return
	}
	if op == proto.OpAuth {
		s.handleAuth(c, xid, body)
		return
	}
	if op != proto.OpSASL && s.acl.EnforcesAuth() && !s.acl.SatisfiesEnforcedAuth(c.identities()) {
		// zookeeper.enforce.auth.enabled: everything but auth and sasl
		// from an unauthenticated connection is refused, and the
		// connection closed.
		c.replyAtOnce(xid, proto.ErrSessionClosedRequireSaslAuth)
		nc.CloseAfterFlush()
		return
	}
	ls := s.learner.Load()
	if op == proto.OpSASL {
		// Java answers SASL outside its request pipeline and does not
		// count it as session activity: a client that keeps retrying
		// SASL against a server that cannot complete it sends no pings,
		// so its session expires and the client ends AUTH_FAILED
		// (kazoo's test_invalid_sasl_auth) instead of waiting forever.
		if !s.tracker.isActive(sess) {
			return
		}
	} else {
		if !s.tracker.touch(sess) {
			// Java drops requests of unknown or closing sessions silently.
			return
		}
		if ls != nil {
			ls.touch(sess.id, s.tracker.timeoutOf(sess))
		}
	}
	ids := c.identities()
	if op == proto.OpCreateSession {
		op = proto.OpNotification // a client may not send -10: unknown opcode
	}
	// A sync on a learner goes through the leader; on the leader it
	// waits behind the writes prepared before it, which followers may
	// have applied and answered before the leader has: a read after it
	// sees every write any client saw acknowledged before the sync, as
	// behind Java's leader, whose sync passes its commit processor.
	viaLeader := op == proto.OpSync && (ls != nil || s.leading.Load() != nil)
	write := viaLeader || isWriteOp(op)
	c.order.requested(xid, op)
	sess.mu.Lock()
	if !write && !sess.draining && len(sess.queue) == 0 {
		sess.mu.Unlock()
		// Nothing of this session is in flight: answer now, on the event
		// loop, without copying the frame or allocating a request.
		s.executeRead(c, xid, op, body, ids)
		s.mon.done(c, op, start, false)
		return
	}
	r := &request{conn: c, session: sess, sid: sess.id, xid: xid, op: op, ids: ids, body: bytes.Clone(body), start: start, viaLeader: viaLeader}
	sess.queue = append(sess.queue, r)
	sess.mu.Unlock()
	if !write {
		return
	}
	c.outstanding.Add(1)
	if s.outstanding.Add(1) > int64(s.cfg.GlobalOutstandingLimit) && c.throttled.CompareAndSwap(false, true) {
		nc.PauseReading()
	}
	s.prepQueue.push(r)
}

// handleConnect answers a ConnectRequest (client-protocol §2.3).
func (s *Server) handleConnect(c *connection, payload []byte) {
	var h proto.Handshake
	r := jute.NewReader(payload)
	r.SetLimit(s.fieldLimit)
	h.Decode(r)
	if r.Err() != nil {
		s.logger.Debug().Err(r.Err()).Str("remote", c.nc.RemoteIP()).Msg("malformed ConnectRequest; closing")
		c.nc.Close()
		return
	}
	if !s.admitConnect(c, h.SessionId) {
		c.nc.Close()
		return
	}
	if h.LastZxidSeen > s.tree.LastProcessedZxid() {
		// The client has seen a newer state than ours: it must try
		// another server. Java closes without answering.
		s.logger.Info().Int64("clientZxid", h.LastZxidSeen).Int64("serverZxid", s.tree.LastProcessedZxid()).
			Msg("refusing session: client has seen a newer zxid")
		c.nc.Close()
		return
	}
	c.oldClient = h.OldClient
	timeout := s.negotiateTimeout(h.TimeOut)
	if h.SessionId == 0 {
		id := s.tracker.newID()
		c.nc.PauseReading()
		req := &request{conn: c, sid: id, op: proto.OpCreateSession, sessionTimeout: timeout, start: monoNanos()}
		s.outstanding.Add(1)
		s.prepQueue.push(req)
		return
	}
	if ls := s.learner.Load(); ls != nil {
		// A learner knows the sessions of its own clients only: the
		// leader says whether this one lives, once the password is
		// right.
		pw := proto.SessionPassword(h.SessionId)
		if !bytes.Equal(h.Passwd, pw[:]) {
			s.sendHandshakeReply(c, 0, 0, nil)
			c.nc.CloseAfterFlush()
			return
		}
		s.revalidate(ls, c, h.SessionId, timeout)
		return
	}
	sess := s.tracker.get(h.SessionId)
	if sess != nil {
		// Java closes the session's current connection before it even
		// checks the password.
		if old := s.tracker.connOf(sess); old != nil && old != c {
			old.nc.Close()
		}
	}
	pw := proto.SessionPassword(h.SessionId)
	if sess == nil || !bytes.Equal(h.Passwd, pw[:]) || !s.tracker.isActive(sess) {
		if ev := s.logger.Debug(); ev.Enabled() {
			ev.Str("session", fmt.Sprintf("0x%x", h.SessionId)).Str("remote", c.nc.RemoteAddr().String()).
				Msg("session renewal refused (expired, unknown or wrong password)")
		}
		s.sendHandshakeReply(c, 0, 0, nil)
		c.nc.CloseAfterFlush()
		return
	}
	s.tracker.setTimeout(sess, timeout)
	if lr := s.leading.Load(); lr != nil {
		s.tracker.setOwner(sess, lr.self) // the client moved here
	}
	s.tracker.bind(sess, c)
	c.mu.Lock()
	c.session = sess
	c.mu.Unlock()
	s.sendHandshakeReply(c, timeout, sess.id, pw[:])
	if ev := s.logger.Debug(); ev.Enabled() {
		ev.Str("session", fmt.Sprintf("0x%x", sess.id)).Int32("timeout", timeout).
			Str("remote", c.nc.RemoteAddr().String()).Msg("session renewed")
	}
}

// negotiateTimeout clamps a requested timeout to the configured bounds;
// Java clamps every value, zero and negative ones included.
func (s *Server) negotiateTimeout(requested int32) int32 {
	t := requested
	if t < s.cfg.MinSessionTimeout {
		t = s.cfg.MinSessionTimeout
	}
	if t > s.cfg.MaxSessionTimeout {
		t = s.cfg.MaxSessionTimeout
	}
	return t
}

func (s *Server) sendHandshakeReply(c *connection, timeout int32, id int64, pw []byte) {
	if pw == nil {
		pw = make([]byte, proto.PasswordLength)
	}
	reply := proto.HandshakeReply{
		ConnectResponse: proto.ConnectResponse{ProtocolVersion: 0, TimeOut: timeout, SessionId: id, Passwd: pw},
		OldClient:       c.oldClient,
	}
	w := writerPool.Get().(*jute.Writer)
	w.Reset()
	reply.Encode(w)
	_ = c.nc.Send(w.Bytes())
	writerPool.Put(w)
	s.mon.sent(c, 0, 0, 0, false)
}

// finishConnect completes a new session once its createSession txn is
// applied: the ConnectResponse goes out and held-back frames flow again.
func (s *Server) finishConnect(r *request) {
	c := r.conn
	if c == nil {
		// A session a learner created (a leader tracks it from prep on),
		// or one another server created.
		return
	}
	sess := s.tracker.add(r.sid, r.sessionTimeout)
	if ls := s.learner.Load(); ls != nil {
		ls.touch(sess.id, r.sessionTimeout)
	}
	if c.closed.Load() {
		return
	}
	s.tracker.bind(sess, c)
	c.mu.Lock()
	c.session = sess
	c.mu.Unlock()
	// The timeout the session was created with: sess.timeout belongs to
	// the tracker's mutex once add has returned (a reconnect renegotiates
	// it).
	pw := proto.SessionPassword(sess.id)
	s.sendHandshakeReply(c, r.sessionTimeout, sess.id, pw[:])
	s.mon.done(c, proto.OpCreateSession, r.start, true)
	c.nc.ResumeReading()
	// Only when debug logging is on: the arguments alone (the id's text,
	// the address's) would cost allocations on every session.
	if ev := s.logger.Debug(); ev.Enabled() {
		ev.Str("session", fmt.Sprintf("0x%x", sess.id)).Int32("timeout", r.sessionTimeout).
			Str("remote", c.nc.RemoteAddr().String()).Msg("session established")
	}
}

// finishClose forgets a closed session and drops its connection.
func (s *Server) finishClose(r *request) {
	sess, bound := s.tracker.remove(r.sid)
	if sess == nil {
		return
	}
	if ev := s.logger.Debug(); ev.Enabled() {
		ev.Str("session", fmt.Sprintf("0x%x", sess.id)).Bool("byClient", r.conn != nil).Msg("session closed")
	}
	if r.conn == nil && bound != nil {
		// Expired or closed by the server: the client learns it when it
		// reconnects and gets timeOut 0.
		bound.nc.CloseAfterFlush()
	}
}

// handleAuth processes an auth packet at once, as Java does: its effect
// applies to every request read after it.
func (s *Server) handleAuth(c *connection, xid int32, body []byte) {
	var pkt proto.AuthPacket
	r := jute.NewReader(body)
	r.SetLimit(s.fieldLimit)
	pkt.Decode(r)
	var added []proto.Id
	err := r.Err()
	if err == nil {
		added, err = s.acl.Authenticate(pkt.Scheme, pkt.Auth, c.nc.RemoteIP())
		if errors.Is(err, acl.ErrCertificateRequired) {
			added, err = s.x509AuthPacket(c)
		}
	}
	if err != nil {
		// Not counted in auth_failed_count: Java counts only the TLS
		// handshakes and certificates its secure port refuses.
		s.logger.Info().Str("remote", c.nc.RemoteIP()).Str("scheme", pkt.Scheme).Err(err).Msg("authentication failed")
		if errors.Is(err, acl.ErrEnsembleRejected) {
			// Java drops the connection before its reply goes out.
			c.nc.Close()
			return
		}
		c.replyAtOnce(xid, proto.ErrAuthFailed)
		c.nc.CloseAfterFlush()
		return
	}
	c.mu.Lock()
	// Copy, so requests already read keep the identities they saw; add in
	// Java's set order, which whoAmI and "auth" ACL expansion expose.
	ids := append([]proto.Id(nil), c.ids...)
	for _, id := range added {
		ids = acl.AddIdentity(ids, id)
	}
	c.ids = ids
	c.mu.Unlock()
	c.replyAtOnce(xid, proto.ErrOK)
}
