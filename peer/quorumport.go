package peer

import (
	"context"
	"net"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/quorum/quorumtls"
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
// With sslQuorum or portUnification, each connection first goes through
// quorumtls (TLS handshake, or the plain/TLS detection) on its own
// goroutine, bounded by maxWait too, so one slow or failing learner
// never holds up the others.
type quorumPort struct {
	ln      net.Listener
	maxWait time.Duration
	tls     *quorumtls.Config
	log     zerolog.Logger
	ctx     context.Context // done once the port is closed
	cancel  context.CancelFunc

	mu      sync.Mutex
	held    []heldConn
	deliver func(net.Conn) // set while leading
	closed  bool
}

type heldConn struct {
	conn net.Conn
	at   time.Time
}

// maxHeld bounds the connections waiting for this member to lead.
const maxHeld = 64

func listenQuorumPort(addr string, maxWait time.Duration, tlsc *quorumtls.Config, log zerolog.Logger) (*quorumPort, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &quorumPort{ln: ln, maxWait: maxWait, tls: tlsc, log: log, ctx: ctx, cancel: cancel}
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
		if p.tls == nil {
			p.admit(conn)
			continue
		}
		go p.secure(conn)
	}
}

// secure runs the TLS handshake (or the detection) of a learner's
// connection; a learner that fails it is closed and logged, the port
// goes on.
func (p *quorumPort) secure(conn net.Conn) {
	remote := conn.RemoteAddr().String()
	stop := context.AfterFunc(p.ctx, func() { conn.Close() })
	sc, err := p.tls.Accept(p.ctx, conn, time.Now().Add(p.maxWait))
	stop()
	if err != nil {
		if p.ctx.Err() == nil {
			p.log.Warn().Err(err).Str("remote", remote).Msg("closing a quorum connection: refused by TLS")
		}
		return
	}
	if v, c, ok := quorumtls.Describe(sc); ok {
		p.log.Info().Str("remote", remote).Str("protocol", v).Str("cipher", c).Msg("quorum connection accepted: TLS handshake complete")
	}
	p.admit(sc)
}

// admit hands conn to the leader, or holds it until this member leads.
func (p *quorumPort) admit(conn net.Conn) {
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
	p.mu.Unlock()
	p.cancel()
	p.ln.Close()
}
