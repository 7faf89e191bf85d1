package chaos

import (
	"bufio"
	"io"
	"net"
	"strconv"
	"sync"

	"github.com/gozk/gozk/fle"
)

// A link carries one directed peer connection kind (election or quorum)
// from one member to another. Each member's zoo.cfg names, for every
// other member, the ports of the links from itself to that member, so
// every byte between two servers crosses a link the harness can cut.
//
// A cut link behaves like a network partition, not like a crashed peer:
// connections it carries stay open but their bytes are dropped, and new
// connections are accepted and then hear nothing; both ends find out only
// through their own timeouts. Healing closes every connection that lost
// bytes (its stream can no longer be trusted) and forwards again.
type link struct {
	from, to int64
	election bool
	target   string // the real listening address of member to
	ln       net.Listener
	// backAddr is, for an election link, the address of the opposite
	// link (to -> from). The initial message names the address its
	// sender listens on, and the receiver dials that address back when
	// it wants the connection the other way round (the larger id keeps
	// the connection it opens): rewriting it keeps that dial on a link.
	backAddr string

	mu    sync.Mutex
	cut   bool
	conns map[*linkConn]struct{}
	done  bool
}

type linkConn struct {
	a, b  net.Conn // a: the dialing member's side; b: the target's
	dirty bool     // lost bytes while cut
}

// sides are the connection's open ends; the caller holds l.mu.
func (c *linkConn) sides() []net.Conn {
	if c.b == nil {
		return []net.Conn{c.a}
	}
	return []net.Conn{c.a, c.b}
}

func newLink(from, to int64, election bool, target string) (*link, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	l := &link{from: from, to: to, election: election, target: target, ln: ln, conns: map[*linkConn]struct{}{}}
	go l.accept()
	return l, nil
}

// Port is where the link listens.
func (l *link) Port() int { return l.ln.Addr().(*net.TCPAddr).Port }

// Addr is the link's listening address.
func (l *link) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(l.Port())) }

func (l *link) accept() {
	for {
		a, err := l.ln.Accept()
		if err != nil {
			return
		}
		go l.serve(a)
	}
}

func (l *link) isCut() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cut
}

func (l *link) serve(a net.Conn) {
	c := &linkConn{a: a}
	l.mu.Lock()
	if l.done {
		l.mu.Unlock()
		a.Close()
		return
	}
	l.conns[c] = struct{}{}
	cut := l.cut
	l.mu.Unlock()
	defer l.forget(c)
	if cut {
		// Partitioned: the dialer's SYN got through in this model, but
		// nothing else will until healing closes the connection.
		l.mu.Lock()
		c.dirty = true
		l.mu.Unlock()
		io.Copy(io.Discard, a)
		a.Close()
		return
	}
	b, err := net.Dial("tcp", l.target)
	if err != nil {
		a.Close()
		return
	}
	l.mu.Lock()
	c.b = b
	l.mu.Unlock()
	ar := bufio.NewReader(a)
	if l.election {
		// The first bytes the dialer sends are its initial message.
		hello, err := fle.ReadInitialMessage(ar)
		if err != nil {
			a.Close()
			b.Close()
			return
		}
		if len(hello.Addrs) > 0 && l.backAddr != "" {
			hello.Addrs = []string{l.backAddr}
		}
		if _, err := b.Write(hello.AppendTo(nil)); err != nil {
			a.Close()
			b.Close()
			return
		}
	}
	var wg sync.WaitGroup
	wg.Add(2)
	// Either direction ending ends both, as a reset would.
	hangUp := func() { a.Close(); b.Close() }
	go func() { defer wg.Done(); defer hangUp(); l.pump(c, ar, b) }()
	go func() { defer wg.Done(); defer hangUp(); l.pump(c, b, a) }()
	wg.Wait()
}

// pump copies src to dst, dropping what arrives while the link is cut.
func (l *link) pump(c *linkConn, src io.Reader, dst net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if l.isCut() {
				l.mu.Lock()
				c.dirty = true
				l.mu.Unlock()
			} else if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
}

func (l *link) forget(c *linkConn) {
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
}

// Cut starts dropping the link's traffic.
func (l *link) Cut() {
	l.mu.Lock()
	l.cut = true
	l.mu.Unlock()
}

// Heal forwards again and closes the connections that lost bytes.
func (l *link) Heal() {
	l.mu.Lock()
	l.cut = false
	var dirty []net.Conn
	for c := range l.conns {
		if c.dirty {
			dirty = append(dirty, c.sides()...)
		}
	}
	l.mu.Unlock()
	for _, conn := range dirty {
		conn.Close()
	}
}

// Close stops the link and every connection on it.
func (l *link) Close() {
	l.mu.Lock()
	l.done = true
	var conns []net.Conn
	for c := range l.conns {
		conns = append(conns, c.sides()...)
	}
	l.mu.Unlock()
	l.ln.Close()
	for _, conn := range conns {
		conn.Close()
	}
}
