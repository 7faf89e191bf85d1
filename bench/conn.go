package bench

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// Special xids of server frames.
const (
	xidNotification = -1
	xidPing         = -2
)

// maxFrame bounds a reply frame; ZooKeeper's default jute.maxbuffer is 1 MiB
// and a reply may carry a little more than the data it returns.
const maxFrame = 4 << 20

// conn is one ZooKeeper session on one TCP connection. Requests are
// appended to an output buffer and written by flush; replies are read in
// order. A conn belongs to one goroutine.
type conn struct {
	nc        socket
	br        *bufio.Reader
	out       jute.Writer
	frame     []byte
	xid       int32
	sessionID int64
	passwd    []byte        // the session's password, to reattach it elsewhere
	timeout   time.Duration // negotiated session timeout
	ioTimeout time.Duration // bound on any one wait for the server
	deadline  time.Time     // the socket's deadline (see extendDeadline)
}

// socket is what a session needs of its connection: a net.Conn, or an
// *os.File over a socket (see fileDialer).
type socket interface {
	io.ReadWriteCloser
	SetDeadline(t time.Time) error
}

// dialOptions are the knobs of a new session.
type dialOptions struct {
	sessionTimeout time.Duration // requested
	ioTimeout      time.Duration
}

// readerSize is the read buffer of a session: a few replies of a
// pipelined run at once.
const readerSize = 64 << 10

// readers recycles the read buffers of closed sessions. The connect
// workload opens and closes thousands of sessions a second, and a fresh
// 64 KiB buffer for each (zeroed, then collected) was a tenth of the load
// generator's CPU per session, taken from the two cores it shares with the
// server.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readerSize) }}

// zeroPassword is the password of a new session's ConnectRequest.
var zeroPassword [proto.PasswordLength]byte

// dial connects to addr and establishes a new session.
//
// The socket is set up as cheaply as the measurement allows, because the
// connect workload pays for it once per session on the cores the server
// uses: Go turns TCP_NODELAY on by itself, and TCP keep-alive (four
// setsockopt calls per connection by default) is off, as a session never
// idles long enough to need it here.
func dial(addr string, o dialOptions) (*conn, error) {
	return dialSession(addr, o, 0, zeroPassword[:], 0)
}

// dialSession connects to addr and establishes the session sessionID with
// its password (a new session when sessionID is 0), as a client does when
// its server goes away; lastZxid is the newest zxid the session has seen,
// which the server must have seen too before it takes the session.
func dialSession(addr string, o dialOptions, sessionID int64, passwd []byte, lastZxid int64) (*conn, error) {
	d := net.Dialer{Timeout: o.ioTimeout, KeepAlive: -1}
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	br := readers.Get().(*bufio.Reader)
	br.Reset(nc)
	c := &conn{nc: nc, br: br, ioTimeout: o.ioTimeout}
	if err := c.handshake(o.sessionTimeout, sessionID, passwd, lastZxid); err != nil {
		nc.Close()
		c.recycle()
		return nil, err
	}
	return c, nil
}

// recycle returns the read buffer to the pool; c must not read again.
func (c *conn) recycle() {
	if c.br != nil {
		c.br.Reset(nil)
		readers.Put(c.br)
		c.br = nil
	}
}

func (c *conn) handshake(timeout time.Duration, sessionID int64, passwd []byte, lastZxid int64) error {
	h := proto.Handshake{ConnectRequest: proto.ConnectRequest{
		TimeOut:      int32(timeout / time.Millisecond),
		SessionId:    sessionID,
		Passwd:       passwd,
		LastZxidSeen: lastZxid,
	}}
	at := c.out.BeginLength()
	h.Encode(&c.out)
	c.out.EndLength(at)
	if err := c.flush(); err != nil {
		return err
	}
	body, err := c.readFrame()
	if err != nil {
		return fmt.Errorf("handshake: %w", err)
	}
	var reply proto.HandshakeReply
	if err := jute.Unmarshal(body, &reply); err != nil {
		return fmt.Errorf("handshake reply: %w", err)
	}
	if reply.SessionId == 0 || reply.TimeOut <= 0 {
		return errors.New("handshake: the server refused the session")
	}
	if sessionID != 0 && reply.SessionId != sessionID {
		return fmt.Errorf("handshake: asked for session 0x%x, got 0x%x", sessionID, reply.SessionId)
	}
	c.sessionID = reply.SessionId
	c.passwd = passwd
	if sessionID == 0 {
		// The reply's bytes live in the frame buffer, which the next read
		// reuses.
		c.passwd = append([]byte(nil), reply.Passwd...)
	}
	c.timeout = time.Duration(reply.TimeOut) * time.Millisecond
	return nil
}

