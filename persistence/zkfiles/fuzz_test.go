package zkfiles

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// fixtureGlob returns the Java-made files matching pattern, as seeds.
func fixtureGlob(f *testing.F, pattern string) []string {
	m, err := filepath.Glob(filepath.Join(fixtureRoot, "*", VersionDir, pattern))
	if err != nil {
		f.Fatal(err)
	}
	return m
}

// The decoders must return errors, never panic or allocate without bound,
// whatever the bytes.

func FuzzDecodeSnapshot(f *testing.F) {
	var buf bytes.Buffer
	sample().write(f, &buf, Checked)
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:40])
	for _, path := range fixtureGlob(f, "snapshot.*") {
		if CompressionOf(path) == Checked {
			b, _ := os.ReadFile(path)
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		DecodeSnapshot(bytes.NewReader(b), 1<<16, SnapshotHandler{Node: func(*Node) error { return nil }})
	})
}

func FuzzLogFile(f *testing.F) {
	f.Add([]byte("ZKLG\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x01\x00B"))
	f.Add([]byte("ZKLG\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00"))
	for _, path := range fixtureGlob(f, "log.*") {
		b, _ := os.ReadFile(path)
		f.Add(b[:min(len(b), 4096)])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		lr, err := NewLogFileReader(bytes.NewReader(b), 1<<16)
		if err != nil {
			return
		}
		for i := 0; i < 1<<16; i++ {
			if _, err := lr.Next(); err != nil {
				return
			}
		}
	})
}

func FuzzXerial(f *testing.F) {
	var buf bytes.Buffer
	w := NewXerialWriter(&buf)
	w.Write(bytes.Repeat([]byte("abc"), 20000))
	w.Close()
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:30])
	for _, path := range fixtureGlob(f, "snapshot.*.snappy") {
		b, _ := os.ReadFile(path)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewXerialReader(bytes.NewReader(b))
		if err != nil {
			return
		}
		io.Copy(io.Discard, io.LimitReader(r, 64<<20))
	})
}
