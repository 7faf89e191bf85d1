package netio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gozk/gozk/jute"
)

// testStream builds frames of awkward sizes: empty, tiny, larger than
// gnet's 64 KiB read buffer, and many small ones.
func testStream() (frames [][]byte, stream []byte) {
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := []int{0, 1, 3, 4, 5, 100, 70000, 0}
	for range 500 {
		sizes = append(sizes, rng.IntN(64))
	}
	for i, n := range sizes {
		p := make([]byte, n)
		for j := range p {
			p[j] = byte(i + j)
		}
		frames = append(frames, p)
		stream = appendFrame(stream, p)
	}
	return frames, stream
}

func expectFrames(t *testing.T, h *testHandler, want [][]byte) {
	t.Helper()
	for i, w := range want {
		got := recv(t, h.frames)
		if !bytes.Equal(got.payload, w) {
			t.Fatalf("frame %d: got %d bytes, want %d (%x...)", i, len(got.payload), len(w), w[:min(len(w), 8)])
		}
	}
}

func TestFramesArriveWholeAndInOrder(t *testing.T) {
	frames, stream := testStream()
	writes := map[string]func(net.Conn){
		"one write": func(nc net.Conn) {
			if _, err := nc.Write(stream); err != nil {
				t.Error(err)
			}
		},
		"split writes": func(nc net.Conn) {
			rng := rand.New(rand.NewPCG(3, 4))
			for rest := stream; len(rest) > 0; {
				n := min(len(rest), 1+rng.IntN(7))
				if _, err := nc.Write(rest[:n]); err != nil {
					t.Error(err)
					return
				}
				rest = rest[n:]
			}
		},
	}
	for name, write := range writes {
		t.Run(name, func(t *testing.T) {
			h := newTestHandler()
			s := startServer(t, Config{}, h)
			nc := dial(t, s)
			write(nc)
			expectFrames(t, h, frames)
		})
	}
}

func TestBadLengthClosesWithoutReply(t *testing.T) {
	const maxFrame = 64
	cases := map[string][]byte{
		"negative":          binary.BigEndian.AppendUint32(nil, 0xffffffff),
		"above MaxFrame":    binary.BigEndian.AppendUint32(nil, maxFrame+1),
		"2^31-1":            binary.BigEndian.AppendUint32(nil, 0x7fffffff),
		"-2^31":             binary.BigEndian.AppendUint32(nil, 0x80000000),
		"not a 4lw (abcd)":  []byte("abcd"),
		"4lw after a frame": append(appendFrame(nil, []byte("x")), "ruok"...),
	}
	for name, input := range cases {
		t.Run(name, func(t *testing.T) {
			h := newTestHandler()
			h.onFrame = func(c *Conn, _ []byte) { _ = c.Send([]byte("must not be written")) }
			s := startServer(t, Config{MaxFrame: maxFrame}, h)
			nc := dial(t, s)
			if _, err := nc.Write(input); err != nil {
				t.Fatal(err)
			}
			ev := recv(t, h.closed)
			if !errors.Is(ev.err, ErrFrameLength) {
				t.Fatalf("OnClose err = %v, want ErrFrameLength", ev.err)
			}
			if len(h.words) != 0 {
				t.Fatalf("OnFourLetterWord called for %q", <-h.words)
			}
			// The frame before the bad length, if any, was delivered; its
			// reply is still written before the close in this case, so
			// only check silence when nothing was delivered.
			if len(h.frames) == 0 {
				expectSilentClose(t, nc)
			}
		})
	}
	t.Run("exactly MaxFrame", func(t *testing.T) {
		h := newTestHandler()
		s := startServer(t, Config{MaxFrame: maxFrame}, h)
		nc := dial(t, s)
		p := bytes.Repeat([]byte{7}, maxFrame)
		if _, err := nc.Write(appendFrame(nil, p)); err != nil {
			t.Fatal(err)
		}
		if got := recv(t, h.frames); !bytes.Equal(got.payload, p) {
			t.Fatalf("got %d bytes", len(got.payload))
		}
	})
}

