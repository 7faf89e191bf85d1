package jute

import (
	"encoding/binary"
	"unicode/utf8"
	"unsafe"
)

// Java's jute writer encodes every UTF-16 code unit separately, so a
// supplementary character (U+10000 and up) becomes a surrogate pair written
// as two three-byte sequences: CESU-8. Go strings are UTF-8, where the same
// character is one four-byte sequence. These helpers convert at the edge so
// that the rest of gozk sees ordinary UTF-8 and the wire sees exactly the
// bytes Java would produce. Anything that is not a well-formed four-byte
// sequence (on write) or a well-formed surrogate pair (on read) is passed
// through untouched, so opaque byte strings survive a round trip.

// hasFourByteSequence reports whether s contains a four-byte UTF-8 lead
// byte (0xF0 and up); only then does the string need rewriting. Every
// string written goes through it (each path, each child's name), so it
// tests eight bytes at a time: a byte's top bit survives the AND of the
// word with itself shifted left by one, two and three bits only if its
// four top bits are all set, and the shifts never carry a bit across into
// that position from another byte.
func hasFourByteSequence(s string) bool {
	const topBits = 0x8080808080808080
	i := 0
	if len(s) >= 8 {
		b := unsafe.Slice(unsafe.StringData(s), len(s))
		for ; i+8 <= len(b); i += 8 {
			w := binary.LittleEndian.Uint64(b[i:])
			if w&(w<<1)&(w<<2)&(w<<3)&topBits != 0 {
				return true
			}
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0xF0 {
			return true
		}
	}
	return false
}

// appendJavaString appends s with every well-formed supplementary character
// rewritten as a CESU-8 surrogate pair.
func appendJavaString(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0xF0 {
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || size != 4 {
			dst = append(dst, c)
			i++
			continue
		}
		r -= 0x10000
		dst = appendSurrogate(dst, 0xD800+(r>>10))
		dst = appendSurrogate(dst, 0xDC00+(r&0x3FF))
		i += size
	}
	return dst
}

func appendSurrogate(dst []byte, u rune) []byte {
	return append(dst, 0xE0|byte(u>>12), 0x80|byte(u>>6)&0x3F, 0x80|byte(u)&0x3F)
}

// hasSurrogateLead reports whether b may contain an encoded surrogate:
// every one starts with 0xED.
func hasSurrogateLead(b []byte) bool {
	for _, c := range b {
		if c == 0xED {
			return true
		}
	}
	return false
}

// surrogateAt decodes a three-byte encoded surrogate at b[i:], returning
// the code unit and whether one is there.
func surrogateAt(b []byte, i int) (rune, bool) {
	if i+3 > len(b) || b[i] != 0xED || b[i+1]&0xE0 != 0xA0 || b[i+2]&0xC0 != 0x80 {
		return 0, false
	}
	return 0xD000 | rune(b[i+1]&0x3F)<<6 | rune(b[i+2]&0x3F), true
}

// decodeJavaString converts b to a Go string, joining CESU-8 surrogate
// pairs into four-byte UTF-8.
func decodeJavaString(b []byte) string {
	if !hasSurrogateLead(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		hi, ok := surrogateAt(b, i)
		if ok && hi < 0xDC00 {
			if lo, ok2 := surrogateAt(b, i+3); ok2 && lo >= 0xDC00 {
				r := 0x10000 + (hi-0xD800)<<10 + (lo - 0xDC00)
				out = utf8.AppendRune(out, r)
				i += 6
				continue
			}
		}
		out = append(out, b[i])
		i++
	}
	return string(out)
}

// UTF16Len is Java's String.length() of s: its UTF-16 code units, two for
// a character beyond the Basic Multilingual Plane (a surrogate pair), one
// for each byte of s that is not valid UTF-8.
func UTF16Len(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			n := 0
			for _, r := range s {
				n++
				if r > 0xFFFF {
					n++
				}
			}
			return n
		}
	}
	return len(s)
}

// JavaStringLen returns the number of bytes s takes in Java's encoding,
// not counting the length prefix.
func JavaStringLen(s string) int {
	if !hasFourByteSequence(s) {
		return len(s)
	}
	n := 0
	for i := 0; i < len(s); {
		if s[i] >= 0xF0 {
			if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError && size == 4 {
				n += 6
				i += 4
				continue
			}
		}
		n++
		i++
	}
	return n
}
