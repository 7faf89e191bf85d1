package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// Profiles of a running server for `go tool pprof`, off unless asked
// for: cpuProfileEnv names the file of a CPU profile from start to
// shutdown, memProfileEnv the file of an allocation profile (what was
// allocated where since start, and what is still in use) written at
// shutdown. The CPU profile samples 100 times a second and costs the
// server about as much; the allocation profile is Go's default sampling,
// one sample per 512 KiB allocated, always on.
const (
	cpuProfileEnv = "GOZK_CPUPROFILE"
	memProfileEnv = "GOZK_MEMPROFILE"
)

// startProfiles starts the profiles the environment asks for and returns
// the function that writes and closes them.
func startProfiles() (stop func() error, err error) {
	var cpu, mem *os.File
	if path := os.Getenv(cpuProfileEnv); path != "" {
		if cpu, err = os.Create(path); err != nil {
			return nil, fmt.Errorf("%s: %w", cpuProfileEnv, err)
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			return nil, fmt.Errorf("%s: %w", cpuProfileEnv, err)
		}
	}
	if path := os.Getenv(memProfileEnv); path != "" {
		// Created now, so that a path that cannot be written fails the
		// start rather than being found out at shutdown.
		if mem, err = os.Create(path); err != nil {
			if cpu != nil {
				pprof.StopCPUProfile()
				cpu.Close()
			}
			return nil, fmt.Errorf("%s: %w", memProfileEnv, err)
		}
	}
	return func() error {
		var first error
		if cpu != nil {
			pprof.StopCPUProfile()
			if err := cpu.Close(); err != nil {
				first = fmt.Errorf("%s: %w", cpuProfileEnv, err)
			}
		}
		if mem != nil {
			err := pprof.Lookup("allocs").WriteTo(mem, 0)
			if cerr := mem.Close(); err == nil {
				err = cerr
			}
			if err != nil && first == nil {
				first = fmt.Errorf("%s: %w", memProfileEnv, err)
			}
		}
		return first
	}, nil
}
