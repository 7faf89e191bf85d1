package persistence

import (
	"errors"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

// TestSnapshotDamageIsNamed damages one record of a snapshot in different
// ways and requires ReadSnapshot to fail with a CorruptionError naming the
// snapshot, the key and what is wrong, never to hand back a partial tree
// silently.
func TestSnapshotDamageIsNamed(t *testing.T) {
	const zxid = 0x500
	cases := []struct {
		name   string
		damage func(s *Store)
		want   string
	}{
		{"flipped byte in a node chunk", func(s *Store) {
			flipChunkByte(t, s, snapshotKey(zxid, kindNodes, 1))
		}, "nodes chunk 1: checksum mismatch"},
		{"missing node chunk", func(s *Store) {
			if err := s.snaps.Delete(snapshotKey(zxid, kindNodes, 2), pebble.Sync); err != nil {
				t.Fatal(err)
			}
		}, "nodes chunk 2 of"},
		{"missing ACL chunk", func(s *Store) {
			if err := s.snaps.Delete(snapshotKey(zxid, kindACLs, 0), pebble.Sync); err != nil {
				t.Fatal(err)
			}
		}, "ACLs chunk 0 of 1 is missing"},
		{"missing trailer", func(s *Store) {
			if err := s.snaps.Delete(snapshotKey(zxid, kindTrailer, 0), pebble.Sync); err != nil {
				t.Fatal(err)
			}
		}, "its trailer is missing"},
		{"extra chunk", func(s *Store) {
			v, closer, _ := s.snaps.Get(snapshotKey(zxid, kindSessions, 0))
			val := append([]byte(nil), v...)
			closer.Close()
			if err := s.snaps.Set(snapshotKey(zxid, kindSessions, 1), val, pebble.Sync); err != nil {
				t.Fatal(err)
			}
		}, "sessions chunk beyond the 1 the trailer counts"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s := openTestStore(t, StoreOptions{DataDir: dir})
			makeTestSnapshot(5000).write(t, s, zxid, nil)
			c.damage(s)
			_, _, err := readTestSnapshot(s, zxid)
			var ce *CorruptionError
			if !errors.As(err, &ce) || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("ReadSnapshot after damage: %v", err)
			}
			msg := err.Error()
			if !ce.InSnapshot || ce.Snapshot != zxid || !strings.Contains(msg, "snapshot 0x500") || !strings.Contains(msg, c.want) {
				t.Fatalf("error %q does not name the snapshot and %q", msg, c.want)
			}
			infos, err := s.Snapshots()
			if err != nil || len(infos) != 1 || infos[0].Zxid != zxid {
				t.Fatalf("Snapshots: %+v %v", infos, err)
			}
			if c.name == "missing trailer" && infos[0].Err == nil {
				t.Fatal("a snapshot without its trailer is listed as sound")
			}
			t.Log(msg)
		})
	}
}

// TestPurgeKeepsWhatRecoveryNeeds: Purge keeps the newest retain
// snapshots and every txn after the oldest kept one.
func TestPurgeKeepsWhatRecoveryNeeds(t *testing.T) {
	dir := t.TempDir()
	s := openTestStore(t, StoreOptions{DataDir: dir})
	ts := makeTestSnapshot(10)
	for z := int64(1); z <= 100; z++ {
		if err := s.Log().Append(entriesFor(z)); err != nil {
			t.Fatal(err)
		}
		if z%20 == 0 {
			ts.write(t, s, z, nil)
		}
	}
	res, err := s.Purge(1) // raised to 3
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Snapshots) != 2 || res.LogBefore != 61 || s.Log().PurgedBefore() != 61 {
		t.Fatalf("purge: %+v, purged before %d", res, s.Log().PurgedBefore())
	}
	first, _ := s.Log().FirstZxid()
	infos, _ := s.Snapshots()
	if first != 61 || len(infos) != 3 || infos[2].Zxid != 60 {
		t.Fatalf("after purge: first txn %d, snapshots %+v", first, infos)
	}
	s.Close()
	s = openTestStore(t, StoreOptions{DataDir: dir, ReadOnly: true})
	if s.Log().PurgedBefore() != 61 {
		t.Fatalf("PurgedBefore after reopening: %d", s.Log().PurgedBefore())
	}
}

// flipChunkByte flips a bit in the middle of the stored chunk at key, as
// a bad sector would.
func flipChunkByte(t *testing.T, s *Store, key []byte) {
	t.Helper()
	v, closer, err := s.snaps.Get(key)
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), v...)
	closer.Close()
	bad[len(bad)/2] ^= 0x40
	if err := s.snaps.Set(key, bad, pebble.Sync); err != nil {
		t.Fatal(err)
	}
}
