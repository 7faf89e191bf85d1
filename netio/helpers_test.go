package netio

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"
)

// hangGuard only turns a hang into a failure; no test asserts on time.
const hangGuard = 30 * time.Second

type frameEvent struct {
	conn    *Conn
	payload []byte
}

type closeEvent struct {
	conn *Conn
	err  error
}

// testHandler records what netio reports; the function fields change its
// behaviour per test.
type testHandler struct {
	onOpen  func(c *Conn)
	onFrame func(c *Conn, payload []byte) // runs after the frame is recorded
	onWord  func(c *Conn, cmd string) []byte

	opened chan *Conn
	frames chan frameEvent
	words  chan string
	closed chan closeEvent
}

func newTestHandler() *testHandler {
	return &testHandler{
		opened: make(chan *Conn, 1024),
		frames: make(chan frameEvent, 1<<16),
		words:  make(chan string, 1024),
		closed: make(chan closeEvent, 1024),
	}
}

func (h *testHandler) OnOpen(c *Conn) {
	if h.onOpen != nil {
		h.onOpen(c)
	}
	h.opened <- c
}

func (h *testHandler) OnFrame(c *Conn, payload []byte) {
	h.frames <- frameEvent{c, append([]byte(nil), payload...)}
	if h.onFrame != nil {
		h.onFrame(c, payload)
	}
}

func (h *testHandler) OnFourLetterWord(c *Conn, cmd string) []byte {
	h.words <- cmd
	if h.onWord != nil {
		return h.onWord(c, cmd)
	}
	return nil
}

func (h *testHandler) OnClose(c *Conn, err error) { h.closed <- closeEvent{c, err} }

func startServer(t testing.TB, cfg Config, h Handler) *Server {
	t.Helper()
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.Loops == 0 {
		cfg.Loops = 2
	}
	s, err := Listen(cfg, h)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func dial(t testing.TB, s *Server) net.Conn {
	t.Helper()
	nc, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	_ = nc.SetDeadline(time.Now().Add(hangGuard))
	return nc
}

// dialSmallWindow dials with a tiny receive buffer so that a client that
// does not read quickly leaves the server's output queued.
func dialSmallWindow(t testing.TB, s *Server) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUF, 4096)
		})
		return errors.Join(err, serr)
	}}
	nc, err := d.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	_ = nc.SetDeadline(time.Now().Add(hangGuard))
	return nc
}

func appendFrame(b []byte, payload []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(payload)))
	return append(b, payload...)
}

func readFrame(r io.Reader) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	p := make([]byte, binary.BigEndian.Uint32(head[:]))
	_, err := io.ReadFull(r, p)
	return p, err
}

func recv[T any](t testing.TB, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(hangGuard):
		t.Fatalf("nothing arrived within %v (hang guard)", hangGuard)
		panic("unreachable")
	}
}

// waitFor polls cond until it holds; it waits for a state, never asserts
// how long that took.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s (hang guard)", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// onLoop runs fn on c's event loop and waits for it.
func onLoop(t testing.TB, c *Conn, fn func()) {
	t.Helper()
	done := make(chan struct{})
	err := c.gc.EventLoop().Execute(context.Background(), gnet.RunnableFunc(func(context.Context) error {
		fn()
		close(done)
		return nil
	}))
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	recv(t, done)
}

// inboundBuffered is how many bytes gnet holds for c that were not
// delivered.
func inboundBuffered(t testing.TB, c *Conn) int {
	t.Helper()
	var n int
	onLoop(t, c, func() { n = c.gc.InboundBuffered() })
	return n
}

// expectSilentClose reads until EOF and fails if any byte arrives.
func expectSilentClose(t testing.TB, nc net.Conn) {
	t.Helper()
	got, err := io.ReadAll(nc)
	if err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("read: %v", err)
	}
	if len(got) != 0 {
		t.Fatalf("server wrote %d bytes (%q) before closing; want none", len(got), got[:min(len(got), 32)])
	}
}
