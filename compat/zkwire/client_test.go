package zkwire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// fakeServer accepts one connection and hands it to script, which plays
// the server's side frame by frame.
func fakeServer(t *testing.T, script func(t *testing.T, conn net.Conn, br *bufio.Reader)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		conn, err := l.Accept()
		l.Close()
		if err != nil {
			return
		}
		defer conn.Close()
		script(t, conn, bufio.NewReader(conn))
	}()
	t.Cleanup(func() { l.Close(); <-done })
	return l.Addr().String()
}

func readPayload(t *testing.T, br *bufio.Reader) []byte {
	t.Helper()
	p, err := readFrame(br, DefaultMaxFrame)
	if err != nil {
		t.Errorf("server: reading a frame: %v", err)
		return nil
	}
	return p
}

func writeRecords(conn net.Conn, recs ...jute.Record) {
	w := jute.NewWriter(nil)
	at := w.BeginLength()
	for _, r := range recs {
		r.Encode(w)
	}
	w.EndLength(at)
	conn.Write(w.Bytes())
}

func acceptSession(t *testing.T, conn net.Conn, br *bufio.Reader) proto.Handshake {
	t.Helper()
	var h proto.Handshake
	if err := jute.Unmarshal(readPayload(t, br), &h); err != nil {
		t.Errorf("server: decoding handshake: %v", err)
	}
	reply := proto.HandshakeReply{
		ConnectResponse: proto.ConnectResponse{TimeOut: h.TimeOut, SessionId: 42, Passwd: bytes.Repeat([]byte{7}, 16)},
		OldClient:       h.OldClient,
	}
	writeRecords(conn, &reply)
	return h
}

