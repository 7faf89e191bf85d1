package stallfs

import (
	"path/filepath"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

// LogSyncs holds the txn log's fsyncs while armed.
type LogSyncs struct {
	armed atomic.Bool
	// Entered receives once per held fsync, as it starts waiting.
	Entered chan struct{}
	permits chan struct{}
	done    atomic.Bool
}

// New is a LogSyncs, disarmed, with room for 16 fsyncs announced and
// released ahead.
func New() *LogSyncs {
	return &LogSyncs{Entered: make(chan struct{}, 16), permits: make(chan struct{}, 16)}
}

// FS is fs with the log's fsyncs going through s.
func (s *LogSyncs) FS(fs vfs.FS) vfs.FS { return errorfs.Wrap(fs, s) }

// Arm starts (true) or stops (false) holding the fsyncs that begin from
// now on.
func (s *LogSyncs) Arm(on bool) { s.armed.Store(on) }

// Release lets one held fsync (the next to be held, if none is) go on.
func (s *LogSyncs) Release() { s.permits <- struct{}{} }

// Finish disarms s and lets every held fsync, and any still to come, go
// on: for a test's cleanup, so that nothing stays stuck whatever
// happened. It may be called more than once.
func (s *LogSyncs) Finish() {
	s.armed.Store(false)
	if s.done.CompareAndSwap(false, true) {
		close(s.permits)
	}
}

// MaybeError implements errorfs.Injector: it holds a log fsync while
// armed and never fails an operation.
func (s *LogSyncs) MaybeError(op errorfs.Op) error {
	switch op.Kind {
	case errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo:
	default:
		return nil
	}
	if !s.armed.Load() || filepath.Ext(op.Path) != ".log" || filepath.Base(filepath.Dir(op.Path)) != "gozk" {
		return nil
	}
	s.Entered <- struct{}{}
	<-s.permits
	return nil
}

func (s *LogSyncs) String() string { return "stallfs.LogSyncs" }
