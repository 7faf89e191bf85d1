package persistence

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// openBounded runs OpenStore and fails the test if it has not returned
// after a generous while: on a full disk it must stop, not retry.
func openBounded(t *testing.T, o StoreOptions) (*Store, error) {
	t.Helper()
	type result struct {
		s   *Store
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := OpenStore(o)
		done <- result{s, err}
	}()
	select {
	case r := <-done:
		if r.s != nil {
			t.Cleanup(func() { r.s.Close() })
		}
		return r.s, r.err
	case <-time.After(2 * time.Minute):
		t.Fatalf("OpenStore(%s) has not returned after 2 minutes", o.DataDir)
		return nil, nil
	}
}

// checkNoSpace checks that err is the one clear error of a start on a
// full disk: ENOSPC, naming the directory.
func checkNoSpace(t *testing.T, err error, dir string) {
	t.Helper()
	if err == nil {
		t.Fatal("OpenStore on a full disk succeeded")
	}
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), dir) {
		t.Fatalf("OpenStore on a full disk = %v; want ENOSPC naming %s", err, dir)
	}
	if errors.Is(err, ErrCorrupt) {
		t.Fatalf("a full disk is not damage: %v", err)
	}
}

// writeWALOnlyStore makes a store in dataDir whose txns 1..100 are in its
// WAL only (as a clean stop leaves them: Close does not flush).
func writeWALOnlyStore(t *testing.T, o StoreOptions) {
	t.Helper()
	s, err := OpenStore(o)
	if err != nil {
		t.Fatal(err)
	}
	for first := int64(1); first <= 100; first += 10 {
		if err := s.Log().Append(entriesFor(zxidRange(first, first+9)...)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// fullFS fails every write with ENOSPC while full is set, as a full disk
// does.
type fullFS struct {
	vfs.FS
	full *atomic.Bool
	// only, if set, limits the failures to files whose names end so.
	only string
	// partial writes half of what a failing write is given first.
	partial bool
	// failures counts the writes failed.
	failures *atomic.Int64
}

func (fs fullFS) Unwrap() vfs.FS { return fs.FS }

func (fs fullFS) wrap(name string, f vfs.File, err error) (vfs.File, error) {
	if err != nil || !strings.HasSuffix(name, fs.only) {
		return f, err
	}
	return fullFile{f, fs}, nil
}

func (fs fullFS) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, c)
	return fs.wrap(name, f, err)
}

func (fs fullFS) OpenReadWrite(name string, c vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	f, err := fs.FS.OpenReadWrite(name, c, opts...)
	return fs.wrap(name, f, err)
}

func (fs fullFS) ReuseForWrite(oldname, newname string, c vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname, c)
	return fs.wrap(newname, f, err)
}

type fullFile struct {
	vfs.File
	fs fullFS
}

func (f fullFile) Write(p []byte) (int, error) {
	if !f.fs.full.Load() || len(p) == 0 {
		return f.File.Write(p)
	}
	f.fs.failures.Add(1)
	n := 0
	if f.fs.partial {
		n, _ = f.File.Write(p[:len(p)/2])
	}
	return n, &os.PathError{Op: "write", Path: "file", Err: syscall.ENOSPC}
}

func (f fullFile) WriteAt(p []byte, off int64) (int, error) {
	if !f.fs.full.Load() || len(p) == 0 {
		return f.File.WriteAt(p, off)
	}
	f.fs.failures.Add(1)
	n := 0
	if f.fs.partial {
		n, _ = f.File.WriteAt(p[:len(p)/2], off)
	}
	return n, &os.PathError{Op: "write", Path: "file", Err: syscall.ENOSPC}
}

// checkQuiet checks that the abandoned open does not go on trying to
// write: Pebble alone retries a failed flush in a tight loop.
func checkQuiet(t *testing.T, fs fullFS) {
	t.Helper()
	before := fs.failures.Load()
	time.Sleep(200 * time.Millisecond)
	if after := fs.failures.Load(); after != before {
		t.Fatalf("%d more writes were tried after the open failed", after-before)
	}
}