func TestPerIPLimit(t *testing.T) {
	const limit = 3
	h := newTestHandler()
	s := startServer(t, Config{MaxClientCnxns: limit}, h)
	var conns []net.Conn
	for range limit {
		conns = append(conns, dial(t, s))
		recv(t, h.opened)
	}
	extra := dial(t, s)
	expectSilentClose(t, extra)
	if n := s.ConnCount(); n != limit {
		t.Fatalf("ConnCount = %d, want %d", n, limit)
	}
	if len(h.opened) != 0 {
		t.Fatal("OnOpen called for the refused connection")
	}

	// A slot freed by a close is available again.
	_ = conns[0].Close()
	recv(t, h.closed)
	dial(t, s)
	recv(t, h.opened)
	if n := s.ConnCount(); n != limit {
		t.Fatalf("ConnCount = %d, want %d", n, limit)
	}
}

func TestGlobalLimit(t *testing.T) {
	h := newTestHandler()
	s := startServer(t, Config{MaxCnxns: 2}, h)
	dial(t, s)
	recv(t, h.opened)
	dial(t, s)
	recv(t, h.opened)
	expectSilentClose(t, dial(t, s))
	if len(h.opened) != 0 {
		t.Fatal("OnOpen called for the refused connection")
	}
}

func TestFourLetterWords(t *testing.T) {
	h := newTestHandler()
	var mask int64
	h.onWord = func(c *Conn, cmd string) []byte {
		switch cmd {
		case "ruok":
			return []byte("imok")
		case "stmk":
			var ok bool
			if mask, ok = c.FourLetterWordArgument(); !ok {
				return nil
			}
			return fmt.Appendf(nil, "%d", mask)
		}
		return nil
	}
	s := startServer(t, Config{}, h)

	exchange := func(t *testing.T, writes ...[]byte) string {
		t.Helper()
		nc := dial(t, s)
		recv(t, h.opened)
		for _, w := range writes {
			if _, err := nc.Write(w); err != nil {
				t.Fatal(err)
			}
		}
		out, err := io.ReadAll(nc)
		if err != nil {
			t.Fatal(err)
		}
		recv(t, h.closed)
		return string(out)
	}

	t.Run("ruok", func(t *testing.T) {
		if got := exchange(t, []byte("ruok")); got != "imok" {
			t.Fatalf("got %q", got)
		}
		if w := recv(t, h.words); w != "ruok" {
			t.Fatalf("word %q", w)
		}
	})
	t.Run("split across writes", func(t *testing.T) {
		nc := dial(t, s)
		if _, err := nc.Write([]byte("ru")); err != nil {
			t.Fatal(err)
		}
		// Make sure the halves arrive apart: wait until gnet holds "ru".
		c := recv(t, h.opened)
		waitFor(t, "the first half", func() bool { return inboundBuffered(t, c) == 2 })
		if _, err := nc.Write([]byte("ok")); err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(nc)
		if string(out) != "imok" {
			t.Fatalf("got %q", out)
		}
		recv(t, h.words)
		recv(t, h.closed)
	})
	t.Run("trailing bytes ignored", func(t *testing.T) {
		if got := exchange(t, []byte("ruok\x00\x00\x00\x01x")); got != "imok" {
			t.Fatalf("got %q", got)
		}
		recv(t, h.words)
		if len(h.frames) != 0 {
			t.Fatal("bytes after a four-letter word were delivered as a frame")
		}
	})
	t.Run("stmk reads its argument", func(t *testing.T) {
		arg := binary.BigEndian.AppendUint64([]byte("stmk"), uint64(0x1234_5678_9abc))
		if got := exchange(t, arg); got != fmt.Sprint(0x1234_5678_9abc) {
			t.Fatalf("got %q", got)
		}
		recv(t, h.words)
	})
	// Java reads the mask once, right after the word, and closes the
	// connection without output when it is not all there: the client is
	// not waited for. exchange does not half-close, so a server waiting
	// for the mask would hold the connection until the hang guard.
	for name, sent := range map[string]string{"stmk without its mask": "stmk", "stmk with part of its mask": "stmk\x00\x00\x01"} {
		t.Run(name, func(t *testing.T) {
			if got := exchange(t, []byte(sent)); got != "" {
				t.Fatalf("got %q, want no output", got)
			}
			if w := recv(t, h.words); w != "stmk" {
				t.Fatalf("word %q", w)
			}
		})
	}
	t.Run("telnet close", func(t *testing.T) {
		if got := exchange(t, []byte{0xff, 0xf4, 0xff, 0xfd}); got != "" {
			t.Fatalf("got %q", got)
		}
		if w := recv(t, h.words); w != TelnetClose {
			t.Fatalf("word %q", w)
		}
	})
	t.Run("every word is recognised", func(t *testing.T) {
		for _, w := range FourLetterWords {
			input := []byte(w)
			if w == "stmk" {
				input = append(input, make([]byte, 8)...) // its argument
			}
			exchange(t, input)
			if got := recv(t, h.words); got != w {
				t.Fatalf("sent %q, handler got %q", w, got)
			}
		}
	})
}

