package netio

import (
	"bytes"
	"fmt"
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