func TestConnectSendsHandshakeAndPipeline(t *testing.T) {
	got := make(chan []byte, 3)
	addr := fakeServer(t, func(t *testing.T, conn net.Conn, br *bufio.Reader) {
		for i := 0; i < 3; i++ {
			got <- readPayload(t, br)
		}
		writeRecords(conn, &proto.HandshakeReply{ConnectResponse: proto.ConnectResponse{TimeOut: 4000, SessionId: 9, Passwd: make([]byte, 16)}})
		io.Copy(io.Discard, br)
	})
	ping, err := EncodeRequest(proto.XidPing, proto.OpPing, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := EncodeRequest(5, 77, []byte{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Connect(addr, 1500*time.Millisecond, Options{
		SessionID: 0x1234, Password: bytes.Repeat([]byte{1}, 16), ReadOnly: true, LastZxidSeen: 99,
		Pipeline: [][]byte{ping, raw},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	connect := <-got
	if len(connect) != 45 {
		t.Fatalf("ConnectRequest payload is %d bytes, want 45", len(connect))
	}
	var h proto.Handshake
	if err := jute.Unmarshal(connect, &h); err != nil {
		t.Fatal(err)
	}
	if h.TimeOut != 1500 || h.SessionId != 0x1234 || h.LastZxidSeen != 99 || !h.ReadOnly || h.OldClient {
		t.Errorf("handshake sent = %+v", h)
	}
	if p := <-got; !bytes.Equal(p, ping[4:]) {
		t.Errorf("first pipelined frame = %x, want %x", p, ping[4:])
	}
	if p := <-got; !bytes.Equal(p, raw[4:]) {
		t.Errorf("second pipelined frame = %x, want %x", p, raw[4:])
	}
	if c.SessionID() != 9 || c.Handshake.TimeOut != 4000 || c.HandshakeLen != 37 || c.Refused() {
		t.Errorf("handshake reply = %+v (len %d)", c.Handshake, c.HandshakeLen)
	}
}

func TestOldClientHandshake(t *testing.T) {
	addr := fakeServer(t, func(t *testing.T, conn net.Conn, br *bufio.Reader) {
		h := acceptSession(t, conn, br)
		if !h.OldClient {
			t.Errorf("server saw the readOnly byte from an old client")
		}
		io.Copy(io.Discard, br)
	})
	c, err := Connect(addr, DefaultSessionTimeout, Options{OldClient: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.HandshakeLen != 36 || !c.Handshake.OldClient {
		t.Errorf("old-client reply: len %d, %+v", c.HandshakeLen, c.Handshake)
	}
}

func TestNoHandshake(t *testing.T) {
	addr := fakeServer(t, func(t *testing.T, conn net.Conn, br *bufio.Reader) {
		readPayload(t, br)
	})
	_, err := Connect(addr, DefaultSessionTimeout, Options{})
	if !errors.Is(err, ErrNoHandshake) {
		t.Fatalf("Connect error = %v, want ErrNoHandshake", err)
	}
}

// TestCallKeepsNotificationsInOrder checks that frames Call skips while
// waiting for its reply come back from Next in wire order.
func TestCallKeepsNotificationsInOrder(t *testing.T) {
	addr := fakeServer(t, func(t *testing.T, conn net.Conn, br *bufio.Reader) {
		acceptSession(t, conn, br)
		var hdr proto.RequestHeader
		jute.Unmarshal(readPayload(t, br), &hdr)
		if hdr.Type != int32(proto.OpGetData) {
			t.Errorf("request type = %d", hdr.Type)
		}
		for _, path := range []string{"/a", "/b"} {
			writeRecords(conn, &proto.ReplyHeader{Xid: -1, Zxid: -1},
				&proto.WatcherEvent{Type: int32(proto.EventNodeDataChanged), State: 3, Path: path})
		}
		writeRecords(conn, &proto.ReplyHeader{Xid: hdr.Xid, Zxid: 7},
			&proto.GetDataResponse{Data: nil, Stat: proto.Stat{Czxid: 5, DataLength: 0}})
		jute.Unmarshal(readPayload(t, br), &hdr)
		writeRecords(conn, &proto.ReplyHeader{Xid: hdr.Xid, Zxid: 8, Err: int32(proto.ErrNoNode)})
	})
	c, err := Connect(addr, DefaultSessionTimeout, Options{WaitLimit: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp, err := c.GetData("/x", true)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Data != nil || resp.Stat.Czxid != 5 {
		t.Errorf("getData = %+v, want null data and czxid 5", resp)
	}
	if c.LastZxid() != 7 {
		t.Errorf("LastZxid = %d, want 7", c.LastZxid())
	}
	_, err = c.Exists("/y", false)
	var se *ServerError
	if !errors.Is(err, proto.ErrNoNode) || !errors.As(err, &se) || se.Header.Zxid != 8 {
		t.Errorf("exists error = %v, want NoNode with zxid 8", err)
	}
	for _, want := range []string{"/a", "/b"} {
		f, err := c.Next()
		if err != nil {
			t.Fatal(err)
		}
		ev, err := f.Event()
		if err != nil || !f.IsNotification() || ev.Path != want {
			t.Errorf("notification = %+v %v, want %s", ev, err, want)
		}
	}
	if _, err := c.Next(); !errors.Is(err, ErrConnectionClosed) {
		t.Errorf("after the server closed: %v, want ErrConnectionClosed", err)
	}
}

func TestEncodeRequest(t *testing.T) {
	frame, err := EncodeRequest(3, proto.OpSync, &proto.SyncRequest{Path: "/a"})
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0, 0, 0, 14, 0, 0, 0, 3, 0, 0, 0, 9, 0, 0, 0, 2, '/', 'a'}
	if !bytes.Equal(frame, want) {
		t.Errorf("frame = %x, want %x", frame, want)
	}
	if _, err := EncodeRequest(1, proto.OpSync, 42); err == nil {
		t.Error("an int body was accepted")
	}
	if got := Frame32([]byte{9}); !bytes.Equal(got, []byte{0, 0, 0, 1, 9}) {
		t.Errorf("Frame32 = %x", got)
	}
}

func TestDecodeBody(t *testing.T) {
	body := append(jute.Marshal(&proto.CreateResponse{Path: "/x"}), 1, 2)
	rec, rest, err := DecodeBody(proto.OpCreate, body)
	if err != nil || rec.(*proto.CreateResponse).Path != "/x" || !bytes.Equal(rest, []byte{1, 2}) {
		t.Errorf("DecodeBody = %+v %x %v", rec, rest, err)
	}
	if rec, _, err := DecodeBody(proto.OpDelete, nil); rec != nil || err != nil {
		t.Errorf("delete has a body record: %v %v", rec, err)
	}
	if _, _, err := DecodeBody(999, nil); err == nil {
		t.Error("an unknown opcode decoded")
	}
}
