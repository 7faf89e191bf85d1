package peer

import (
	"net"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestQuorumPortHoldsEarlyLearners: a learner that dials before this
// member leads is handed to the leader once it starts, not refused; one
// that waited longer than the bound is closed instead.
func TestQuorumPortHoldsEarlyLearners(t *testing.T) {
	p, err := listenQuorumPort("127.0.0.1:0", time.Hour, nil, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	early, err := net.Dial("tcp", p.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer early.Close()
	delivered := make(chan net.Conn, 2)
	deadline := time.Now().Add(10 * time.Second)
	for {
		p.mu.Lock()
		n := len(p.held)
		p.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the early connection was not held")
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.attach(func(c net.Conn) { delivered <- c })
	select {
	case c := <-delivered:
		c.Close()
	case <-time.After(10 * time.Second):
		t.Fatal("the held connection was not handed to the leader")
	}
	late, err := net.Dial("tcp", p.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close()
	select {
	case c := <-delivered:
		c.Close()
	case <-time.After(10 * time.Second):
		t.Fatal("a connection made while leading was not handed over")
	}
	p.detach()

	stale, err := listenQuorumPort("127.0.0.1:0", time.Millisecond, nil, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer stale.close()
	c, err := net.Dial("tcp", stale.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	time.Sleep(50 * time.Millisecond)
	stale.attach(func(c net.Conn) { t.Error("a connection past its wait was handed over"); c.Close() })
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("a connection past its wait was not closed")
	}
}
