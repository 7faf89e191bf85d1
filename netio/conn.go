package netio

import (
	"context"
	"net"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/panjf2000/gnet/v2"

	"github.com/gozk/gozk/jute"
)

// Reasons for not delivering frames, kept as bits so that the server's
// pause, the output backpressure and closing do not undo each other.
const (
	pausedByServer uint32 = 1 << iota // PauseReading
	pausedByOutput                    // more than MaxPendingOutput queued
	pausedForClose                    // closing: input is dropped, never resumed
)

const (
	// A connection whose output gnet still holds is looked at again after
	// recheckMinDelay, doubling up to recheckMaxDelay while the client
	// makes no progress: gnet does not say when its buffer drains.
	recheckMinDelay = time.Millisecond
	recheckMaxDelay = 50 * time.Millisecond
	// closeFlushTimeout bounds how long CloseAfterFlush (and the
	// background write of a long four-letter-word answer) waits for a
	// client that stopped reading.
	closeFlushTimeout = 30 * time.Second
	// Pending buffers up to this capacity go back to the pool; larger
	// ones, grown by a burst, are left to the garbage collector so that
	// idle connections do not pin them.
	maxPooledBuffer = 64 << 10
)

// pendingPool recycles outgoing buffers between flushes: a connection
// holds one only while it has output queued.
var pendingPool = sync.Pool{New: func() any {
	b := make([]byte, 0, 4096)
	return &b
}}

func recyclePending(b *[]byte) {
	if b == nil || cap(*b) > maxPooledBuffer {
		return
	}
	*b = (*b)[:0]
	pendingPool.Put(b)
}

// Conn is one client connection. Its methods are safe for concurrent use
// unless they say otherwise.
type Conn struct {
	server   *Server
	gc       gnet.Conn   // nil on a TLS connection
	sec      *secureConn // the TLS transport (tlsconn.go), nil on a plain one
	id       uint64
	remote   netip.AddrPort
	remoteIP string
	context  atomic.Pointer[any]
	paused   atomic.Uint32
	// handshaken: the first frame or a four-letter word has arrived.
	handshaken atomic.Bool

	// Owned by the event loop.
	framing         bool // the first four bytes were not a four-letter word
	gone            bool // gnet has closed the connection
	fourLetterArg   int64
	fourLetterArgOK bool
	sessionless     *time.Timer // see startSessionlessTimer
	// placeHeldByAnswer: a four-letter-word answer is still being
	// written after gnet closed the connection, and holds its place
	// under the limits until it is done (writeRestInBackground).
	placeHeldByAnswer bool
	recheck           *time.Timer
	recheckDelay      time.Duration
	recheckHeld       int // held at the previous recheck
	flushDeadline     time.Time

	mu              sync.Mutex
	pending         *[]byte     // frames queued and not yet handed to gnet
	flushing        int         // bytes a flush has taken and not yet counted in held
	held            int         // what gnet still held after the last flush: the socket was full
	writer          jute.Writer // SendFunc's writer, reused
	inService       bool        // the loop is servicing c and flushes before it leaves
	stalled         bool        // the loop left frames buffered because reading was paused
	flushDue        bool        // a wake-up that flushes is on its way
	holds           int         // Hold calls not yet Released
	closeAfterFlush bool
	closeRequested  bool // Close was called or netio decided to close
	closed          bool // gnet closed it: no more wake-ups
	closeReason     error
}

// ID is unique among the connections of one Server.
func (c *Conn) ID() uint64 { return c.id }

// RemoteAddr is the client's address.
func (c *Conn) RemoteAddr() net.Addr {
	a := c.remote.Addr()
	return &net.TCPAddr{IP: a.AsSlice(), Port: int(c.remote.Port()), Zone: a.Zone()}
}

// RemoteIP is the client's IP address in text form, the key of the per-IP
// limit.
func (c *Conn) RemoteIP() string { return c.remoteIP }

// Context returns the value stored by SetContext, or nil.
func (c *Conn) Context() any {
	if v := c.context.Load(); v != nil {
		return *v
	}
	return nil
}

