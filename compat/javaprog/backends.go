package javaprog

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/suite"
)

// settings are what the check programs expect of a server: TTL nodes
// enabled, and containers and TTL nodes checked every 100 ms so that
// waiting for their removal is short.
func settings(tickTime int) suite.Settings {
	return suite.Settings{TickTime: tickTime, ExtendedTypes: true, ContainerCheckMs: 100}
}

// RunOnBackends runs the program against a fresh server of each backend
// with tickTime (ms), both at once, as subtests java/<check> and
// gozk/<check>.
// The program's arguments are the server's address and the checks named
// in the environment variable envChecks (all of them when it is empty).
// signals, when not nil, makes the answerer of SIGNAL lines for a server.
func (p *Program) RunOnBackends(t *testing.T, tickTime int, limit time.Duration, envChecks string, signals func(srv suite.Server) Signals) {
	t.Helper()
	for _, b := range suite.Backends {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv := b.Start(t, settings(tickTime))
			args := append([]string{srv.Addr}, strings.Fields(os.Getenv(envChecks))...)
			var answer Signals
			if signals != nil {
				answer = signals(srv)
			}
			start := time.Now()
			run := p.Run(t, limit, answer, args...)
			t.Logf("%d checks in %v", len(run.Results), time.Since(start).Round(time.Millisecond))
			run.Report(t)
		})
	}
}
