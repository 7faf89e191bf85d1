package sasl

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JAASConfig is a parsed JAAS login configuration file
// (java.security.auth.login.config), read with the syntax of the JDK's
// sun.security.provider.ConfigFile:
//
//	// a comment, or /* one */
//	Server {
//	    org.apache.zookeeper.server.auth.DigestLoginModule required
//	    user_bob="bobsecret"
//	    debug=true;
//	};
type JAASConfig struct {
	File     string // the file it came from, for messages
	sections map[string]*JAASSection
	order    []string
}

// JAASSection is one named section ("login context" in JAAS terms).
type JAASSection struct {
	Name    string
	Line    int
	Entries []JAASEntry
}

// JAASEntry is one login module line of a section.
type JAASEntry struct {
	LoginModule string            // class name
	Flag        string            // required, requisite, sufficient or optional (lower case)
	Options     map[string]string // values with ${property} expanded
	Line        int
}

// Section returns the named section. Like Java's
// Configuration.getAppConfigurationEntry, a section without entries
// counts as absent.
func (c *JAASConfig) Section(name string) (*JAASSection, bool) {
	s, ok := c.sections[name]
	if !ok || len(s.Entries) == 0 {
		return nil, false
	}
	return s, true
}

// Sections lists the section names in file order.
func (c *JAASConfig) Sections() []string { return append([]string(nil), c.order...) }

// DigestUsers returns the DIGEST-MD5 accounts of the section: every
// option user_NAME="password" of every entry, as Java's
// SaslServerCallbackHandler collects them (a later entry wins).
func (s *JAASSection) DigestUsers() map[string]string {
	users := map[string]string{}
	for _, e := range s.Entries {
		for k, v := range e.Options {
			if name, ok := strings.CutPrefix(k, "user_"); ok {
				users[name] = v
			}
		}
	}
	return users
}

// Option returns the first value of key among the section's entries.
func (s *JAASSection) Option(key string) (string, bool) {
	for _, e := range s.Entries {
		if v, ok := e.Options[key]; ok {
			return v, true
		}
	}
	return "", false
}

// Properties looks up a Java system property for ${name} expansion.
type Properties func(name string) (string, bool)

// JavaDefaults answers the system properties every JVM defines that a
// JAAS file is likely to use (user.home, user.name, user.dir,
// java.io.tmpdir, file.separator, path.separator, line.separator,
// os.name), from this process's environment. Others are not set.
func JavaDefaults(name string) (string, bool) {
	switch name {
	case "user.home":
		if h, err := os.UserHomeDir(); err == nil {
			return h, true
		}
	case "user.name":
		for _, k := range []string{"USER", "LOGNAME"} {
			if v := os.Getenv(k); v != "" {
				return v, true
			}
		}
	case "user.dir":
		if d, err := os.Getwd(); err == nil {
			return d, true
		}
	case "java.io.tmpdir":
		return "/tmp", true
	case "file.separator":
		return string(filepath.Separator), true
	case "path.separator":
		return string(filepath.ListSeparator), true
	case "line.separator":
		return "\n", true
	case "os.name":
		switch runtime.GOOS {
		case "linux":
			return "Linux", true
		case "darwin":
			return "Mac OS X", true
		}
	}
	return "", false
}

// WithJavaDefaults returns props falling back on JavaDefaults.
func WithJavaDefaults(props Properties) Properties {
	return func(name string) (string, bool) {
		if props != nil {
			if v, ok := props(name); ok {
				return v, true
			}
		}
		return JavaDefaults(name)
	}
}

// ParseJAASFile reads a JAAS file, expanding ${name} from JavaDefaults.
func ParseJAASFile(path string) (*JAASConfig, error) {
	return ParseJAASFileWith(path, JavaDefaults)
}

