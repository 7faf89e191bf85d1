//go:build unix

package persistence

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// lockHolder returns the pid of the process holding a POSIX write lock
// on the file at path (Pebble's lock), or 0.
func lockHolder(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
	if err := unix.FcntlFlock(f.Fd(), unix.F_GETLK, &lk); err != nil || lk.Type == unix.F_UNLCK {
		return 0
	}
	return int(lk.Pid)
}
