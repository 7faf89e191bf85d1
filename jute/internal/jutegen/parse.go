package main

import (
	"fmt"
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
	name string
	toks []token
	pos  int
}

func (p *parser) peek() token {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return token{text: "", line: -1}
}

func (p *parser) next() token {
	t := p.peek()
	p.pos++
	return t
}

func (p *parser) expect(s string) error {
	t := p.next()
	if t.text != s {
		return fmt.Errorf("%s:%d: expected %q, found %q", p.name, t.line, s, t.text)
	}
	return nil
}

// Parse reads a .jute description.
func Parse(name, src string) (*File, error) {
	toks, err := tokenize(name, src)
	if err != nil {
		return nil, err
	}
	p := &parser{name: name, toks: toks}
	f := &File{}
	for p.pos < len(p.toks) {
		if err := p.expect("module"); err != nil {
			return nil, err
		}
		m := &Module{Name: p.next().text}
		if err := p.expect("{"); err != nil {
			return nil, err
		}
		for p.peek().text != "}" {
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
		return nil, fmt.Errorf("%s:%d: expected \"class\", found %q", p.name, t.line, t.text)
	}
	name := p.next()
	c := &Class{Name: name.text, Doc: strings.TrimSpace(t.doc), Line: t.line}
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	for p.peek().text != "}" {
		if p.peek().line < 0 {
			return nil, fmt.Errorf("%s: class %s is not closed", p.name, c.Name)
		}
		line := p.peek().line
		typ, err := p.parseType()
		if err != nil {
			return nil, err
		}
		fname := p.next()
		if err := p.expect(";"); err != nil {
			return nil, err
		}
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
	if t.text == "" || strings.ContainsAny(t.text, "{};<>") {
		return nil, fmt.Errorf("%s:%d: expected a type, found %q", p.name, t.line, t.text)
	}
	parts := strings.Split(t.text, ".")
	return &Type{Kind: KRecord, Record: parts[len(parts)-1]}, nil
}

// check verifies that class names are unique and every referenced class
// exists.
func (f *File) check(name string) error {
	seen := map[string]bool{}
	for _, m := range f.Modules {
		for _, c := range m.Classes {
			if seen[c.Name] {
				return fmt.Errorf("%s:%d: class %s defined twice", name, c.Line, c.Name)
			}
			seen[c.Name] = true
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
	return nil
}
