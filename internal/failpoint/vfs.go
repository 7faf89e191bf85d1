package failpoint

import (
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

// FS wraps fs so that, once StartDiskFaults has been called, DiskSync
// fires at every fsync of a file (or directory) opened through it and
// DiskWrite at every write, before the operation: an error fails the
// operation, which never reaches fs, a sleep delays it. `gozk server`
// installs it under its stores only when one of the two points is armed,
// and starts the faults once its data is loaded: opening the stores and
// recovering (some 20 to 100 fsyncs, depending on the data directory)
// neither meets the faults nor counts as hits, so that hit N is the same
// operation from one run to the next.
func FS(fs vfs.FS) vfs.FS {
	return errorfs.Wrap(fs, errorfs.InjectorFunc(diskFault))
}

// NeedsFS reports whether a disk point is armed, so that the stores
// must go through FS.
func NeedsFS() bool { return IsArmed(DiskSync) || IsArmed(DiskWrite) }

// diskFaults is set by StartDiskFaults.
var diskFaults atomic.Bool

// StartDiskFaults makes the disk points fire in the file systems FS
// returned, from now on.
func StartDiskFaults() { diskFaults.Store(true) }

func diskFault(op errorfs.Op) error {
	if !diskFaults.Load() {
		return nil
	}
	switch op.Kind {
	case errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo:
		return Hit(DiskSync)
	case errorfs.OpFileWrite, errorfs.OpFileWriteAt:
		return Hit(DiskWrite)
	}
	return nil
}