// A four-letter-word answer larger than the socket buffers reaches a
// client that half-closed its side right after the word, as netcat does.
func TestLongFourLetterWordAnswerSurvivesHalfClose(t *testing.T) {
	answer := bytes.Repeat([]byte("0123456789abcdef"), 1<<19) // 8 MiB
	h := newTestHandler()
	h.onWord = func(*Conn, string) []byte { return answer }
	s := startServer(t, Config{}, h)
	nc := dialSmallWindow(t, s)
	if _, err := nc.Write([]byte("dump")); err != nil {
		t.Fatal(err)
	}
	if err := nc.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	// Read only once the server has given up the connection to the
	// background writer (or finished).
	recv(t, h.closed)
	out, err := io.ReadAll(nc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, answer) {
		t.Fatalf("got %d bytes, want %d", len(out), len(answer))
	}
}

func TestConcurrentSendsKeepPerGoroutineOrder(t *testing.T) {
	const senders, perSender = 8, 2000
	h := newTestHandler()
	h.onOpen = func(c *Conn) {
		for g := range senders {
			go func() {
				for seq := range perSender {
					var err error
					if g%2 == 0 {
						var p [8]byte
						binary.BigEndian.PutUint32(p[:], uint32(g))
						binary.BigEndian.PutUint32(p[4:], uint32(seq))
						err = c.Send(p[:])
					} else {
						err = c.SendFunc(func(w *jute.Writer) {
							w.WriteInt(int32(g))
							w.WriteInt(int32(seq))
						})
					}
					if err != nil {
						t.Errorf("send: %v", err)
						return
					}
				}
			}()
		}
	}
	s := startServer(t, Config{}, h)
	nc := dial(t, s)
	next := make([]int, senders)
	for range senders * perSender {
		p, err := readFrame(nc)
		if err != nil {
			t.Fatal(err)
		}
		if len(p) != 8 {
			t.Fatalf("frame of %d bytes", len(p))
		}
		g, seq := binary.BigEndian.Uint32(p), int(binary.BigEndian.Uint32(p[4:]))
		if seq != next[g] {
			t.Fatalf("sender %d: got seq %d, want %d", g, seq, next[g])
		}
		next[g]++
	}
	if s.Flushes() >= senders*perSender {
		t.Errorf("%d flushes for %d frames: no coalescing", s.Flushes(), senders*perSender)
	}
}

