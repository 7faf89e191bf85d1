package zkwire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// DefaultWaitLimit bounds every wait for a frame. It is a guard against a
// server that never answers, so that a broken server fails a test instead
// of hanging it; it is not a statement about how fast a server must be.
const DefaultWaitLimit = 30 * time.Second

// DefaultSessionTimeout is a session timeout to ask for in tests. It is
// well inside Java's default [4s, 40s] window for tickTime=2000, so it is
// never clamped there.
const DefaultSessionTimeout = 30 * time.Second

// DefaultMaxFrame is the largest incoming frame a Client accepts. It is far
// above jute.maxbuffer on purpose: a test client must be able to receive
// replies that a Java client would refuse.
const DefaultMaxFrame = 64 << 20

// replyHeaderLen is the encoded size of a ReplyHeader: xid, zxid, err.
const replyHeaderLen = 16

// Errors returned while waiting for frames.
var (
	// ErrConnectionClosed means the connection ended (server close, reset,
	// or Close); errors.Unwrap gives the underlying read error.
	ErrConnectionClosed = errors.New("zkwire: connection closed")
	// ErrWaitLimit means no frame arrived within the wait limit.
	ErrWaitLimit = errors.New("zkwire: no frame within the wait limit")
	// ErrNoHandshake means the server closed the connection (or stayed
	// silent) instead of answering the ConnectRequest, as Java does for a
	// client whose lastZxidSeen is ahead of the server.
	ErrNoHandshake = errors.New("zkwire: no ConnectResponse")
)

// Options shape the ConnectRequest and the client's limits. The zero value
// opens a new session the way a current Java client does.
type Options struct {
	// SessionID and Password resume an existing session; a nil Password is
	// sent as 16 zero bytes, which is what clients send for a new session.
	SessionID int64
	Password  []byte
	// ReadOnly is the client's "a read-only server is acceptable" flag.
	ReadOnly bool
	// OldClient leaves out the trailing readOnly byte, as clients before
	// 3.4 do; the server must then leave it out of its reply too.
	OldClient bool
	// LastZxidSeen is the highest zxid the client claims to have seen.
	LastZxidSeen int64
	// ProtocolVersion is sent as is; clients send 0.
	ProtocolVersion int32
	// RawConnect, when non-nil, replaces the encoded ConnectRequest: these
	// bytes are sent as the payload of the first frame.
	RawConnect []byte
	// Pipeline holds complete frames (see EncodeRequest) written behind the
	// ConnectRequest in the same write, before any reply is read.
	Pipeline [][]byte
	// DialTimeout bounds the TCP connect; 0 means the wait limit.
	DialTimeout time.Duration
	// WaitLimit bounds each wait for a frame; 0 means DefaultWaitLimit.
	WaitLimit time.Duration
	// MaxFrame is the largest incoming frame accepted; 0 means
	// DefaultMaxFrame.
	MaxFrame int
}

// Frame is one frame received after the handshake: a reply or a
// notification.
type Frame struct {
	// Header is the decoded ReplyHeader; it is zero when Short is set.
	Header proto.ReplyHeader
	// Body is everything after the ReplyHeader (no copy of Payload).
	Body []byte
	// Payload is the whole frame without its length prefix.
	Payload []byte
	// Short is set when the payload is too small to hold a ReplyHeader.
	Short bool
}

// IsNotification reports whether the frame is a watch notification.
func (f Frame) IsNotification() bool { return !f.Short && f.Header.Xid == proto.XidNotification }

// Code returns the frame's error code.
func (f Frame) Code() proto.ErrCode { return proto.ErrCode(f.Header.Err) }

// Event decodes the WatcherEvent of a notification.
func (f Frame) Event() (proto.WatcherEvent, error) {
	var ev proto.WatcherEvent
	err := decodeRecord(f.Body, &ev)
	return ev, err
}

// Client is one connection to a ZooKeeper server. Its methods may be used
// from one goroutine at a time, except Close, which may be called from
// anywhere.
type Client struct {
	conn net.Conn
	// Handshake is the server's ConnectResponse.
	Handshake proto.HandshakeReply
	// HandshakeLen is the payload length of the ConnectResponse frame (37
	// for a current client, 36 for an old one).
	HandshakeLen int
	// HandshakePayload is the raw ConnectResponse payload.
	HandshakePayload []byte

	waitLimit time.Duration
	frames    chan Frame
	done      chan struct{}
	closeOnce sync.Once
	readErr   error // written by the reader before it closes frames
	pending   []Frame
	nextXid   int32
	lastZxid  atomic.Int64
	writeMu   sync.Mutex
}

