package acl

import (
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/gozk/gozk/jute"
)

// validX500Name reports whether Java's new X500Principal(name) accepts
// name (JDK 17), which is how X509AuthenticationProvider.isValid judges an
// x509 ACL id. The JDK parser is permissive and quirky: it mixes RFC 1779
// and RFC 2253 syntax, splits RDNs at ',' or ';' and AVAs at '+' using
// quote and backslash counting rather than a grammar, and stops reading a
// value at an unescaped separator without complaining about what follows.
// This function follows the same steps so that the same strings pass.
//
// All characters the parser treats specially are ASCII, so walking bytes
// gives the same answers as Java's walk over UTF-16 code units.
func validX500Name(name string) bool {
	if name == "" {
		return true
	}
	dnOffset := 0
	searchOffset := 0
	quoteCount := 0
	for {
		rdnEnd := indexRDNSeparator(name, searchOffset)
		if rdnEnd < 0 {
			break
		}
		quoteCount += countQuotes(name, searchOffset, rdnEnd)
		if quoteCount != 1 && !escapedSeparator(name, rdnEnd, searchOffset) {
			if !validRDN(name[dnOffset:rdnEnd]) {
				return false
			}
			dnOffset = rdnEnd + 1
			quoteCount = 0
		}
		searchOffset = rdnEnd + 1
	}
	return validRDN(name[dnOffset:])
}

// indexRDNSeparator finds the next ',' or ';' at or after from.
func indexRDNSeparator(s string, from int) int {
	i := strings.IndexAny(s[from:], ",;")
	if i < 0 {
		return -1
	}
	return from + i
}

// countQuotes counts '"' in s[from:to] that do not directly follow a
// backslash (a quote at from always counts).
func countQuotes(s string, from, to int) int {
	n := 0
	for i := from; i < to; i++ {
		if s[i] == '"' && (i == from || s[i-1] != '\\') {
			n++
		}
	}
	return n
}

// escapedSeparator decides whether the separator at end is escaped. Like
// the JDK it looks at the one or two characters before it and, when both
// are backslashes, counts every backslash back to searchOffset (not only
// the adjacent run): an odd count means escaped.
func escapedSeparator(s string, end, searchOffset int) bool {
	switch {
	case end == 1 && s[0] == '\\':
		return true
	case end > 1 && s[end-1] == '\\' && s[end-2] != '\\':
		return true
	case end > 1 && s[end-1] == '\\' && s[end-2] == '\\':
		n := 0
		for i := end - 1; i >= searchOffset; i-- {
			if s[i] == '\\' {
				n++
			}
		}
		return n%2 != 0
	}
	return false
}

// validRDN splits one RDN into AVAs at '+' signs that are not preceded by
// a backslash, not first, and not inside an odd run of quotes.
func validRDN(rdn string) bool {
	avaOffset := 0
	searchOffset := 0
	quoteCount := 0
	for {
		i := strings.IndexByte(rdn[searchOffset:], '+')
		if i < 0 {
			break
		}
		plus := searchOffset + i
		quoteCount += countQuotes(rdn, searchOffset, plus)
		if plus > 0 && rdn[plus-1] != '\\' && quoteCount != 1 {
			ava := rdn[avaOffset:plus]
			if ava == "" || !validAVA(ava) {
				return false
			}
			avaOffset = plus + 1
			quoteCount = 0
		}
		searchOffset = plus + 1
	}
	ava := rdn[avaOffset:]
	return ava != "" && validAVA(ava)
}

// avaReader reads an AVA's characters; avaEOF is -1.
type avaReader struct {
	s   string
	pos int
}

const avaEOF = -1

// read returns the next character. Non-ASCII characters are returned as
// one value above 0x7F; only their non-specialness matters.
func (r *avaReader) read() int {
	if r.pos >= len(r.s) {
		return avaEOF
	}
	c := r.s[r.pos]
	if c < utf8.RuneSelf {
		r.pos++
		return int(c)
	}
	_, size := utf8.DecodeRuneInString(r.s[r.pos:])
	r.pos += size
	return 0x80
}

func isAVATerminator(c int) bool { return c == avaEOF || c == '+' || c == ',' || c == ';' }

func isHexDigit(c int) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// Characters the JDK's DEFAULT format allows after a backslash (besides
// hex pairs), characters it refuses unescaped, and those allowed escaped
// inside quotes.
const (
	escapableDefault  = ",=\n+<>#;\\\" "
	forbiddenUnescape = ",+<>;\""
	escapableQuoted   = ",=\n+<>#;\\\""
)

