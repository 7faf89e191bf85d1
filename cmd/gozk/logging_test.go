package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