// Connect dials addr, sends a ConnectRequest asking for sessionTimeout
// (sent as is, in ms, even when zero or negative) together with
// opts.Pipeline in one write, and reads the ConnectResponse. A refusal (timeOut 0) is not an
// error: the Client is returned with the refusal in Handshake and the
// server's close will arrive as the end of Frames. If the server closes
// the connection without answering, the error wraps ErrNoHandshake.
func Connect(addr string, sessionTimeout time.Duration, opts Options) (*Client, error) {
	wait := opts.WaitLimit
	if wait <= 0 {
		wait = DefaultWaitLimit
	}
	dialTimeout := opts.DialTimeout
	if dialTimeout <= 0 {
		dialTimeout = wait
	}
	maxFrame := opts.MaxFrame
	if maxFrame <= 0 {
		maxFrame = DefaultMaxFrame
	}
	conn, err := net.DialTimeout("tcp", addr, dialTimeout)
	if err != nil {
		return nil, err
	}
	connect := opts.RawConnect
	if connect == nil {
		pw := opts.Password
		if pw == nil {
			pw = make([]byte, proto.PasswordLength)
		}
		h := proto.Handshake{
			ConnectRequest: proto.ConnectRequest{
				ProtocolVersion: opts.ProtocolVersion,
				LastZxidSeen:    opts.LastZxidSeen,
				TimeOut:         int32(sessionTimeout / time.Millisecond),
				SessionId:       opts.SessionID,
				Passwd:          pw,
			},
			ReadOnly:  opts.ReadOnly,
			OldClient: opts.OldClient,
		}
		connect = jute.Marshal(&h)
	}
	out := Frame32(connect)
	for _, f := range opts.Pipeline {
		out = append(out, f...)
	}
	if _, err := conn.Write(out); err != nil {
		conn.Close()
		return nil, err
	}
	br := bufio.NewReaderSize(conn, 64<<10)
	conn.SetReadDeadline(time.Now().Add(wait))
	payload, err := readFrame(br, maxFrame)
	conn.SetReadDeadline(time.Time{})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("%w: %w", ErrNoHandshake, err)
	}
	c := &Client{
		conn:             conn,
		HandshakeLen:     len(payload),
		HandshakePayload: payload,
		waitLimit:        wait,
		frames:           make(chan Frame, 4096),
		done:             make(chan struct{}),
	}
	r := jute.NewReader(payload)
	c.Handshake.Decode(r)
	if r.Err() != nil {
		conn.Close()
		return nil, fmt.Errorf("zkwire: decoding ConnectResponse %x: %w", payload, r.Err())
	}
	go c.readLoop(br, maxFrame)
	return c, nil
}

// readFrame reads one length-prefixed frame.
func readFrame(br *bufio.Reader, maxFrame int) ([]byte, error) {
	var lenBuf [4]byte
	if _, err := io.ReadFull(br, lenBuf[:]); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(lenBuf[:]))
	if n < 0 || int(n) > maxFrame {
		return nil, fmt.Errorf("zkwire: incoming frame length %d outside [0, %d]", n, maxFrame)
	}
	payload := make([]byte, n)
	if _, err := io.ReadFull(br, payload); err != nil {
		return nil, err
	}
	return payload, nil
}

// readLoop delivers every frame in wire order until the connection ends.
func (c *Client) readLoop(br *bufio.Reader, maxFrame int) {
	defer close(c.frames)
	for {
		payload, err := readFrame(br, maxFrame)
		if err != nil {
			c.readErr = err
			return
		}
		f := Frame{Payload: payload}
		if len(payload) < replyHeaderLen {
			f.Short = true
		} else {
			f.Header.Decode(jute.NewReader(payload[:replyHeaderLen]))
			f.Body = payload[replyHeaderLen:]
			if !f.IsNotification() && f.Header.Zxid > c.lastZxid.Load() {
				c.lastZxid.Store(f.Header.Zxid)
			}
		}
		select {
		case c.frames <- f:
		case <-c.done:
			c.readErr = net.ErrClosed
			return
		}
	}
}

// SessionID returns the session id the server granted (0 on refusal).
func (c *Client) SessionID() int64 { return c.Handshake.SessionId }

// Password returns the session password the server sent.
func (c *Client) Password() []byte { return c.Handshake.Passwd }

// Refused reports whether the server refused the session (timeOut 0).
func (c *Client) Refused() bool { return c.Handshake.TimeOut == 0 }

// LastZxid returns the highest zxid seen in a reply header so far, as the
// Java client tracks it for lastZxidSeen and SetWatches.relativeZxid.
func (c *Client) LastZxid() int64 { return c.lastZxid.Load() }

// Conn returns the underlying connection, for tests that need to shape
// the traffic themselves.
func (c *Client) Conn() net.Conn { return c.conn }