// SetContext associates a value with the connection.
func (c *Conn) SetContext(v any) { c.context.Store(&v) }

// FourLetterWordArgument is the big-endian long that followed stmk; ok is
// false when the eight bytes did not arrive with the word, which Java
// answers by closing the connection without output. It is meant for
// OnFourLetterWord, which runs on the same goroutine that sets it.
func (c *Conn) FourLetterWordArgument() (mask int64, ok bool) {
	return c.fourLetterArg, c.fourLetterArgOK
}

// QueuedBytes is the output not yet written to the socket: frames pending
// a flush plus what gnet holds because the socket was full (as of the last
// flush).
func (c *Conn) QueuedBytes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.queuedBytesLocked()
}

// ReadingPaused reports whether frames are currently held back, whether by
// PauseReading, by output backpressure or because the connection is
// closing (Java's interest ops without OP_READ).
func (c *Conn) ReadingPaused() bool { return c.paused.Load() != 0 }

// Send queues one frame: Send adds the 4-byte length in front of payload,
// which it copies. It never blocks on the network. Frames sent from one
// goroutine leave in call order; frames queued while a flush is due leave
// together in one write. It returns ErrClosed once the connection is
// closing, and ErrSlowConsumer (and closes the connection) when the frame
// would take the queue past four times MaxPendingOutput; a frame into an
// empty queue is always accepted, however large.
func (c *Conn) Send(payload []byte) error {
	c.mu.Lock()
	buf, err := c.reserveLocked(frameLength + len(payload))
	if err != nil {
		c.mu.Unlock()
		return err
	}
	buf = appendFrameHeader(buf, len(payload))
	*c.pending = append(buf, payload...)
	c.afterQueueLocked()
	c.mu.Unlock()
	return nil
}

// SendFunc queues one frame encoded in place: encode gets a *jute.Writer
// positioned after a reserved length prefix, which is filled in
// afterwards, so nothing is encoded twice or copied. encode runs under the
// connection's lock: it must not call methods of c and must not keep w.
// Errors are those of Send.
func (c *Conn) SendFunc(encode func(w *jute.Writer)) error {
	c.mu.Lock()
	buf, err := c.reserveLocked(frameLength)
	if err != nil {
		c.mu.Unlock()
		return err
	}
	start := len(buf)
	c.writer = *jute.NewWriter(buf)
	at := c.writer.BeginLength()
	encode(&c.writer)
	c.writer.EndLength(at)
	buf = c.writer.Bytes()
	c.writer = jute.Writer{}
	if queued := start + c.flushing + c.held; queued > 0 && queued+len(buf)-start > c.server.hardOutput {
		*c.pending = buf[:start]
		c.slowConsumerLocked()
		c.mu.Unlock()
		return ErrSlowConsumer
	}
	*c.pending = buf
	c.afterQueueLocked()
	c.mu.Unlock()
	return nil
}

// CloseAfterFlush writes what is queued and then closes the connection
// (closeSession reply, failed authentication, four-letter words). Frames
// that arrive afterwards are dropped and later Sends fail.
func (c *Conn) CloseAfterFlush() {
	c.mu.Lock()
	if !c.closed && !c.closeRequested && !c.closeAfterFlush {
		c.closeAfterFlush = true
		c.paused.Or(pausedForClose)
		if c.sec != nil {
			c.sec.boundFinalFlush()
		}
		c.wakeToFlushLocked()
	}
	c.mu.Unlock()
}

// Close closes the connection now; queued output may be lost.
func (c *Conn) Close() {
	c.mu.Lock()
	c.closeLocked(nil)
	c.mu.Unlock()
}

// PauseReading stops the delivery of frames, taking effect before the
// next frame even when called from OnFrame. It does not nest: one
// ResumeReading undoes any number of PauseReading calls.
func (c *Conn) PauseReading() { c.paused.Or(pausedByServer) }

// ResumeReading lets frames flow again; those buffered meanwhile are
// delivered first, in order.
func (c *Conn) ResumeReading() {
	if c.paused.And(^pausedByServer)&pausedByServer == 0 {
		return
	}
	c.mu.Lock()
	c.wakeIfStalledLocked()
	c.mu.Unlock()
}

