package peer

import (
	"errors"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/quorum/quorumauth"
	"github.com/gozk/gozk/sasl"
)

// TestQuorumPortHoldsEarlyLearners: a learner that dials before this
// member leads is handed to the leader once it starts, not refused; one
// that waited longer than the bound is closed instead.
func TestQuorumPortHoldsEarlyLearners(t *testing.T) {
	p, err := listenQuorumPort([]string{"127.0.0.1:0"}, time.Hour, nil, nil, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	early, err := net.Dial("tcp", p.lns[0].Addr().String())
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
	late, err := net.Dial("tcp", p.lns[0].Addr().String())
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

	stale, err := listenQuorumPort([]string{"127.0.0.1:0"}, time.Millisecond, nil, nil, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer stale.close()
	c, err := net.Dial("tcp", stale.lns[0].Addr().String())
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

// TestQuorumPortClosesWhileFollowing: once this member follows another,
// a learner that waits on it (it decided for this member in a split
// election) is closed at once, as is any that dials later, so it elects
// again instead of waiting initLimit; back to LOOKING, dials are held
// again.
func TestQuorumPortClosesWhileFollowing(t *testing.T) {
	p, err := listenQuorumPort([]string{"127.0.0.1:0"}, time.Hour, nil, nil, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	waitHeld := func(want int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			p.mu.Lock()
			n := len(p.held)
			p.mu.Unlock()
			if n == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d held connections, want %d", n, want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	closedSoon := func(c net.Conn, what string) {
		t.Helper()
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err := c.Read(make([]byte, 1))
		if ne, ok := err.(net.Error); err == nil || ok && ne.Timeout() {
			t.Fatalf("%s: not closed (%v)", what, err)
		}
	}
	held, err := net.Dial("tcp", p.lns[0].Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	waitHeld(1)
	p.setLearning(true)
	closedSoon(held, "the connection held when this member began to follow")
	waitHeld(0)
	later, err := net.Dial("tcp", p.lns[0].Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer later.Close()
	closedSoon(later, "a connection made while following")
	p.setLearning(false)
	again, err := net.Dial("tcp", p.lns[0].Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	waitHeld(1)
}

// TestQuorumPortBindsEveryAddress: a multi-address member takes learners
// on each of its quorum addresses; one it cannot bind is left out, and
// only when none can be bound does it fail, as Java's leader.
func TestQuorumPortBindsEveryAddress(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	p, err := listenQuorumPort([]string{"127.0.0.1:0", taken.Addr().String(), "127.0.0.2:0"}, time.Hour, nil, nil, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	if len(p.lns) != 2 {
		t.Fatalf("%d listeners, want the two free addresses", len(p.lns))
	}
	delivered := make(chan net.Conn, 2)
	p.attach(func(c net.Conn) { delivered <- c })
	for _, ln := range p.lns {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		select {
		case got := <-delivered:
			got.Close()
		case <-time.After(10 * time.Second):
			t.Fatalf("a learner at %s was not handed to the leader", ln.Addr())
		}
	}
	if _, err := listenQuorumPort([]string{taken.Addr().String()}, time.Hour, nil, nil, zerolog.Nop()); err == nil || !strings.Contains(err.Error(), taken.Addr().String()) {
		t.Fatalf("binding only a taken address = %v, want an error naming it", err)
	}
}

// TestListenAddrsPerPort: quorumListenOnAllIPs binds every interface once
// per distinct port of a multi-address line.
func TestListenAddrsPerPort(t *testing.T) {
	addrs := []conf.QuorumAddr{{Host: "10.0.0.1", QuorumPort: 2888, ElectionPort: 3888}, {Host: "10.0.0.2", QuorumPort: 2888, ElectionPort: 3889}}
	quorum := func(a conf.QuorumAddr) int { return a.QuorumPort }
	election := func(a conf.QuorumAddr) int { return a.ElectionPort }
	for _, c := range []struct {
		allIPs bool
		port   func(conf.QuorumAddr) int
		want   []string
	}{
		{false, quorum, []string{"10.0.0.1:2888", "10.0.0.2:2888"}},
		{true, quorum, []string{":2888"}},
		{true, election, []string{":3888", ":3889"}},
	} {
		if got := listenAddrs(c.allIPs, addrs, c.port); !slices.Equal(got, c.want) {
			t.Errorf("listenAddrs(allIPs=%v) = %v, want %v", c.allIPs, got, c.want)
		}
	}
}

// passwordServer is a one-step mechanism: the token "pw" completes it.
type passwordServer struct{ done bool }

func (s *passwordServer) Evaluate(resp []byte) ([]byte, error) {
	if string(resp) != "pw" {
		return nil, errors.New("wrong password")
	}
	s.done = true
	return nil, nil
}
func (s *passwordServer) Complete() bool          { return s.done }
func (s *passwordServer) AuthorizationID() string { return "learner" }
func (s *passwordServer) Mechanism() string       { return "TEST" }

// TestQuorumPortAuthenticatesLearners: with quorum SASL a learner that
// fails is closed with a log line naming it, before the leader sees it;
// one that passes reaches the leader with what it sent after the
// exchange intact.
func TestQuorumPortAuthenticatesLearners(t *testing.T) {
	var logs logLines
	auth := &quorumauth.Server{
		Require:  true,
		NewSASL:  func() (sasl.Server, error) { return &passwordServer{}, nil },
		MaxToken: 100,
	}
	p, err := listenQuorumPort([]string{"127.0.0.1:0"}, time.Hour, nil, auth, zerolog.New(&logs))
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	got := make(chan net.Conn, 2)
	p.attach(func(c net.Conn) { got <- c })

	bad, err := net.Dial("tcp", p.lns[0].Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	bad.Write(quorumauth.AppendPacket(nil, quorumauth.InProgress, []byte("guess")))
	bad.SetReadDeadline(time.Now().Add(10 * time.Second))
	if st, _, err := quorumauth.ReadPacket(bad, 100); err != nil || st != quorumauth.Error {
		t.Fatalf("wrong password answered %v, %v", st, err)
	}
	if _, err := bad.Read(make([]byte, 1)); err == nil {
		t.Fatal("the refused connection is still open")
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), "closing a quorum port connection: quorum authentication failed") {
		if time.Now().After(deadline) {
			t.Fatalf("no refusal logged: %s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), bad.LocalAddr().String()) {
		t.Fatalf("the refusal does not name the learner %s: %s", bad.LocalAddr(), logs.String())
	}

	good, err := net.Dial("tcp", p.lns[0].Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer good.Close()
	// The exchange and the first quorum packet in one write: the
	// authentication must not swallow the packet.
	good.Write(append(quorumauth.AppendPacket(nil, quorumauth.InProgress, []byte("pw")), "FOLLOWERINFO"...))
	good.SetReadDeadline(time.Now().Add(10 * time.Second))
	if st, _, err := quorumauth.ReadPacket(good, 100); err != nil || st != quorumauth.Success {
		t.Fatalf("right password answered %v, %v", st, err)
	}
	select {
	case c := <-got:
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		buf := make([]byte, len("FOLLOWERINFO"))
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "FOLLOWERINFO" {
			t.Fatalf("the leader read %q, %v", buf, err)
		}
		c.Close()
	case <-time.After(10 * time.Second):
		t.Fatal("the authenticated learner never reached the leader")
	}
	if len(got) != 0 {
		t.Fatal("the refused learner reached the leader")
	}
}
