package netio

import (
	"testing"

	"github.com/panjf2000/gnet/v2"
)

// On Linux every loop accepts on a listener of its own: with port 0 they
// all share the one port Addr reports (a loop bound elsewhere would never
// be given a connection), and the kernel spreads connections over them.
func TestEveryLoopAcceptsOnTheSamePort(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", ":0"} {
		t.Run(addr, func(t *testing.T) {
			const conns = 64
			loops := make(chan gnet.EventLoop, conns)
			h := newTestHandler()
			h.onOpen = func(c *Conn) { loops <- c.gc.EventLoop() }
			s := startServer(t, Config{Addr: addr, Loops: 2}, h)
			seen := map[gnet.EventLoop]bool{}
			for range conns {
				dial(t, s)
				seen[recv(t, loops)] = true
			}
			// 64 connections hashed over two listeners all land on one
			// with probability 2^-63.
			if len(seen) != 2 {
				t.Fatalf("%d connections were accepted by %d of 2 loops", conns, len(seen))
			}
		})
	}
}

// The port stays exclusive despite SO_REUSEPORT: a second server, or any
// socket bound without SO_REUSEPORT, cannot bind it while the first
// listens.
func TestReusePortKeepsThePortExclusive(t *testing.T) {
	h := newTestHandler()
	s := startServer(t, Config{Loops: 2}, h)
	if _, err := Listen(Config{Addr: s.Addr().String(), Loops: 2}, h); err == nil {
		t.Fatal("second Listen with two loops on the same port succeeded")
	}
	if _, err := Listen(Config{Addr: s.Addr().String(), Loops: 1}, h); err == nil {
		t.Fatal("second Listen with one loop on the same port succeeded")
	}
}
