package peer

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/internal/failpoint"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/zab"
)

// outItem is one thing to write to a learner: a packet, or the tree's
// stream after a SNAP (written by snap into the connection's buffer).
type outItem struct {
	packet proto.QuorumPacket
	snap   func(w io.Writer) error
}

// learnerLink is one learner's connection on the leader's quorum port: a
// reader that hands each packet to the leader's loop, and a writer that
// sends what the loop queues, in order, without ever blocking the loop
// (Java's LearnerHandler and its queuedPackets).
type learnerLink struct {
	id   int64 // the loop's handle for this connection
	conn net.Conn
	log  zerolog.Logger

	mu      sync.Mutex
	queue   []outItem
	closed  bool
	wake    chan struct{}
	writing sync.WaitGroup
}

func newLearnerLink(id int64, conn net.Conn, log zerolog.Logger) *learnerLink {
	return &learnerLink{id: id, conn: conn, log: log, wake: make(chan struct{}, 1)}
}

// send queues items for the writer; it never blocks.
func (k *learnerLink) send(items ...outItem) {
	k.mu.Lock()
	if k.closed {
		k.mu.Unlock()
		return
	}
	k.queue = append(k.queue, items...)
	k.mu.Unlock()
	select {
	case k.wake <- struct{}{}:
	default:
	}
}

// close stops the link: the connection is closed and the writer ends.
func (k *learnerLink) close() {
	k.mu.Lock()
	already := k.closed
	k.closed = true
	k.queue = nil
	k.mu.Unlock()
	if !already {
		k.conn.Close()
		select {
		case k.wake <- struct{}{}:
		default:
		}
	}
}

// writeLoop writes the queued items until the link closes or a write
// fails (then gone is told, once). Each write is bounded by timeout, as a
// learner that stops reading must not hold the leader.
func (k *learnerLink) writeLoop(timeout time.Duration, gone func(error)) {
	defer k.writing.Done()
	bw := bufio.NewWriterSize(k.conn, 64<<10)
	var frame []byte
	for {
		k.mu.Lock()
		items, closed := k.queue, k.closed
		k.queue = nil
		k.mu.Unlock()
		if closed {
			return
		}
		if len(items) == 0 {
			<-k.wake
			continue
		}
		if timeout > 0 {
			k.conn.SetWriteDeadline(time.Now().Add(timeout))
		}
		var err error
		for i := range items {
			it := &items[i]
			if it.snap != nil {
				// The tree may take longer than one write's bound: the
				// deadline is pushed on as it goes.
				err = it.snap(&deadlineWriter{w: bw, conn: k.conn, timeout: timeout})
			} else {
				frame = zab.AppendPacket(frame[:0], &it.packet)
				_, err = bw.Write(frame)
			}
			if err != nil {
				break
			}
		}
		if err == nil {
			err = bw.Flush()
		}
		if err != nil {
			gone(fmt.Errorf("writing to the learner: %w", err))
			return
		}
	}
}

// deadlineWriter pushes a connection's write deadline on before each
// write, for a long SNAP.
type deadlineWriter struct {
	w       *bufio.Writer
	conn    net.Conn
	timeout time.Duration
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	if d.timeout > 0 {
		d.conn.SetWriteDeadline(time.Now().Add(d.timeout))
	}
	return d.w.Write(p)
}

// Flush writes what the buffer holds to the connection.
func (d *deadlineWriter) Flush() error { return d.w.Flush() }

// midSnapWriter is where failpoint.LeaderMidSnapSend fires: once the
// first write of a SNAP's tree has gone to the learner's connection.
type midSnapWriter struct {
	w     io.Writer
	wrote bool
}

func (m *midSnapWriter) Write(p []byte) (int, error) {
	n, err := m.w.Write(p)
	if err != nil || m.wrote {
		return n, err
	}
	m.wrote = true
	if f, ok := m.w.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			return n, err
		}
	}
	return n, failpoint.Hit(failpoint.LeaderMidSnapSend)
}

// readLoop reads packets and hands each to deliver until the connection
// fails or closes; the error then goes to gone. Each read is bounded by
// readTimeout() (initLimit before the learner is in sync, syncLimit
// after, as Java's LearnerHandler bounds them).
func (k *learnerLink) readLoop(maxPacket int, readTimeout func() time.Duration, deliver func(proto.QuorumPacket), gone func(error)) {
	br := bufio.NewReaderSize(k.conn, 64<<10)
	for {
		if t := readTimeout(); t > 0 {
			k.conn.SetReadDeadline(time.Now().Add(t))
		}
		p, err := zab.ReadPacket(br, maxPacket)
		if err != nil {
			gone(fmt.Errorf("reading from the learner: %w", err))
			return
		}
		deliver(p)
	}
}
