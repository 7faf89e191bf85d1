package conf

import (
	"strconv"
	"strings"
)

// parseJavaInt parses as Java's Integer.parseInt: an optional sign and
// decimal digits, within 32 bits.
func parseJavaInt(s string) (int, bool) {
	v, err := strconv.ParseInt(s, 10, 32)
	return int(v), err == nil
}

// parseJavaLong parses as Long.parseLong.
func parseJavaLong(s string) (int64, bool) {
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// decodeJavaInt parses as Integer.decode, which Integer.getInteger and
// Long.getLong use for system properties: an optional sign, then "0x",
// "0X" or "#" for hex, a leading "0" for octal, else decimal.
func decodeJavaInt(s string, bits int) (int64, bool) {
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	base := 10
	switch {
	case strings.HasPrefix(s, "0x"), strings.HasPrefix(s, "0X"):
		base, s = 16, s[2:]
	case strings.HasPrefix(s, "#"):
		base, s = 16, s[1:]
	case strings.HasPrefix(s, "0") && len(s) > 1:
		base, s = 8, s[1:]
	}
	if s == "" || s[0] == '-' || s[0] == '+' {
		return 0, false
	}
	u, err := strconv.ParseUint(s, base, bits)
	if err != nil {
		return 0, false
	}
	limit := uint64(1) << (bits - 1)
	if neg {
		if u > limit {
			return 0, false
		}
		return -int64(u), true
	}
	if u >= limit {
		return 0, false
	}
	return int64(u), true
}

// javaSplit splits as Java's String.split with a one-character literal
// separator: trailing empty strings are dropped (an empty input gives one
// empty string).
func javaSplit(s, sep string) []string {
	parts := strings.Split(s, sep)
	if s == "" {
		return parts
	}
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// javaTrim trims as String.trim: every character up to and including the
// space at both ends.
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}
