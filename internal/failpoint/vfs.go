package failpoint

import (
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

// FS wraps fs so that DiskSync fires at every fsync of a file (or
// directory) opened through it and DiskWrite at every write, before the
// operation: an error fails the operation, which never reaches fs, a
// sleep delays it. `gozk server` installs it under its stores only when
// one of the two points is armed; the points' hit counts then include
// the fsyncs and writes of opening the stores.
func FS(fs vfs.FS) vfs.FS {
	return errorfs.Wrap(fs, errorfs.InjectorFunc(diskFault))
}

// NeedsFS reports whether a disk point is armed, so that the stores
// must go through FS.
func NeedsFS() bool { return IsArmed(DiskSync) || IsArmed(DiskWrite) }

func diskFault(op errorfs.Op) error {
	switch op.Kind {
	case errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo:
		return Hit(DiskSync)
	case errorfs.OpFileWrite, errorfs.OpFileWriteAt:
		return Hit(DiskWrite)
	}
	return nil
}
