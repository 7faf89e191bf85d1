package netio

import (
	"encoding/binary"
	"time"

	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"
)

// This file is the event-loop side of a connection. Everything here runs
// on the connection's gnet loop, which owns the loop-only fields of Conn.

// service is the connection's one entry point on the loop, for socket
// traffic and for wake-ups alike: it hands queued output to the socket,
// delivers buffered frames unless reading is paused, flushes what the
// handler queued meanwhile, and applies the output limits.
func (c *Conn) service() gnet.Action {
	for {
		if c.gone {
			return gnet.None
		}
		c.flush(true)
		action := gnet.None
		if !c.gone {
			action = c.deliver()
		}
		c.flush(false)
		if action != gnet.None || c.gone {
			return action
		}
		action, resumed := c.checkOutput()
		if action != gnet.None || !resumed {
			return action
		}
	}
}

// flush hands everything pending to gnet in one write. entering says
// whether the loop stays in service afterwards (Sends then need no
// wake-up) or leaves it.
func (c *Conn) flush(entering bool) {
	c.mu.Lock()
	c.inService = entering
	c.flushDue = false
	out := c.pending
	c.pending = nil
	if out != nil {
		// Until gnet has them, the bytes still count against the caps.
		c.flushing = len(*out)
	}
	c.mu.Unlock()

	if out != nil {
		if len(*out) > 0 && !c.gone {
			// gnet writes at once when nothing of ours is waiting in
			// its buffer and copies what the socket does not take, so
			// out can be reused as soon as Write returns. A write error
			// makes gnet close the connection right here.
			_, _ = c.gc.Write(*out)
			c.server.flushes.Add(1)
		}
		recyclePending(out)
	}
	held := 0
	if !c.gone {
		held = c.gc.OutboundBuffered()
	}
	c.mu.Lock()
	c.flushing = 0
	c.held = held
	c.mu.Unlock()
}

// deliver hands complete frames to the handler until the buffer runs dry,
// reading is paused or the connection has to close.
func (c *Conn) deliver() gnet.Action {
	gc := c.gc
	cfg := &c.server.cfg
	for {
		if paused := c.paused.Load(); paused != 0 {
			buffered := gc.InboundBuffered()
			if paused&pausedForClose != 0 {
				if buffered > 0 {
					_, _ = gc.Discard(buffered)
				}
				return gnet.None
			}
			if buffered > cfg.MaxPausedInput {
				c.server.log.Warn().Uint64("conn", c.id).Str("remote", c.RemoteAddr().String()).
					Int("buffered", buffered).Msg("closing connection: too much input while paused")
				c.setCloseReason(ErrPausedInputOverflow)
				return gnet.Close
			}
			if buffered == 0 {
				// Nothing waits: bytes arriving later bring the loop
				// back here, and ResumeReading need not wake it.
				return gnet.None
			}
			c.mu.Lock()
			c.stalled = true
			c.mu.Unlock()
			if c.paused.Load() == 0 {
				// Resumed meanwhile, perhaps before stalled was set
				// (then without a wake-up): deliver now.
				continue
			}
			return gnet.None
		}
		if !c.framing {
			if gc.InboundBuffered() < frameLength {
				return gnet.None
			}
			head, _ := gc.Peek(frameLength)
			if word, ok := fourLetterWordIn(head); ok {
				return c.answerFourLetterWord(word)
			}
			c.framing = true
		}
		size, state := nextFrame(gc, cfg.MaxFrame)
		switch state {
		case frameIncomplete:
			return gnet.None
		case frameBadLength:
			head, _ := gc.Peek(frameLength)
			c.server.log.Info().Uint64("conn", c.id).Str("remote", c.RemoteAddr().String()).
				Int32("len", int32(binary.BigEndian.Uint32(head))).Msg("Len error")
			c.setCloseReason(ErrFrameLength)
			return gnet.Close
		}
		frame, err := gc.Peek(size)
		if err != nil {
			return gnet.Close
		}
		if !c.handshaken.Load() {
			c.handshakeDone()
		}
		c.server.handler.OnFrame(c, frame[frameLength:])
		if c.gone {
			return gnet.None
		}
		_, _ = gc.Discard(size)
	}
}

// answerFourLetterWord runs a four-letter word and writes its answer
// unframed; the connection closes after the write. Java stops reading at
// this point, so the rest of the input is dropped.
func (c *Conn) answerFourLetterWord(word string) gnet.Action {
	gc := c.gc
	c.handshakeDone()
	// stmk's mask must have come with the word: Java reads it once, at
	// once, and closes the connection without an answer when it is not
	// all there. The handler decides, as the whitelist comes first.
	if word == setTraceMask && gc.InboundBuffered() >= frameLength+8 {
		b, _ := gc.Peek(frameLength + 8)
		c.fourLetterArg = int64(binary.BigEndian.Uint64(b[frameLength:]))
		c.fourLetterArgOK = true
	}
	c.paused.Or(pausedForClose)
	c.mu.Lock()
	c.closeRequested = true // no Sends behind the answer
	c.mu.Unlock()
	_, _ = gc.Discard(gc.InboundBuffered())

	answer := c.server.handler.OnFourLetterWord(c, word)
	if len(answer) == 0 || c.gone {
		return gnet.Close
	}
	if gc.OutboundBuffered() > 0 {
		// Output queued before the word (the server sent something in
		// OnOpen) is still in gnet: queue behind it and close once gnet
		// has written everything.
		_, _ = gc.Write(answer)
		c.mu.Lock()
		c.closeAfterFlush = true
		c.mu.Unlock()
		return gnet.None
	}
	// Write directly so that what the socket does not take can move to a
	// goroutine of its own: gnet closes a connection as soon as it reads
	// EOF, which would cut a long answer short when the client (netcat)
	// half-closes right after the word.
	n, err := writeNonBlocking(gc.Fd(), answer)
	if err == unix.EAGAIN {
		c.placeHeldByAnswer = c.server.writeRestInBackground(c, answer[n:])
	}
	return gnet.Close
}