// ParseJAASFileWith reads a JAAS file, expanding ${name} with props. As
// in Java, setting the property policy.expandProperties to "false"
// turns expansion off.
func ParseJAASFileWith(path string, props Properties) (*JAASConfig, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("JAAS configuration %s: %w", path, unwrapPathError(err))
	}
	return ParseJAAS(path, src, props)
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// LoadJAAS resolves the value of java.security.auth.login.config as the
// JDK does (a leading "=" is dropped, ${name} is expanded, a file: URL
// or a plain path) and parses the file. It returns the path it read.
func LoadJAAS(setting string, props Properties) (*JAASConfig, string, error) {
	loc := strings.TrimPrefix(setting, "=")
	expanded, err := ExpandProperties(loc, props)
	if err != nil {
		return nil, loc, fmt.Errorf("JAAS configuration %q: %w", loc, err)
	}
	path := expanded
	if u, err := url.Parse(expanded); err == nil && len(u.Scheme) > 1 {
		if !strings.EqualFold(u.Scheme, "file") {
			return nil, expanded, fmt.Errorf("JAAS configuration %q: only files and file: URLs are supported", expanded)
		}
		path = u.Path
		if path == "" {
			path = u.Opaque
		}
	}
	cfg, err := ParseJAASFileWith(path, props)
	return cfg, path, err
}

// ExpandProperties replaces ${name} in s as the JDK's PropertyExpander
// does: ${/} is the file separator, ${{...}} is left alone, a "${" with no
// closing "}" is kept as it is, and an unknown property is an error.
func ExpandProperties(s string, props Properties) (string, error) {
	p := strings.Index(s, "${")
	if p < 0 {
		return s, nil
	}
	var b strings.Builder
	i := 0
	for p >= 0 {
		b.WriteString(s[i:p])
		i = p
		pe := p + 2
		if pe < len(s) && s[pe] == '{' {
			end := strings.Index(s[pe:], "}}")
			if end < 0 || pe+end+2 == len(s) {
				b.WriteString(s[p:])
				return b.String(), nil
			}
			pe += end + 1
			b.WriteString(s[p : pe+1])
		} else {
			end := strings.IndexByte(s[pe:], '}')
			if end < 0 {
				b.WriteString(s[p:])
				return b.String(), nil
			}
			pe += end
			name := s[p+2 : pe]
			if name == "/" {
				b.WriteByte(filepath.Separator)
			} else {
				var v string
				ok := false
				if props != nil {
					v, ok = props(name)
				}
				if !ok {
					return "", fmt.Errorf("unable to expand property %s", name)
				}
				b.WriteString(v)
			}
		}
		i = pe + 1
		p = strings.Index(s[i:], "${")
		if p >= 0 {
			p += i
		}
	}
	b.WriteString(s[i:])
	return b.String(), nil
}

// maxJAASSize bounds what ParseJAAS accepts; real files are a few lines.
const maxJAASSize = 1 << 20

