package persistence

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/gozk/gozk/proto"
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

// TestSnappyStoreStillReads: stores written while gozk compressed every
// block with snappy open and read as before, take tables of the current
// compression beside the old ones, and read across both, in the txn log (flushed and
// compacted) and in the snapshot store.
func TestSnappyStoreStillReads(t *testing.T) {
	dir := t.TempDir()
	current := blockCompression
	newName := current.Levels[0].Name
	blockCompression = pebble.UniformDBCompressionSettings(sstable.SnappyCompression)
	t.Cleanup(func() { blockCompression = current })
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

	blockCompression = current
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
		if c := tableCompressions(t, db); c["Snappy"] == 0 || c[newName] == 0 {
			t.Fatalf("%s has tables %v, want old snappy ones and new %s ones", name, c, newName)
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

// TestSnapshotCompressedWhereItPays: a snapshot whose chunks snappy
// cannot halve (random znode data) is stored uncompressed, one whose
// chunks it can (zeros) is stored compressed.
func TestSnapshotCompressedWhereItPays(t *testing.T) {
	s := openTestStore(t, StoreOptions{DataDir: t.TempDir()})
	rng := rand.New(rand.NewPCG(3, 4))
	for zxid, random := range map[int64]bool{1: true, 2: false} {
		w, err := s.CreateSnapshot(zxid)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 20000 {
			path := ""
			if i > 0 {
				path = fmt.Sprintf("/bench/s%d-%d", i%64, i/64)
			}
			data := make([]byte, 100)
			if random {
				for j := range data {
					data[j] = byte(rng.Uint32())
				}
			}
			n := proto.DataNode{Data: data, Acl: -1, Stat: proto.StatPersisted{Czxid: int64(i), Mzxid: int64(i), Pzxid: int64(i), Ctime: 17e11, Mtime: 17e11}}
			if err := w.AddNode(path, &n); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Commit(nil); err != nil {
			t.Fatal(err)
		}
	}
	infos, err := s.Snapshots()
	if err != nil {
		t.Fatal(err)
	}
	raw := make(map[int64]int64)
	for _, info := range infos {
		raw[info.Zxid] = info.Bytes
	}
	levels, err := s.snaps.SSTables()
	if err != nil {
		t.Fatal(err)
	}
	stored := make(map[int64]int64)
	for _, level := range levels {
		for _, tbl := range level {
			if k := tbl.Smallest.UserKey; len(k) >= snapshotPrefixLen && k[0] == snapshotPrefix {
				stored[int64(binary.BigEndian.Uint64(k[1:]))] += int64(tbl.Size)
			}
		}
	}
	if stored[1] < raw[1] {
		t.Errorf("random data: %d bytes of records stored in %d bytes, want them uncompressed", raw[1], stored[1])
	}
	if stored[2] > raw[2]/2 {
		t.Errorf("zeros: %d bytes of records stored in %d bytes, want them compressed", raw[2], stored[2])
	}
}
