package persistence

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// walSizes returns the size of every WAL file in the store at storeDir.
func walSizes(t *testing.T, storeDir string) map[string]int64 {
	t.Helper()
	names, err := os.ReadDir(storeDir)
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int64{}
	for _, e := range names {
		if !strings.HasSuffix(e.Name(), ".log") {
			continue
		}
		fi, err := os.Stat(filepath.Join(storeDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		sizes[e.Name()] = fi.Size()
	}
	return sizes
}

// TestWALPreallocationSetsSize: the txn log's WAL is as large as its
// preallocation while it holds a few hundred bytes, so an fdatasync has
// no size to commit, and a store reopened after that reads back every txn
// (the zeros after the last record are the WAL's end, not damage). Appends
// go on after the reopen.
func TestWALPreallocationSetsSize(t *testing.T) {
	if !canSizePreallocation {
		t.Skip("no fallocate on this platform: WALs keep Pebble's preallocation")
	}
	dir := t.TempDir()
	l, err := Open(DefaultOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	// Pebble preallocates ahead of a write that starts past the WAL's
	// first byte: the second batch's.
	first := zxidRange(epoch1+1, epoch1+3)
	for _, z := range [][]int64{first[:1], first[1:]} {
		if err := l.Append(entriesFor(z...)); err != nil {
			t.Fatal(err)
		}
	}
	sizes := walSizes(t, l.Dir())
	if len(sizes) == 0 {
		t.Fatalf("no WAL file in %s", l.Dir())
	}
	for name, size := range sizes {
		if size < memTableSize {
			t.Errorf("WAL %s is %d bytes holding 3 txns; want its preallocation (at least the memtable size, %d)", name, size, memTableSize)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	l = openTest(t, DefaultOptions(dir))
	more := zxidRange(epoch1+4, epoch1+6)
	if err := l.Append(entriesFor(more...)); err != nil {
		t.Fatal(err)
	}
	checkReplayed(t, replayAll(t, l, 0), append(first, more...))
}

// TestSizedWALOnlyForWALs: tables, manifests and files with no descriptor
// (the in-memory FS of the crash tests) keep Pebble's own preallocation.
func TestSizedWALOnlyForWALs(t *testing.T) {
	dir := t.TempDir()
	fs := sizedWALFS{vfs.Default}
	for _, c := range []struct {
		category vfs.DiskWriteCategory
		sized    bool
	}{
		{walWriteCategory, canSizePreallocation},
		{"pebble-manifest", false},
		{vfs.WriteCategoryUnspecified, false},
	} {
		f, err := fs.Create(filepath.Join(dir, string(c.category)+".file"), c.category)
		if err != nil {
			t.Fatal(err)
		}
		if _, sized := f.(sizedWALFile); sized != c.sized {
			t.Errorf("category %q: sized WAL file %v, want %v", c.category, sized, c.sized)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	mem := sizedWALFS{vfs.NewMem()}
	f, err := mem.Create("000001.log", walWriteCategory)
	if err != nil {
		t.Fatal(err)
	}
	if _, sized := f.(sizedWALFile); sized {
		t.Error("an in-memory WAL file was wrapped; it has no descriptor to fallocate")
	}
}

// TestWALFilesAreNotRecycled: a WAL file Pebble would recycle is replaced
// by a new one, so that what follows the records of a WAL is always zeros
// (checkWAL relies on it to tell a torn write from damage).
func TestWALFilesAreNotRecycled(t *testing.T) {
	dir := t.TempDir()
	old, recycled := filepath.Join(dir, "000001.log"), filepath.Join(dir, "000009.log")
	if err := os.WriteFile(old, []byte("records of an older log"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := sizedWALFS{vfs.Default}.ReuseForWrite(old, recycled, walWriteCategory)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the old WAL %s is still there: %v", old, err)
	}
	if b, err := os.ReadFile(recycled); err != nil || len(b) != 0 {
		t.Errorf("the new WAL holds %q (%v), want a new, empty file", b, err)
	}
}
