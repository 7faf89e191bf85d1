package peer

import (
	"bufio"
	"net"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/quorum/quorumauth"
)

// quorumPort is the member's quorum port (learners connect to their
// leader here). It listens for the member's whole life, where Java's
// leader opens it only once elected: a learner usually decides a moment
// before its leader does and dials at once, and Java answers that first
// dial with a refusal and the learner with a retry 100 ms later. Here the
// connection waits until this member leads (then the leader takes it),
// for at most maxWait; past that, or beyond maxHeld waiting ones, it is
// closed.
//
// With quorum SASL (auth set), each connection is authenticated first, on
// its own goroutine bounded by maxWait (initLimit, Java's socket timeout
// there); one that fails is closed with a log line, and only those that
// pass wait for the leader.
type quorumPort struct {
	ln      net.Listener
	maxWait time.Duration
	auth    *quorumauth.Server
	log     zerolog.Logger

	mu      sync.Mutex
	held    []heldConn
	deliver func(net.Conn) // set while leading
	closed  bool
	// admitting are the connections being authenticated, at most
	// maxHeld; close closes them too.
	admitting map[net.Conn]bool
}

type heldConn struct {
	conn net.Conn
	at   time.Time
}

// maxHeld bounds the connections waiting for this member to lead, and
// those being authenticated.
const maxHeld = 64

func listenQuorumPort(addr string, maxWait time.Duration, auth *quorumauth.Server, log zerolog.Logger) (*quorumPort, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	p := &quorumPort{ln: ln, maxWait: maxWait, auth: auth, log: log}
	go p.acceptLoop()
	return p, nil
}

func (p *quorumPort) acceptLoop() {
	for {
		conn, err := p.ln.Accept()
		if err != nil {
			return
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetNoDelay(true)
		}
		if p.auth != nil {
			p.mu.Lock()
			busy := len(p.admitting) >= maxHeld
			if p.closed {
				p.mu.Unlock()
				conn.Close()
				continue
			}
			if !busy {
				if p.admitting == nil {
					p.admitting = map[net.Conn]bool{}
				}
				p.admitting[conn] = true
			}
			p.mu.Unlock()
			if busy {
				p.log.Warn().Str("learner", conn.RemoteAddr().String()).Int("authenticating", maxHeld).Msg("closing a quorum port connection: too many connections authenticating")
				conn.Close()
				continue
			}
			go p.admit(conn)
			continue
		}
		p.take(conn)
	}
}

// admit authenticates a learner's connection, then takes it.
func (p *quorumPort) admit(conn net.Conn) {
	defer func() {
		p.mu.Lock()
		delete(p.admitting, conn)
		p.mu.Unlock()
	}()
	conn.SetDeadline(time.Now().Add(p.maxWait))
	r := bufio.NewReader(conn)
	if err := p.auth.Authenticate(conn, r, conn.RemoteAddr().String()); err != nil {
		p.mu.Lock()
		closed := p.closed
		p.mu.Unlock()
		conn.Close()
		if closed {
			return // the port closed it
		}
		p.log.Error().Err(err).Str("learner", conn.RemoteAddr().String()).Msg("closing a quorum port connection: quorum authentication failed")
		return
	}
	conn.SetDeadline(time.Time{})
	p.take(&bufferedConn{Conn: conn, r: r})
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
	p.ln.Close()
}
