package main

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

func TestLogShapes(t *testing.T) {
	var buf bytes.Buffer
	l := buildLogger(&buf, "json", zerolog.InfoLevel, false)
	l.Debug().Msg("hidden")
	l.Info().Str("k", "v").Msg("shown")
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatalf("%q: %v", buf.String(), err)
	}
	if m["level"] != "info" || m["message"] != "shown" || m["k"] != "v" || len(m["time"].(string)) != len("2006-01-02T15:04:05.000Z") {
		t.Fatalf("%v", m)
	}
	buf.Reset()
	l = buildLogger(&buf, "console", zerolog.DebugLevel, false)
	l.Debug().Str("session", "0x1").Msg("session established")
	if s := buf.String(); !strings.Contains(s, " DBG session established session=0x1") || strings.Contains(s, "\x1b[") {
		t.Fatalf("%q", s)
	}
}

func TestLogFileReopen(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "gozk.log")
	if err := os.WriteFile(p, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := openLogFile(p)
	if err != nil {
		t.Fatal(err)
	}
	out := &logOutput{path: p, f: f, w: f}
	out.Write([]byte("appended\n"))
	if err := os.Rename(p, p+".1"); err != nil {
		t.Fatal(err)
	}
	if err := out.Reopen(); err != nil {
		t.Fatal(err)
	}
	out.Write([]byte("fresh\n"))
	out.Close()
	a, _ := os.ReadFile(p + ".1")
	b, _ := os.ReadFile(p)
	if string(a) != "old\nappended\n" || string(b) != "fresh\n" {
		t.Fatalf("%q %q", a, b)
	}
}

// TestDurationFieldsNameTheirUnit reads every Go file of the module and
// checks that each duration logged with zerolog's Dur has a field name
// ending in Ms, the unit buildLogger gives durations: a bare number such
// as took=29.114316 does not say whether it counts seconds or
// milliseconds.
func TestDurationFieldsNameTheirUnit(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 2 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Dur" {
				return true
			}
			checked++
			lit, ok := call.Args[0].(*ast.BasicLit)
			name, _ := strconv.Unquote(exprText(lit))
			if !ok || !strings.HasSuffix(name, "Ms") {
				t.Errorf("%s: Dur(%s, ...): a logged duration's field name must end in Ms", fset.Position(call.Pos()), exprText(lit))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no Dur calls found: is the walk reading the module?")
	}
}

func exprText(lit *ast.BasicLit) string {
	if lit == nil {
		return "<not a literal>"
	}
	return lit.Value
}

// TestLoggedDurationIsMilliseconds: a Dur field is written as
// milliseconds, which its Ms name promises.
func TestLoggedDurationIsMilliseconds(t *testing.T) {
	var buf bytes.Buffer
	l := buildLogger(&buf, "json", zerolog.InfoLevel, false)
	l.Info().Dur("tookMs", 29114316*time.Nanosecond).Msg("snapshot taken")
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatalf("%q: %v", buf.String(), err)
	}
	if m["tookMs"] != 29.114316 {
		t.Fatalf("tookMs = %v, want 29.114316 (milliseconds): %s", m["tookMs"], buf.String())
	}
}
