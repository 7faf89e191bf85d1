package fle

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestNotificationRoundTrip(t *testing.T) {
	n := Notification{State: Following, Leader: 3, Zxid: 0x500000007, ElectionEpoch: 9, PeerEpoch: 5,
		Config: []byte("server.1=127.0.0.1:2888:3888:participant\nversion=0")}
	b := n.AppendTo(nil)
	if len(b) != 44+len(n.Config) {
		t.Fatalf("encoded %d bytes, want %d", len(b), 44+len(n.Config))
	}
	got, err := ParseNotification(b)
	if err != nil {
		t.Fatal(err)
	}
	n.Version = NotificationVersion
	if got.State != n.State || got.Leader != n.Leader || got.Zxid != n.Zxid || got.ElectionEpoch != n.ElectionEpoch ||
		got.PeerEpoch != n.PeerEpoch || got.Version != n.Version || !bytes.Equal(got.Config, n.Config) {
		t.Fatalf("decoded %+v, want %+v", got, n)
	}
}

// notificationBytes builds a notification field by field, to hand-make
// what older or broken servers send.
func notificationBytes(state int32, leader, zxid, electionEpoch int64, more ...any) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(state))
	for _, v := range []int64{leader, zxid, electionEpoch} {
		b = binary.BigEndian.AppendUint64(b, uint64(v))
	}
	for _, m := range more {
		switch v := m.(type) {
		case int64:
			b = binary.BigEndian.AppendUint64(b, uint64(v))
		case int32:
			b = binary.BigEndian.AppendUint32(b, uint32(v))
		case []byte:
			b = append(b, v...)
		}
	}
	return b
}

