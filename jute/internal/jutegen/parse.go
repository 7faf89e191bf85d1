package jutegen

import (
	"fmt"
	gotoken "go/token"
	"strings"
	"unicode"
)

// File is a parsed .jute description.
type File struct {
	Modules []*Module
}

// Module is one `module name { ... }` block.
type Module struct {
	Name    string
	Classes []*Class
}

// Class is one record type.
type Class struct {
	Name   string
	Doc    string
	Fields []*Field
	Line   int
}

// Field is one typed member of a class.
type Field struct {
	Name string
	Type *Type
	Line int
}

// Kind enumerates jute types.
type Kind int

// The jute types.
const (
	KByte Kind = iota
	KBool
	KInt
	KLong
	KFloat
	KDouble
	KString
	KBuffer
	KVector
	KRecord
)

// Type is a field type; Elem is set for vectors and Record for classes.
type Type struct {
	Kind   Kind
	Elem   *Type
	Record string
}

var primitives = map[string]Kind{
	"byte": KByte, "boolean": KBool, "int": KInt, "long": KLong,
	"float": KFloat, "double": KDouble, "ustring": KString, "buffer": KBuffer,
}

type token struct {
	text string
	line int
	doc  string // comment text just before the token
}

func tokenize(name, src string) ([]token, error) {
	var toks []token
	line := 1
	var doc strings.Builder
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case strings.HasPrefix(src[i:], "//"):
			end := strings.IndexByte(src[i:], '\n')
			if end < 0 {
				end = len(src) - i
			}
			doc.WriteString(strings.TrimSpace(src[i+2 : i+end]))
			doc.WriteByte('\n')
			i += end
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("%s:%d: unterminated comment", name, line)
			}
			body := src[i+2 : i+2+end]
			line += strings.Count(body, "\n")
			i += end + 4
		case strings.ContainsRune("{};<>", rune(c)):
			toks = append(toks, token{text: string(c), line: line, doc: doc.String()})
			doc.Reset()
			i++
		case c == '_' || c == '.' || unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)):
			j := i
			for j < len(src) && (src[j] == '_' || src[j] == '.' || unicode.IsLetter(rune(src[j])) || unicode.IsDigit(rune(src[j]))) {
				j++
			}
			toks = append(toks, token{text: src[i:j], line: line, doc: doc.String()})
			doc.Reset()
			i = j
		default:
			return nil, fmt.Errorf("%s:%d: unexpected character %q", name, line, c)
		}
	}
	return toks, nil
}

type parser struct {
	name    string
	toks    []token
	pos     int
	endLine int // the last line of the input, where EOF errors point
}

// peek returns the next token; at the end of the input it returns an empty
// token on the last line.
func (p *parser) peek() token {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return token{text: "", line: p.endLine}
}

func (p *parser) atEOF() bool { return p.pos >= len(p.toks) }

// quote shows a token in an error message.
func quote(text string) string {
	if text == "" {
		return "end of file"
	}
	return fmt.Sprintf("%q", text)
}

// ident reads a name that works in Go: a class name must be an identifier
// that is not a keyword; a field name is capitalised first, so "type" is
// fine.
func (p *parser) ident(what string) (token, error) {
	t := p.next()
	name := t.text
	if what == "field" && name != "" {
		name = strings.ToUpper(name[:1]) + name[1:]
	}
	if !gotoken.IsIdentifier(name) {
		return t, fmt.Errorf("%s:%d: expected a %s name, found %s", p.name, t.line, what, quote(t.text))
	}
	return t, nil
}

func (p *parser) next() token {
	t := p.peek()
	p.pos++
	return t
}

func (p *parser) expect(s string) error {
	t := p.next()
	if t.text != s {
		return fmt.Errorf("%s:%d: expected %q, found %s", p.name, t.line, s, quote(t.text))
	}
	return nil
}

// Parse reads a .jute description.
func Parse(name, src string) (*File, error) {
	toks, err := tokenize(name, src)
	if err != nil {
		return nil, err
	}
	p := &parser{name: name, toks: toks, endLine: 1 + strings.Count(src, "\n")}
	f := &File{}
	for p.pos < len(p.toks) {
		if err := p.expect("module"); err != nil {
			return nil, err
		}
		mname := p.next()
		if mname.text == "" || strings.ContainsAny(mname.text, "{};<>") {
			return nil, fmt.Errorf("%s:%d: expected a module name, found %s", p.name, mname.line, quote(mname.text))
		}
		m := &Module{Name: mname.text}
		if err := p.expect("{"); err != nil {
			return nil, err
		}
		for p.peek().text != "}" {
			if p.atEOF() {
				return nil, fmt.Errorf("%s:%d: module %s is not closed", p.name, mname.line, m.Name)
			}
			c, err := p.parseClass()
			if err != nil {
				return nil, err
			}
			m.Classes = append(m.Classes, c)
		}
		p.next()
		f.Modules = append(f.Modules, m)
	}
	return f, f.check(name)
}

