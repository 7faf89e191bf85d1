package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestStartTraceOffByDefault(t *testing.T) {
	t.Setenv(traceEnv, "")
	stop, err := startTrace()
	if err != nil {
		t.Fatal(err)
	}
	stop()
}

func TestStartTraceWritesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.out")
	t.Setenv(traceEnv, path)
	stop, err := startTrace()
	if err != nil {
		t.Fatal(err)
	}
	stop()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() == 0 {
		t.Fatal("empty trace")
	}
}

func TestStartTraceBadPath(t *testing.T) {
	t.Setenv(traceEnv, filepath.Join(t.TempDir(), "missing", "trace.out"))
	if _, err := startTrace(); err == nil {
		t.Fatal("no error for a file that cannot be created")
	}
}
