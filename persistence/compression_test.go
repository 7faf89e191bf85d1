package persistence

import (
	"context"
	"reflect"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
)

// tableCompressions counts db's tables by the compression their
// properties name.
func tableCompressions(t *testing.T, db *pebble.DB) map[string]int {
	t.Helper()
	levels, err := db.SSTables(pebble.WithProperties())
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]int)
	for _, level := range levels {
		for _, tbl := range level {
			out[tbl.Properties.CompressionName]++
		}
	}
	return out
}

// TestSnappyStoreStillReads: stores written while gozk compressed its
// tables with snappy open and read as before, take uncompressed tables
// beside the old ones, and read across both, in the txn log (flushed and
// compacted) and in the snapshot store.
func TestSnappyStoreStillReads(t *testing.T) {
	dir := t.TempDir()
	blockCompression = pebble.UniformDBCompressionSettings(sstable.SnappyCompression)
	t.Cleanup(func() { blockCompression = pebble.DBCompressionNone })
	old := makeTestSnapshot(3000)

	s, err := OpenStore(StoreOptions{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Log().Append(entriesFor(zxidRange(1, 2000)...)); err != nil {
		t.Fatal(err)
	}
	if err := s.log.db.Flush(); err != nil {
		t.Fatal(err)
	}
	old.write(t, s, 2000, nil)
	for name, db := range map[string]*pebble.DB{"txn log": s.log.db, "snapshot store": s.snaps} {
		if c := tableCompressions(t, db); c["Snappy"] == 0 {
			t.Fatalf("%s written with snappy has tables %v", name, c)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	blockCompression = pebble.DBCompressionNone
	s = openTestStore(t, StoreOptions{DataDir: dir})
	checkReplayed(t, replayAll(t, s.Log(), 0), zxidRange(1, 2000))
	if err := s.Log().Append(entriesFor(zxidRange(2001, 4000)...)); err != nil {
		t.Fatal(err)
	}
	if err := s.log.db.Flush(); err != nil {
		t.Fatal(err)
	}
	recent := makeTestSnapshot(4000)
	recent.write(t, s, 4000, nil)
	for name, db := range map[string]*pebble.DB{"txn log": s.log.db, "snapshot store": s.snaps} {
		if c := tableCompressions(t, db); c["Snappy"] == 0 || c["NoCompression"] == 0 {
			t.Fatalf("%s has tables %v, want old snappy ones and new uncompressed ones", name, c)
		}
	}
	checkReplayed(t, replayAll(t, s.Log(), 0), zxidRange(1, 4000))
	for zxid, want := range map[int64]*testSnapshot{2000: old, 4000: recent} {
		got, info, err := readTestSnapshot(s, zxid)
		if err != nil {
			t.Fatalf("snapshot 0x%x: %v", zxid, err)
		}
		if info.Nodes != int64(len(want.nodes)) {
			t.Fatalf("snapshot 0x%x: %d nodes, want %d", zxid, info.Nodes, len(want.nodes))
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("snapshot 0x%x read back differs from what was written", zxid)
		}
	}
	// A compaction reads the snappy tables and rewrites them.
	if err := s.log.db.Compact(context.Background(), []byte{0}, []byte{0xff}, false); err != nil {
		t.Fatal(err)
	}
	if c := tableCompressions(t, s.log.db); c["Snappy"] != 0 {
		t.Fatalf("txn log after a full compaction has tables %v", c)
	}
	checkReplayed(t, replayAll(t, s.Log(), 0), zxidRange(1, 4000))
}
