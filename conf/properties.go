package conf

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Property is one key of a properties file and where it was set.
type Property struct {
	Key   string
	Value string
	Line  int // 1-based line of the key; 0 for values not from a file
	// Raw is the value as Java's Properties returns it: leading blanks
	// removed, trailing ones kept (the server.N parser sees this).
	Raw string
}

// ParseProperties reads Java properties syntax: key=value, key:value or
// "key value"; '#' and '!' comment lines; a trailing odd backslash
// continues the line; backslash escapes (\t \n \r \f \uXXXX, and \x for any
// other x). Like ZooKeeper, keys and values are trimmed. For duplicate
// keys the last one wins. The input is ISO-8859-1, as Java reads it.
func ParseProperties(r io.Reader) ([]Property, error) {
	var out []Property
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	sc.Split(scanJavaLines)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		start := lineNo
		line := latin1(sc.Bytes())
		trimmed := strings.TrimLeft(line, " \t\f")
		if trimmed == "" || trimmed[0] == '#' || trimmed[0] == '!' {
			continue
		}
		logical := trimmed
		for endsWithContinuation(logical) {
			logical = logical[:len(logical)-1]
			if !sc.Scan() {
				break
			}
			lineNo++
			logical += strings.TrimLeft(latin1(sc.Bytes()), " \t\f")
		}
		key, value, err := splitProperty(logical)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", start, err)
		}
		out = append(out, Property{Key: strings.TrimSpace(key), Value: strings.TrimSpace(value), Line: start, Raw: value})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func latin1(b []byte) string {
	ascii := true
	for _, c := range b {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return string(b)
	}
	rs := make([]rune, len(b))
	for i, c := range b {
		rs[i] = rune(c)
	}
	return string(rs)
}

// endsWithContinuation reports an odd number of trailing backslashes.
func endsWithContinuation(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitProperty finds the first unescaped '=', ':' or white space and
// unescapes both sides.
func splitProperty(s string) (string, string, error) {
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		i++
	}
	if i > len(s) {
		i = len(s)
	}
	key := s[:i]
	j := i
	for j < len(s) && isBlank(s[j]) {
		j++
	}
	if j < len(s) && (s[j] == '=' || s[j] == ':') {
		j++
	}
	for j < len(s) && isBlank(s[j]) {
		j++
	}
	rest := s[j:]
	k, err := unescape(key)
	if err != nil {
		return "", "", err
	}
	v, err := unescape(rest)
	if err != nil {
		return "", "", err
	}
	return k, v, nil
}

func unescape(s string) (string, error) {
	if !strings.Contains(s, "\\") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf("malformed \\uXXXX escape")
			}
			v, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", fmt.Errorf("malformed \\uXXXX escape")
			}
			b.WriteRune(rune(v))
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\f' }

// scanJavaLines splits lines as java.util.Properties does: at \n, \r or
// \r\n.
func scanJavaLines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	for i, c := range data {
		switch c {
		case '\n':
			return i + 1, data[:i], nil
		case '\r':
			if i+1 < len(data) {
				if data[i+1] == '\n' {
					return i + 2, data[:i], nil
				}
				return i + 1, data[:i], nil
			}
			if atEOF {
				return i + 1, data[:i], nil
			}
			return 0, nil, nil // need one more byte to tell \r from \r\n
		}
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
