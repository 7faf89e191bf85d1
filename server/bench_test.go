package server

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
	"golang.org/x/sys/unix"
)

// The benchmarks below drive a real server over loopback TCP with a
// minimal pipelining client that allocates nothing per request, so that
// allocs/op is the server's. They cover the request paths end to end:
// decode, the read fast path on the event loop, prep -> sync -> final for
// writes, reply encoding and write coalescing.

// benchClient is one session that keeps window requests outstanding.
type benchClient struct {
	nc  net.Conn
	br  *bufio.Reader
	out jute.Writer
	xid int32
	buf []byte
	len [4]byte
}

func dialBench(b testing.TB, s *Server) *benchClient {
	b.Helper()
	nc, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { nc.Close() })
	c := &benchClient{nc: nc, br: bufio.NewReaderSize(nc, 64<<10)}
	h := proto.Handshake{ConnectRequest: proto.ConnectRequest{TimeOut: 30000, Passwd: make([]byte, proto.PasswordLength)}}
	at := c.out.BeginLength()
	h.Encode(&c.out)
	c.out.EndLength(at)
	c.flush(b)
	var reply proto.HandshakeReply
	if err := jute.Unmarshal(c.read(b), &reply); err != nil || reply.SessionId == 0 {
		b.Fatalf("handshake: %v (session 0x%x)", err, reply.SessionId)
	}
	return c
}

func (c *benchClient) queue(op proto.OpCode, rec jute.Record) {
	c.xid++
	at := c.out.BeginLength()
	hdr := proto.RequestHeader{Xid: c.xid, Type: int32(op)}
	hdr.Encode(&c.out)
	rec.Encode(&c.out)
	c.out.EndLength(at)
}

func (c *benchClient) flush(b testing.TB) {
	if c.out.Len() == 0 {
		return
	}
	if _, err := c.nc.Write(c.out.Bytes()); err != nil {
		b.Fatal(err)
	}
	c.out.Reset()
}

// read returns the next frame, valid until the next read.
func (c *benchClient) read(b testing.TB) []byte {
	if _, err := io.ReadFull(c.br, c.len[:]); err != nil {
		b.Fatal(err)
	}
	n := int(binary.BigEndian.Uint32(c.len[:]))
	if cap(c.buf) < n {
		c.buf = make([]byte, n)
	}
	c.buf = c.buf[:n]
	if _, err := io.ReadFull(c.br, c.buf); err != nil {
		b.Fatal(err)
	}
	return c.buf
}

// readReply reads one reply and fails the benchmark on an error code.
func (c *benchClient) readReply(b testing.TB) {
	f := c.read(b)
	if len(f) < 16 {
		b.Fatalf("short reply of %d bytes", len(f))
	}
	if code := proto.ErrCode(int32(binary.BigEndian.Uint32(f[12:]))); code != proto.ErrOK {
		b.Fatalf("reply error %s", code.Name())
	}
}

// run keeps window requests of next outstanding for b.N requests.
func (c *benchClient) run(b *testing.B, window int, next func(i int) (proto.OpCode, jute.Record)) {
	sent, done := 0, 0
	for done < b.N {
		for sent < b.N && sent-done < window {
			op, rec := next(sent)
			c.queue(op, rec)
			sent++
		}
		c.flush(b)
		c.readReply(b)
		done++
		for done < sent && c.br.Buffered() >= 4 {
			c.readReply(b)
			done++
		}
	}
}

