package server

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// openRawSession completes a handshake on a raw connection asking for
// timeout and returns the connection and the negotiated timeout.
func openRawSession(t *testing.T, s *Server, timeout time.Duration) (net.Conn, time.Duration) {
	t.Helper()
	conn := dialRaw(t, s)
	h := proto.Handshake{ConnectRequest: proto.ConnectRequest{TimeOut: int32(timeout / time.Millisecond), Passwd: make([]byte, proto.PasswordLength)}}
	sendFrame(t, conn, jute.Marshal(&h))
	var reply proto.HandshakeReply
	readFrame(t, conn, &reply)
	if reply.TimeOut == 0 {
		t.Fatal("the server refused the session")
	}
	return conn, time.Duration(reply.TimeOut) * time.Millisecond
}

// keepSending sends a request of op every 100 ms for d, reading each
// answer's header, and reports whether the server closed the connection
// meanwhile.
func keepSending(t *testing.T, conn net.Conn, op proto.OpCode, body jute.Record, d time.Duration) (closed bool) {
	t.Helper()
	end := time.Now().Add(d)
	for xid := int32(1); time.Now().Before(end); xid++ {
		w := jute.NewWriter(nil)
		(&proto.RequestHeader{Xid: xid, Type: int32(op)}).Encode(w)
		if body != nil {
			body.Encode(w)
		}
		frame := append([]byte{0, 0, 0, 0}, w.Bytes()...)
		n := len(frame) - 4
		frame[0], frame[1], frame[2], frame[3] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
		if _, err := conn.Write(frame); err != nil {
			return true
		}
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		var size [4]byte
		if _, err := io.ReadFull(conn, size[:]); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || !isTimeout(err) {
				return true
			}
			t.Fatalf("no answer to %v: %v", op, err)
		}
		payload := make([]byte, int(size[0])<<24|int(size[1])<<16|int(size[2])<<8|int(size[3]))
		if _, err := io.ReadFull(conn, payload); err != nil {
			return true
		}
		var rh proto.ReplyHeader
		r := jute.NewReader(payload)
		rh.Decode(r)
		if rh.Xid == xid && rh.Err != 0 {
			t.Fatalf("%v answered %d", op, rh.Err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// TestSASLIsNotSessionActivity: with no SASL configured the server
// answers a client's SASL token with an empty one, as Java does, and,
// as Java does, does not count it as activity: a client that only
// retries SASL sees its session expire (kazoo then reports AUTH_FAILED)
// rather than being kept waiting forever. Pings over the same time keep
// a session alive.
func TestSASLIsNotSessionActivity(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	pinging, timeout := openRawSession(t, s, 400*time.Millisecond)
	sasl, _ := openRawSession(t, s, 400*time.Millisecond)
	done := make(chan bool, 1)
	go func() { done <- keepSending(t, pinging, proto.OpPing, nil, 6*timeout) }()
	if !keepSending(t, sasl, proto.OpSASL, &proto.GetSASLRequest{Token: []byte{}}, 6*timeout) {
		t.Errorf("a session sending only SASL tokens for %v (timeout %v) was kept alive", 6*timeout, timeout)
	}
	if <-done {
		t.Errorf("a session pinging every 100 ms (timeout %v) was closed", timeout)
	}
}