func oneOf(c int, set string) bool {
	return c >= 0 && c < utf8.RuneSelf && strings.IndexByte(set, byte(c)) >= 0
}

// validAVA parses "keyword=value" in the JDK's DEFAULT format.
func validAVA(ava string) bool {
	eq := strings.IndexByte(ava, '=')
	if eq < 0 {
		return false
	}
	if !validAVAKeyword(ava[:eq]) {
		return false
	}
	r := &avaReader{s: ava, pos: eq + 1}
	c := r.read()
	for c == ' ' || c == '\n' {
		c = r.read()
	}
	switch c {
	case avaEOF:
		return true
	case '#':
		return validHexValue(r)
	case '"':
		return validQuotedValue(r)
	}
	return validPlainValue(r, c)
}

// validHexValue reads "#hexhex..." up to a terminator: an even, non-zero
// number of hex digits encoding exactly one BER value.
func validHexValue(r *avaReader) bool {
	var der []byte
	digits := 0
	var b byte
	for {
		c := r.read()
		if isAVATerminator(c) {
			break
		}
		if !isHexDigit(c) {
			return false
		}
		v := hexValue(byte(c))
		if digits%2 == 1 {
			der = append(der, b<<4|v)
		} else {
			b = v
		}
		digits++
	}
	if digits == 0 || digits%2 == 1 {
		return false
	}
	return validBER(der)
}

