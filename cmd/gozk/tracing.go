package main

import (
	"fmt"
	"os"
	"runtime/trace"
)

// traceEnv names the file `gozk server` writes a runtime execution trace
// to, from start to shutdown (`go tool trace FILE`; `go tool trace
// -pprof=sched FILE` lists where goroutines waited for a processor). It is
// off unless set: at 60,000 gets/s it added about a tenth to the server's
// CPU per get and wrote 1.4 MB a second.
const traceEnv = "GOZK_TRACE"

// startTrace starts the execution trace if traceEnv asks for one and
// returns the function that ends it.
func startTrace() (stop func(), err error) {
	path := os.Getenv(traceEnv)
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", traceEnv, err)
	}
	if err := trace.Start(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", traceEnv, err)
	}
	return func() {
		trace.Stop()
		f.Close()
	}, nil
}