// writeNonBlocking writes b to a non-blocking socket until it is all
// written or the socket is full (unix.EAGAIN) or broken.
func writeNonBlocking(fd int, b []byte) (int, error) {
	written := 0
	for written < len(b) {
		n, err := unix.Write(fd, b[written:])
		if n > 0 {
			written += n
		}
		switch err {
		case nil:
		case unix.EINTR:
		default:
			return written, err
		}
	}
	return written, nil
}

// checkOutput runs after each service round: it closes a connection whose
// final flush is done (or will never be), enforces the hard output cap,
// and pauses or resumes reading on the soft one. resumed says that
// reading resumed, so buffered frames may be deliverable.
func (c *Conn) checkOutput() (action gnet.Action, resumed bool) {
	c.mu.Lock()
	held := c.held
	queued := c.queuedBytesLocked()
	closeAfterFlush := c.closeAfterFlush
	c.mu.Unlock()

	cfg := &c.server.cfg
	switch {
	case closeAfterFlush:
		if queued == 0 {
			return gnet.Close, false
		}
		now := time.Now()
		if c.flushDeadline.IsZero() {
			c.flushDeadline = now.Add(closeFlushTimeout)
		} else if now.After(c.flushDeadline) {
			c.setCloseReason(ErrFlushTimeout)
			return gnet.Close, false
		}
		c.scheduleRecheck(held)
	case queued > c.server.hardOutput:
		c.mu.Lock()
		c.slowConsumerLocked()
		c.mu.Unlock()
		return gnet.Close, false
	case c.paused.Load()&pausedByOutput != 0:
		if queued <= cfg.MaxPendingOutput/2 {
			c.paused.And(^pausedByOutput)
			c.recheckDelay = 0
			return gnet.None, true
		}
		c.scheduleRecheck(held)
	case queued > cfg.MaxPendingOutput:
		c.paused.Or(pausedByOutput)
		c.scheduleRecheck(held)
	}
	return gnet.None, false
}

// scheduleRecheck arranges for service to run again soon, because gnet
// holds output and will not say when it has written it. The delay grows
// while the client makes no progress.
func (c *Conn) scheduleRecheck(held int) {
	switch {
	case c.recheckDelay == 0 || held < c.recheckHeld:
		c.recheckDelay = recheckMinDelay
	case c.recheckDelay < recheckMaxDelay:
		c.recheckDelay = min(2*c.recheckDelay, recheckMaxDelay)
	}
	c.recheckHeld = held
	if c.recheck == nil {
		c.recheck = time.AfterFunc(c.recheckDelay, c.recheckNow)
	} else {
		c.recheck.Reset(c.recheckDelay)
	}
}

// recheckNow runs on a timer goroutine.
func (c *Conn) recheckNow() {
	c.mu.Lock()
	if !c.closed {
		_ = c.gc.Wake(nil)
	}
	c.mu.Unlock()
}

// closed is called by gnet's OnClose, once. It returns the error to give
// the handler.
func (c *Conn) closedByGnet(err error) error {
	c.gone = true
	c.mu.Lock()
	c.closed = true
	out := c.pending
	c.pending = nil
	c.held = 0
	reason := c.closeReason
	c.mu.Unlock()
	recyclePending(out)
	if c.recheck != nil {
		c.recheck.Stop()
	}
	if c.sessionless != nil {
		c.sessionless.Stop()
	}
	if reason != nil {
		return reason
	}
	if err == nil && c.server.stopping.Load() {
		return ErrServerClosed
	}
	return err
}

// startSessionlessTimer arms the sessionless timeout of a new connection
// (Java's zookeeper.nio.sessionlessCnxnTimeout): a client that sends no
// complete first frame (its ConnectRequest) or four-letter word in time
// is disconnected, so that silent or half-sent connections do not hold a
// descriptor, an input buffer and a maxClientCnxns slot for ever. Unlike
// Java's, the clock is not restarted by each byte received, so a client
// trickling a frame in cannot hold the connection either.
func (c *Conn) startSessionlessTimer() {
	if d := c.server.cfg.SessionlessTimeout; d > 0 {
		c.sessionless = time.AfterFunc(d, c.sessionlessExpired)
	}
}

// handshakeDone stops the sessionless timeout: the first frame or a
// four-letter word has arrived, and the server takes over.
func (c *Conn) handshakeDone() {
	c.handshaken.Store(true)
	if c.sessionless != nil {
		c.sessionless.Stop()
	}
}

// sessionlessExpired runs on a timer goroutine.
func (c *Conn) sessionlessExpired() {
	if c.handshaken.Load() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.closeRequested {
		return
	}
	if ev := c.server.log.Debug(); ev.Enabled() {
		// Only when logged: a flood of silent sockets is when this runs most.
		ev.Uint64("conn", c.id).Str("remote", c.RemoteAddr().String()).
			Dur("timeoutMs", c.server.cfg.SessionlessTimeout).
			Msg("closing connection: no session request within the sessionless timeout")
	}
	c.closeLocked(ErrSessionlessTimeout)
}
