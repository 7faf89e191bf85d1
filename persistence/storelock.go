package persistence

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// LockedError is what Open and OpenStore return when another process has
// the store open. Pebble locks a store's directory (its LOCK file) for as
// long as the store is open, read-only or not, so a `gozk data` tool run
// beside a live server, or a second server on the same dataDir, meets
// this.
type LockedError struct {
	// What names the store: "txn log" or "snapshot store".
	What string
	// Dir is the store's directory.
	Dir string
	// Pid is the process holding the lock, as the kernel reports it; 0
	// when it does not say (a process in another pid namespace, some
	// network file systems), or the lock was released meanwhile.
	Pid int
	// Command is that process's command line (from /proc), "" if unknown.
	Command string
	// Err is the error of the lock attempt.
	Err error
}

func (e *LockedError) Error() string {
	holder := "a running gozk server"
	if f := strings.Fields(e.Command); len(f) > 1 && f[1] == "data" {
		holder = "a running `gozk data` command"
	}
	switch {
	case e.Pid > 0 && e.Command != "":
		holder += fmt.Sprintf(" (pid %d: %s)", e.Pid, e.Command)
	case e.Pid > 0:
		holder += fmt.Sprintf(" (pid %d)", e.Pid)
	}
	return fmt.Sprintf("persistence: the %s %s is held by %s; stop it first", e.What, e.Dir, holder)
}

func (e *LockedError) Unwrap() error { return e.Err }

// lockedError returns a *LockedError when err, from opening the Pebble
// store in dir, is Pebble failing to take the directory's lock because
// another process holds it; nil otherwise.
func lockedError(dir, what string, err error) error {
	// A LOCK file that cannot be created (permissions) fails with a
	// *PathError; only the lock call itself fails with a bare errno.
	var pe *os.PathError
	if errors.As(err, &pe) || !(errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EACCES)) {
		return nil
	}
	le := &LockedError{What: what, Dir: dir, Err: err}
	le.Pid = lockHolder(filepath.Join(dir, "LOCK"))
	if le.Pid > 0 {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", le.Pid)); err == nil {
			args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
			if len(args) > 0 && args[0] != "" {
				args[0] = filepath.Base(args[0])
				le.Command = strings.Join(args, " ")
			}
		}
	}
	return le
}