// ParseJAAS parses a JAAS file's contents; name is used in errors.
func ParseJAAS(name string, src []byte, props Properties) (*JAASConfig, error) {
	if len(src) > maxJAASSize {
		return nil, fmt.Errorf("%s: JAAS configuration larger than %d bytes", name, maxJAASSize)
	}
	if !utf8.Valid(src) {
		// Java decodes the file as UTF-8 and replaces bad bytes; say
		// so rather than silently reading a different password.
		return nil, fmt.Errorf("%s: JAAS configuration is not valid UTF-8", name)
	}
	expand := true
	if props != nil {
		if v, ok := props("policy.expandProperties"); ok && v == "false" {
			expand = false
		}
	}
	p := &jaasParser{lex: jaasLexer{src: string(src), line: 1}, name: name, props: props, expand: expand}
	cfg := &JAASConfig{File: name, sections: map[string]*JAASSection{}}
	if err := p.parse(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// Token kinds of Java's StreamTokenizer as ConfigFile sets it up.
const (
	tokEOF = iota
	tokWord
	tokNumber
	tokQuoted // "..."
	tokSingle // '...': a quote StreamTokenizer knows but ConfigFile refuses
	tokChar   // any other single character
)

type jaasToken struct {
	kind int
	text string // word or quoted contents, number text, or the character
	line int
}

func (t jaasToken) describe() string {
	switch t.kind {
	case tokEOF:
		if t.text != "" {
			return "end of file (" + t.text + ")"
		}
		return "end of file"
	case tokWord:
		return strconv.Quote(t.text)
	case tokNumber:
		return "the number " + t.text + " (an unquoted value starting with a digit, '.' or '-' reads as a number in Java: quote it)"
	case tokQuoted:
		return "the string " + strconv.Quote(t.text)
	case tokSingle:
		return "the single-quoted '" + t.text + "' (use double quotes)"
	}
	return strconv.Quote(t.text)
}

// jaasLexer splits the file as java.io.StreamTokenizer does with
// ConfigFile's settings: words of letters, digits, '.', '-', '_', '$',
// '*' and non-ASCII characters; numbers starting with a digit, '.' or
// '-'; "..." and '...' strings with Java escapes ending at a line end;
// comments //..., /*...*/ and, because '/' is a comment character, a
// lone '/' to the end of the line.
type jaasLexer struct {
	src  string
	pos  int
	line int
}

func isJAASWordStart(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 160 || c == '$' || c == '_' || c == '*'
}

func isJAASDigit(c rune) bool { return c >= '0' && c <= '9' || c == '.' || c == '-' }

func (l *jaasLexer) peek() (rune, int) {
	if l.pos >= len(l.src) {
		return -1, 0
	}
	return utf8.DecodeRuneInString(l.src[l.pos:])
}

func (l *jaasLexer) next() jaasToken {
	for {
		c, n := l.peek()
		if c < 0 {
			return jaasToken{kind: tokEOF, line: l.line}
		}
		switch {
		case c == '\n':
			l.pos += n
			l.line++
			continue
		case c == '\r':
			l.pos += n
			if c2, _ := l.peek(); c2 == '\n' {
				l.pos++
			}
			l.line++
			continue
		case c <= ' ':
			l.pos += n
			continue
		}
		start, line := l.pos, l.line
		switch {
		case isJAASDigit(c):
			if c == '-' {
				l.pos++
				if c2, _ := l.peek(); c2 != '.' && (c2 < '0' || c2 > '9') {
					return jaasToken{kind: tokChar, text: "-", line: line}
				}
			}
			seenDot := false
			for {
				c2, _ := l.peek()
				if c2 == '.' && !seenDot {
					seenDot = true
				} else if c2 < '0' || c2 > '9' {
					break
				}
				l.pos++
			}
			return jaasToken{kind: tokNumber, text: l.src[start:l.pos], line: line}
		case isJAASWordStart(c):
			for {
				c2, n2 := l.peek()
				if c2 < 0 || !(isJAASWordStart(c2) || isJAASDigit(c2)) {
					break
				}
				l.pos += n2
			}
			return jaasToken{kind: tokWord, text: l.src[start:l.pos], line: line}
		case c == '"' || c == '\'':
			l.pos++
			text := l.quoted(byte(c))
			kind := tokQuoted
			if c == '\'' {
				kind = tokSingle
			}
			return jaasToken{kind: kind, text: text, line: line}
		case c == '/':
			l.pos++
			c2, _ := l.peek()
			if c2 == '*' {
				l.pos++
				end := strings.Index(l.src[l.pos:], "*/")
				if end < 0 {
					// Java reads an unclosed comment as the end of
					// the file.
					l.pos = len(l.src)
					return jaasToken{kind: tokEOF, line: line, text: fmt.Sprintf("the /* comment opened at line %d is never closed", line)}
				}
				l.line += countLineEnds(l.src[l.pos : l.pos+end])
				l.pos += end + 2
				continue
			}
			// "//" and a lone "/" both run to the end of the line.
			for l.pos < len(l.src) && l.src[l.pos] != '\n' && l.src[l.pos] != '\r' {
				l.pos++
			}
			continue
		}
		l.pos += n
		return jaasToken{kind: tokChar, text: string(c), line: line}
	}
}

func countLineEnds(s string) int {
	return strings.Count(s, "\n") + strings.Count(s, "\r") - strings.Count(s, "\r\n")
}

// quoted reads a string body up to the closing quote, a line end (which
// ends it, as in Java) or the end of the file, decoding Java's escapes.
func (l *jaasLexer) quoted(q byte) string {
	var b strings.Builder
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if c == q {
			l.pos++
			break
		}
		if c == '\n' || c == '\r' {
			break
		}
		l.pos++
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if l.pos >= len(l.src) {
			break
		}
		e := l.src[l.pos]
		l.pos++
		switch {
		case e >= '0' && e <= '7':
			v := int(e - '0')
			if l.pos < len(l.src) && l.src[l.pos] >= '0' && l.src[l.pos] <= '7' {
				v = v<<3 + int(l.src[l.pos]-'0')
				l.pos++
				if e <= '3' && l.pos < len(l.src) && l.src[l.pos] >= '0' && l.src[l.pos] <= '7' {
					v = v<<3 + int(l.src[l.pos]-'0')
					l.pos++
				}
			}
			b.WriteRune(rune(v))
		case e == 'a':
			b.WriteByte(7)
		case e == 'b':
			b.WriteByte('\b')
		case e == 'f':
			b.WriteByte('\f')
		case e == 'n':
			b.WriteByte('\n')
		case e == 'r':
			b.WriteByte('\r')
		case e == 't':
			b.WriteByte('\t')
		case e == 'v':
			b.WriteByte('\v')
		default:
			// Any other escaped character stands for itself (\\, \").
			l.pos--
			_, n := utf8.DecodeRuneInString(l.src[l.pos:])
			b.WriteString(l.src[l.pos : l.pos+n])
			l.pos += n
		}
	}
	return b.String()
}

type jaasParser struct {
	lex    jaasLexer
	tok    jaasToken
	name   string
	props  Properties
	expand bool
}

func (p *jaasParser) errorf(line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.name, line, fmt.Sprintf(format, args...))
}

