package acl

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the small pieces of java.lang behaviour that leak into
// ZooKeeper's auth providers: how bytes become a String, how a String
// hashes, how Integer.parseInt reads digits, what String.trim removes.

// replacementUTF8 is U+FFFD, what Java substitutes for malformed input.
const replacementUTF8 = "\uFFFD"

// javaDecodeUTF8 returns, as Go UTF-8, the String Java builds with
// new String(b, UTF_8) (JDK 17). Well-formed input is returned unchanged;
// malformed sequences become U+FFFD with Java's grouping, which differs
// from Go's one-replacement-per-byte: a truncated sequence becomes a
// single U+FFFD, and an encoded surrogate (ED A0..BF xx) is one U+FFFD for
// all three bytes.
func javaDecodeUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x80 {
			sb.WriteByte(c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || size > 1 {
			sb.Write(b[i : i+size])
			i += size
			continue
		}
		sb.WriteString(replacementUTF8)
		i += javaMalformedLength(b[i:])
	}
	return sb.String()
}

func isContinuation(c byte) bool { return c&0xC0 == 0x80 }

// javaMalformedLength reports how many bytes Java's decoder swallows into
// one U+FFFD at the start of b, where b does not begin with a well-formed
// sequence. It follows the JDK's decodeUTF8 branch by branch.
func javaMalformedLength(b []byte) int {
	c := b[0]
	rest := len(b) - 1
	switch {
	case c >= 0xC2 && c <= 0xDF:
		// Two-byte lead without a continuation: only the lead goes.
		return 1
	case c >= 0xE0 && c <= 0xEF:
		if rest >= 2 {
			b2, b3 := b[1], b[2]
			if (c == 0xE0 && b2&0xE0 == 0x80) || !isContinuation(b2) {
				return 1
			}
			if !isContinuation(b3) {
				return 2
			}
			// Well-formed shape but a surrogate code point: all three.
			return 3
		}
		if rest == 1 {
			b2 := b[1]
			if (c == 0xE0 && b2&0xE0 == 0x80) || !isContinuation(b2) {
				return 1
			}
			return 2
		}
		return 1
	case c >= 0xF0 && c <= 0xF7:
		if c > 0xF4 {
			return 1
		}
		if rest >= 3 {
			b2 := b[1]
			if (c == 0xF0 && (b2 < 0x90 || b2 > 0xBF)) || (c == 0xF4 && b2&0xF0 != 0x80) || !isContinuation(b2) {
				return 1
			}
			if !isContinuation(b[2]) {
				return 2
			}
			return 3
		}
		if rest == 0 {
			return 1
		}
		b2 := b[1]
		if (c == 0xF0 && (b2 < 0x90 || b2 > 0xBF)) || (c == 0xF4 && b2&0xF0 != 0x80) || !isContinuation(b2) {
			return 1
		}
		// Java consumes the lead and the second byte, then the third too
		// unless it is not a continuation.
		if rest == 1 {
			return 2
		}
		if !isContinuation(b[2]) {
			return 2
		}
		return 3
	default:
		return 1
	}
}

// javaStringHash is String.hashCode over the UTF-16 code units of s.
// Bytes that are not UTF-8 count as U+FFFD, as they would in Java.
func javaStringHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			hi, lo := utf16Surrogates(r)
			h = 31*h + int32(hi)
			h = 31*h + int32(lo)
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

func utf16Surrogates(r rune) (hi, lo rune) {
	r -= 0x10000
	return 0xD800 + (r>>10)&0x3FF, 0xDC00 + r&0x3FF
}

// javaTrim is String.trim: it strips every char up to and including the
// space, control characters too, and nothing else.
func javaTrim(s string) string {
	start, end := 0, len(s)
	for start < end && s[start] <= ' ' {
		start++
	}
	for end > start && s[end-1] <= ' ' {
		end--
	}
	return s[start:end]
}

// SplitTrimmed splits a comma-separated property value the way ZooKeeper
// reads zookeeper.enforce.auth.schemes and zookeeper.ensembleAuthName:
// String.split(",") (which drops trailing empty pieces, before trimming)
// then String.trim on each piece. So "a, b" gives [a b], "a," gives [a],
// "a, " gives [a ""] and "" gives [""].
func SplitTrimmed(value string) []string {
	parts := strings.Split(value, ",")
	if len(parts) > 1 || parts[0] != "" {
		for len(parts) > 0 && parts[len(parts)-1] == "" {
			parts = parts[:len(parts)-1]
		}
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = javaTrim(p)
	}
	return out
}

// javaDigit is Character.digit(ch, 10) for one UTF-16 code unit: ASCII
// digits and every other Unicode decimal digit of the Basic Multilingual
// Plane. Characters beyond it are surrogate pairs in Java, never digits.
func javaDigit(r rune) int {
	if r >= '0' && r <= '9' {
		return int(r - '0')
	}
	if r < 0x80 || r > 0xFFFF || !unicode.Is(unicode.Nd, r) {
		return -1
	}
	// Decimal digit blocks run zero to nine in consecutive code points,
	// and the table's ranges start on a zero.
	for _, rg := range unicode.Nd.R16 {
		if uint16(r) >= rg.Lo && uint16(r) <= rg.Hi {
			return int(uint16(r)-rg.Lo) % 10
		}
	}
	return -1
}

// javaParseInt is Integer.parseInt(s) as far as ZooKeeper's callers can
// tell: an optional '+' or '-', then one or more decimal digits (any
// Unicode decimal digit). ok is false where Java throws
// NumberFormatException, overflow included.
func javaParseInt(s string) (v int64, ok bool) {
	if s == "" {
		return 0, false
	}
	neg := false
	i := 0
	switch s[0] {
	case '-':
		neg = true
		i = 1
	case '+':
		i = 1
	}
	if i == len(s) {
		return 0, false
	}
	limit := int64(1<<31 - 1)
	if neg {
		limit = 1 << 31
	}
	for i < len(s) {
		var d int
		if c := s[i]; c >= '0' && c <= '9' {
			d = int(c - '0')
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			if d = javaDigit(r); d < 0 {
				return 0, false
			}
		}
		v = v*10 + int64(d)
		if v > limit {
			return 0, false
		}
	}
	if neg {
		v = -v
	}
	return v, true
}
