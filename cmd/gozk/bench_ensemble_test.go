package main

import (
	"strings"
	"testing"
)

// The ensemble comparison refuses a grid it cannot run before starting
// anything.
func TestBenchEnsembleUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--workloads", "connect"}, "does not spread over members"},
		{[]string{"--workloads", "sett"}, `unknown workload "sett"`},
		{[]string{"--placements", "observers"}, `unknown placement "observers"`},
		{[]string{"--servers", "etcd"}, `unknown server "etcd"`},
		{[]string{"--shapes", "16"}, "is not sessions x in-flight"},
		{[]string{"--failovers", "-1"}, "--failovers must not be negative"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			args := append([]string{"bench", "ensemble", "--dir", t.TempDir(), "--out", t.TempDir()}, c.args...)
			_, stderr, code := gozk(t, nil, args...)
			if code != exitUsage || !strings.Contains(stderr, c.stderr) {
				t.Fatalf("exit %d (want %d), stderr: %s\nwant stderr with %q", code, exitUsage, stderr, c.stderr)
			}
		})
	}
}
