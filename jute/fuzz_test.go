package jute_test

import (
	"bytes"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/gozk/gozk/jute"
)

// FuzzReadString decodes arbitrary wire bytes as a string. A decoded string
// is never longer than its input, and encoding it again and decoding gives
// the same string. The second encoding need not equal the input byte for
// byte: a four-byte UTF-8 sequence on the wire (which Java never writes) is
// read as is and written back as a CESU-8 pair.
func FuzzReadString(f *testing.F) {
	f.Add(be(6, "\xED\xA0\xBD\xED\xB8\x80"), uint16(100))
	f.Add(be(4, "😀"), uint16(100))
	f.Add(be(3, "\xED\xA0\xBD"), uint16(100))
	f.Add(be(-1), uint16(100))
	f.Add(be(0), uint16(0))
	f.Add(be(5, "abc"), uint16(100))
	f.Add(be(3, "abc"), uint16(2))
	f.Fuzz(func(t *testing.T, wire []byte, limit uint16) {
		r := jute.NewReader(wire)
		r.SetLimit(int(limit))
		s := r.ReadString("s")
		if err := r.Err(); err != nil {
			var de *jute.DecodeError
			if !errors.As(err, &de) || s != "" || r.Offset() != 0 {
				t.Fatalf("failure: %q offset %d err %v", s, r.Offset(), err)
			}
			return
		}
		if len(s) > len(wire) || len(s) > r.Limit() {
			t.Fatalf("%d-byte string from %d bytes of input (limit %d)", len(s), len(wire), r.Limit())
		}
		again := encodeString(s)
		if n := jute.JavaStringLen(s); n != len(again)-4 {
			t.Fatalf("JavaStringLen(%x) = %d, encoder wrote %d", s, n, len(again)-4)
		}
		r2 := jute.NewReader(again)
		if s2 := r2.ReadString("s"); s2 != s || r2.Err() != nil || r2.Remaining() != 0 {
			t.Fatalf("%x re-read as %x (%v)", s, s2, r2.Err())
		}
	})
}

// FuzzStringRoundTrip encodes arbitrary Go strings. Valid UTF-8 comes back
// unchanged; other bytes come back unchanged too unless they happen to
// spell a CESU-8 surrogate pair, which the reader joins. Either way the
// decoded form is a fixed point.
func FuzzStringRoundTrip(f *testing.F) {
	for _, s := range []string{"", "/a/b", "😀", "ü名😀", "\xED\xA0\xBD", "\xED\xA0\xBD\xED\xB8\x80", "\xF0\x9F\x98", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		wire := encodeString(s)
		if n := jute.JavaStringLen(s); n != len(wire)-4 {
			t.Fatalf("JavaStringLen(%x) = %d, encoder wrote %d", s, n, len(wire)-4)
		}
		got := decodeString(t, wire)
		if utf8.ValidString(s) && got != s {
			t.Fatalf("valid UTF-8 %q came back as %q", s, got)
		}
		if !bytes.Contains([]byte(s), []byte{0xED}) && got != s {
			t.Fatalf("%x without surrogates came back as %x", s, got)
		}
		if again := decodeString(t, encodeString(got)); again != got {
			t.Fatalf("not a fixed point: %x -> %x", got, again)
		}
	})
}

// FuzzReader runs a sequence of reads chosen by ops over data and checks
// the Reader's contract: it never panics, never returns a buffer or string
// longer than the limit or the input, and after the first error returns
// zero values without advancing.
func FuzzReader(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8}, be(1, 2, 3, 4, 5, 6, 7, 8), uint16(10))
	f.Add([]byte{6, 6, 8}, be(3, "abc", -1, 2, "xy"), uint16(10))
	f.Add([]byte{8, 2, 2}, be(2, 5, 6), uint16(10))
	f.Add([]byte{6}, be(-7), uint16(10))
	f.Add([]byte{7}, be(0x7fffffff), uint16(10))
	f.Fuzz(func(t *testing.T, ops, data []byte, limit uint16) {
		r := jute.NewReader(data)
		r.SetLimit(int(limit))
		max := r.Limit() // a limit of 0 means the default
		failedAt := -1
		for _, op := range ops {
			before := r.Offset()
			hadErr := r.Err() != nil
			var zero bool
			switch op % 10 {
			case 0:
				zero = r.ReadUint8("f") == 0
			case 1:
				zero = !r.ReadBool("f")
			case 2:
				zero = r.ReadInt("f") == 0
			case 3:
				zero = r.ReadLong("f") == 0
			case 4:
				v := r.ReadFloat("f")
				zero = v == 0
			case 5:
				v := r.ReadDouble("f")
				zero = v == 0
			case 6:
				b := r.ReadBuffer("f")
				zero = b == nil
				if len(b) > max || len(b) > len(data) {
					t.Fatalf("buffer of %d bytes (limit %d, input %d)", len(b), max, len(data))
				}
			case 7:
				s := r.ReadString("f")
				zero = s == ""
				if len(s) > max || len(s) > len(data) {
					t.Fatalf("string of %d bytes (limit %d, input %d)", len(s), max, len(data))
				}
			case 8:
				n, null := r.ReadVectorLen("f", int(op/10))
				zero = n == 0 && !null
				if n > len(data) {
					t.Fatalf("vector of %d elements from %d bytes", n, len(data))
				}
			case 9:
				r.ExpectEnd("f")
				zero = true
			}
			if r.Offset() < before || r.Offset() > len(data) || r.Remaining() != len(data)-r.Offset() {
				t.Fatalf("offset %d -> %d of %d", before, r.Offset(), len(data))
			}
			if r.Err() != nil && failedAt < 0 {
				failedAt = before
				if r.Offset() != before {
					t.Fatalf("failed read advanced from %d to %d", before, r.Offset())
				}
			}
			if hadErr && (!zero || r.Offset() != before) {
				t.Fatalf("read after an error returned a value or advanced")
			}
		}
	})
}