func (p *jaasParser) advance() { p.tok = p.lex.next() }

func (p *jaasParser) parse(cfg *JAASConfig) error {
	p.advance()
	for p.tok.kind != tokEOF {
		if err := p.section(cfg); err != nil {
			return err
		}
	}
	return nil
}

// value takes a word or a "quoted" string, as ConfigFile.match accepts
// for names, flags, keys and values.
func (p *jaasParser) value(what string) (string, error) {
	t := p.tok
	if t.kind != tokWord && t.kind != tokQuoted {
		return "", p.errorf(t.line, "expected %s, found %s", what, t.describe())
	}
	p.advance()
	return t.text, nil
}

func (p *jaasParser) punct(c string, what string) error {
	if p.tok.kind != tokChar || p.tok.text != c {
		return p.errorf(p.tok.line, "expected '%s' %s, found %s", c, what, p.tok.describe())
	}
	p.advance()
	return nil
}

func (p *jaasParser) at(c string) bool { return p.tok.kind == tokChar && p.tok.text == c }

func (p *jaasParser) section(cfg *JAASConfig) error {
	t := p.tok
	// Java takes any token's text as the name; a single-quoted name works
	// there too.
	if t.kind != tokWord && t.kind != tokQuoted && t.kind != tokSingle {
		return p.errorf(t.line, "expected a section name, found %s", t.describe())
	}
	p.advance()
	sec := &JAASSection{Name: t.text, Line: t.line}
	if err := p.punct("{", "after the section name "+strconv.Quote(sec.Name)); err != nil {
		return err
	}
	for !p.at("}") {
		entry := JAASEntry{Line: p.tok.line, Options: map[string]string{}}
		var err error
		if entry.LoginModule, err = p.value("a login module class name"); err != nil {
			return err
		}
		flagTok := p.tok
		flag, err := p.value("a control flag (required, requisite, sufficient or optional)")
		if err != nil {
			return err
		}
		switch strings.ToUpper(flag) {
		case "REQUIRED", "REQUISITE", "SUFFICIENT", "OPTIONAL":
			entry.Flag = strings.ToLower(flag)
		default:
			return p.errorf(flagTok.line, "invalid control flag %q for %s (required, requisite, sufficient or optional)", flag, entry.LoginModule)
		}
		for !p.at(";") {
			key, err := p.value("an option key or ';'")
			if err != nil {
				return err
			}
			if err := p.punct("=", "after the option key "+strconv.Quote(key)); err != nil {
				return err
			}
			valTok := p.tok
			v, err := p.value("a value for the option " + strconv.Quote(key))
			if err != nil {
				return err
			}
			if p.expand && v != "" {
				x, err := ExpandProperties(v, p.props)
				if err != nil {
					return p.errorf(valTok.line, "option %s: %v", key, err)
				}
				if x == "" {
					return p.errorf(valTok.line, "option %s: system property in %q expanded to an empty value", key, v)
				}
				v = x
			}
			entry.Options[key] = v
		}
		p.advance() // the ';' ending the entry
		sec.Entries = append(sec.Entries, entry)
	}
	p.advance() // '}'
	if err := p.punct(";", "after the '}' closing section "+strconv.Quote(sec.Name)); err != nil {
		return err
	}
	if prev, dup := cfg.sections[sec.Name]; dup {
		return p.errorf(sec.Line, "section %q is already defined at line %d", sec.Name, prev.Line)
	}
	cfg.sections[sec.Name] = sec
	cfg.order = append(cfg.order, sec.Name)
	return nil
}