// Frames returns the channel of incoming frames; it is closed when the
// connection ends. Use either Frames or Next/Call, not both: Next and Call
// keep frames they skipped in an internal queue that Frames bypasses.
func (c *Client) Frames() <-chan Frame { return c.frames }

// Err returns why the connection ended; it is only meaningful after
// Frames has been closed.
func (c *Client) Err() error { return c.readErr }

// NextXid returns the next request xid: 1, 2, 3, ... as Java clients
// number their requests.
func (c *Client) NextXid() int32 {
	c.nextXid++
	return c.nextXid
}

// Close closes the TCP connection without ending the session, which the
// server keeps until it expires or is resumed.
func (c *Client) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.done)
		err = c.conn.Close()
	})
	return err
}

// Do sends one request frame: the RequestHeader {xid, op} and the body,
// which may be nil (header only), a jute.Record, or []byte sent verbatim.
func (c *Client) Do(op proto.OpCode, xid int32, body any) error {
	frame, err := EncodeRequest(xid, op, body)
	if err != nil {
		return err
	}
	return c.SendRaw(frame)
}

// Send writes complete frames (see EncodeRequest and Frame32) in one
// write, which is how a client pipelines requests.
func (c *Client) Send(frames ...[]byte) error {
	var out []byte
	for _, f := range frames {
		out = append(out, f...)
	}
	return c.SendRaw(out)
}

// SendRaw writes b exactly as given: no length prefix is added.
func (c *Client) SendRaw(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.conn.Write(b)
	return err
}

// Next returns the next frame not yet returned: first those Call skipped
// while waiting for its reply, then new ones. It fails with
// ErrConnectionClosed when the connection has ended and with ErrWaitLimit
// when nothing arrives within the wait limit.
func (c *Client) Next() (Frame, error) {
	if len(c.pending) > 0 {
		f := c.pending[0]
		c.pending = c.pending[1:]
		return f, nil
	}
	return c.receive()
}

// Pending returns the number of frames Call has queued for Next.
func (c *Client) Pending() int { return len(c.pending) }

// receive waits for the next frame from the reader goroutine.
func (c *Client) receive() (Frame, error) {
	timer := time.NewTimer(c.waitLimit)
	defer timer.Stop()
	select {
	case f, ok := <-c.frames:
		if !ok {
			return Frame{}, c.closedErr()
		}
		return f, nil
	case <-timer.C:
		return Frame{}, ErrWaitLimit
	}
}

func (c *Client) closedErr() error {
	if c.readErr == nil {
		return ErrConnectionClosed
	}
	return fmt.Errorf("%w: %w", ErrConnectionClosed, c.readErr)
}

// AwaitXid waits for the reply carrying xid; every other frame received
// meanwhile (notifications, replies to other requests) is queued for Next.
func (c *Client) AwaitXid(xid int32) (Frame, error) {
	for {
		f, err := c.receive()
		if err != nil {
			return Frame{}, err
		}
		if !f.Short && f.Header.Xid == xid && !f.IsNotification() {
			return f, nil
		}
		c.pending = append(c.pending, f)
	}
}

// Call sends a request with the next xid and waits for its reply.
func (c *Client) Call(op proto.OpCode, body any) (Frame, error) {
	return c.CallXid(op, c.NextXid(), body)
}

// CallXid sends a request with the given xid and waits for the reply
// carrying it. Pings are always answered with xid -2 by Java, so callers
// use CallXid(proto.OpPing, proto.XidPing, nil).
func (c *Client) CallXid(op proto.OpCode, xid int32, body any) (Frame, error) {
	if err := c.Do(op, xid, body); err != nil {
		return Frame{}, err
	}
	return c.AwaitXid(xid)
}

// EncodeRequest returns a complete request frame (length prefix,
// RequestHeader, body). body is nil, a jute.Record or raw []byte.
func EncodeRequest(xid int32, op proto.OpCode, body any) ([]byte, error) {
	w := jute.NewWriter(nil)
	at := w.BeginLength()
	h := proto.RequestHeader{Xid: xid, Type: int32(op)}
	h.Encode(w)
	switch b := body.(type) {
	case nil:
	case []byte:
		w.WriteRaw(b)
	case jute.Record:
		b.Encode(w)
	default:
		return nil, fmt.Errorf("zkwire: request body of type %T is neither a jute.Record nor []byte", body)
	}
	w.EndLength(at)
	return w.Bytes(), nil
}

// Frame32 returns payload behind a 4-byte big-endian length prefix.
func Frame32(payload []byte) []byte {
	out := make([]byte, 4, 4+len(payload))
	binary.BigEndian.PutUint32(out, uint32(len(payload)))
	return append(out, payload...)
}