// wakeIfStalledLocked wakes the loop after reading was allowed again, if
// it left frames buffered when it saw the pause. With nothing buffered
// there is nothing to deliver: the next bytes to arrive wake the loop
// anyway, so the wake-up (an eventfd write and a loop round) is saved,
// which is the common case of a handshake answered after its
// createSession txn. The loop marks stalled under c.mu and then looks at
// the pause again (see deliver): either it sees the pause lifted and goes
// on delivering, or this sees stalled and wakes it.
func (c *Conn) wakeIfStalledLocked() {
	if c.stalled && !c.closed {
		c.stalled = false
		if c.sec != nil {
			c.sec.wakeReader()
			return
		}
		_ = c.gc.Wake(nil)
	}
}

// reserveLocked checks that a frame of n bytes may be queued and returns
// the pending buffer to append it to.
func (c *Conn) reserveLocked(n int) ([]byte, error) {
	if c.closed || c.closeRequested || c.closeAfterFlush {
		return nil, ErrClosed
	}
	if queued := c.queuedBytesLocked(); queued > 0 && queued+n > c.server.hardOutput {
		c.slowConsumerLocked()
		return nil, ErrSlowConsumer
	}
	if c.pending == nil {
		c.pending = pendingPool.Get().(*[]byte)
	}
	return *c.pending, nil
}

// afterQueueLocked follows every queued frame: it pauses reading from a client
// that is far behind and makes sure a flush is coming.
func (c *Conn) afterQueueLocked() {
	if c.queuedBytesLocked() > c.server.cfg.MaxPendingOutput {
		c.paused.Or(pausedByOutput)
	}
	c.wakeToFlushLocked()
}

// wakeToFlushLocked schedules service on the event loop unless the loop
// is servicing c (it flushes before leaving), a wake-up is already due, or
// a Hold defers the flush to its Release.
func (c *Conn) wakeToFlushLocked() {
	if c.inService || c.flushDue || c.closed || c.holds > 0 {
		return
	}
	c.flushDue = true
	if c.sec != nil {
		c.sec.wakeWriter()
		return
	}
	_ = c.gc.Wake(nil)
}

// Hold defers the flush of frames queued from now on until the matching
// Release, so that a goroutine answering many requests in a row sends each
// connection's answers in one write. Holds nest. The event loop still
// flushes a held connection when it services it.
func (c *Conn) Hold() {
	c.mu.Lock()
	c.holds++
	c.mu.Unlock()
}

// Release ends a Hold. When it was the last one, what is pending is
// written at once from the calling goroutine if nothing else is in flight
// on the connection, and otherwise handed to the event loop. Writing
// directly saves what waking the loop costs per reply (an eventfd write,
// an epoll wake-up and a thread hand-off), which is most of the latency a
// reply computed off the loop otherwise adds.
func (c *Conn) Release() {
	c.mu.Lock()
	c.holds--
	if c.holds == 0 && !c.inService && !c.flushDue && !c.closed {
		// A TLS connection's writer goroutine does the writing: a
		// record cannot be written in part without blocking.
		if c.sec == nil && c.pendingLenLocked() > 0 {
			c.writeDirectLocked()
		}
		// What is left, and a CloseAfterFlush called while held, need
		// the loop.
		if c.pendingLenLocked() > 0 || c.closeAfterFlush {
			c.wakeToFlushLocked()
		}
	}
	c.mu.Unlock()
}

// minReleaseShare is the fewest connections ReleaseAll gives an event
// loop to write: below that, handing the writes over (an eventfd write and
// a thread wake-up, several microseconds on a loaded machine) costs about
// what writing them here would.
const minReleaseShare = 32

