package netio

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"sync"
	"time"
)

// This file is the TLS transport: gnet cannot encrypt, so a TLS
// connection is served by two goroutines of its own, a reader that does
// the handshake and then cuts frames out of the decrypted stream, and a
// writer that hands everything queued to crypto/tls in one write, as a
// flush of the event loop does. Framing, four-letter words, the limits,
// Send, Hold/Release, PauseReading and CloseAfterFlush are those of the
// plain port.

const (
	// DefaultHandshakeTimeout bounds a TLS handshake: Netty's SslHandler
	// gives up after 10 s, which is what bounds a stalled handshake on
	// Java's secure client port (ZooKeeper does not change it).
	DefaultHandshakeTimeout = 10 * time.Second
	// DefaultHandshakeDetectionTimeout is
	// ssl.handshakeDetectionTimeoutMillis's default: how long a unified
	// port waits for a connection's first bytes.
	DefaultHandshakeDetectionTimeout = 5 * time.Second
	// tlsReadChunk is the least room the reader offers crypto/tls per
	// read.
	tlsReadChunk = 16 << 10
	// maxIdleInbound: an inbound buffer grown past this by a large frame
	// is dropped once it is empty, so that idle connections do not pin it.
	maxIdleInbound = 64 << 10
)

// secureConn is the TLS side of a Conn.
type secureConn struct {
	conn *Conn
	raw  net.Conn
	tc   *tls.Conn // set once the handshake succeeded
	// state is the handshake's outcome, read-only once OnOpen runs.
	state tls.ConnectionState

	securePort bool // accepted on SecureAddr, not on a unified Addr

	in   inbound
	want int // bytes the frame at the head of in needs, when known

	writeWake  chan struct{} // cap 1: pending output or CloseAfterFlush
	readWake   chan struct{} // cap 1: reading may go on
	done       chan struct{} // closed by shutdown
	writerDone chan struct{}
	closeOnce  sync.Once
}

func (sc *secureConn) wakeWriter() {
	select {
	case sc.writeWake <- struct{}{}:
	default:
	}
}

func (sc *secureConn) wakeReader() {
	select {
	case sc.readWake <- struct{}{}:
	default:
	}
}

// shutdown closes the socket, which ends a handshake or a read or write
// in progress; the reader then finishes the connection.
func (sc *secureConn) shutdown() {
	sc.closeOnce.Do(func() {
		close(sc.done)
		_ = sc.raw.Close()
	})
}

// boundFinalFlush gives a client that stopped reading closeFlushTimeout
// to take the last bytes (CloseAfterFlush, a four-letter-word answer).
func (sc *secureConn) boundFinalFlush() {
	_ = sc.raw.SetWriteDeadline(time.Now().Add(closeFlushTimeout))
}

// Secure reports whether the connection is TLS (the secure client port,
// or a TLS client of a unified port).
func (c *Conn) Secure() bool { return c.sec != nil }

// TLS is the connection's TLS state once the handshake is done (it is
// done before OnOpen), nil on a plain connection.
func (c *Conn) TLS() *tls.ConnectionState {
	if c.sec == nil {
		return nil
	}
	return &c.sec.state
}

// OnSecurePort reports whether the connection came in on the secure
// client port (Config.SecureAddr), rather than on a unified plain port.
func (c *Conn) OnSecurePort() bool { return c.sec != nil && c.sec.securePort }

// PeerCertificates is the client's certificate chain, leaf first, as the
// handshake verified it against the trust store; nil on a plain
// connection and when the client sent none (ssl.clientAuth=want or none).
func (c *Conn) PeerCertificates() []*x509.Certificate {
	if c.sec == nil {
		return nil
	}
	return c.sec.state.PeerCertificates
}

// inbound is the reader's buffer of decrypted bytes; it implements
// byteQueue for the framing code.
type inbound struct {
	b []byte
	r int // b[r:] is unread
}

func (q *inbound) InboundBuffered() int { return len(q.b) - q.r }

func (q *inbound) Peek(n int) ([]byte, error) {
	if n > q.InboundBuffered() {
		return nil, io.ErrShortBuffer
	}
	return q.b[q.r : q.r+n], nil
}

