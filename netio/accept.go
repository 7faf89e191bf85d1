package netio

import (
	"errors"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"
)

// acceptLogInterval is the least time between two log lines about failing
// accepts: while descriptors are exhausted every retry fails, a hundred
// times a second.
const acceptLogInterval = 10 * time.Second

// acceptState follows the accept loop's failures, for its log lines. Only
// the accept loop uses it.
type acceptState struct {
	failures int // since the last accepted connection
	logged   int // failures already reported
	lastLog  time.Time
}

// failed records a failed accept and logs it, at most once per
// acceptLogInterval. Running out of descriptors names the limit, which is
// what an operator has to raise.
func (a *acceptState) failed(log zerolog.Logger, err error) {
	a.failures++
	now := time.Now()
	if a.failures > 1 && now.Sub(a.lastLog) < acceptLogInterval {
		return
	}
	ev := log.Warn().Err(err).Int("failures", a.failures-a.logged)
	a.logged, a.lastLog = a.failures, now
	if errors.Is(err, unix.EMFILE) || errors.Is(err, unix.ENFILE) {
		var rl unix.Rlimit
		if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) == nil {
			ev = ev.Uint64("RLIMIT_NOFILE", rl.Cur).Uint64("RLIMIT_NOFILE_max", rl.Max)
		}
		ev.Msg("cannot accept client connections: out of file descriptors (raise the open-files limit, ulimit -n); " +
			"open connections are still served and new ones wait in the listen backlog")
		return
	}
	ev.Msg("cannot accept client connections; retrying")
}

// succeeded ends a run of failures, with a line saying so.
func (a *acceptState) succeeded(log zerolog.Logger) {
	if a.failures == 0 {
		return
	}
	log.Info().Int("failures", a.failures).Msg("accepting client connections again")
	*a = acceptState{}
}