// ReleaseAll ends a Hold on each of conns, in order, with Release's
// direct writes, and spreads those writes over several cores when there
// are many: the calling goroutine writes the first share and each event
// loop one of the others, in parallel. A watch event notifying a thousand
// connections is mostly a thousand loopback writes, each doing the
// receiver's TCP work as well. Each connection is written by one
// goroutine, so its frames keep their order. conns may be reused once
// ReleaseAll returns; a loop's share may still be in flight then, which a
// later Hold on the same connection is ordered with as usual (holds nest).
func ReleaseAll(conns []*Conn) {
	if len(conns) == 0 {
		return
	}
	shares := min(conns[0].server.cfg.Loops, len(conns)/minReleaseShare)
	if shares <= 1 {
		releaseEach(conns)
		return
	}
	size := (len(conns) + shares - 1) / shares
	loops := make([]gnet.EventLoop, 0, shares-1)
	for start := size; start < len(conns); start += size {
		part := slices.Clone(conns[start:min(start+size, len(conns))])
		loop := pickLoop(part, loops)
		loops = append(loops, loop)
		run := gnet.RunnableFunc(func(context.Context) error {
			releaseEach(part)
			return nil
		})
		if loop == nil || loop.Execute(context.Background(), run) != nil {
			releaseEach(part) // the engine is stopping
		}
	}
	releaseEach(conns[:size])
}

// pickLoop returns the loop of one of part's first connections that has no
// share yet, so that the shares go to different loops; nil when none of
// them has a loop (TLS connections), and the caller writes the part.
func pickLoop(part []*Conn, taken []gnet.EventLoop) gnet.EventLoop {
	var first gnet.EventLoop
	for _, c := range part[:min(len(part), 8)] {
		if c.gc == nil {
			continue // a TLS connection: no event loop
		}
		loop := c.gc.EventLoop()
		if first == nil {
			first = loop
		}
		if !slices.Contains(taken, loop) {
			return loop
		}
	}
	return first
}

func releaseEach(conns []*Conn) {
	for _, c := range conns {
		c.Release()
	}
}

// writeDirectLocked writes the pending frames to the socket when that
// cannot reorder or interleave output: no flush is handing bytes to gnet,
// gnet holds none, and nothing waits for the loop (closing, or reading
// paused by output). c.mu keeps the loop from starting a flush meanwhile,
// and gnet closes the descriptor only after OnClose, which takes c.mu, so
// the descriptor is still this connection's. What the socket does not take
// stays pending.
func (c *Conn) writeDirectLocked() {
	if c.flushing != 0 || c.held != 0 || c.closeRequested || c.closeAfterFlush ||
		c.paused.Load()&pausedByOutput != 0 {
		return
	}
	out := *c.pending
	n, err := writeNonBlocking(c.gc.Fd(), out)
	if n > 0 {
		c.server.flushes.Add(1)
	}
	if err == nil && n == len(out) {
		recyclePending(c.pending)
		c.pending = nil
		return
	}
	// The socket is full or broken: the loop writes the rest, or meets
	// the error and closes the connection.
	*c.pending = out[:copy(out, out[n:])]
}

func (c *Conn) pendingLenLocked() int {
	if c.pending == nil {
		return 0
	}
	return len(*c.pending)
}

// queuedBytesLocked counts pending frames, those a flush is handing to
// gnet right now, and those gnet holds.
func (c *Conn) queuedBytesLocked() int {
	return c.pendingLenLocked() + c.flushing + c.held
}

func (c *Conn) slowConsumerLocked() {
	c.server.log.Warn().Uint64("conn", c.id).Str("remote", c.RemoteAddr().String()).
		Int("queued", c.queuedBytesLocked()).
		Msg("closing connection: client does not read its replies")
	c.closeLocked(ErrSlowConsumer)
}

// closeLocked asks gnet to close the connection on its loop.
func (c *Conn) closeLocked(reason error) {
	if c.closed || c.closeRequested {
		return
	}
	c.closeRequested = true
	if c.closeReason == nil {
		c.closeReason = reason
	}
	c.paused.Or(pausedForClose)
	if c.sec != nil {
		c.sec.shutdown()
		return
	}
	_ = c.gc.Close()
}

func (c *Conn) setCloseReason(err error) {
	c.mu.Lock()
	if c.closeReason == nil {
		c.closeReason = err
	}
	c.mu.Unlock()
}
