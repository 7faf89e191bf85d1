package jute_test

import (
	"bytes"
	"testing"
	"unicode/utf8"

	"github.com/gozk/gozk/jute"
)

func encodeString(s string) []byte {
	var w jute.Writer
	w.WriteString(s)
	return w.Bytes()
}

func decodeString(t *testing.T, wire []byte) string {
	t.Helper()
	r := jute.NewReader(wire)
	s := r.ReadString("s")
	r.ExpectEnd("s")
	if r.Err() != nil {
		t.Fatalf("decoding %x: %v", wire, r.Err())
	}
	return s
}

func TestSupplementaryCharacterIsCESU8(t *testing.T) {
	wire := encodeString("😀") // U+1F600
	want := []byte{0, 0, 0, 6, 0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80}
	if !bytes.Equal(wire, want) {
		t.Fatalf("😀 encoded as %x, want %x", wire, want)
	}
	if n := jute.JavaStringLen("😀"); n != 6 {
		t.Errorf("JavaStringLen(😀) = %d", n)
	}
	got := decodeString(t, want)
	if got != "😀" || len(got) != 4 || !utf8.ValidString(got) {
		t.Errorf("decoded as %q (%x)", got, got)
	}
	// The highest code point, and one mixed with BMP text.
	for _, s := range []string{"\U0010FFFF", "\U00010000", "a😀ü名😀z", "😀😀"} {
		if got := decodeString(t, encodeString(s)); got != s {
			t.Errorf("%q round trip: %q", s, got)
		}
	}
	if got := encodeString("\U0010FFFF")[4:]; !bytes.Equal(got, []byte{0xED, 0xAF, 0xBF, 0xED, 0xBF, 0xBF}) {
		t.Errorf("U+10FFFF encoded as %x", got)
	}
}

func TestStringPassThrough(t *testing.T) {
	// Byte strings that are not well-formed supplementary characters go
	// both ways unchanged: lone surrogates (as Java writes them), invalid
	// bytes, truncated four-byte sequences, a low surrogate before a high.
	cases := []string{
		"\xED\xA0\xBD",             // lone high surrogate
		"\xED\xB8\x80",             // lone low surrogate
		"\xED\xB8\x80\xED\xA0\xBD", // low then high: not a pair
		"a\xED\xA0\xBDb",           // high surrogate followed by ASCII
		"\xED\xA0\xBD\xED\xA0\xBD", // two highs
		"\xff\xfe\x80",             // invalid bytes
		"\xF0\x9F\x98",             // truncated four-byte sequence
		"\xF0\x9F",                 // shorter still
		"\xF0",                     // a lone lead byte at the end
		"\xF4\x90\x80\x80",         // above U+10FFFF: not valid UTF-8
		"\xF0\x80\x80\x80",         // overlong
		"\xED",                     // cut-off surrogate lead
		"\xED\xA0",                 // cut-off surrogate
		"\xC0\xAF",                 // overlong '/'
		"\x00",                     // NUL
		"plain ascii",
		"ü名",
	}
	for _, s := range cases {
		wire := encodeString(s)
		if !bytes.Equal(wire[4:], []byte(s)) {
			t.Errorf("%q encoded as %x", s, wire[4:])
		}
		if n := jute.JavaStringLen(s); n != len(wire)-4 {
			t.Errorf("JavaStringLen(%q) = %d, encoder wrote %d", s, n, len(wire)-4)
		}
		if got := decodeString(t, wire); got != s {
			t.Errorf("%x decoded as %x", s, got)
		}
	}
}

func TestJavaStringLenAgreesWithEncoder(t *testing.T) {
	cases := []string{
		"", "a", "😀", "a😀", "😀a", "\xF0\x9F\x98\x80\xF0", "\xF0😀", "😀\xED\xA0\xBD",
		"\U00010000\U0010FFFF", "\xF5\x80\x80\x80", "x\xF0\x9F\x98\x80y\xF0\x9F\x98",
	}
	for _, s := range cases {
		if n, w := jute.JavaStringLen(s), len(encodeString(s))-4; n != w {
			t.Errorf("JavaStringLen(%q) = %d, encoder wrote %d", s, n, w)
		}
	}
}

func TestDecodeJoinsOnlyValidPairs(t *testing.T) {
	// A CESU-8 pair inside other bytes is joined; the rest stays.
	wire := be(8, "\xFF\xED\xA0\xBD\xED\xB8\x80\xFF")
	if got := decodeString(t, wire); got != "\xFF😀\xFF" {
		t.Errorf("decoded as %x", got)
	}
	// A high surrogate followed by another high and then a low joins the
	// second high with the low.
	wire = be(9, "\xED\xA0\xBD\xED\xA0\xBD\xED\xB8\x80")
	if got := decodeString(t, wire); got != "\xED\xA0\xBD😀" {
		t.Errorf("decoded as %x", got)
	}
	// ReadStringBytes returns the raw bytes without joining.
	r := jute.NewReader(be(6, "\xED\xA0\xBD\xED\xB8\x80"))
	if b := r.ReadStringBytes("s"); !bytes.Equal(b, []byte("\xED\xA0\xBD\xED\xB8\x80")) {
		t.Errorf("ReadStringBytes converted: %x", b)
	}
}

// TestUTF16Len checks Java's String.length() of decoded strings: one unit
// per BMP character, two for a surrogate pair, one per byte that is not
// valid UTF-8.
func TestUTF16Len(t *testing.T) {
	for s, want := range map[string]int{
		"":              0,
		"/zookeeper":    10,
		"zürich":        6,
		"日本":            2,
		"a😀b":           4,
		"\xff\xfe":      2,
		"x\xf0\x9f\x98": 4, // a truncated four-byte sequence
	} {
		if got := jute.UTF16Len(s); got != want {
			t.Errorf("UTF16Len(%q) = %d, want %d", s, got, want)
		}
	}
}