func hexValue(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// validQuotedValue reads a quoted value after its opening quote: escapes
// are hex pairs or RFC 1779 specials, and only spaces and newlines may
// follow the closing quote.
func validQuotedValue(r *avaReader) bool {
	c := r.read()
	for c != '"' {
		if c == avaEOF {
			return false
		}
		if c == '\\' {
			c = r.read()
			if c == avaEOF {
				return false
			}
			if isHexDigit(c) {
				if !isHexDigit(r.read()) {
					return false
				}
				c = r.read()
				continue
			}
			if !oneOf(c, escapableQuoted) {
				return false
			}
		}
		c = r.read()
	}
	for {
		c = r.read()
		if c != ' ' && c != '\n' {
			break
		}
	}
	return c == avaEOF
}

// validPlainValue reads an unquoted value starting with c, up to the
// first unescaped terminator; whatever follows it is ignored, as in Java.
func validPlainValue(r *avaReader, c int) bool {
	for {
		if c == '\\' {
			c = r.read()
			if c == avaEOF {
				return false
			}
			if isHexDigit(c) {
				if !isHexDigit(r.read()) {
					return false
				}
				c = r.read()
				if isAVATerminator(c) {
					return true
				}
				continue
			}
			if !oneOf(c, escapableDefault) {
				return false
			}
		} else if oneOf(c, forbiddenUnescape) {
			return false
		}
		c = r.read()
		if isAVATerminator(c) {
			return true
		}
	}
}

// x500Keywords are the attribute keywords the JDK knows, all accepted in
// its DEFAULT format.
var x500Keywords = map[string]bool{
	"CN": true, "C": true, "L": true, "S": true, "ST": true, "O": true,
	"OU": true, "T": true, "IP": true, "STREET": true, "DC": true,
	"DNQUALIFIER": true, "DNQ": true, "SURNAME": true, "GIVENNAME": true,
	"INITIALS": true, "GENERATION": true, "EMAIL": true,
	"EMAILADDRESS": true, "UID": true, "SERIALNUMBER": true,
}

// validAVAKeyword is AVAKeyword.getOID for the DEFAULT format: upper-case
// (English locale), trim, then a known keyword or a dotted OID, optionally
// prefixed "OID.".
func validAVAKeyword(keyword string) bool {
	k := javaTrim(javaUpperCase(keyword))
	if x500Keywords[k] {
		return true
	}
	k = strings.TrimPrefix(k, "OID.")
	if k == "" || k[0] < '0' || k[0] > '9' {
		return false
	}
	return validOIDString(k)
}

// javaUpperCase is String.toUpperCase(Locale.ENGLISH) as far as keyword
// matching can tell: Go's simple mapping plus the special cases that
// expand to plain ASCII letters (ß and the Latin ligatures).
func javaUpperCase(s string) string {
	if !strings.ContainsAny(s, "ßﬀﬁﬂﬃﬄﬅﬆ") {
		return strings.ToUpper(s)
	}
	r := strings.NewReplacer("ß", "SS", "ﬀ", "FF", "ﬁ", "FI", "ﬂ", "FL",
		"ﬃ", "FFI", "ﬄ", "FFL", "ﬅ", "ST", "ﬆ", "ST")
	return strings.ToUpper(r.Replace(s))
}

// maxOIDEncoding is the JDK's limit on an OID's encoded size.
const maxOIDEncoding = 4096

// validOIDString is the JDK's ObjectIdentifier(String) check: at least two
// dot-separated components, each an Integer.parseInt value (BigInteger
// when longer than nine characters), the first 0..2, the second 0..39
// unless the first is 2, none negative, at most 4096 bytes encoded.
func validOIDString(oid string) bool {
	parts := strings.Split(oid, ".")
	if len(parts) < 2 {
		return false
	}
	var first int64
	encoded := 0
	for i, p := range parts {
		v, ok := oidComponent(p)
		if !ok || v.Sign() < 0 {
			return false
		}
		switch i {
		case 0:
			if v.Cmp(big.NewInt(2)) > 0 {
				return false
			}
			first = v.Int64()
			continue
		case 1:
			if first != 2 && v.Cmp(big.NewInt(39)) > 0 {
				return false
			}
			v = new(big.Int).Add(v, big.NewInt(40*first))
		}
		encoded += base128Len(v)
		if encoded > maxOIDEncoding {
			return false
		}
	}
	return true
}

// oidComponent parses one component: Integer.parseInt up to nine
// characters (UTF-16 units), new BigInteger(s) beyond.
func oidComponent(s string) (*big.Int, bool) {
	if jute.UTF16Len(s) <= 9 {
		v, ok := javaParseInt(s)
		return big.NewInt(v), ok
	}
	return javaParseBigInteger(s)
}

// javaParseBigInteger is new BigInteger(s): an optional sign and at least
// one decimal digit, any Unicode decimal digit counting.
func javaParseBigInteger(s string) (*big.Int, bool) {
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg = true
		s = s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	if s == "" {
		return nil, false
	}
	digits := make([]byte, 0, len(s))
	for _, r := range s {
		d := javaDigit(r)
		if d < 0 {
			return nil, false
		}
		digits = append(digits, byte('0'+d))
	}
	v, ok := new(big.Int).SetString(string(digits), 10)
	if !ok {
		return nil, false
	}
	if neg {
		v.Neg(v)
	}
	return v, true
}

// base128Len is the number of bytes of v in an OID's base-128 encoding.
func base128Len(v *big.Int) int {
	bits := v.BitLen()
	if bits == 0 {
		return 1
	}
	return (bits + 6) / 7
}

// validBER is the JDK's DerValue(byte[]) check with BER allowed: one
// tag-length-value that fills the buffer exactly, a tag number below 31,
// a length of at most four bytes, and an indefinite length only on a
// constructed value.
func validBER(b []byte) bool {
	if len(b) < 2 || b[0]&0x1F == 0x1F {
		return false
	}
	if b[1] == 0x80 {
		return b[0]&0x20 != 0 && validIndefiniteBER(b)
	}
	pos := 2
	length := int(b[1])
	if b[1]&0x80 != 0 {
		n := int(b[1] & 0x7F)
		if n > 4 || len(b) < 2+n {
			return false
		}
		length = 0
		for i := 0; i < n; i++ {
			length = length<<8 | int(b[pos])
			pos++
		}
		if length > 1<<31-1 {
			return false
		}
	}
	return len(b)-pos == length
}

// validIndefiniteBER follows the JDK's DerIndefLenConverter, which does
// not parse recursively: it scans tags and lengths in a flat pass, skips
// the contents of definite-length values, opens a section at every
// indefinite length (constructed or not) and closes the innermost one at
// every 00 00. The buffer must end exactly where the outermost section
// closes.
func validIndefiniteBER(b []byte) bool {
	pos, open := 0, 0
	for pos < len(b) {
		if b[pos] == 0 {
			if pos+1 >= len(b) {
				return false // Java reads past the end and fails
			}
			if b[pos+1] == 0 {
				if open == 0 {
					return false
				}
				open--
			}
		}
		pos++
		length := 0
		if pos < len(b) {
			lenByte := b[pos]
			pos++
			switch {
			case lenByte == 0x80:
				open++
			case lenByte&0x80 != 0:
				n := int(lenByte & 0x7F)
				if n > 4 || len(b)-pos < n+1 {
					return false
				}
				for i := 0; i < n; i++ {
					length = length<<8 | int(b[pos])
					pos++
				}
				if length > 1<<31-1 {
					return false
				}
			default:
				length = int(lenByte)
			}
		}
		pos += length
		if open == 0 {
			return pos == len(b)
		}
	}
	return false
}