func (q *inbound) Discard(n int) (int, error) {
	n = min(n, q.InboundBuffered())
	q.r += n
	if q.r == len(q.b) {
		q.r = 0
		q.b = q.b[:0]
		if cap(q.b) > maxIdleInbound {
			q.b = nil
		}
	}
	return n, nil
}

// fill reads once from r, with room for at least want buffered bytes.
func (q *inbound) fill(r io.Reader, want int) error {
	if q.r > 0 {
		q.b = q.b[:copy(q.b, q.b[q.r:])]
		q.r = 0
	}
	need := max(want, len(q.b)+tlsReadChunk)
	if cap(q.b) < need {
		grown := make([]byte, len(q.b), max(need, 2*cap(q.b)))
		copy(grown, q.b)
		q.b = grown
	}
	n, err := r.Read(q.b[len(q.b):cap(q.b)])
	q.b = q.b[:len(q.b)+n]
	if n > 0 {
		return nil // an error comes back on the next read
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// serveSecure runs one TLS connection from accept to close, on the
// goroutine it was started on (see startSecure and route). The caller has
// admitted it under the limits as p, counted per IP with the secure
// port's connections, or, when unified (a TLS client of a unified plain
// port), with the plain port's. counted says the connection is already
// among the handshakes in progress (a unified port under
// MaxTLSHandshakes counts it from accept).
func (s *Server) serveSecure(nc *net.TCPConn, p *peer, unified, counted bool) {
	defer s.secureWG.Done()
	remote := remoteAddrPort(nc.RemoteAddr())
	perIP := s.securePerIP
	if unified {
		perIP = s.perIP
	}
	c := &Conn{
		server:   s,
		id:       s.nextID.Add(1),
		remote:   remote,
		remoteIP: p.ip,
	}
	sc := &secureConn{
		conn:       c,
		raw:        nc,
		writeWake:  make(chan struct{}, 1),
		readWake:   make(chan struct{}, 1),
		done:       make(chan struct{}),
		writerDone: make(chan struct{}),
		securePort: !unified,
	}
	c.sec = sc
	defer s.trackSecure(c, false)
	if !s.trackSecure(c, true) {
		if counted {
			s.handshakes.Add(-1)
		}
		_ = nc.Close()
		s.releaseIn(remote.Addr(), perIP)
		return
	}

	if !unified && s.cfg.DropSecureBeforeHandshake != nil && s.cfg.DropSecureBeforeHandshake() {
		sc.shutdown()
		s.releaseIn(remote.Addr(), perIP)
		s.handshakeLog.dropped(s.log, remote)
		return
	}
	if !counted {
		s.handshakes.Add(1)
	}
	tc := tls.Server(nc, s.cfg.TLS)
	_ = nc.SetDeadline(time.Now().Add(s.cfg.HandshakeTimeout))
	err := tc.Handshake()
	s.handshakes.Add(-1)
	if err != nil {
		sc.shutdown()
		s.releaseIn(remote.Addr(), perIP)
		if !s.stopping.Load() {
			s.handshakeLog.failed(s.log, remote, unified, err)
			s.handshakeFailures.Add(1)
			if o, ok := s.handler.(HandshakeObserver); ok {
				o.OnHandshakeFailure()
			}
		}
		return
	}
	_ = nc.SetDeadline(time.Time{})
	sc.state = tc.ConnectionState()
	c.mu.Lock()
	sc.tc = tc
	closing := c.closeRequested
	c.mu.Unlock()
	if closing {
		sc.shutdown()
		s.releaseIn(remote.Addr(), perIP)
		return
	}

	c.startSessionlessTimer()
	s.handler.OnOpen(c)
	go sc.writeLoop()
	readErr := sc.readLoop()
	c.mu.Lock()
	if readErr != nil {
		c.closeLocked(readErr)
	}
	c.mu.Unlock()
	<-sc.writerDone
	sc.shutdown()
	reason := c.closedByGnet(nil)
	s.releaseIn(remote.Addr(), perIP)
	s.handler.OnClose(c, reason)
}

// readLoop delivers frames until the connection closes or stops reading
// for good. It returns the socket's error, or nil when the connection
// ended it (closing, a four-letter word, a bad length).
func (sc *secureConn) readLoop() error {
	c := sc.conn
	for {
		c.mu.Lock()
		c.inService = true
		c.mu.Unlock()
		stop, wait := sc.deliver()
		c.mu.Lock()
		c.inService = false
		if c.pendingLenLocked() > 0 || c.closeAfterFlush {
			c.wakeToFlushLocked()
		}
		c.mu.Unlock()
		if stop {
			return nil
		}
		if wait {
			select {
			case <-sc.readWake:
				continue
			case <-sc.done:
				return nil
			}
		}
		if err := sc.in.fill(sc.tc, sc.want); err != nil {
			return err
		}
	}
}

// deliver hands complete frames to the handler, as the event loop's
// deliver does. stop: the connection reads no more; wait: reading is
// paused, and the socket is not read until it resumes (Java stops
// reading the socket too, so nothing piles up here).
func (sc *secureConn) deliver() (stop, wait bool) {
	c := sc.conn
	q := &sc.in
	cfg := &c.server.cfg
	for {
		if paused := c.paused.Load(); paused != 0 {
			if paused&pausedForClose != 0 {
				_, _ = q.Discard(q.InboundBuffered())
				return true, false
			}
			c.mu.Lock()
			c.stalled = true
			c.mu.Unlock()
			if c.paused.Load() == 0 {
				continue
			}
			return false, true
		}
		if !c.framing {
			if q.InboundBuffered() < frameLength {
				sc.want = 0
				return false, false
			}
			head, _ := q.Peek(frameLength)
			if word, ok := fourLetterWordIn(head); ok {
				sc.answerFourLetterWord(word)
				return true, false
			}
			c.framing = true
		}
		size, state := nextFrame(q, cfg.MaxFrame)
		switch state {
		case frameIncomplete:
			sc.want = size
			return false, false
		case frameBadLength:
			head, _ := q.Peek(frameLength)
			c.server.log.Info().Uint64("conn", c.id).Str("remote", c.RemoteAddr().String()).
				Int32("len", int32(binary.BigEndian.Uint32(head))).Msg("Len error")
			c.mu.Lock()
			c.closeLocked(ErrFrameLength)
			c.mu.Unlock()
			return true, false
		}
		frame, _ := q.Peek(size)
		if !c.handshaken.Load() {
			c.handshakeDone()
		}
		c.server.handler.OnFrame(c, frame[frameLength:])
		_, _ = q.Discard(size)
		sc.want = 0
	}
}

// answerFourLetterWord runs a four-letter word that came after the TLS
// handshake (Java answers them on the secure port too) and queues the
// answer unframed; the writer closes the connection once it is written.
func (sc *secureConn) answerFourLetterWord(word string) {
	c := sc.conn
	q := &sc.in
	c.handshakeDone()
	if word == setTraceMask && q.InboundBuffered() >= frameLength+8 {
		b, _ := q.Peek(frameLength + 8)
		c.fourLetterArg = int64(binary.BigEndian.Uint64(b[frameLength:]))
		c.fourLetterArgOK = true
	}
	_, _ = q.Discard(q.InboundBuffered())
	c.paused.Or(pausedForClose)
	c.mu.Lock()
	c.closeAfterFlush = true // no Sends behind the answer
	c.mu.Unlock()

	answer := c.server.handler.OnFourLetterWord(c, word)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(answer) == 0 {
		c.closeLocked(nil)
		return
	}
	if c.pending == nil {
		c.pending = pendingPool.Get().(*[]byte)
	}
	*c.pending = append(*c.pending, answer...)
	sc.boundFinalFlush()
}

// writeLoop writes what is queued, everything pending in one write, and
// closes the connection after a final flush. A write blocks while the
// client does not read; what is queued meanwhile counts against
// MaxPendingOutput (reading pauses) and four times it (the connection is
// closed), as on the plain port.
func (sc *secureConn) writeLoop() {
	defer close(sc.writerDone)
	c := sc.conn
	for {
		select {
		case <-sc.writeWake:
		case <-sc.done:
			return
		}
		for {
			c.mu.Lock()
			c.flushDue = false
			out := c.pending
			c.pending = nil
			n := 0
			if out != nil {
				n = len(*out)
				c.flushing = n
			}
			finalFlush := c.closeAfterFlush
			closing := c.closeRequested || c.closed
			c.mu.Unlock()
			if closing {
				recyclePending(out)
				return
			}
			if n == 0 {
				recyclePending(out)
				if finalFlush {
					// close_notify first, as a TLS peer expects.
					_ = sc.tc.Close()
					c.mu.Lock()
					c.closeLocked(nil)
					c.mu.Unlock()
					return
				}
				break
			}
			_, err := sc.tc.Write(*out)
			c.server.flushes.Add(1)
			recyclePending(out)
			c.mu.Lock()
			c.flushing = 0
			if err != nil {
				var ne net.Error
				if finalFlush && errors.As(err, &ne) && ne.Timeout() {
					err = ErrFlushTimeout
				}
				c.closeLocked(err)
				c.mu.Unlock()
				return
			}
			if c.paused.Load()&pausedByOutput != 0 && c.queuedBytesLocked() <= c.server.cfg.MaxPendingOutput/2 {
				c.paused.And(^pausedByOutput)
				sc.wakeReader()
			}
			c.mu.Unlock()
		}
	}
}

// trackSecure adds c to (or, with add false, removes it from) the TLS
// connections Close has to close. It refuses once Close has begun.
func (s *Server) trackSecure(c *Conn, add bool) bool {
	s.secureMu.Lock()
	defer s.secureMu.Unlock()
	if !add {
		delete(s.secureConns, c)
		return true
	}
	if s.secureClosed {
		return false
	}
	s.secureConns[c] = struct{}{}
	return true
}

// startSecure serves nc as a TLS connection on a goroutine of its own,
// unless Close has begun.
//
// The limits apply at accept time, before the handshake, as Java's
// channelActive applies them. The secure port is a listener of its own in
// Java, with its own count per IP (and the same maxClientCnxns); the
// global limit counts both ports.
func (s *Server) startSecure(nc *net.TCPConn) {
	s.admitAndStart(nc, s.securePerIP, false, func(p *peer) { s.serveSecure(nc, p, false, false) })
}

// admitAndStart applies the connection limits to nc (counted in perIP)
// and, unless Close has begun, runs serve on a goroutine of its own that
// Close waits for (secureWG); routing says the connection is being told
// TLS from plain, so that Close can end its wait.
func (s *Server) admitAndStart(nc *net.TCPConn, perIP map[netip.Addr]*peer, routing bool, serve func(*peer)) {
	addr := remoteAddrPort(nc.RemoteAddr()).Addr()
	p := s.admitIn(addr, perIP)
	if p == nil {
		_ = nc.Close()
		return
	}
	s.secureMu.Lock()
	if s.secureClosed {
		s.secureMu.Unlock()
		s.releaseIn(addr, perIP)
		_ = nc.Close()
		return
	}
	if routing {
		s.routing[nc] = struct{}{}
	}
	s.secureWG.Add(1)
	s.secureMu.Unlock()
	go serve(p)
}

// secureAcceptLoop accepts on the secure client port, as acceptLoop does
// on the plain one.
func (s *Server) secureAcceptLoop() {
	s.acceptOn(s.secureLn, &s.secureAccepting, s.secureAcceptDone, s.startSecure)
}

// closeSecure closes every TLS connection and connection being routed,
// and waits for their goroutines.
func (s *Server) closeSecure() {
	s.secureMu.Lock()
	s.secureClosed = true
	conns := make([]*Conn, 0, len(s.secureConns))
	for c := range s.secureConns {
		conns = append(conns, c)
	}
	for nc := range s.routing {
		_ = nc.Close()
	}
	s.secureMu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	s.secureWG.Wait()
}
