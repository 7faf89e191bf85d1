package persistence

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gozk/gozk/proto"
)

// residentPages counts the pages of the file at path that are in the page
// cache, and its pages in all.
func residentPages(t *testing.T, path string) (resident, total int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() == 0 {
		return 0, 0
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	page := os.Getpagesize()
	vec := make([]byte, (len(m)+page-1)/page)
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		t.Fatal(errno)
	}
	for _, v := range vec {
		if v&1 != 0 {
			resident++
		}
	}
	return resident, len(vec)
}

// tables lists the snapshot store's table files of over 64 KiB: the
// snapshots', not the small ones of its memtable (epochs).
func tables(t *testing.T, s *Store) map[string]bool {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(s.snapDir, "*.sst"))
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]bool)
	for _, n := range names {
		if st, err := os.Stat(n); err == nil && st.Size() > 64<<10 {
			out[n] = true
		}
	}
	return out
}

// TestOlderSnapshotLeavesPageCache: once a snapshot is durable, the one
// before it is dropped from the page cache and the new one stays there.
func TestOlderSnapshotLeavesPageCache(t *testing.T) {
	dir := t.TempDir()
	// Some file systems (tmpfs) keep pages whatever fadvise says.
	probe := filepath.Join(dir, "probe")
	if err := os.WriteFile(probe, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(probe)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	_ = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
	f.Close()
	if r, _ := residentPages(t, probe); r != 0 {
		t.Skipf("the file system under %s keeps dropped pages cached", dir)
	}

	s := openTestStore(t, StoreOptions{DataDir: dir + "/data", DataLogDir: dir + "/log"})
	ts := makeTestSnapshot(2)
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 20000 {
		data := make([]byte, 100) // random: stored as is, a few MB
		for j := range data {
			data[j] = byte(rng.Uint32())
		}
		ts.paths = append(ts.paths, fmt.Sprintf("/r%06d", i))
		ts.nodes = append(ts.nodes, proto.DataNode{Data: data, Acl: -1})
	}
	ts.write(t, s, 0x10, nil)
	first := tables(t, s)
	ts.write(t, s, 0x20, nil)
	var second []string
	for n := range tables(t, s) {
		if !first[n] {
			second = append(second, n)
		}
	}
	if len(first) == 0 || len(second) == 0 {
		t.Fatalf("tables of the first snapshot %v, of the second %v", first, second)
	}
	for n := range first {
		if r, all := residentPages(t, n); r != 0 {
			t.Errorf("older snapshot %s: %d of %d pages still cached", filepath.Base(n), r, all)
		}
	}
	for _, n := range second {
		if r, all := residentPages(t, n); r < all/2 {
			t.Errorf("newest snapshot %s: only %d of %d pages cached", filepath.Base(n), r, all)
		}
	}
	// The older snapshot still reads, from the disk.
	got, _, err := readTestSnapshot(s, 0x10)
	if err != nil || len(got.nodes) != len(ts.nodes) {
		t.Fatalf("older snapshot read back: %d nodes, %v", len(got.nodes), err)
	}
}
