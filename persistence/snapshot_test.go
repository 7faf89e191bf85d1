package persistence

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/gozk/gozk/proto"
)

// testSnapshot is what a test writes into a snapshot and expects back.
type testSnapshot struct {
	sessions []proto.SnapshotSession
	acls     []proto.ACLCacheEntry
	paths    []string
	nodes    []proto.DataNode
}

func makeTestSnapshot(nodes int) *testSnapshot {
	ts := &testSnapshot{
		sessions: []proto.SnapshotSession{{Id: 0x100, Timeout: 4000}, {Id: 0x101, Timeout: 30000}},
		acls: []proto.ACLCacheEntry{
			{Id: 1, Acl: []proto.ACL{{Perms: 1, Id: proto.Id{Scheme: "world", Id: "anyone"}}}},
			{Id: 2, Acl: []proto.ACL{{Perms: 31, Id: proto.Id{Scheme: "digest", Id: "u:x"}}}},
		},
	}
	ts.paths = append(ts.paths, "")
	ts.nodes = append(ts.nodes, proto.DataNode{Data: []byte{}, Acl: -1})
	for i := 1; i < nodes; i++ {
		path := fmt.Sprintf("/n%07d", i)
		var data []byte
		if i%5 != 0 {
			data = []byte(fmt.Sprintf("data of node %d, padded to some length .........", i))
		}
		ts.paths = append(ts.paths, path)
		ts.nodes = append(ts.nodes, proto.DataNode{
			Data: data, Acl: []int64{-1, 1, 2}[i%3],
			Stat: proto.StatPersisted{Czxid: int64(i), Mzxid: int64(i), Pzxid: int64(i), Ctime: 17e11, Mtime: 17e11, Version: int32(i % 7)},
		})
	}
	return ts
}

func (ts *testSnapshot) write(t testing.TB, s *Store, zxid int64, digest *proto.ZxidDigest) SnapshotInfo {
	t.Helper()
	w, err := s.CreateSnapshot(zxid)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ts.nodes {
		if err := w.AddNode(ts.paths[i], &ts.nodes[i]); err != nil {
			t.Fatal(err)
		}
	}
	for i := range ts.acls {
		if err := w.AddACL(&ts.acls[i]); err != nil {
			t.Fatal(err)
		}
	}
	for _, sess := range ts.sessions {
		if err := w.AddSession(sess); err != nil {
			t.Fatal(err)
		}
	}
	info, err := w.Commit(digest)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func readTestSnapshot(s *Store, zxid int64) (*testSnapshot, SnapshotInfo, error) {
	got := &testSnapshot{}
	info, err := s.ReadSnapshot(zxid, SnapshotVisitor{
		Session: func(sess proto.SnapshotSession) error { got.sessions = append(got.sessions, sess); return nil },
		ACL:     func(e *proto.ACLCacheEntry) error { got.acls = append(got.acls, *e); return nil },
		Node: func(path string, n *proto.DataNode) error {
			got.paths = append(got.paths, path)
			got.nodes = append(got.nodes, *n)
			return nil
		},
	})
	return got, info, err
}

func openTestStore(t testing.TB, o StoreOptions) *Store {
	t.Helper()
	s, err := OpenStore(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil && !errors.Is(err, ErrClosed) {
			t.Error(err)
		}
	})
	return s
}

func TestSnapshotRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s := openTestStore(t, StoreOptions{DataDir: dir + "/data", DataLogDir: dir + "/log"})
	ts := makeTestSnapshot(5000)
	// Enough sessions and ACLs for several chunks of each.
	for i := 0; i < 20000; i++ {
		ts.sessions = append(ts.sessions, proto.SnapshotSession{Id: int64(0x200 + i), Timeout: int32(i)})
	}
	for i := 3; i < 3000; i++ {
		ts.acls = append(ts.acls, proto.ACLCacheEntry{Id: int64(i), Acl: []proto.ACL{{Perms: 1, Id: proto.Id{Scheme: "ip", Id: fmt.Sprintf("10.0.%d.%d", i/256, i%256)}}}})
	}
	digest := &proto.ZxidDigest{Zxid: 0x1234, DigestVersion: 2, Digest: 987654321}
	info := ts.write(t, s, 0x1200, digest)
	if info.Nodes != 5000 || info.ACLs != 2999 || info.Sessions != 20002 {
		t.Fatalf("info %+v", info)
	}
	got, rinfo, err := readTestSnapshot(s, 0x1200)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, ts) {
		t.Fatal("snapshot read back differs from what was written")
	}
	if !reflect.DeepEqual(rinfo.Digest, digest) || rinfo.Nodes != info.Nodes || rinfo.Bytes != info.Bytes {
		t.Fatalf("read info %+v, written %+v", rinfo, info)
	}
	if _, err := s.CreateSnapshot(0x1200); !errors.Is(err, ErrSnapshotExists) {
		t.Fatalf("second snapshot at the same zxid: %v", err)
	}
	ts.write(t, s, 0x1300, nil)
	ts.write(t, s, 0, nil)
	list, err := s.Snapshots()
	if err != nil {
		t.Fatal(err)
	}
	var zxids []int64
	for _, i := range list {
		zxids = append(zxids, i.Zxid)
	}
	if !reflect.DeepEqual(zxids, []int64{0x1300, 0x1200, 0}) {
		t.Fatalf("Snapshots lists %x", zxids)
	}
	if err := s.DeleteSnapshot(0x1200); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readTestSnapshot(s, 0x1200); !errors.Is(err, ErrNoSnapshot) {
		t.Fatalf("deleted snapshot: %v", err)
	}
}

func TestEpochs(t *testing.T) {
	dir := t.TempDir()
	s := openTestStore(t, StoreOptions{DataDir: dir})
	e, err := s.Epochs()
	if err != nil || e.HasAccepted || e.HasCurrent {
		t.Fatalf("fresh store epochs %+v, %v", e, err)
	}
	if err := s.SetAcceptedEpoch(5); err != nil {
		t.Fatal(err)
	}
	if err := s.SetCurrentEpoch(4); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openTestStore(t, StoreOptions{DataDir: dir, ReadOnly: true})
	e, err = s.Epochs()
	if err != nil || e != (Epochs{Accepted: 5, HasAccepted: true, Current: 4, HasCurrent: true}) {
		t.Fatalf("epochs after reopening %+v, %v", e, err)
	}
	if err := s.SetCurrentEpoch(6); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("read-only write: %v", err)
	}
}
