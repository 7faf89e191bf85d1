package netio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"
)

// These tests play clients that misbehave on purpose: they never finish
// the handshake, exhaust the server's descriptors or break off a
// four-letter word. Each checks that the port keeps serving the others.

// A connection that sends nothing, or only part of its first frame, is
// closed after the sessionless timeout, which frees its maxClientCnxns
// slot for a client that does talk.
func TestSessionlessConnectionsClosed(t *testing.T) {
	h := newTestHandler()
	h.onFrame = func(c *Conn, p []byte) { _ = c.Send(p) }
	s := startServer(t, Config{MaxClientCnxns: 2, SessionlessTimeout: 100 * time.Millisecond}, h)

	silent := dial(t, s)
	partial := dial(t, s)
	// A 1 MiB frame of which only the first bytes ever come.
	head := binary.BigEndian.AppendUint32(nil, DefaultMaxFrame)
	if _, err := partial.Write(append(head, "only the start"...)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if ev := recv(t, h.closed); !errors.Is(ev.err, ErrSessionlessTimeout) {
			t.Fatalf("OnClose err = %v, want ErrSessionlessTimeout", ev.err)
		}
	}
	expectSilentClose(t, silent)
	expectSilentClose(t, partial)
	waitFor(t, "the slots to be free", func() bool { return s.ConnCount() == 0 })
	// Both slots of this IP are free again: a real client gets in.
	nc := dial(t, s)
	if _, err := nc.Write(appendFrame(nil, []byte("hello"))); err != nil {
		t.Fatal(err)
	}
	if p, err := readFrame(nc); err != nil || string(p) != "hello" {
		t.Fatalf("got %q, %v", p, err)
	}
}

// Once the first frame is in, the sessionless timeout no longer applies:
// the server owns the connection from then on.
func TestSessionlessTimeoutEndsWithTheFirstFrame(t *testing.T) {
	const timeout = 50 * time.Millisecond
	h := newTestHandler()
	h.onFrame = func(c *Conn, p []byte) { _ = c.Send(p) }
	s := startServer(t, Config{SessionlessTimeout: timeout}, h)
	nc := dial(t, s)
	// The first frame arrives in two parts, well within the timeout.
	frame := appendFrame(nil, []byte("connect"))
	if _, err := nc.Write(frame[:3]); err != nil {
		t.Fatal(err)
	}
	if _, err := nc.Write(frame[3:]); err != nil {
		t.Fatal(err)
	}
	if p, err := readFrame(nc); err != nil || string(p) != "connect" {
		t.Fatalf("got %q, %v", p, err)
	}
	time.Sleep(10 * timeout)
	if _, err := nc.Write(appendFrame(nil, []byte("later"))); err != nil {
		t.Fatal(err)
	}
	if p, err := readFrame(nc); err != nil || string(p) != "later" {
		t.Fatalf("after %v: got %q, %v; the connection was closed", 10*timeout, p, err)
	}
	select {
	case ev := <-h.closed:
		t.Fatalf("connection closed: %v", ev.err)
	default:
	}
}

// A negative timeout turns the check off.
func TestSessionlessTimeoutOff(t *testing.T) {
	h := newTestHandler()
	s := startServer(t, Config{SessionlessTimeout: -1}, h)
	dial(t, s)
	c := recv(t, h.opened)
	if c.sessionless != nil {
		t.Fatal("a sessionless timer was armed")
	}
}

// fdChildEnv makes the test binary a server with few file descriptors;
// see runFDChild.
const fdChildEnv = "GOZK_NETIO_FD_CHILD"

// fdChildLimit is the child's RLIMIT_NOFILE: a few dozen connections
// exhaust it.
const fdChildLimit = 64

func TestMain(m *testing.M) {
	if os.Getenv(fdChildEnv) != "" {
		os.Exit(runFDChild())
	}
	os.Exit(m.Run())
}

// runFDChild serves an echo port with RLIMIT_NOFILE lowered to
// fdChildLimit, prints its address on stdout and logs to stderr; it stops
// when stdin closes, exiting 3 if the server failed on its own meanwhile.
func runFDChild() int {
	lim := unix.Rlimit{Cur: fdChildLimit, Max: fdChildLimit}
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		fmt.Fprintln(os.Stderr, "setrlimit:", err)
		return 2
	}
	s, err := Listen(Config{
		Addr:   "127.0.0.1:0",
		Loops:  2,
		Logger: zerolog.New(os.Stderr),
	}, &echoHandler{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "listen:", err)
		return 2
	}
	fmt.Println(s.Addr())
	stdinClosed := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(stdinClosed)
	}()
	select {
	case <-stdinClosed:
	case <-s.Failed():
		fmt.Fprintln(os.Stderr, "failed:", s.Err())
		return 3
	}
	_ = s.Close()
	return 0
}

