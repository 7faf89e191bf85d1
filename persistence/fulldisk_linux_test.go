package persistence

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// mountTmpfs mounts a tmpfs of size bytes on a new directory, or skips
// the test where mounting is not permitted.
func mountTmpfs(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): the full-disk test needs one", err)
	}
	t.Cleanup(func() {
		// Detached: the Pebble DB an open on the full disk abandoned
		// keeps its files open until the test binary exits.
		if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
			t.Errorf("unmounting %s: %v", dir, err)
		}
	})
	return dir
}

// fillDisk writes into a new file in dir until the file system is full
// and returns the file's path.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return path
			}
			t.Fatal(err)
		}
	}
}

// TestStartOnFullTmpfs is TestStartOnFullDisk on a real file system that
// is full: a small tmpfs.
func TestStartOnFullTmpfs(t *testing.T) {
	t.Run("new store", func(t *testing.T) {
		mnt := mountTmpfs(t, 8<<20)
		dir := filepath.Join(mnt, "data")
		filler := fillDisk(t, mnt)
		_, err := openBounded(t, StoreOptions{DataDir: dir, ForceSync: true})
		checkNoSpace(t, err, dir)
		if err := os.Remove(filler); err != nil {
			t.Fatal(err)
		}
		s, err := openBounded(t, StoreOptions{DataDir: dir, ForceSync: true})
		if err != nil {
			t.Fatalf("once space returns: %v", err)
		}
		if err := s.Log().Append(entriesFor(1)); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("existing store", func(t *testing.T) {
		mnt := mountTmpfs(t, 16<<20)
		dir := filepath.Join(mnt, "data")
		writeWALOnlyStore(t, StoreOptions{DataDir: dir, ForceSync: true})
		filler := fillDisk(t, mnt)
		_, err := openBounded(t, StoreOptions{DataDir: dir, ForceSync: true})
		checkNoSpace(t, err, dir)
		if err := os.Remove(filler); err != nil {
			t.Fatal(err)
		}
		s, err := openBounded(t, StoreOptions{DataDir: dir, ForceSync: true})
		if err != nil {
			t.Fatalf("once space returns: %v", err)
		}
		checkReplayed(t, replayAll(t, s.Log(), 0), zxidRange(1, 100))
	})
}
