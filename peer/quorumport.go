package peer

import (
	"net"
	"sync"
	"time"
)

// quorumPort is the member's quorum port (learners connect to their
// leader here). It listens for the member's whole life, where Java's
// leader opens it only once elected: a learner usually decides a moment
// before its leader does and dials at once, and Java answers that first
// dial with a refusal and the learner with a retry 100 ms later. Here the
// connection waits until this member leads (then the leader takes it),
// for at most maxWait; past that, or beyond maxHeld waiting ones, it is
// closed.
type quorumPort struct {
	ln      net.Listener
	maxWait time.Duration

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

func listenQuorumPort(addr string, maxWait time.Duration) (*quorumPort, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	p := &quorumPort{ln: ln, maxWait: maxWait}
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
		p.mu.Lock()
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
		p.mu.Unlock()
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
	p.ln.Close()
}