func TestParseNotificationSizes(t *testing.T) {
	cfg := []byte("version=100000000")
	for _, c := range []struct {
		name    string
		p       []byte
		want    Notification
		problem string // part of the error, "" when it decodes
	}{
		{"3.3, 28 bytes: the peer epoch is the zxid's", notificationBytes(0, 2, 0x300000004, 7),
			Notification{State: Looking, Leader: 2, Zxid: 0x300000004, ElectionEpoch: 7, PeerEpoch: 3}, ""},
		{"3.4, 40 bytes: the version field is not read", notificationBytes(2, 2, 0x300000004, 7, int64(4), int32(2)),
			Notification{State: Leading, Leader: 2, Zxid: 0x300000004, ElectionEpoch: 7, PeerEpoch: 4}, ""},
		{"version 1 in 41 bytes", notificationBytes(1, 2, 5, 7, int64(4), int32(1), []byte{9}),
			Notification{State: Following, Leader: 2, Zxid: 5, ElectionEpoch: 7, PeerEpoch: 4, Version: 1}, ""},
		{"version 1, 44 bytes", notificationBytes(1, 2, 5, 7, int64(4), int32(1), int32(0)),
			Notification{State: Following, Leader: 2, Zxid: 5, ElectionEpoch: 7, PeerEpoch: 4, Version: 1}, ""},
		{"version 1 ignores what follows", notificationBytes(1, 2, 5, 7, int64(4), int32(1), []byte("xyz")),
			Notification{State: Following, Leader: 2, Zxid: 5, ElectionEpoch: 7, PeerEpoch: 4, Version: 1}, ""},
		{"version 2 with a configuration", notificationBytes(0, 2, 5, 7, int64(4), int32(2), int32(len(cfg)), cfg),
			Notification{Leader: 2, Zxid: 5, ElectionEpoch: 7, PeerEpoch: 4, Version: 2, Config: cfg}, ""},
		{"version 2, empty configuration", notificationBytes(0, 2, 5, 7, int64(4), int32(2), int32(0)),
			Notification{Leader: 2, Zxid: 5, ElectionEpoch: 7, PeerEpoch: 4, Version: 2, Config: []byte{}}, ""},
		{"an unknown state decodes (the receiver drops it)", notificationBytes(9, 2, 5, 7, int64(4), int32(1)),
			Notification{State: 9, Leader: 2, Zxid: 5, ElectionEpoch: 7, PeerEpoch: 4}, ""},
		{"27 bytes", notificationBytes(0, 2, 5, 7)[:27], Notification{}, "shorter than the oldest"},
		{"30 bytes", notificationBytes(0, 2, 5, 7, int64(4))[:30], Notification{}, "peer epoch"},
		{"36 bytes", notificationBytes(0, 2, 5, 7, int64(4)), Notification{}, "version"},
		{"39 bytes", notificationBytes(0, 2, 5, 7, int64(4), int32(2))[:39], Notification{}, "version"},
		{"version 2 in 42 bytes", notificationBytes(0, 2, 5, 7, int64(4), int32(2), []byte{0, 0}), Notification{}, "configuration's length"},
		{"negative configuration length", notificationBytes(0, 2, 5, 7, int64(4), int32(2), int32(-1)), Notification{}, "configuration length -1"},
		{"configuration length over the message", notificationBytes(0, 2, 5, 7, int64(4), int32(2), int32(1000), cfg), Notification{}, "configuration length 1000"},
		{"configuration cut short", notificationBytes(0, 2, 5, 7, int64(4), int32(2), int32(len(cfg)+5), cfg), Notification{}, "left in the notification"},
	} {
		got, err := ParseNotification(c.p)
		switch {
		case c.problem != "":
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), c.problem) {
				t.Errorf("%s: err = %v, want ErrMalformed mentioning %q", c.name, err, c.problem)
			}
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case got.State != c.want.State || got.Leader != c.want.Leader || got.Zxid != c.want.Zxid ||
			got.ElectionEpoch != c.want.ElectionEpoch || got.PeerEpoch != c.want.PeerEpoch ||
			got.Version != c.want.Version || !bytes.Equal(got.Config, c.want.Config) || (got.Config == nil) != (c.want.Config == nil):
			t.Errorf("%s: decoded %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestInitialMessageRoundTrip(t *testing.T) {
	for _, m := range []InitialMessage{
		{Protocol: ProtocolV2, SID: 3, Addrs: []string{"10.0.0.3:3888", "[fe80::1]:3888"}},
		{Protocol: ProtocolV1, SID: 1, Addrs: []string{"zk1.example:3888"}},
		{Protocol: 7, SID: 7}, // before 3.5: the id alone
	} {
		b := m.AppendTo(nil)
		got, err := ReadInitialMessage(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%+v: %v", m, err)
		}
		if got.Protocol != m.Protocol || got.SID != m.SID || strings.Join(got.Addrs, "|") != strings.Join(m.Addrs, "|") {
			t.Errorf("read %+v, wrote %+v", got, m)
		}
	}
}

// TestInitialMessageSkipsWildcards: a server bound to every interface
// sends 0.0.0.0 or ::; Java's receiver leaves such addresses out.
func TestInitialMessageSkipsWildcards(t *testing.T) {
	addrs := "0.0.0.0:3888|10.0.0.2:3888|[::]:3888|[fe80::2]:3888"
	m, err := ReadInitialMessage(bytes.NewReader(initialMessage(ProtocolV2, 2, int32(len(addrs)), addrs)))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(m.Addrs, "|") != "10.0.0.2:3888|[fe80::2]:3888" {
		t.Errorf("addresses %q", m.Addrs)
	}
	m, err = ReadInitialMessage(bytes.NewReader(initialMessage(ProtocolV1, 2, 12, "0.0.0.0:3888")))
	if err != nil || len(m.Addrs) != 0 || m.SID != 2 {
		t.Errorf("only a wildcard: %+v, %v; want no address", m, err)
	}
}

func initialMessage(protocol, sid int64, size int32, addrs string) []byte {
	b := binary.BigEndian.AppendUint64(nil, uint64(protocol))
	b = binary.BigEndian.AppendUint64(b, uint64(sid))
	b = binary.BigEndian.AppendUint32(b, uint32(size))
	return append(b, addrs...)
}

func TestReadInitialMessageRefuses(t *testing.T) {
	long := strings.Repeat("a", MaxInitialMessageAddrs-5) + ":3888"
	if _, err := ReadInitialMessage(bytes.NewReader(initialMessage(ProtocolV2, 1, int32(len(long)), long))); err != nil {
		t.Fatalf("an address string of exactly %d bytes: %v", len(long), err)
	}
	for _, c := range []struct {
		name string
		b    []byte
		want error
		text string
	}{
		{"unknown protocol", initialMessage(-3, 1, 9, "a:1"), ErrInitialMessage, "protocol version -3"},
		{"empty addresses", initialMessage(ProtocolV2, 1, 0, ""), ErrInitialMessage, "0 bytes"},
		{"negative length", initialMessage(ProtocolV2, 1, -1, ""), ErrInitialMessage, "-1 bytes"},
		{"too long", initialMessage(ProtocolV2, 1, MaxInitialMessageAddrs+1, ""), ErrInitialMessage, "2049 bytes"},
		{"no port", initialMessage(ProtocolV2, 1, 4, "host"), ErrInitialMessage, "badly formed"},
		{"bad port", initialMessage(ProtocolV2, 1, 6, "host:x"), ErrInitialMessage, "bad port"},
		{"bad second address", initialMessage(ProtocolV2, 1, 13, "a:1|b:2:3:4:5"), ErrInitialMessage, "badly formed"},
		{"v6 without its port", initialMessage(ProtocolV2, 1, 9, "[fe80::1]"), ErrInitialMessage, "no port"},
		{"cut in the id", initialMessage(ProtocolV2, 1, 3, "a:1")[:12], io.ErrUnexpectedEOF, ""},
		{"cut in the addresses", initialMessage(ProtocolV2, 1, 30, "a:1"), io.ErrUnexpectedEOF, ""},
		{"nothing", nil, io.EOF, ""},
	} {
		_, err := ReadInitialMessage(bytes.NewReader(c.b))
		if !errors.Is(err, c.want) || !strings.Contains(errString(err), c.text) {
			t.Errorf("%s: err = %v, want %v mentioning %q", c.name, err, c.want, c.text)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestFrames(t *testing.T) {
	var stream []byte
	payloads := [][]byte{[]byte("a"), bytes.Repeat([]byte("z"), MaxFrame)}
	for _, p := range payloads {
		stream = AppendFrame(stream, p)
	}
	r := bytes.NewReader(stream)
	var buf []byte
	for _, want := range payloads {
		var err error
		if buf, err = ReadFrame(r, buf); err != nil || !bytes.Equal(buf, want) {
			t.Fatalf("ReadFrame = %d bytes, %v; want %d bytes", len(buf), err, len(want))
		}
	}
	if _, err := ReadFrame(r, buf); err != io.EOF {
		t.Fatalf("at the end: %v, want io.EOF", err)
	}
	for _, size := range []int32{0, -1, MaxFrame + 1} {
		b := binary.BigEndian.AppendUint32(nil, uint32(size))
		if _, err := ReadFrame(bytes.NewReader(b), nil); !errors.Is(err, ErrFrame) {
			t.Errorf("length %d: %v, want ErrFrame", size, err)
		}
	}
	if _, err := ReadFrame(bytes.NewReader(AppendFrame(nil, []byte("abc"))[:5]), nil); err != io.ErrUnexpectedEOF {
		t.Errorf("a frame cut short: %v, want io.ErrUnexpectedEOF", err)
	}
}

func TestKeepsConnection(t *testing.T) {
	if !KeepsConnection(3, 1) || KeepsConnection(1, 3) || KeepsConnection(2, 2) {
		t.Error("only the connection opened by the larger id is kept")
	}
}

func FuzzParseNotification(f *testing.F) {
	f.Add(notificationBytes(0, 2, 5, 7))
	f.Add(notificationBytes(0, 2, 5, 7, int64(4), int32(1)))
	f.Add((&Notification{Config: []byte("version=1")}).AppendTo(nil))
	f.Add(notificationBytes(0, 2, 5, 7, int64(4), int32(2), int32(-1)))
	f.Fuzz(func(t *testing.T, p []byte) {
		n, err := ParseNotification(p)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		if len(n.Config) > len(p) {
			t.Fatalf("a %d-byte configuration from a %d-byte notification", len(n.Config), len(p))
		}
		if n.Version == NotificationVersion {
			// A version-2 notification re-encodes to its own first bytes
			// (higher versions are read alike, but written as 2).
			if b := n.AppendTo(nil); !bytes.Equal(b, p[:len(b)]) {
				t.Fatalf("re-encoded %x, decoded from %x", b, p)
			}
		}
	})
}

func FuzzReadInitialMessage(f *testing.F) {
	f.Add((&InitialMessage{Protocol: ProtocolV2, SID: 3, Addrs: []string{"h:1", "[::1]:2"}}).AppendTo(nil))
	f.Add(initialMessage(ProtocolV1, 1, 5, "a:bcd"))
	f.Add(initialMessage(ProtocolV2, 1, -7, ""))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ReadInitialMessage(bytes.NewReader(b))
		if err != nil {
			return
		}
		if m.Protocol < 0 {
			if n := len(strings.Join(m.Addrs, "|")); n == 0 || n > MaxInitialMessageAddrs {
				t.Fatalf("took an address string of %d bytes", n)
			}
			again, err := ReadInitialMessage(bytes.NewReader(m.AppendTo(nil)))
			if err != nil || again.SID != m.SID || strings.Join(again.Addrs, "|") != strings.Join(m.Addrs, "|") {
				t.Fatalf("round trip of %+v: %+v, %v", m, again, err)
			}
		}
	})
}

func FuzzReadFrame(f *testing.F) {
	f.Add(AppendFrame(nil, []byte("hello")))
	f.Add([]byte{0x7f, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ReadFrame(bytes.NewReader(b), nil)
		if err == nil && (len(p) == 0 || len(p) > MaxFrame || len(p) > len(b)) {
			t.Fatalf("a %d-byte frame from %d bytes", len(p), len(b))
		}
	})
}

func BenchmarkNotification(b *testing.B) {
	n := Notification{State: Looking, Leader: 3, Zxid: 0x500000007, ElectionEpoch: 9, PeerEpoch: 5,
		Config: []byte("server.1=10.0.0.1:2888:3888:participant\nserver.2=10.0.0.2:2888:3888:participant\nserver.3=10.0.0.3:2888:3888:participant\nversion=0")}
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = n.AppendTo(buf[:0])
		if _, err := ParseNotification(buf); err != nil {
			b.Fatal(err)
		}
	}
}
