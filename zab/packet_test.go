package zab

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

func TestPacketRoundTrip(t *testing.T) {
	cases := []proto.QuorumPacket{
		{Type: int32(Ping), Zxid: 0x100000005},
		{Type: int32(Proposal), Zxid: 0x200000001, Data: []byte("txn"), Authinfo: []proto.Id{}},
		{Type: int32(Request), Zxid: -1, Data: []byte{}, Authinfo: []proto.Id{{Scheme: "ip", Id: "127.0.0.1"}, {Scheme: "digest", Id: "u:h"}}},
		{Type: int32(UpToDate), Zxid: -1},
	}
	var stream []byte
	for i := range cases {
		stream = AppendPacket(stream, &cases[i])
	}
	r := bytes.NewReader(stream)
	for i, want := range cases {
		got, err := ReadPacket(r, jute.DefaultMaxBuffer)
		if err != nil {
			t.Fatalf("packet %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("packet %d: got %+v, want %+v", i, got, want)
		}
	}
	if _, err := ReadPacket(r, jute.DefaultMaxBuffer); err != io.EOF {
		t.Fatalf("after the last packet: %v, want io.EOF", err)
	}
}

func TestReadPacketBounds(t *testing.T) {
	p := proto.QuorumPacket{Type: int32(Proposal), Zxid: 1, Data: make([]byte, 100)}
	enc := AppendPacket(nil, &p)
	if _, err := ReadPacket(bytes.NewReader(enc), 99); !errors.Is(err, ErrMalformed) {
		t.Fatalf("data over the limit: %v", err)
	}
	if _, err := ReadPacket(bytes.NewReader(enc), 100); err != nil {
		t.Fatalf("data at the limit: %v", err)
	}
	for cut := 1; cut < len(enc); cut++ {
		if _, err := ReadPacket(bytes.NewReader(enc[:cut]), 1000); err != io.ErrUnexpectedEOF {
			t.Fatalf("cut at %d: %v, want io.ErrUnexpectedEOF", cut, err)
		}
	}
	// Each authinfo string is bounded on its own, as Java checks each
	// length: two strings of 60 pass a limit of 100, one of 101 does not.
	pair := proto.QuorumPacket{Type: int32(Request), Authinfo: []proto.Id{{Scheme: strings.Repeat("s", 60), Id: strings.Repeat("i", 60)}}}
	if _, err := ReadPacket(bytes.NewReader(AppendPacket(nil, &pair)), 100); err != nil {
		t.Fatalf("authinfo strings each within the limit: %v", err)
	}
	big := proto.QuorumPacket{Type: int32(Request), Authinfo: []proto.Id{{Scheme: "digest", Id: strings.Repeat("i", 101)}}}
	if _, err := ReadPacket(bytes.NewReader(AppendPacket(nil, &big)), 100); !errors.Is(err, ErrMalformed) {
		t.Fatalf("authinfo id over the limit: %v", err)
	}
	// A negative vector count other than -1.
	neg := AppendPacket(nil, &proto.QuorumPacket{Type: int32(Ack)})
	copy(neg[len(neg)-4:], []byte{0xff, 0xff, 0xff, 0xfe})
	if _, err := ReadPacket(bytes.NewReader(neg), 100); !errors.Is(err, ErrMalformed) {
		t.Fatalf("authinfo count -2: %v", err)
	}
}

func TestLearnerInfoLengths(t *testing.T) {
	full := AppendLearnerInfo(nil, proto.LearnerInfo{Serverid: 3, ProtocolVersion: ProtocolVersion, ConfigVersion: 0x100000000})
	if len(full) != 20 {
		t.Fatalf("LearnerInfo is %d bytes, want 20", len(full))
	}
	for _, c := range []struct {
		n     int
		want  proto.LearnerInfo
		hasID bool
	}{
		{0, proto.LearnerInfo{}, false},
		{7, proto.LearnerInfo{}, false},
		{8, proto.LearnerInfo{Serverid: 3}, true},
		{12, proto.LearnerInfo{Serverid: 3, ProtocolVersion: ProtocolVersion}, true},
		{20, proto.LearnerInfo{Serverid: 3, ProtocolVersion: ProtocolVersion, ConfigVersion: 0x100000000}, true},
	} {
		got, ok := LearnerInfoOf(full[:c.n])
		if got != c.want || ok != c.hasID {
			t.Errorf("%d bytes: %+v %v, want %+v %v", c.n, got, ok, c.want, c.hasID)
		}
	}
}

func TestBodies(t *testing.T) {
	touches := []SessionTouch{{ID: 0x100000001, Timeout: 30000}, {ID: -5, Timeout: 4000}}
	got, err := ReadTouchTable(AppendTouchTable(nil, touches))
	if err != nil || !reflect.DeepEqual(got, touches) {
		t.Fatalf("touch table: %+v, %v", got, err)
	}
	if got, err := ReadTouchTable(nil); err != nil || len(got) != 0 {
		t.Fatalf("empty touch table: %+v, %v", got, err)
	}
	if _, err := ReadTouchTable(make([]byte, 13)); !errors.Is(err, ErrMalformed) {
		t.Fatalf("13-byte touch table: %v", err)
	}
	if s, to, err := ReadRevalidate(AppendRevalidate(nil, 7, 9000)); s != 7 || to != 9000 || err != nil {
		t.Fatalf("revalidate: %d %d %v", s, to, err)
	}
	if s, ok, err := ReadRevalidateReply(AppendRevalidateReply(nil, 7, true)); s != 7 || !ok || err != nil {
		t.Fatalf("revalidate reply: %d %v %v", s, ok, err)
	}
	req := ForwardedRequest{Session: 0x300000001, Cxid: 12, Op: int32(proto.OpCreate), Body: []byte("record")}
	if got, err := ReadRequest(AppendRequest(nil, req)); err != nil || !reflect.DeepEqual(got, req) {
		t.Fatalf("request: %+v, %v", got, err)
	}
	if _, err := ReadRequest(make([]byte, 15)); !errors.Is(err, ErrMalformed) {
		t.Fatalf("short request: %v", err)
	}
	if v, err := ReadIntBody(AckEpoch, IntBody(-1)); v != -1 || err != nil {
		t.Fatalf("int body: %d %v", v, err)
	}
	if _, err := ReadIntBody(LeaderInfo, []byte{1}); !errors.Is(err, ErrMalformed) {
		t.Fatalf("short int body: %v", err)
	}
}

func TestPacketTypeNames(t *testing.T) {
	if Proposal.String() != "PROPOSAL" || InformAndActivate.String() != "INFORMANDACTIVATE" || PacketType(20).Known() || PacketType(0).Known() {
		t.Fatal("packet type names")
	}
}

func FuzzReadPacket(f *testing.F) {
	f.Add(AppendPacket(nil, &proto.QuorumPacket{Type: int32(Request), Zxid: -1, Data: []byte("x"), Authinfo: []proto.Id{{Scheme: "ip", Id: "1"}}}))
	f.Add(AppendPacket(nil, &proto.QuorumPacket{Type: int32(Ping)}))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ReadPacket(bytes.NewReader(b), 4096)
		if err != nil {
			return
		}
		// What was read encodes to bytes that read back to the same
		// packet. (Not always to the bytes it came from: strings are
		// written in Java's encoding, where a 4-byte UTF-8 sequence
		// becomes two 3-byte ones.)
		enc := AppendPacket(nil, &p)
		again, err := ReadPacket(bytes.NewReader(enc), 1<<20)
		if err != nil {
			t.Fatalf("re-reading %x: %v", enc, err)
		}
		if enc2 := AppendPacket(nil, &again); !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not stable: %x then %x", enc, enc2)
		}
		ReadTouchTable(p.Data)
		ReadRequest(p.Data)
		ReadRevalidate(p.Data)
		LearnerInfoOf(p.Data)
	})
}
