package netio

import (
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gozk/gozk/jute"
)

// echoHandler answers every frame with the same payload, either on the
// event loop (as the server answers a read) or from a worker goroutine (as
// it answers after the pipeline), which exercises the wake-up path.
type echoHandler struct {
	handoff chan echoJob
}

type echoJob struct {
	c *Conn
	n int
	p [64]byte
}

func (h *echoHandler) OnOpen(*Conn) {}

func (h *echoHandler) OnFrame(c *Conn, payload []byte) {
	if h.handoff == nil {
		_ = c.Send(payload)
		return
	}
	job := echoJob{c: c, n: len(payload)}
	copy(job.p[:], payload)
	h.handoff <- job
}

func (h *echoHandler) OnFourLetterWord(*Conn, string) []byte { return nil }
func (h *echoHandler) OnClose(*Conn, error)                  {}

func (h *echoHandler) work() {
	for job := range h.handoff {
		_ = job.c.Send(job.p[:job.n])
	}
}

// BenchmarkEcho measures round trips of a 32-byte frame (about a ping or
// a small getData); with many connections ns/op is the inverse of the
// throughput.
func BenchmarkEcho(b *testing.B) {
	for _, handoff := range []bool{false, true} {
		for _, conns := range []int{1, 64} {
			name := fmt.Sprintf("conns=%d", conns)
			if handoff {
				name += "/handoff"
			}
			b.Run(name, func(b *testing.B) { benchEcho(b, conns, handoff) })
		}
	}
}

// BenchmarkEchoTLS is BenchmarkEcho over the TLS transport.
func BenchmarkEchoTLS(b *testing.B) {
	for _, handoff := range []bool{false, true} {
		for _, conns := range []int{1, 64} {
			name := fmt.Sprintf("conns=%d", conns)
			if handoff {
				name += "/handoff"
			}
			b.Run(name, func(b *testing.B) { benchEchoOver(b, conns, handoff, true) })
		}
	}
}

func benchEcho(b *testing.B, conns int, handoff bool) { benchEchoOver(b, conns, handoff, false) }

func benchEchoOver(b *testing.B, conns int, handoff, overTLS bool) {
	h := &echoHandler{}
	if handoff {
		h.handoff = make(chan echoJob, 1024)
		go h.work()
		defer close(h.handoff)
	}
	clients := make([]net.Conn, conns)
	if overTLS {
		s := startTLSServer(b, Config{}, h)
		for i := range clients {
			clients[i] = mustDialTLS(b, s.SecureAddr())
		}
	} else {
		s := startServer(b, Config{}, h)
		for i := range clients {
			clients[i] = dial(b, s)
		}
	}
	frame := appendFrame(nil, make([]byte, 32))
	var left atomic.Int64
	left.Store(int64(b.N))
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	for _, nc := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reply := make([]byte, len(frame))
			for left.Add(-1) >= 0 {
				if _, err := nc.Write(frame); err != nil {
					b.Error(err)
					return
				}
				if _, err := io.ReadFull(nc, reply); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkBurst100Sends queues 100 frames from one goroutine, as a burst
// of replies and notifications, and reports how many writes carried them.
func BenchmarkBurst100Sends(b *testing.B) {
	const burst, size = 100, 64
	h := newTestHandler()
	s := startServer(b, Config{}, h)
	nc := dial(b, s)
	c := recv(b, h.opened)
	payload := make([]byte, size)
	in := make([]byte, burst*(frameLength+size))
	before := s.Flushes()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for range burst {
			if err := c.Send(payload); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := io.ReadFull(nc, in); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(s.Flushes()-before)/float64(b.N), "writes/op")
}

// replyHeader encodes a ReplyHeader, the most common frame body.
func replyHeader(w *jute.Writer) {
	w.WriteInt(1)
	w.WriteLong(2)
	w.WriteInt(0)
}

// BenchmarkSendFunc is the cost of queueing one encoded frame from a
// goroutine other than the loop; a reader drains the connection.
func BenchmarkSendFunc(b *testing.B) {
	h := newTestHandler()
	s := startServer(b, Config{}, h)
	nc := dial(b, s)
	c := recv(b, h.opened)
	go func() { _, _ = io.Copy(io.Discard, nc) }()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := c.SendFunc(replyHeader); err != nil {
			b.Fatal(err)
		}
	}
}