func TestCloseAfterFlushDeliversTheLastFrame(t *testing.T) {
	h := newTestHandler()
	h.onFrame = func(c *Conn, p []byte) {
		if err := c.Send(append([]byte("bye "), p...)); err != nil {
			t.Error(err)
		}
		c.CloseAfterFlush()
		if err := c.Send([]byte("late")); !errors.Is(err, ErrClosed) {
			t.Errorf("Send after CloseAfterFlush: %v, want ErrClosed", err)
		}
	}
	s := startServer(t, Config{}, h)
	nc := dial(t, s)
	// The second frame arrives behind the close and must be dropped.
	if _, err := nc.Write(appendFrame(appendFrame(nil, []byte("1")), []byte("2"))); err != nil {
		t.Fatal(err)
	}
	p, err := readFrame(nc)
	if err != nil || string(p) != "bye 1" {
		t.Fatalf("got %q, %v", p, err)
	}
	expectSilentClose(t, nc)
	if ev := recv(t, h.closed); ev.err != nil {
		t.Fatalf("OnClose err = %v, want nil", ev.err)
	}
	if n := len(h.frames); n != 1 {
		t.Fatalf("%d frames delivered, want 1", n)
	}
}

// When the output does not fit the socket, CloseAfterFlush waits for the
// client to read it all before closing.
func TestCloseAfterFlushWaitsForASlowClient(t *testing.T) {
	const frames, size = 256, 64 << 10 // 16 MiB
	h := newTestHandler()
	s := startServer(t, Config{}, h)
	nc := dialSmallWindow(t, s)
	c := recv(t, h.opened)
	payload := bytes.Repeat([]byte{'z'}, size)
	for range frames {
		if err := c.Send(payload); err != nil {
			t.Fatal(err)
		}
	}
	c.CloseAfterFlush()
	waitFor(t, "gnet to hold output", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.held > 0
	})
	for i := range frames {
		p, err := readFrame(nc)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if len(p) != size {
			t.Fatalf("frame %d: %d bytes", i, len(p))
		}
	}
	expectSilentClose(t, nc)
	if ev := recv(t, h.closed); ev.err != nil {
		t.Fatalf("OnClose err = %v", ev.err)
	}
}

func TestSlowReaderIsPausedThenClosed(t *testing.T) {
	const soft = 256 << 10
	h := newTestHandler()
	type outcome struct {
		maxQueued  int
		sawPause   bool
		sendErr    error
		framesSent int
	}
	paused := make(chan struct{})
	done := make(chan outcome, 1)
	h.onOpen = func(c *Conn) {
		// A small kernel send buffer, so that the output piles up in
		// the server and not in the kernel.
		if err := c.gc.SetWriteBuffer(4096); err != nil {
			t.Error(err)
		}
		go func() {
			var o outcome
			payload := make([]byte, 16<<10)
			for {
				if o.sendErr = c.Send(payload); o.sendErr != nil {
					break
				}
				o.framesSent++
				o.maxQueued = max(o.maxQueued, c.QueuedBytes())
				if !o.sawPause && c.ReadingPaused() {
					o.sawPause = true
					close(paused)
				}
			}
			done <- o
		}()
	}
	s := startServer(t, Config{MaxPendingOutput: soft}, h)
	nc := dialSmallWindow(t, s)
	recv(t, paused)
	// Reading from the client is paused: a request sent now is never
	// delivered.
	if _, err := nc.Write(appendFrame(nil, []byte("request"))); err != nil {
		t.Fatal(err)
	}
	o := recv(t, done)
	ev := recv(t, h.closed)
	if !errors.Is(o.sendErr, ErrSlowConsumer) && !errors.Is(o.sendErr, ErrClosed) {
		t.Fatalf("Send failed with %v", o.sendErr)
	}
	if !errors.Is(ev.err, ErrSlowConsumer) {
		t.Fatalf("OnClose err = %v, want ErrSlowConsumer", ev.err)
	}
	if hard := hardOutputFactor * soft; o.maxQueued > hard {
		t.Fatalf("queued %d bytes, above the hard cap %d", o.maxQueued, hard)
	}
	if o.maxQueued <= soft {
		t.Fatalf("queued at most %d bytes: the test never passed the soft cap", o.maxQueued)
	}
	if n := len(h.frames); n != 0 {
		t.Fatalf("%d frames delivered while paused", n)
	}
	t.Logf("%d frames sent, at most %d bytes queued", o.framesSent, o.maxQueued)
}

