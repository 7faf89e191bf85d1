package persistence

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// crashCopy copies the stores of the open Store s into a new directory as
// a crash would leave them (the WAL as written, nothing flushed at
// close) and returns that dataDir.
func crashCopy(t *testing.T, s *Store, dataDir string) string {
	t.Helper()
	crashed := t.TempDir()
	for _, sub := range []string{StoreDirName, SnapshotDirName} {
		src, dst := filepath.Join(dataDir, sub), filepath.Join(crashed, sub)
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		names, err := os.ReadDir(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range names {
			if e.Name() == "LOCK" {
				continue
			}
			b, err := os.ReadFile(filepath.Join(src, e.Name()))
			if errors.Is(err, fs.ErrNotExist) {
				// The open store removed an obsolete file (an older
				// OPTIONS, a WAL it recycled) after the listing: a crash
				// at this instant leaves it gone as well.
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return crashed
}

// liveWALFile returns the path of the newest WAL of the txn log under
// dataDir, its bytes, and what scanWAL reads in it.
func liveWALFile(t *testing.T, dataDir string) (string, []byte, walScan) {
	t.Helper()
	storeDir := filepath.Join(dataDir, StoreDirName)
	names, err := os.ReadDir(storeDir)
	if err != nil {
		t.Fatal(err)
	}
	var newest uint64
	var path string
	for _, e := range names {
		if n, ok := walNumber(e.Name()); ok && n > newest {
			newest, path = n, filepath.Join(storeDir, e.Name())
		}
	}
	if newest == 0 {
		t.Fatalf("no WAL in %s", storeDir)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b, scanWAL(b, uint32(newest))
}

// walDamageCase writes ten batches of ten txns into a new store, one WAL
// record each, leaves it as a crash does (a copy of the open store) or as
// a clean stop does (closed), lets damage edit the newest WAL, whose last
// txn record spans rec, and opens the store again.
func walDamageCase(t *testing.T, closeFirst bool, damage func(wal []byte, rec [2]int) []byte) (string, *Store, error) {
	t.Helper()
	dir := t.TempDir()
	s, err := OpenStore(StoreOptions{DataDir: dir, ForceSync: true})
	if err != nil {
		t.Fatal(err)
	}
	for first := int64(1); first <= 100; first += 10 {
		if err := s.Log().Append(entriesFor(zxidRange(first, first+9)...)); err != nil {
			t.Fatal(err)
		}
	}
	crashed := dir
	if closeFirst {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	} else {
		crashed = crashCopy(t, s, dir)
		defer s.Close()
	}
	path, wal, scan := liveWALFile(t, crashed)
	if scan.lastTxn != 100 || scan.stop != "" {
		t.Fatalf("before the damage, %s reads to txn 0x%x (%+v), want 0x64", path, scan.lastTxn, scan)
	}
	if rec := scan.lastTxnRecord; rec[1]-rec[0] < 2*walSector {
		t.Fatalf("the last batch takes %d bytes of the WAL; the torn-write cases need it to span sectors", rec[1]-rec[0])
	}
	if err := os.WriteFile(path, damage(wal, scan.lastTxnRecord), 0o644); err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	logger := zerolog.New(&logged)
	got, err := OpenStore(StoreOptions{DataDir: crashed, ForceSync: true, Logger: &logger})
	if err == nil {
		t.Cleanup(func() { got.Close() })
	}
	lastLog = logged.String()
	return path, got, err
}

// lastLog is what the last open of walDamageCase logged.
var lastLog string

// TestDamagedWALStopsOpen: every way of losing a record that was complete
// in the newest WAL stops OpenStore (and so the server and `gozk data
// verify`) with an error naming the WAL file and the offset, whether the
// server crashed or stopped cleanly. Pebble alone replays each of these
// up to the damage and opens a store without the lost txns.
func TestDamagedWALStopsOpen(t *testing.T) {
	type walCase struct {
		name   string
		damage func(wal []byte, rec [2]int) []byte
		// at is the offset the error must name (-1: not checked).
		at func(rec [2]int) int64
	}
	recStart := func(rec [2]int) int64 { return int64(rec[0]) }
	cases := []walCase{
		{"flipped byte in the last record", func(wal []byte, rec [2]int) []byte {
			wal[(rec[0]+rec[1])/2] ^= 0xff
			return wal
		}, recStart},
		{"flipped bit in the last record's length", func(wal []byte, rec [2]int) []byte {
			wal[rec[0]+4] ^= 0x01
			return wal
		}, recStart},
		{"flipped byte in a middle record", func(wal []byte, rec [2]int) []byte {
			wal[rec[0]/2] ^= 0x5a
			return wal
		}, nil},
		{"WAL truncated to zero", func([]byte, [2]int) []byte {
			return nil
		}, func([2]int) int64 { return 0 }},
		{"WAL zero-filled", func(wal []byte, _ [2]int) []byte {
			return make([]byte, len(wal))
		}, func([2]int) int64 { return 0 }},
	}
	// After a clean stop even zeros over the last batch are damage: the
	// record Close ends the WAL with proves the batch was synced. After
	// a crash they are a torn write (TestTornWALTailIsDropped).
	zeroed := walCase{"last record zero-filled", func(wal []byte, rec [2]int) []byte {
		clear(wal[rec[0]:rec[1]])
		return wal
	}, recStart}
	for _, closeFirst := range []bool{false, true} {
		all := cases
		how := " after a crash"
		if closeFirst {
			all, how = append(cases, zeroed), " after a clean stop"
		}
		for _, tc := range all {
			t.Run(tc.name+how, func(t *testing.T) {
				var want int64 = -1
				path, _, err := walDamageCase(t, closeFirst, func(wal []byte, rec [2]int) []byte {
					if tc.at != nil {
						want = tc.at(rec)
					}
					return tc.damage(wal, rec)
				})
				var ce *CorruptionError
				if !errors.Is(err, ErrCorrupt) || !errors.As(err, &ce) || ce.File != path {
					t.Fatalf("OpenStore = %v, want a CorruptionError naming %s", err, path)
				}
				if want >= 0 && ce.Offset != want {
					t.Errorf("error names offset %d, want %d: %v", ce.Offset, want, err)
				}
				if !strings.Contains(err.Error(), path) {
					t.Errorf("the message does not name %s: %v", path, err)
				}
				t.Log(err)
			})
		}
	}
}

// TestTornWALTailIsDropped: what a crash in the middle of writing the
// last batch leaves (sectors of it never written, so zeros from a sector
// boundary on, or a file that ends inside it) opens, with every txn
// before that batch and none of it.
func TestTornWALTailIsDropped(t *testing.T) {
	for _, tc := range []struct {
		name string
		tear func(wal []byte, rec [2]int) []byte
	}{
		{"sectors after the first lost", func(wal []byte, rec [2]int) []byte {
			clear(wal[(rec[0]/walSector+1)*walSector : rec[1]])
			return wal
		}},
		{"last sector lost", func(wal []byte, rec [2]int) []byte {
			clear(wal[(rec[1]-1)/walSector*walSector : rec[1]])
			return wal
		}},
		{"whole batch lost", func(wal []byte, rec [2]int) []byte {
			clear(wal[rec[0]:rec[1]])
			return wal
		}},
		{"file ends inside the batch", func(wal []byte, rec [2]int) []byte {
			return wal[:(rec[0]+rec[1])/2]
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, s, err := walDamageCase(t, false, tc.tear)
			if err != nil {
				t.Fatalf("OpenStore after a torn write: %v", err)
			}
			checkReplayed(t, replayAll(t, s.Log(), 0), zxidRange(1, 90))
			if tc.name != "whole batch lost" && (!strings.Contains(lastLog, `"level":"warn"`) || !strings.Contains(lastLog, "cut short by a crash") || !strings.Contains(lastLog, path)) {
				t.Errorf("the torn tail of %s was dropped without a warning naming it; logged:\n%s", path, lastLog)
			}
		})
	}
}

// TestZeroFilledWALWithoutRecordOfIt: a TxnLog opened on its own (no
// snapshot store recording which WAL must hold records) still refuses a
// WAL that was zero-filled: Pebble writes to a WAL before it sizes it.
func TestZeroFilledWALWithoutRecordOfIt(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(DefaultOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	for first := int64(1); first <= 30; first += 10 {
		if err := l.Append(entriesFor(zxidRange(first, first+9)...)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	path, wal, _ := liveWALFile(t, dir)
	if err := os.WriteFile(path, make([]byte, len(wal)), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err = Open(DefaultOptions(dir))
	var ce *CorruptionError
	if !errors.As(err, &ce) || ce.File != path {
		if err == nil {
			t.Errorf("Open succeeded with LastZxid 0x%x", l.LastZxid())
			l.Close()
		}
		t.Fatalf("Open of a zero-filled WAL = %v, want a CorruptionError naming %s", err, path)
	}
}
