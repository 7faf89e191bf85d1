package netio

import (
	"errors"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/gozk/gozk/internal/ratelog"
)

// acceptLogInterval is the least time between two log lines about failing
// accepts: while descriptors are exhausted every retry fails, a hundred
// times a second.
const acceptLogInterval = 10 * time.Second

// acceptState follows the accept loop's failures, for its log lines. Only
// the accept loop uses it.
//
// At the descriptor limit, accepts fail and succeed in turn (each
// connection closed frees a descriptor for the next accept, and a
// connection accepted with the last descriptor is closed again when gnet
// cannot duplicate it), so a success does not end the shortage for the
// log: a warning is written at most once per acceptLogInterval, and the
// line saying that accepting works again is written for the first
// connection accepted acceptCalm after the last failure, once per
// warning.
type acceptState struct {
	warnings    ratelog.Every
	warned      bool
	lastFailure time.Time
}

// acceptCalm is how long accepts must have worked before the shortage is
// reported over.
const acceptCalm = time.Second

// failed records a failed accept and logs it, at most once per
// acceptLogInterval. Running out of descriptors names the limit, which is
// what an operator has to raise.
func (a *acceptState) failed(log zerolog.Logger, err error) {
	now := time.Now()
	a.lastFailure = now
	held, ok := a.warnings.Allow(now, acceptLogInterval)
	if !ok {
		return
	}
	a.warned = true
	ev := log.Warn().Err(err).Int("failures", held+1)
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

// succeeded notes an accepted connection.
func (a *acceptState) succeeded(log zerolog.Logger) {
	if !a.warned || time.Since(a.lastFailure) < acceptCalm {
		return
	}
	a.warned = false
	log.Info().Msg("accepting client connections again")
}