// A paused connection delivers nothing, however much is buffered, and on
// resume delivers everything in order: the handshake case, where frames
// pipelined behind a ConnectRequest wait for its answer.
func TestPauseResumeKeepsOrder(t *testing.T) {
	h := newTestHandler()
	h.onFrame = func(c *Conn, p []byte) {
		if string(p) == "connect" {
			c.PauseReading()
		}
	}
	s := startServer(t, Config{}, h)
	nc := dial(t, s)
	c := recv(t, h.opened)

	var first, second []byte
	var want [][]byte
	first = appendFrame(first, []byte("connect"))
	for i := range 50 {
		p := fmt.Appendf(nil, "req %d", i)
		want = append(want, p)
		first = appendFrame(first, p)
	}
	for i := 50; i < 100; i++ {
		p := fmt.Appendf(nil, "req %d", i)
		want = append(want, p)
		second = appendFrame(second, p)
	}
	if _, err := nc.Write(first); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, h.frames); string(got.payload) != "connect" {
		t.Fatalf("first frame %q", got.payload)
	}
	if _, err := nc.Write(second); err != nil {
		t.Fatal(err)
	}
	buffered := len(first) - 4 - len("connect") + len(second)
	waitFor(t, "all frames buffered", func() bool { return inboundBuffered(t, c) == buffered })
	if n := len(h.frames); n != 0 {
		t.Fatalf("%d frames delivered while paused", n)
	}
	if !c.ReadingPaused() {
		t.Fatal("ReadingPaused = false")
	}
	c.ResumeReading()
	expectFrames(t, h, want)
}

// Pausing on every frame and resuming from another goroutine (each
// resume's wake-up delivers the next frame) keeps order too.
func TestPauseEveryFrameResumeElsewhere(t *testing.T) {
	const n = 500
	h := newTestHandler()
	h.onFrame = func(c *Conn, _ []byte) {
		c.PauseReading()
		go c.ResumeReading()
	}
	s := startServer(t, Config{}, h)
	nc := dial(t, s)
	var stream []byte
	var want [][]byte
	for i := range n {
		p := fmt.Appendf(nil, "%d", i)
		want = append(want, p)
		stream = appendFrame(stream, p)
	}
	if _, err := nc.Write(stream); err != nil {
		t.Fatal(err)
	}
	expectFrames(t, h, want)
}

// The handshake pattern: each frame pauses reading and is answered from
// another goroutine, which resumes reading before or after sending the
// answer. When nothing was buffered at the pause, the resume wakes no
// loop; the client's next frame, sent after the answer or racing with the
// resume, must still be delivered.
func TestResumeRacingTheNextFrame(t *testing.T) {
	const rounds = 400
	h := newTestHandler()
	h.onFrame = func(c *Conn, p []byte) {
		c.PauseReading()
		answer := append([]byte(nil), p...)
		go func() {
			if answer[len(answer)-1]%2 == 0 {
				c.ResumeReading()
				_ = c.Send(answer)
			} else {
				_ = c.Send(answer)
				c.ResumeReading()
			}
		}()
	}
	s := startServer(t, Config{}, h)
	nc := dial(t, s)
	for i := range rounds {
		p := []byte{byte(i >> 8), byte(i)}
		if _, err := nc.Write(appendFrame(nil, p)); err != nil {
			t.Fatal(err)
		}
		got, err := readFrame(nc)
		if err != nil || !bytes.Equal(got, p) {
			t.Fatalf("round %d: got %v, %v", i, got, err)
		}
	}
}

