package netio

import (
	"bytes"
	"fmt"
	"net"
	"testing"
)

// Frames sent while a connection is held leave in order and together: in
// the write Release makes from the sending goroutine, or partly in the
// loop's flush when the loop was still servicing the connection.
func TestHoldSendsHeldFramesInOneWriteOnRelease(t *testing.T) {
	h := newTestHandler()
	h.onFrame = func(c *Conn, p []byte) {
		go func() {
			c.Hold()
			for i := range 3 {
				if err := c.Send(fmt.Appendf(nil, "%s-%d", p, i)); err != nil {
					t.Error(err)
				}
			}
			c.Release()
		}()
	}
	s := startServer(t, Config{}, h)
	nc := dial(t, s)
	before := s.Flushes()
	if _, err := nc.Write(appendFrame(nil, []byte("x"))); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		p, err := readFrame(nc)
		if want := fmt.Sprintf("x-%d", i); err != nil || string(p) != want {
			t.Fatalf("frame %d: got %q, %v; want %q", i, p, err, want)
		}
	}
	if n := s.Flushes() - before; n >= 3 {
		t.Errorf("%d writes for three held frames: not coalesced", n)
	}
}

// CloseAfterFlush called while held closes the connection once Release
// has let the last frame out.
func TestCloseAfterFlushWhileHeld(t *testing.T) {
	h := newTestHandler()
	h.onFrame = func(c *Conn, p []byte) {
		go func() {
			c.Hold()
			if err := c.Send(append([]byte("bye "), p...)); err != nil {
				t.Error(err)
			}
			c.CloseAfterFlush()
			c.Release()
		}()
	}
	s := startServer(t, Config{}, h)
	nc := dial(t, s)
	if _, err := nc.Write(appendFrame(nil, []byte("1"))); err != nil {
		t.Fatal(err)
	}
	p, err := readFrame(nc)
	if err != nil || !bytes.Equal(p, []byte("bye 1")) {
		t.Fatalf("got %q, %v", p, err)
	}
	expectSilentClose(t, nc)
	if ev := recv(t, h.closed); ev.err != nil {
		t.Fatalf("OnClose err = %v, want nil", ev.err)
	}
}

// ReleaseAll on many held connections writes each one's frames in order
// and together, whether the calling goroutine or an event loop writes
// it, and a new Hold right after it (a loop's share may still be in
// flight) keeps the order too.
func TestReleaseAllKeepsOrder(t *testing.T) {
	const conns = 4 * minReleaseShare
	h := newTestHandler()
	s := startServer(t, Config{Loops: 2}, h)
	clients := make([]net.Conn, conns)
	for i := range clients {
		clients[i] = dial(t, s)
		if _, err := clients[i].Write(appendFrame(nil, fmt.Appendf(nil, "%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	held := make([]*Conn, conns)
	for range conns {
		ev := recv(t, h.frames)
		var i int
		if _, err := fmt.Sscanf(string(ev.payload), "%d", &i); err != nil {
			t.Fatal(err)
		}
		held[i] = ev.conn
	}
	before := s.Flushes()
	for round := range 2 {
		for _, c := range held {
			c.Hold()
		}
		for i, c := range held {
			for j := range 2 {
				if err := c.Send(fmt.Appendf(nil, "%d-%d", i, 2*round+j)); err != nil {
					t.Fatal(err)
				}
			}
		}
		ReleaseAll(held)
	}
	for i, nc := range clients {
		for k := range 4 {
			p, err := readFrame(nc)
			if want := fmt.Sprintf("%d-%d", i, k); err != nil || string(p) != want {
				t.Fatalf("client %d frame %d: got %q, %v; want %q", i, k, p, err, want)
			}
		}
	}
	if n := s.Flushes() - before; n > 2*conns {
		t.Errorf("%d writes for two rounds of %d connections: held frames were not coalesced", n, conns)
	}
}
