package javaprog

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/suite"
)

// RunOnBackends runs the program against a fresh server of each backend
// with settings, both at once, as subtests java/<check> and gozk/<check>.
// The program's arguments are the server's address and the checks named
// in the environment variable envChecks (all of them when it is empty).
// signals, when not nil, makes the answerer of SIGNAL lines for a server.
func (p *Program) RunOnBackends(t *testing.T, settings suite.Settings, limit time.Duration, envChecks string, signals func(srv suite.Server) Signals) {
	t.Helper()
	for _, b := range suite.Backends {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv := b.Start(t, settings)
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
