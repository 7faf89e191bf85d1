package quorumauth

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"testing"
)

// javaPackets are QuorumAuthPacket records as Java 3.8.0's
// BinaryOutputArchive writes them (QuorumAuth.createPacket with an empty,
// a small and a null token).
var javaPackets = []struct {
	status Status
	token  []byte
	hex    string
}{
	{InProgress, []byte{}, "5f2435013501edcc0000000000000000"},
	{Success, []byte("rspauth=x"), "5f2435013501edcc0000000100000009727370617574683d78"},
	{Error, nil, "5f2435013501edccffffffffffffffff"},
}

func TestPacketsMatchJava(t *testing.T) {
	for _, p := range javaPackets {
		got := hex.EncodeToString(AppendPacket(nil, p.status, p.token))
		if got != p.hex {
			t.Errorf("%s %q encodes as %s, Java writes %s", p.status, p.token, got, p.hex)
		}
		b, _ := hex.DecodeString(p.hex)
		st, token, err := ReadPacket(bytes.NewReader(b), 100)
		if err != nil || st != p.status || !bytes.Equal(token, p.token) || (token == nil) != (p.token == nil) {
			t.Errorf("reading %s: %s %q %v", p.hex, st, token, err)
		}
		isAuth, err := NextIsAuth(bufio.NewReader(bytes.NewReader(b)))
		if !isAuth || err != nil {
			t.Errorf("NextIsAuth(%s) = %v, %v", p.hex, isAuth, err)
		}
	}
}

func TestReadPacketRefusesGarbage(t *testing.T) {
	good := AppendPacket(nil, InProgress, []byte("abc"))
	withStatus := func(s uint32) []byte {
		b := bytes.Clone(good)
		b[8], b[9], b[10], b[11] = byte(s>>24), byte(s>>16), byte(s>>8), byte(s)
		return b
	}
	withLen := func(n uint32) []byte {
		b := bytes.Clone(good)
		b[12], b[13], b[14], b[15] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
		return b
	}
	cases := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, io.EOF},
		{"half a magic", good[:4], io.ErrUnexpectedEOF},
		{"no length", good[:12], io.ErrUnexpectedEOF},
		{"short token", good[:17], io.ErrUnexpectedEOF},
		{"wrong magic", append([]byte{0, 0, 0, 11}, good[4:]...), ErrMalformed},
		{"unknown status", withStatus(2), ErrMalformed},
		{"negative length", withLen(0xfffffffe), ErrMalformed},
		{"token over the limit", withLen(11), ErrMalformed},
	}
	for _, c := range cases {
		_, _, err := ReadPacket(bytes.NewReader(c.in), 10)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
}

// A peer that does not authenticate: its first bytes are not consumed.
func TestNextIsAuthLeavesOtherProtocols(t *testing.T) {
	frame := []byte{0, 0, 0, 40, 1, 2, 3, 4, 5}
	r := bufio.NewReader(bytes.NewReader(frame))
	isAuth, err := NextIsAuth(r)
	if isAuth || err != nil {
		t.Fatalf("NextIsAuth = %v, %v", isAuth, err)
	}
	rest, _ := io.ReadAll(r)
	if !bytes.Equal(rest, frame) {
		t.Fatalf("consumed: %x left of %x", rest, frame)
	}
	if _, err := NextIsAuth(bufio.NewReader(bytes.NewReader(frame[:3]))); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("short input: %v", err)
	}
}

func FuzzReadPacket(f *testing.F) {
	for _, p := range javaPackets {
		b, _ := hex.DecodeString(p.hex)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		st, token, err := ReadPacket(bytes.NewReader(b), 64)
		if err != nil {
			return
		}
		if len(token) > 64 {
			t.Fatalf("token of %d bytes over the limit", len(token))
		}
		enc := AppendPacket(nil, st, token)
		if !bytes.Equal(enc, b[:len(enc)]) {
			t.Fatalf("read %s %x from %x, which encodes as %x", st, token, b, enc)
		}
	})
}