func startBenchServer(b *testing.B, forceSync bool) *Server {
	b.Helper()
	cfg := Defaults()
	cfg.ClientAddr = "127.0.0.1:0"
	cfg.DataDir = b.TempDir()
	cfg.ForceSync = forceSync
	cfg.TickTime = 2 * time.Second
	cfg.MaxClientCnxns = 0 // BenchmarkWatchFanOut opens 1,000 sessions
	s, err := Start(cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// benchWindows are the outstanding requests per session: one (latency
// bound, every hand-off on the path) and 64 (pipelined, batching).
var benchWindows = []int{1, 64}

func BenchmarkGetData(b *testing.B) {
	s := startBenchServer(b, false)
	for _, window := range benchWindows {
		b.Run("window="+strconv.Itoa(window), func(b *testing.B) {
			c := dialBench(b, s)
			c.queue(proto.OpCreate, &proto.CreateRequest{Path: "/get", Data: make([]byte, 100), Acl: proto.OpenACLUnsafe})
			c.flush(b)
			c.read(b)
			req := proto.GetDataRequest{Path: "/get"}
			b.ReportAllocs()
			b.ResetTimer()
			c.run(b, window, func(int) (proto.OpCode, jute.Record) { return proto.OpGetData, &req })
		})
	}
}

func BenchmarkSetData(b *testing.B) {
	for _, forceSync := range []bool{false, true} {
		s := startBenchServer(b, forceSync)
		for _, window := range benchWindows {
			b.Run("forceSync="+strconv.FormatBool(forceSync)+"/window="+strconv.Itoa(window), func(b *testing.B) {
				c := dialBench(b, s)
				c.queue(proto.OpCreate, &proto.CreateRequest{Path: "/set", Data: make([]byte, 100), Acl: proto.OpenACLUnsafe})
				c.flush(b)
				c.read(b)
				req := proto.SetDataRequest{Path: "/set", Data: make([]byte, 100), Version: -1}
				b.ReportAllocs()
				b.ResetTimer()
				c.run(b, window, func(int) (proto.OpCode, jute.Record) { return proto.OpSetData, &req })
			})
		}
	}
}

// createRuns numbers the runs of BenchmarkCreate, which the testing
// package repeats with growing b.N, so each creates under a parent of its
// own.
var createRuns int

func BenchmarkCreate(b *testing.B) {
	s := startBenchServer(b, false)
	for _, window := range benchWindows {
		b.Run("window="+strconv.Itoa(window), func(b *testing.B) {
			c := dialBench(b, s)
			createRuns++
			parent := "/create-" + strconv.Itoa(createRuns)
			c.queue(proto.OpCreate, &proto.CreateRequest{Path: parent, Acl: proto.OpenACLUnsafe})
			c.flush(b)
			c.read(b)
			req := proto.CreateRequest{Data: make([]byte, 100), Acl: proto.OpenACLUnsafe}
			// The paths are built before the timer starts.
			paths := make([]string, b.N)
			for i := range paths {
				paths[i] = parent + "/n" + strconv.Itoa(i)
			}
			b.ReportAllocs()
			b.ResetTimer()
			c.run(b, window, func(i int) (proto.OpCode, jute.Record) {
				req.Path = paths[i]
				return proto.OpCreate, &req
			})
		})
	}
}

// BenchmarkSetDataSessions is group commit: 16 sessions with one setData
// each in flight and forceSync on, so every batch holds at most 16 txns
// and the time between two fsyncs (answering one batch, preparing the
// next) decides the throughput. ns/op is wall time per setData over all
// sessions.
func BenchmarkSetDataSessions(b *testing.B) {
	const sessions = 16
	s := startBenchServer(b, true)
	clients := make([]*benchClient, sessions)
	reqs := make([]proto.SetDataRequest, sessions)
	for i := range clients {
		clients[i] = dialBench(b, s)
		path := "/set-" + strconv.Itoa(i)
		clients[i].queue(proto.OpCreate, &proto.CreateRequest{Path: path, Data: make([]byte, 100), Acl: proto.OpenACLUnsafe})
		clients[i].flush(b)
		clients[i].read(b)
		reqs[i] = proto.SetDataRequest{Path: path, Data: make([]byte, 100), Version: -1}
	}
	b.ResetTimer()
	done := make(chan struct{}, sessions)
	for i, c := range clients {
		n := b.N / sessions
		if i < b.N%sessions {
			n++
		}
		go func() {
			defer func() { done <- struct{}{} }()
			for range n {
				c.queue(proto.OpSetData, &reqs[i])
				if _, err := c.nc.Write(c.out.Bytes()); err != nil {
					b.Error(err)
					return
				}
				c.out.Reset()
				f, err := c.readFrame()
				if err != nil || len(f) < 16 || binary.BigEndian.Uint32(f[12:]) != 0 {
					b.Errorf("setData reply: %v (%d bytes)", err, len(f))
					return
				}
			}
		}()
	}
	for range clients {
		<-done
	}
}

// readFrame is read for goroutines other than the benchmark's own, which
// may not call b.Fatal.
func (c *benchClient) readFrame() ([]byte, error) {
	if _, err := io.ReadFull(c.br, c.len[:]); err != nil {
		return nil, err
	}
	n := int(binary.BigEndian.Uint32(c.len[:]))
	if cap(c.buf) < n {
		c.buf = make([]byte, n)
	}
	c.buf = c.buf[:n]
	_, err := io.ReadFull(c.br, c.buf)
	return c.buf, err
}

// BenchmarkWatchFanOut is one setData of a node that 1,000 sessions
// watch (persistent watches, so that an op is the setData and the
// delivery alone): the op ends when the setter has its reply and every
// watcher its notification.
func BenchmarkWatchFanOut(b *testing.B) {
	for _, watchers := range []int{10, 1000} {
		b.Run("watchers="+strconv.Itoa(watchers), func(b *testing.B) {
			s := startBenchServer(b, false)
			setter := dialBench(b, s)
			setter.queue(proto.OpCreate, &proto.CreateRequest{Path: "/fan", Data: make([]byte, 100), Acl: proto.OpenACLUnsafe})
			setter.flush(b)
			setter.readReply(b)
			ws := make([]*benchClient, watchers)
			for i := range ws {
				ws[i] = dialBench(b, s)
				ws[i].queue(proto.OpAddWatch, &proto.AddWatchRequest{Path: "/fan", Mode: int32(proto.AddWatchPersistent)})
				ws[i].flush(b)
				ws[i].readReply(b)
			}
			req := proto.SetDataRequest{Path: "/fan", Data: make([]byte, 100), Version: -1}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				setter.queue(proto.OpSetData, &req)
				setter.flush(b)
				setter.readReply(b)
				for _, w := range ws {
					if f := w.read(b); len(f) < 4 || int32(binary.BigEndian.Uint32(f)) != proto.XidNotification {
						b.Fatalf("watcher read %x, want a notification", f)
					}
				}
			}
		})
	}
}

// BenchmarkConnect opens and closes sessions, as the load generator's
// connect workload does: TCP connect, ConnectRequest, the createSession
// txn, the ConnectResponse, closeSession and its txn, the reply, TCP
// close. The client uses blocking system calls and allocates nothing, so
// allocs/op is the server's per session.
func BenchmarkConnect(b *testing.B) {
	s := startBenchServer(b, false)
	addr := s.Addr().(*net.TCPAddr)
	var sa unix.SockaddrInet4
	copy(sa.Addr[:], addr.IP.To4())
	sa.Port = addr.Port
	for _, conns := range []int{1, 16} {
		b.Run("conns="+strconv.Itoa(conns), func(b *testing.B) {
			b.ReportAllocs()
			var left atomic.Int64
			left.Store(int64(b.N))
			var wg sync.WaitGroup
			for range conns {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var c rawSessionClient
					for left.Add(-1) >= 0 {
						if err := c.session(&sa); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}

// rawSessionClient runs whole sessions over blocking sockets.
type rawSessionClient struct {
	connect []byte // ConnectRequest with its length
	closing []byte // closeSession with its length
	buf     [256]byte
}

func (c *rawSessionClient) session(sa *unix.SockaddrInet4) error {
	if c.connect == nil {
		var w jute.Writer
		at := w.BeginLength()
		h := proto.Handshake{ConnectRequest: proto.ConnectRequest{TimeOut: 30000, Passwd: make([]byte, proto.PasswordLength)}}
		h.Encode(&w)
		w.EndLength(at)
		c.connect = append([]byte(nil), w.Bytes()...)
		w.Reset()
		at = w.BeginLength()
		hdr := proto.RequestHeader{Xid: 1, Type: int32(proto.OpCloseSession)}
		hdr.Encode(&w)
		w.EndLength(at)
		c.closing = append([]byte(nil), w.Bytes()...)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Connect(fd, sa); err != nil {
		return err
	}
	if err := c.exchange(fd, c.connect); err != nil {
		return err
	}
	if binary.BigEndian.Uint64(c.buf[12:]) == 0 { // ConnectResponse.sessionId
		return io.ErrUnexpectedEOF
	}
	return c.exchange(fd, c.closing)
}

// exchange writes a request and reads one reply frame into c.buf.
func (c *rawSessionClient) exchange(fd int, req []byte) error {
	if _, err := unix.Write(fd, req); err != nil {
		return err
	}
	got := 0
	for got < 4 || got < 4+int(binary.BigEndian.Uint32(c.buf[:])) {
		n, err := unix.Read(fd, c.buf[got:])
		if err != nil {
			return err
		}
		if n == 0 {
			return io.ErrUnexpectedEOF
		}
		got += n
	}
	return nil
}
