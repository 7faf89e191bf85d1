package persistence

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/rs/zerolog"
)

// damageStore opens the closed store in dir with Pebble directly and lets
// edit change it, as a bug or a stray tool would.
func damageStore(t *testing.T, dir string, edit func(db *pebble.DB)) {
	t.Helper()
	db, err := pebble.Open(filepath.Join(dir, StoreDirName), quietPebble())
	if err != nil {
		t.Fatal(err)
	}
	edit(db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

func quietPebble() *pebble.Options {
	return &pebble.Options{Logger: pebbleLogger{zerolog.Nop()}}
}

func storedValue(t *testing.T, db *pebble.DB, zxid int64) []byte {
	t.Helper()
	v, closer, err := db.Get(txnKey(zxid))
	if err != nil {
		t.Fatalf("reading txn 0x%x: %v", zxid, err)
	}
	defer closer.Close()
	return bytes.Clone(v)
}

func put(t *testing.T, db *pebble.DB, key, value []byte) {
	t.Helper()
	if err := db.Set(key, value, pebble.Sync); err != nil {
		t.Fatal(err)
	}
}

func TestReplayNamesTheDamagedZxid(t *testing.T) {
	const damaged = epoch1 + 3
	for _, tc := range []struct {
		name   string
		edit   func(t *testing.T, db *pebble.DB)
		reason string
	}{
		{"flipped byte in the txn", func(t *testing.T, db *pebble.DB) {
			v := storedValue(t, db, damaged)
			v[checksumLen+40] ^= 0x01
			put(t, db, txnKey(damaged), v)
		}, "checksum mismatch"},
		{"flipped byte in the checksum", func(t *testing.T, db *pebble.DB) {
			v := storedValue(t, db, damaged)
			v[0] ^= 0x80
			put(t, db, txnKey(damaged), v)
		}, "checksum mismatch"},
		{"intact txn stored under another zxid", func(t *testing.T, db *pebble.DB) {
			put(t, db, txnKey(damaged), storedValue(t, db, damaged+1))
		}, "TxnHeader carries zxid"},
		{"truncated value", func(t *testing.T, db *pebble.DB) {
			put(t, db, txnKey(damaged), storedValue(t, db, damaged)[:20])
		}, "too short"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			l, err := Open(Options{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			zxids := zxidRange(epoch1+1, epoch1+6)
			if err := l.Append(entriesFor(zxids...)); err != nil {
				t.Fatal(err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			damageStore(t, dir, func(db *pebble.DB) { tc.edit(t, db) })

			l = openTest(t, Options{Dir: dir})
			var seen []int64
			err = l.Replay(0, func(zxid int64, _ []byte) error {
				seen = append(seen, zxid)
				return nil
			})
			var ce *CorruptionError
			if !errors.As(err, &ce) || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Replay = %v, want a CorruptionError", err)
			}
			if ce.Zxid != damaged || !strings.Contains(err.Error(), "0x100000003") || !strings.Contains(ce.Reason, tc.reason) {
				t.Fatalf("Replay error %q names zxid 0x%x, want 0x%x and %q", err, ce.Zxid, int64(damaged), tc.reason)
			}
			if len(seen) != 2 {
				t.Fatalf("callback ran for %x before the damage, want the two txns before it", seen)
			}

			// Verify reports the damaged txn and goes on past it.
			var reported []int64
			n, err := l.Verify(func(ce *CorruptionError) { reported = append(reported, ce.Zxid) })
			if err != nil || n != len(zxids) || len(reported) != 1 || reported[0] != damaged {
				t.Fatalf("Verify = %d, %v, reported %x; want %d txns read, 0x%x reported", n, err, reported, len(zxids), int64(damaged))
			}
		})
	}
}

func TestOpenRefusesAStoreThatLostItsManifest(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(entriesFor(1, 2, 3)); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	markers, _ := filepath.Glob(filepath.Join(dir, StoreDirName, "marker.manifest.*"))
	if len(markers) == 0 {
		t.Fatal("no manifest marker found to remove")
	}
	for _, m := range markers {
		if err := os.Remove(m); err != nil {
			t.Fatal(err)
		}
	}
	if l, err := Open(Options{Dir: dir}); !errors.Is(err, ErrCorrupt) {
		if err == nil {
			l.Close()
		}
		t.Fatalf("Open of a store without its manifest marker = %v, want ErrCorrupt", err)
	}
}

func TestOpenChecksTheFormatRecord(t *testing.T) {
	newStore := func(t *testing.T) string {
		dir := t.TempDir()
		l, err := Open(Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Append(entriesFor(1)); err != nil {
			t.Fatal(err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	t.Run("missing", func(t *testing.T) {
		dir := newStore(t)
		damageStore(t, dir, func(db *pebble.DB) {
			if err := db.Delete(formatKey, pebble.Sync); err != nil {
				t.Fatal(err)
			}
		})
		if _, err := Open(Options{Dir: dir}); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "no format record") {
			t.Fatalf("Open = %v, want ErrCorrupt naming the format record", err)
		}
	})
	t.Run("unknown version", func(t *testing.T) {
		dir := newStore(t)
		damageStore(t, dir, func(db *pebble.DB) {
			put(t, db, formatKey, binary.BigEndian.AppendUint32(nil, 99))
		})
		if _, err := Open(Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "format 99") {
			t.Fatalf("Open = %v, want an error naming format 99", err)
		}
	})
	t.Run("empty store without record is new", func(t *testing.T) {
		// A crash while Open created the store leaves it empty and
		// without a record: that is a fresh store, not damage.
		dir := t.TempDir()
		db, err := pebble.Open(filepath.Join(dir, StoreDirName), quietPebble())
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		l := openTest(t, Options{Dir: dir})
		if err := l.Append(entriesFor(1)); err != nil {
			t.Fatal(err)
		}
	})
}

// Damage on disk, below Pebble, is caught by Pebble's block checksums; the
// error still says where the readable log ends.
func TestReplayReportsDamagedTableFile(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(entriesFor(zxidRange(1, 2000)...)); err != nil {
		t.Fatal(err)
	}
	if err := l.db.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	// The txns are in the largest table; the format record has its own.
	tables, _ := filepath.Glob(filepath.Join(dir, StoreDirName, "*.sst"))
	var table string
	var raw []byte
	for _, name := range tables {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > len(raw) {
			table, raw = name, b
		}
	}
	if len(raw) < 8<<10 {
		t.Fatalf("no table holds the txns: %v", tables)
	}
	raw[len(raw)/3] ^= 0xff // inside a data block, far from the footer
	if err := os.WriteFile(table, raw, 0o644); err != nil {
		t.Fatal(err)
	}

	l, err = Open(Options{Dir: dir})
	if err != nil {
		// Refusing to open is as good, provided it says why.
		if !errors.Is(err, ErrCorrupt) || !pebble.IsCorruptionError(err) {
			t.Fatalf("Open failed without naming the damage: %v", err)
		}
		return
	}
	defer l.Close()
	n := 0
	err = l.Replay(0, func(zxid int64, data []byte) error {
		n++
		return nil
	})
	if err == nil {
		t.Fatalf("Replay read %d txns from a damaged table without an error", n)
	}
	if !errors.Is(err, ErrCorrupt) || !pebble.IsCorruptionError(err) || !strings.Contains(err.Error(), fmt.Sprintf("after txn 0x%x", n)) {
		t.Fatalf("Replay = %v after %d txns, want ErrCorrupt, Pebble's corruption error and the last good zxid", err, n)
	}
	t.Logf("%d txns replayed before: %v", n, err)
}

// A byte flipped in the middle of the WAL, inside data that was synced, is
// damage and must stop Open, not silently cut the log at that point (Pebble
// tells the two apart by the sync offsets its WAL chunks carry, which the
// first WAL of a new store would lack; see checkFormat).
func TestOpenReportsDamagedWAL(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(DefaultOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for first := int64(1); first <= 1000; first += 10 {
		if err := l.Append(entriesFor(zxidRange(first, first+9)...)); err != nil {
			t.Fatal(err)
		}
	}
	// Copy the store as a crash would leave it: every txn only in the WAL.
	crashed := t.TempDir()
	src, dst := filepath.Join(dir, StoreDirName), filepath.Join(crashed, StoreDirName)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	names, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	var wal string
	var walRecords int
	for _, e := range names {
		if e.Name() == "LOCK" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		// A WAL's size is its preallocation: its records fill its
		// start, zeros the rest (see sizedWALFS).
		if n := recordBytes(b); strings.HasSuffix(e.Name(), ".log") && n > walRecords {
			wal, walRecords = filepath.Join(dst, e.Name()), n
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if walRecords < 100_000 {
		t.Fatalf("expected the txns in one WAL, the fullest is %s with %d bytes of records", wal, walRecords)
	}
	b, err := os.ReadFile(wal)
	if err != nil {
		t.Fatal(err)
	}
	b[walRecords/2] ^= 0xff
	if err := os.WriteFile(wal, b, 0o644); err != nil {
		t.Fatal(err)
	}

	if l, err := Open(Options{Dir: crashed}); !errors.Is(err, ErrCorrupt) {
		if err == nil {
			t.Errorf("Open of a store with a damaged WAL succeeded with LastZxid 0x%x", l.LastZxid())
			l.Close()
		}
		t.Fatalf("Open = %v, want ErrCorrupt", err)
	}
}

// recordBytes is how much of a WAL file its records take: everything up
// to its last byte that is not zero.
func recordBytes(wal []byte) int {
	for i := len(wal) - 1; i >= 0; i-- {
		if wal[i] != 0 {
			return i + 1
		}
	}
	return 0
}

// TestDamagedTableMessageIsOneLine: a checksum error in a table file is
// reported in one line (Pebble joins a detail carrier for its own logs to
// its corruption errors, which must not reach gozk's messages), and is
// still recognised as damage.
func TestDamagedTableMessageIsOneLine(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStore(StoreOptions{DataDir: dir, ForceSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	tables, _ := filepath.Glob(filepath.Join(dir, SnapshotDirName, "*.sst"))
	if len(tables) == 0 {
		t.Fatal("the snapshot store has no table file")
	}
	b, err := os.ReadFile(tables[0])
	if err != nil {
		t.Fatal(err)
	}
	b[10] ^= 0xff
	if err := os.WriteFile(tables[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = OpenStore(StoreOptions{DataDir: dir, ReadOnly: true})
	if !errors.Is(err, ErrCorrupt) || !pebble.IsCorruptionError(err) {
		t.Fatalf("OpenStore = %v, want Pebble's corruption as ErrCorrupt", err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("the message has more than one line:\n%s", err)
	}
}

// TestFatalHandler: Pebble's fatal errors go to the process's handler when
// one is set (gozk server logs and exits), else the goroutine panics.
func TestFatalHandler(t *testing.T) {
	type stopped struct{ msg string }
	call := func() (got any) {
		defer func() { got = recover() }()
		pebbleLogger{log: zerolog.Nop()}.Fatalf("MANIFEST %s: %v", "000007", "no space left on device")
		return nil
	}
	SetFatalHandler(func(msg string) { panic(stopped{msg}) })
	defer SetFatalHandler(nil)
	if got, ok := call().(stopped); !ok || got.msg != "pebble: MANIFEST 000007: no space left on device" {
		t.Fatalf("handler got %#v", got)
	}
	SetFatalHandler(nil)
	if got, ok := call().(string); !ok || !strings.Contains(got, "no space left on device") {
		t.Fatalf("without a handler: %#v", got)
	}
}
