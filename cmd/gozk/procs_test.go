package main

import "testing"

func TestEventLoopsAndProcs(t *testing.T) {
	for _, c := range []struct {
		name                 string
		configured, procs    int
		fromEnv              bool
		wantLoops, wantProcs int
	}{
		{"two cores, default loops", 0, 2, false, 1, 3},
		{"eight cores, default loops", 0, 8, false, 2, 10},
		{"one core", 0, 1, false, 1, 2},
		{"configured loops", 4, 2, false, 4, 6},
		{"negative count means default", -1, 8, false, 2, 10},
		{"GOMAXPROCS from the environment stands", 0, 8, true, 2, 8},
		{"GOMAXPROCS from the environment, configured loops", 3, 2, true, 3, 2},
	} {
		loops, procs := eventLoopsAndProcs(c.configured, c.procs, c.fromEnv)
		if loops != c.wantLoops || procs != c.wantProcs {
			t.Errorf("%s: eventLoopsAndProcs(%d, %d, %v) = %d loops, GOMAXPROCS %d; want %d, %d",
				c.name, c.configured, c.procs, c.fromEnv, loops, procs, c.wantLoops, c.wantProcs)
		}
	}
}