func (p *parser) parseClass() (*Class, error) {
	t := p.next()
	if t.text != "class" {
		return nil, fmt.Errorf("%s:%d: expected \"class\", found %s", p.name, t.line, quote(t.text))
	}
	name, err := p.ident("class")
	if err != nil {
		return nil, err
	}
	c := &Class{Name: name.text, Doc: strings.TrimSpace(t.doc), Line: t.line}
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	fields := map[string]int{}
	for p.peek().text != "}" {
		if p.atEOF() {
			return nil, fmt.Errorf("%s:%d: class %s is not closed", p.name, c.Line, c.Name)
		}
		line := p.peek().line
		typ, err := p.parseType()
		if err != nil {
			return nil, err
		}
		fname, err := p.ident("field")
		if err != nil {
			return nil, err
		}
		if err := p.expect(";"); err != nil {
			return nil, err
		}
		// Fields become exported Go names, so "a" and "A" collide.
		key := strings.ToUpper(fname.text[:1]) + fname.text[1:]
		if prev, dup := fields[key]; dup {
			return nil, fmt.Errorf("%s:%d: field %s of class %s already defined on line %d", p.name, line, fname.text, c.Name, prev)
		}
		fields[key] = line
		c.Fields = append(c.Fields, &Field{Name: fname.text, Type: typ, Line: line})
	}
	p.next()
	return c, nil
}

func (p *parser) parseType() (*Type, error) {
	t := p.next()
	if k, ok := primitives[t.text]; ok {
		return &Type{Kind: k}, nil
	}
	if t.text == "vector" {
		if err := p.expect("<"); err != nil {
			return nil, err
		}
		elem, err := p.parseType()
		if err != nil {
			return nil, err
		}
		if err := p.expect(">"); err != nil {
			return nil, err
		}
		return &Type{Kind: KVector, Elem: elem}, nil
	}
	parts := strings.Split(t.text, ".")
	last := parts[len(parts)-1]
	if !gotoken.IsIdentifier(last) {
		return nil, fmt.Errorf("%s:%d: expected a type, found %s", p.name, t.line, quote(t.text))
	}
	return &Type{Kind: KRecord, Record: last}, nil
}

// check verifies that class names are unique, every referenced class
// exists and no class contains itself other than through a vector (such a
// record would have no finite encoding, and no Go struct can hold it).
func (f *File) check(name string) error {
	seen := map[string]bool{}
	classes := map[string]*Class{}
	for _, m := range f.Modules {
		for _, c := range m.Classes {
			if seen[c.Name] {
				return fmt.Errorf("%s:%d: class %s defined twice (first on line %d)", name, c.Line, c.Name, classes[c.Name].Line)
			}
			seen[c.Name] = true
			classes[c.Name] = c
		}
	}
	var walk func(t *Type, line int) error
	walk = func(t *Type, line int) error {
		switch t.Kind {
		case KVector:
			return walk(t.Elem, line)
		case KRecord:
			if !seen[t.Record] {
				return fmt.Errorf("%s:%d: unknown class %s", name, line, t.Record)
			}
		}
		return nil
	}
	for _, m := range f.Modules {
		for _, c := range m.Classes {
			for _, fl := range c.Fields {
				if err := walk(fl.Type, fl.Line); err != nil {
					return err
				}
			}
		}
	}
	// Depth-first search over direct (non-vector) record fields.
	const (
		unvisited = iota
		active
		done
	)
	state := map[string]int{}
	var visit func(c *Class) error
	visit = func(c *Class) error {
		state[c.Name] = active
		for _, fl := range c.Fields {
			if fl.Type.Kind != KRecord {
				continue
			}
			switch state[fl.Type.Record] {
			case active:
				return fmt.Errorf("%s:%d: class %s contains itself through field %s", name, fl.Line, fl.Type.Record, fl.Name)
			case unvisited:
				if err := visit(classes[fl.Type.Record]); err != nil {
					return err
				}
			}
		}
		state[c.Name] = done
		return nil
	}
	for _, m := range f.Modules {
		for _, c := range m.Classes {
			if state[c.Name] == unvisited {
				if err := visit(c); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