// Running out of file descriptors on accept must neither close the port
// nor drop the clients already connected; new clients are served again
// once descriptors are free, and the shortage is logged with the limit.
func TestAcceptSurvivesFileDescriptorExhaustion(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*hangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), fdChildEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("child address: %v; stderr: %s", err, stderr.String())
	}
	addr := strings.TrimSpace(line)

	dialEcho := func(what string) net.Conn {
		t.Helper()
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("%s: dial: %v", what, err)
		}
		_ = nc.SetDeadline(time.Now().Add(hangGuard))
		echo(t, what, nc)
		return nc
	}
	first := dialEcho("a client connected before the shortage")
	defer first.Close()

	// Far more connections than the child has descriptors for: the
	// kernel completes them all, and the child's accepts fail from some
	// point on. They stay open until the failure is logged.
	var flood []net.Conn
	for range 2 * fdChildLimit {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("flood dial: %v", err)
		}
		flood = append(flood, nc)
	}
	waitFor(t, "the shortage to be logged", func() bool {
		return strings.Contains(stderr.String(), "out of file descriptors")
	})
	if log := stderr.String(); !strings.Contains(log, `"RLIMIT_NOFILE":`+strconv.Itoa(fdChildLimit)) {
		t.Errorf("the log does not name the limit:\n%s", log)
	}
	echo(t, "the client connected before, during the shortage", first)
	for _, nc := range flood {
		_ = nc.Close()
	}

	// The child frees its descriptors as it accepts and closes what the
	// flood left in its accept queue; a client arriving meanwhile can
	// still find none to spare (enroll disconnects it) and, as any
	// client, connects again.
	var after net.Conn
	waitFor(t, "a client connected after the shortage to be served", func() bool {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			return false
		}
		_ = nc.SetDeadline(time.Now().Add(hangGuard))
		msg := []byte("a client connected after the shortage")
		if _, err := nc.Write(appendFrame(nil, msg)); err == nil {
			if p, err := readFrame(nc); err == nil && bytes.Equal(p, msg) {
				after = nc
				return true
			}
		}
		_ = nc.Close()
		return false
	})
	defer after.Close()
	echo(t, "the client connected before, after the shortage", first)
	// The recovery is logged once accepts have worked for a while: keep
	// connecting until it is.
	waitFor(t, "the recovery to be logged", func() bool {
		if strings.Contains(stderr.String(), "accepting client connections again") {
			return true
		}
		dialEcho("a client polling for the recovery").Close()
		time.Sleep(50 * time.Millisecond)
		return false
	})
	if n := strings.Count(stderr.String(), "out of file descriptors"); n != 1 {
		t.Errorf("%d warnings about the shortage, want 1 (at most one per %v):\n%s", n, acceptLogInterval, stderr.String())
	}
	if err := stdin.Close(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v; stderr:\n%s", err, stderr.String())
	}
}

// echo sends one frame on nc and expects it back.
func echo(t *testing.T, what string, nc net.Conn) {
	t.Helper()
	msg := []byte(what)
	if _, err := nc.Write(appendFrame(nil, msg)); err != nil {
		t.Fatalf("%s: write: %v", what, err)
	}
	p, err := readFrame(nc)
	if err != nil || !bytes.Equal(p, msg) {
		t.Fatalf("%s: got %q, %v", what, p, err)
	}
}

// If the event loops ever stop on their own, the port must not stay open
// with nothing behind it: Failed says so and the listener is closed.
func TestEngineStopReported(t *testing.T) {
	h := newTestHandler()
	s := startServer(t, Config{}, h)
	nc := dial(t, s)
	recv(t, h.opened)
	// Stop gnet behind the Server's back, as an internal error would.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_ = s.engine.Stop(ctx)
	recv(t, s.Failed())
	if s.Err() == nil {
		t.Fatal("Failed is closed but Err is nil")
	}
	expectSilentClose(t, nc)
	if c, err := net.Dial("tcp", s.Addr().String()); err == nil {
		_ = c.Close()
		t.Fatal("the port still accepts connections with no event loop behind it")
	}
}

// With no usable temporary directory the event loops listen on a
// loopback port; whatever connects to it is not served.
func TestListenWithoutTemporaryDirectory(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	h := newTestHandler()
	h.onFrame = func(c *Conn, p []byte) { _ = c.Send(p) }
	s := startServer(t, Config{}, h)
	echo(t, "a client", dial(t, s))

	fd, err := s.engine.Dup()
	if err != nil {
		t.Fatal(err)
	}
	sa, err := unix.Getsockname(fd)
	_ = unix.Close(fd)
	if err != nil {
		t.Fatal(err)
	}
	in4, ok := sa.(*unix.SockaddrInet4)
	if !ok {
		t.Fatalf("the event loops listen on %T, want a loopback port", sa)
	}
	stray, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", in4.Port))
	if err != nil {
		t.Fatal(err)
	}
	defer stray.Close()
	_ = stray.SetDeadline(time.Now().Add(hangGuard))
	if _, err := stray.Write(appendFrame(nil, []byte("stray"))); err != nil {
		t.Fatal(err)
	}
	expectSilentClose(t, stray)
	if len(h.opened) != 1 || len(h.frames) != 1 {
		t.Fatalf("the stray connection reached the handler: %d opened, %d frames", len(h.opened), len(h.frames))
	}
}

// A four-letter-word answer that the client does not read is finished in
// the background after gnet has let the connection go; it still counts
// under maxClientCnxns until it is done, so clients that never read long
// answers cannot hold descriptors past the limit.
func TestUnreadFourLetterWordAnswerKeepsItsPlace(t *testing.T) {
	answer := bytes.Repeat([]byte("0123456789abcdef"), 1<<19) // 8 MiB
	h := newTestHandler()
	h.onWord = func(*Conn, string) []byte { return answer }
	h.onFrame = func(c *Conn, p []byte) { _ = c.Send(p) }
	s := startServer(t, Config{MaxClientCnxns: 1}, h)
	reader := dialSmallWindow(t, s)
	if _, err := reader.Write([]byte("dump")); err != nil {
		t.Fatal(err)
	}
	recv(t, h.closed) // gnet let it go; the answer is being written
	if n := s.ConnCount(); n != 1 {
		t.Fatalf("ConnCount %d while the answer is written, want 1", n)
	}
	expectSilentClose(t, dial(t, s))

	if out, err := io.ReadAll(reader); err != nil || !bytes.Equal(out, answer) {
		t.Fatalf("got %d bytes, %v; want %d", len(out), err, len(answer))
	}
	waitFor(t, "the place to be free", func() bool { return s.ConnCount() == 0 })
	echo(t, "the next client", dial(t, s))
}
