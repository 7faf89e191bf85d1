package netio

import (
	"encoding/binary"
	"io"
	"testing"
)

// sliceQueue is a byteQueue over a plain slice.
type sliceQueue struct{ b []byte }

func (q *sliceQueue) InboundBuffered() int { return len(q.b) }

func (q *sliceQueue) Peek(n int) ([]byte, error) {
	if n > len(q.b) {
		return nil, io.ErrShortBuffer
	}
	return q.b[:n], nil
}

func (q *sliceQueue) Discard(n int) (int, error) {
	n = min(n, len(q.b))
	q.b = q.b[n:]
	return n, nil
}

func TestNextFrame(t *testing.T) {
	be := func(n uint32) []byte { return binary.BigEndian.AppendUint32(nil, n) }
	cases := []struct {
		name  string
		in    []byte
		size  int
		state frameState
	}{
		{"empty", nil, 0, frameIncomplete},
		{"partial length", []byte{0, 0, 0}, 0, frameIncomplete},
		{"empty payload", be(0), 4, frameComplete},
		{"partial payload", append(be(3), 1, 2), 7, frameIncomplete},
		{"whole", append(be(3), 1, 2, 3), 7, frameComplete},
		{"whole plus more", append(be(1), 1, 0, 0), 5, frameComplete},
		{"max frame", be(10), 14, frameIncomplete},
		{"above max", be(11), 0, frameBadLength},
		{"negative", be(0x80000000), 0, frameBadLength},
		{"minus one", be(0xffffffff), 0, frameBadLength},
	}
	for _, tc := range cases {
		size, state := nextFrame(&sliceQueue{tc.in}, 10)
		if size != tc.size || state != tc.state {
			t.Errorf("%s: got (%d, %d), want (%d, %d)", tc.name, size, state, tc.size, tc.state)
		}
	}
}

func TestFourLetterWordIn(t *testing.T) {
	for _, w := range FourLetterWords {
		if got, ok := fourLetterWordIn([]byte(w)); !ok || got != w {
			t.Errorf("%q: got %q, %v", w, got, ok)
		}
	}
	if got, ok := fourLetterWordIn([]byte{0xff, 0xf4, 0xff, 0xfd}); !ok || got != TelnetClose {
		t.Errorf("telnet close: got %q, %v", got, ok)
	}
	for _, s := range []string{"RUOK", "abcd", "\x00\x00\x00\x2d", "ruo "} {
		if got, ok := fourLetterWordIn([]byte(s)); ok {
			t.Errorf("%q recognised as %q", s, got)
		}
	}
	if len(FourLetterWords) != 18 {
		t.Errorf("%d words, admin-and-config.md lists 18", len(FourLetterWords))
	}
}
