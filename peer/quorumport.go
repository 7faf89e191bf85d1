package peer

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/quorum/quorumauth"
	"github.com/gozk/gozk/quorum/quorumtls"
)

// quorumPort is the member's quorum port (learners connect to their
// leader here). It listens for the member's whole life, where Java's
// leader opens it only once elected: a learner usually decides a moment
// before its leader does and dials at once, and Java answers that first
// dial with a refusal and the learner with a retry 100 ms later. Here the
// connection waits until this member leads (then the leader takes it),
// for at most maxWait; past that, or beyond maxHeld waiting ones, it is
// closed. While this member follows or observes another it cannot lead
// before it elects again, so it closes what it holds and every new
// connection at once: a learner that decided for it in an election that
// split ends its wait and elects again, instead of waiting initLimit for
// a leader that will not come (Java's refusals end it the same way).
//
// With sslQuorum or portUnification (tls set) and with quorum SASL (auth
// set), each connection is admitted on its own goroutine, bounded by
// maxWait (initLimit, Java's socket timeout there) and by maxHeld at
// once: first quorumtls (the TLS handshake, or the plain/TLS detection),
// then the SASL exchange over what TLS gave, as Java's LearnerHandler
// authenticates on the socket its acceptor returned. One that fails is
// closed with a log line; one slow or failing learner never holds up the
// others, and only those that pass wait for the leader.
type quorumPort struct {
	lns     []net.Listener // one per quorum address of this member
	maxWait time.Duration
	tls     *quorumtls.Config
	auth    *quorumauth.Server
	log     zerolog.Logger

	mu        sync.Mutex
	held      []heldConn
	admitting map[net.Conn]bool // connections in TLS or SASL
	deliver   func(net.Conn)    // set while leading
	learning  bool              // following or observing: nothing is held
	closed    bool
}

type heldConn struct {
	conn net.Conn
	at   time.Time
}

// maxHeld bounds the connections waiting for this member to lead, and
// those being admitted.
const maxHeld = 64

// listenQuorumPort binds each of addrs, as Java's leader binds each of
// its quorum addresses: one that cannot be bound is logged and left out,
// and only when none can is it an error.
func listenQuorumPort(addrs []string, maxWait time.Duration, tlsc *quorumtls.Config, auth *quorumauth.Server, log zerolog.Logger) (*quorumPort, error) {
	p := &quorumPort{maxWait: maxWait, tls: tlsc, auth: auth, log: log, admitting: map[net.Conn]bool{}}
	var errs []error
	for _, addr := range addrs {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			log.Error().Err(err).Str("address", addr).Msg("cannot bind a quorum address")
			errs = append(errs, err)
			continue
		}
		p.lns = append(p.lns, ln)
	}
	if len(p.lns) == 0 {
		return nil, fmt.Errorf("listening on the quorum port %s: %w", strings.Join(addrs, ", "), errors.Join(errs...))
	}
	for _, ln := range p.lns {
		go p.acceptLoop(ln)
	}
	return p, nil
}

func (p *quorumPort) acceptLoop(ln net.Listener) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetNoDelay(true)
		}
		if p.tls == nil && p.auth == nil {
			p.take(conn)
			continue
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			conn.Close()
			continue
		}
		busy := len(p.admitting) >= maxHeld
		if !busy {
			p.admitting[conn] = true
		}
		p.mu.Unlock()
		if busy {
			p.log.Warn().Str("learner", conn.RemoteAddr().String()).Int("admitting", maxHeld).Msg("closing a quorum port connection: too many connections in TLS or authentication")
			conn.Close()
			continue
		}
		go p.admit(conn)
	}
}

// admit runs a learner's connection through TLS and quorum SASL, then
// takes it.
func (p *quorumPort) admit(raw net.Conn) {
	defer func() {
		p.mu.Lock()
		delete(p.admitting, raw)
		p.mu.Unlock()
	}()
	remote := raw.RemoteAddr().String()
	deadline := time.Now().Add(p.maxWait)
	var conn net.Conn = raw
	if p.tls != nil {
		// close() closes raw, which ends a handshake in progress.
		sc, err := p.tls.Accept(context.Background(), raw, deadline)
		if err != nil {
			raw.Close()
			if !p.isClosed() {
				p.log.Warn().Err(err).Str("remote", remote).Msg("closing a quorum connection: refused by TLS")
			}
			return
		}
		if v, c, ok := quorumtls.Describe(sc); ok {
			p.log.Info().Str("remote", remote).Str("protocol", v).Str("cipher", c).Msg("quorum connection accepted: TLS handshake complete")
		}
		conn = sc
	}
	if p.auth != nil {
		conn.SetDeadline(deadline)
		r := bufio.NewReader(conn)
		if err := p.auth.Authenticate(conn, r, remote); err != nil {
			conn.Close()
			if p.isClosed() {
				return // the port closed it
			}
			p.log.Error().Err(err).Str("learner", remote).Msg("closing a quorum port connection: quorum authentication failed")
			return
		}
		conn.SetDeadline(time.Time{})
		conn = &bufferedConn{Conn: conn, r: r}
	}
	p.take(conn)
}

// bufferedConn reads what authentication buffered before the
// connection itself: the learner's first packet may be there already.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(b []byte) (int, error) { return c.r.Read(b) }

// take hands conn to the leader, or holds it until this member leads.
func (p *quorumPort) take(conn net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.deliver != nil:
		p.deliver(conn)
	case p.closed:
		conn.Close()
	case p.learning:
		p.log.Info().Str("remote", conn.RemoteAddr().String()).Msg("closing a quorum port connection: this member follows another leader")
		conn.Close()
	default:
		p.dropStaleLocked(time.Now())
		if len(p.held) >= maxHeld {
			conn.Close()
		} else {
			p.held = append(p.held, heldConn{conn, time.Now()})
		}
	}
}

// dropStaleLocked closes the held connections older than maxWait: their
// learners have given up on this member.
func (p *quorumPort) dropStaleLocked(now time.Time) {
	kept := p.held[:0]
	for _, h := range p.held {
		if now.Sub(h.at) > p.maxWait {
			h.conn.Close()
			continue
		}
		kept = append(kept, h)
	}
	clear(p.held[len(kept):])
	p.held = kept
}

// attach hands deliver the held connections, then every new one, until
// detach.
func (p *quorumPort) attach(deliver func(net.Conn)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropStaleLocked(time.Now())
	for _, h := range p.held {
		deliver(h.conn)
	}
	clear(p.held)
	p.held = p.held[:0]
	p.deliver = deliver
}

// detach stops handing connections over: new ones are held again.
func (p *quorumPort) detach() {
	p.mu.Lock()
	p.deliver = nil
	p.mu.Unlock()
}

// setLearning says whether this member follows or observes another. From
// true until false, held and new connections are closed.
func (p *quorumPort) setLearning(learning bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.learning = learning
	if !learning {
		return
	}
	for _, h := range p.held {
		p.log.Info().Str("remote", h.conn.RemoteAddr().String()).Msg("closing a quorum port connection: this member follows another leader")
		h.conn.Close()
	}
	clear(p.held)
	p.held = p.held[:0]
}

// close closes the listener and every held connection.
func (p *quorumPort) close() {
	p.mu.Lock()
	p.closed = true
	for _, h := range p.held {
		h.conn.Close()
	}
	p.held = nil
	for conn := range p.admitting {
		conn.Close()
	}
	p.mu.Unlock()
	for _, ln := range p.lns {
		ln.Close()
	}
}

func (p *quorumPort) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}