// TestStartOnFullDisk (no mount needed): a new store and an existing one
// whose WAL must be flushed at open, on a disk where every write fails
// with ENOSPC. OpenStore returns one error naming the directory (Pebble
// alone panics creating a store and retries the flush without end), and
// once space returns the store opens with everything in it; the new one
// is simply new, not damaged.
func TestStartOnFullDisk(t *testing.T) {
	var full atomic.Bool
	var failures atomic.Int64
	fs := fullFS{FS: vfs.Default, full: &full, failures: &failures}

	t.Run("new store", func(t *testing.T) {
		dir := t.TempDir()
		full.Store(true)
		_, err := openBounded(t, StoreOptions{DataDir: dir, ForceSync: true, FS: fs})
		checkNoSpace(t, err, dir)
		full.Store(false)
		s, err := openBounded(t, StoreOptions{DataDir: dir, ForceSync: true, FS: fs})
		if err != nil {
			t.Fatalf("once space returns: %v", err)
		}
		if err := s.Log().Append(entriesFor(1)); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("existing store", func(t *testing.T) {
		dir := t.TempDir()
		writeWALOnlyStore(t, StoreOptions{DataDir: dir, ForceSync: true, FS: fs})
		full.Store(true)
		_, err := openBounded(t, StoreOptions{DataDir: dir, ForceSync: true, FS: fs})
		checkNoSpace(t, err, dir)
		checkQuiet(t, fs)
		full.Store(false)
		s, err := openBounded(t, StoreOptions{DataDir: dir, ForceSync: true, FS: fs})
		if err != nil {
			t.Fatalf("once space returns: %v", err)
		}
		checkReplayed(t, replayAll(t, s.Log(), 0), zxidRange(1, 100))
	})
	// The disk fills in the middle of the first MANIFEST's first write:
	// a store directory with part of a MANIFEST and no marker would be
	// damaged; created aside, it is simply not there yet.
	t.Run("new store, disk full inside the MANIFEST", func(t *testing.T) {
		dir := t.TempDir()
		full.Store(true)
		inManifest := fullFS{FS: vfs.Default, full: &full, failures: &failures, only: "MANIFEST-000001", partial: true}
		_, err := openBounded(t, StoreOptions{DataDir: dir, ForceSync: true, FS: inManifest})
		checkNoSpace(t, err, dir)
		full.Store(false)
		s, err := openBounded(t, StoreOptions{DataDir: dir, ForceSync: true, FS: inManifest})
		if err != nil {
			t.Fatalf("once space returns: %v", err)
		}
		if err := s.Log().Append(entriesFor(1)); err != nil {
			t.Fatal(err)
		}
	})
	// The flush of the old WAL fits, the first record of the new one
	// does not: Pebble's commit fails, which it reports as fatal.
	t.Run("existing store, only its WAL full", func(t *testing.T) {
		dir := t.TempDir()
		writeWALOnlyStore(t, StoreOptions{DataDir: dir, ForceSync: true, FS: fs})
		full.Store(true)
		walFull := fullFS{FS: vfs.Default, full: &full, failures: &failures, only: ".log"}
		_, err := openBounded(t, StoreOptions{DataDir: dir, ForceSync: true, FS: walFull})
		checkNoSpace(t, err, dir)
		full.Store(false)
		s, err := openBounded(t, StoreOptions{DataDir: dir, ForceSync: true, FS: walFull})
		if err != nil {
			t.Fatalf("once space returns: %v", err)
		}
		checkReplayed(t, replayAll(t, s.Log(), 0), zxidRange(1, 100))
	})
}

// TestStoreLeftByAFailedCreationIsNew: a store directory holding only the
// lock and an empty first MANIFEST (what Pebble leaves when it cannot
// write that MANIFEST, as gozk did on a full disk before creating stores
// aside) is new, not damaged; a MANIFEST with content still means a store
// that lost its marker (TestOpenRefusesAStoreThatLostItsManifest).
func TestStoreLeftByAFailedCreationIsNew(t *testing.T) {
	dir := t.TempDir()
	for _, sub := range []string{StoreDirName, SnapshotDirName} {
		p := filepath.Join(dir, sub)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"LOCK", "MANIFEST-000001"} {
			if err := os.WriteFile(filepath.Join(p, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	ro, err := OpenStore(StoreOptions{DataDir: dir, ReadOnly: true})
	if !errors.Is(err, ErrNoStore) {
		if err == nil {
			ro.Close()
		}
		t.Fatalf("read-only OpenStore = %v, want ErrNoStore", err)
	}
	s := openTestStore(t, StoreOptions{DataDir: dir, ForceSync: true})
	if err := s.Log().Append(entriesFor(1, 2)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openTestStore(t, StoreOptions{DataDir: dir, ForceSync: true})
	checkReplayed(t, replayAll(t, s.Log(), 0), []int64{1, 2})
}