func TestPausedInputIsBounded(t *testing.T) {
	h := newTestHandler()
	h.onFrame = func(c *Conn, _ []byte) { c.PauseReading() }
	s := startServer(t, Config{MaxFrame: 1024, MaxPausedInput: 16 << 10}, h)
	nc := dial(t, s)
	go func() {
		frame := appendFrame(nil, make([]byte, 1000))
		for {
			if _, err := nc.Write(frame); err != nil {
				return
			}
		}
	}()
	ev := recv(t, h.closed)
	if !errors.Is(ev.err, ErrPausedInputOverflow) {
		t.Fatalf("OnClose err = %v, want ErrPausedInputOverflow", ev.err)
	}
	_ = nc.Close()
}

func TestSendFuncFramesWhatItEncodes(t *testing.T) {
	h := newTestHandler()
	h.onFrame = func(c *Conn, _ []byte) {
		err := c.SendFunc(func(w *jute.Writer) {
			w.WriteInt(-1)
			w.WriteLong(42)
			w.WriteString("/zookeeper")
		})
		if err != nil {
			t.Error(err)
		}
	}
	s := startServer(t, Config{}, h)
	nc := dial(t, s)
	if _, err := nc.Write(appendFrame(nil, nil)); err != nil {
		t.Fatal(err)
	}
	p, err := readFrame(nc)
	if err != nil {
		t.Fatal(err)
	}
	w := jute.NewWriter(nil)
	w.WriteInt(-1)
	w.WriteLong(42)
	w.WriteString("/zookeeper")
	if !bytes.Equal(p, w.Bytes()) {
		t.Fatalf("got %x, want %x", p, w.Bytes())
	}
}

func TestConnBasics(t *testing.T) {
	h := newTestHandler()
	nodelay := make(chan int, 2)
	h.onOpen = func(c *Conn) {
		c.SetContext("session")
		v, err := unix.GetsockoptInt(c.gc.Fd(), unix.IPPROTO_TCP, unix.TCP_NODELAY)
		if err != nil {
			t.Error(err)
		}
		nodelay <- v
	}
	s := startServer(t, Config{}, h)
	a, b := dial(t, s), dial(t, s)
	ca, cb := recv(t, h.opened), recv(t, h.opened)
	if v := recv(t, nodelay); v == 0 {
		t.Error("TCP_NODELAY is off")
	}
	if ca.ID() == cb.ID() {
		t.Errorf("both connections have ID %d", ca.ID())
	}
	if ca.Context() != "session" {
		t.Errorf("Context = %v", ca.Context())
	}
	if ca.RemoteIP() != "127.0.0.1" {
		t.Errorf("RemoteIP = %q", ca.RemoteIP())
	}
	locals := map[string]bool{a.LocalAddr().String(): true, b.LocalAddr().String(): true}
	if !locals[ca.RemoteAddr().String()] || !locals[cb.RemoteAddr().String()] {
		t.Errorf("RemoteAddr %v, %v; clients are %v", ca.RemoteAddr(), cb.RemoteAddr(), locals)
	}

	// The loops may open them in either order.
	if ca.RemoteAddr().String() != a.LocalAddr().String() {
		ca, cb = cb, ca
	}

	ca.Close()
	ev := recv(t, h.closed)
	if ev.conn != ca || ev.err != nil {
		t.Fatalf("OnClose(%d, %v)", ev.conn.ID(), ev.err)
	}
	if err := ca.Send([]byte("x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Send after Close: %v", err)
	}
	ca.Close() // again: no second OnClose
	expectSilentClose(t, a)

	_ = b.Close() // the peer goes away
	ev = recv(t, h.closed)
	if ev.conn != cb || !errors.Is(ev.err, io.EOF) {
		t.Fatalf("OnClose(%d, %v), want EOF", ev.conn.ID(), ev.err)
	}
	if len(h.closed) != 0 {
		t.Fatal("OnClose called twice")
	}
}

