package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// protoDir is the proto package, relative to this test's directory.
var protoDir = filepath.Join("..", "..", "..", "proto")

// TestProtoRecordsAreCurrent fails when proto/zookeeper_gen.go is not what
// jutegen makes of proto/zookeeper.jute today: after an edit of the .jute
// file or of the generator, run `make generate` (go generate ./...).
func TestProtoRecordsAreCurrent(t *testing.T) {
	want, err := generate(filepath.Join(protoDir, "zookeeper.jute"), "proto")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(protoDir, "zookeeper_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("proto/zookeeper_gen.go is stale (run `make generate`); first difference on line %d:\n on disk:   %q\n generated: %q", i+1, g, w)
			}
		}
		t.Fatal("proto/zookeeper_gen.go is stale (run `make generate`)")
	}
}

// TestGenerateDirective keeps proto/generate.go pointing at this command.
func TestGenerateDirective(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(protoDir, "generate.go"))
	if err != nil {
		t.Fatal(err)
	}
	const want = "//go:generate go run ../jute/cmd/jutegen -in zookeeper.jute -out zookeeper_gen.go -package proto"
	if !strings.Contains(string(src), want) {
		t.Fatalf("proto/generate.go lacks %q", want)
	}
}

func TestGenerateReportsMissingFile(t *testing.T) {
	if _, err := generate(filepath.Join(t.TempDir(), "missing.jute"), "x"); err == nil {
		t.Fatal("no error for a missing file")
	}
}
