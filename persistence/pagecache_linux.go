package persistence

import (
	"github.com/cockroachdb/pebble/v2/vfs"
	"golang.org/x/sys/unix"
)

// dropCachedPages asks the kernel to forget f's clean cached pages. Only
// a hint: files not backed by the OS (tests' in-memory FS) are skipped,
// and a failure changes nothing but the cost of later writes.
func dropCachedPages(f vfs.File) {
	if fd := f.Fd(); fd != vfs.InvalidFd {
		_ = unix.Fadvise(int(fd), 0, 0, unix.FADV_DONTNEED)
	}
}