func TestServerCloseClosesEverything(t *testing.T) {
	h := newTestHandler()
	s, err := Listen(Config{Addr: "127.0.0.1:0", Loops: 2}, h)
	if err != nil {
		t.Fatal(err)
	}
	var clients []net.Conn
	var conns []*Conn
	for range 3 {
		clients = append(clients, dial(t, s))
		conns = append(conns, recv(t, h.opened))
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for range 3 {
		if ev := recv(t, h.closed); !errors.Is(ev.err, ErrServerClosed) {
			t.Fatalf("OnClose err = %v, want ErrServerClosed", ev.err)
		}
	}
	for _, nc := range clients {
		expectSilentClose(t, nc)
	}
	for _, c := range conns {
		if err := c.Send([]byte("x")); !errors.Is(err, ErrClosed) {
			t.Fatalf("Send after server Close: %v", err)
		}
	}
	if n := s.ConnCount(); n != 0 {
		t.Fatalf("ConnCount = %d", n)
	}
	if _, err := net.Dial("tcp", s.Addr().String()); err == nil {
		t.Fatal("still accepting after Close")
	}
	_ = s.Close() // idempotent
}

func TestListenReportsBindErrors(t *testing.T) {
	h := newTestHandler()
	s := startServer(t, Config{}, h)
	if _, err := Listen(Config{Addr: s.Addr().String()}, h); err == nil {
		t.Fatal("second Listen on the same port succeeded")
	}
}

// Sends racing with the connection's close never panic or deadlock, and
// OnClose comes once.
func TestSendRacingClose(t *testing.T) {
	h := newTestHandler()
	s := startServer(t, Config{}, h)
	for range 20 {
		nc := dial(t, s)
		c := recv(t, h.opened)
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for c.Send([]byte("ping")) == nil {
				}
			}()
		}
		_ = nc.Close()
		wg.Wait()
		recv(t, h.closed)
	}
	if len(h.closed) != 0 {
		t.Fatal("extra OnClose")
	}
}

// Reading pauses while a client leaves more than MaxPendingOutput unread
// and resumes, delivering what it sent meanwhile, once it has read enough.
func TestOutputBackpressurePausesAndResumes(t *testing.T) {
	const soft, frames, size = 256 << 10, 32, 16 << 10 // 512 KiB queued
	h := newTestHandler()
	s := startServer(t, Config{MaxPendingOutput: soft}, h)
	nc := dialSmallWindow(t, s)
	c := recv(t, h.opened)
	if err := c.gc.SetWriteBuffer(4096); err != nil {
		t.Fatal(err)
	}
	payload := make([]byte, size)
	for range frames {
		if err := c.Send(payload); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the output pause", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.paused.Load()&pausedByOutput != 0 && c.pending == nil && c.held > soft
	})
	request := appendFrame(nil, []byte("request"))
	if _, err := nc.Write(request); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the request to be buffered", func() bool { return inboundBuffered(t, c) == len(request) })
	if n := len(h.frames); n != 0 {
		t.Fatalf("%d frames delivered while paused by output", n)
	}
	for i := range frames {
		if _, err := readFrame(nc); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
	}
	if got := recv(t, h.frames); string(got.payload) != "request" {
		t.Fatalf("got %q", got.payload)
	}
	if c.ReadingPaused() {
		t.Fatal("still paused after the client caught up")
	}
}

func TestConfigDefaults(t *testing.T) {
	cfg := Config{}.withDefaults()
	if cfg.MaxFrame != DefaultMaxFrame || cfg.MaxPendingOutput != DefaultMaxPendingOutput || cfg.Loops < 1 {
		t.Fatalf("defaults: %+v", cfg)
	}
	if cfg.MaxPausedInput != 4*(DefaultMaxFrame+4) {
		t.Fatalf("MaxPausedInput = %d", cfg.MaxPausedInput)
	}
	if cfg := (Config{MaxFrame: 100, MaxPausedInput: 10}).withDefaults(); cfg.MaxPausedInput != 104 {
		t.Fatalf("MaxPausedInput = %d, want room for one frame", cfg.MaxPausedInput)
	}
}