// queue appends a request and returns its xid. It is not written until
// flush.
func (c *conn) queue(op proto.OpCode, rec jute.Record) int32 {
	c.xid = nextXid(c.xid)
	appendRequest(&c.out, c.xid, op, rec)
	return c.xid
}

// nextXid follows xid, staying clear of the special (negative) xids after
// wrapping.
func nextXid(xid int32) int32 {
	if xid++; xid <= 0 {
		return 1
	}
	return xid
}

// appendRequest appends one length-prefixed request frame to out.
func appendRequest(out *jute.Writer, xid int32, op proto.OpCode, rec jute.Record) {
	at := out.BeginLength()
	hdr := proto.RequestHeader{Xid: xid, Type: int32(op)}
	hdr.Encode(out)
	if rec != nil {
		rec.Encode(out)
	}
	out.EndLength(at)
}

// flush writes the queued requests in one write.
func (c *conn) flush() error {
	if c.out.Len() == 0 {
		return nil
	}
	c.extendDeadline()
	_, err := c.nc.Write(c.out.Bytes())
	c.out.Reset()
	return err
}

// extendDeadline bounds the next wait for the server by ioTimeout. The
// socket's deadline (reads and writes alike) is moved only when less than
// half of ioTimeout is left, so that a wait is bounded by at least half
// of it and at most all of it, and a session that lives a few
// milliseconds, as in the connect workload, sets it once rather than at
// every write and blocking read (each a change to the runtime's timers).
func (c *conn) extendDeadline() {
	now := time.Now()
	if c.deadline.Sub(now) < c.ioTimeout/2 {
		c.deadline = now.Add(c.ioTimeout)
		c.nc.SetDeadline(c.deadline)
	}
}

// frameBuffered reports whether a whole frame is already buffered, so that
// reading it will not block.
func (c *conn) frameBuffered() bool {
	n := c.br.Buffered()
	if n < 4 {
		return false
	}
	b, _ := c.br.Peek(4)
	return n >= 4+int(binary.BigEndian.Uint32(b))
}

// readFrame returns the next frame's body, valid until the next call. Any
// queued requests are flushed first when the read could block.
func (c *conn) readFrame() ([]byte, error) {
	if !c.frameBuffered() {
		if err := c.flush(); err != nil {
			return nil, err
		}
		c.extendDeadline()
	}
	var lb [4]byte
	if _, err := io.ReadFull(c.br, lb[:]); err != nil {
		return nil, err
	}
	n := int(binary.BigEndian.Uint32(lb[:]))
	if n < 0 || n > maxFrame {
		return nil, fmt.Errorf("frame of %d bytes", n)
	}
	if cap(c.frame) < n {
		c.frame = make([]byte, n)
	}
	c.frame = c.frame[:n]
	if _, err := io.ReadFull(c.br, c.frame); err != nil {
		return nil, err
	}
	return c.frame, nil
}

// reply is a decoded reply header with the body that follows it.
type reply struct {
	xid  int32
	zxid int64
	err  proto.ErrCode
	body []byte
}

// readReply reads the next frame as a reply.
func (c *conn) readReply() (reply, error) {
	b, err := c.readFrame()
	if err != nil {
		return reply{}, err
	}
	if len(b) < 16 {
		return reply{}, fmt.Errorf("reply frame of %d bytes", len(b))
	}
	return reply{
		xid:  int32(binary.BigEndian.Uint32(b)),
		zxid: int64(binary.BigEndian.Uint64(b[4:])),
		err:  proto.ErrCode(int32(binary.BigEndian.Uint32(b[12:]))),
		body: b[16:],
	}, nil
}

// call sends one request and waits for its reply, skipping notifications
// and pings.
func (c *conn) call(op proto.OpCode, rec jute.Record) (reply, error) {
	xid := c.queue(op, rec)
	for {
		r, err := c.readReply()
		if err != nil {
			return r, err
		}
		if r.xid == xidNotification || r.xid == xidPing {
			continue
		}
		if r.xid != xid {
			return r, fmt.Errorf("reply xid %d, want %d", r.xid, xid)
		}
		return r, nil
	}
}

// close ends the session (closeSession, then the socket), waiting at most
// ioTimeout for the server's answer.
func (c *conn) close() error {
	_, err := c.call(proto.OpCloseSession, nil)
	c.nc.Close()
	c.recycle()
	return err
}

// abort drops the connection without ending the session. It may be called
// from another goroutine to stop one blocked reading, so it leaves the
// read buffer alone.
func (c *conn) abort() { c.nc.Close() }
