package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestStartProfilesOffByDefault(t *testing.T) {
	t.Setenv(cpuProfileEnv, "")
	t.Setenv(memProfileEnv, "")
	stop, err := startProfiles()
	if err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

func TestStartProfilesWritesBoth(t *testing.T) {
	dir := t.TempDir()
	cpuPath, memPath := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	t.Setenv(cpuProfileEnv, cpuPath)
	t.Setenv(memProfileEnv, memPath)
	stop, err := startProfiles()
	if err != nil {
		t.Fatal(err)
	}
	// Some work for the profiles to see.
	var sink [][]byte
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		sink = append(sink, make([]byte, 4096))
		if len(sink) > 1000 {
			sink = sink[:0]
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	// A pprof profile is a gzipped protocol buffer.
	for _, path := range []string{cpuPath, memPath} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 64 || b[0] != 0x1f || b[1] != 0x8b {
			t.Fatalf("%s is not a gzipped profile (%d bytes)", path, len(b))
		}
	}
}

func TestStartProfilesBadPath(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing", "x.pprof")
	t.Setenv(cpuProfileEnv, "")
	t.Setenv(memProfileEnv, missing)
	if _, err := startProfiles(); err == nil {
		t.Fatal("no error for a memory profile that cannot be created")
	}
	t.Setenv(memProfileEnv, "")
	t.Setenv(cpuProfileEnv, missing)
	if _, err := startProfiles(); err == nil {
		t.Fatal("no error for a CPU profile that cannot be created")
	}
}
