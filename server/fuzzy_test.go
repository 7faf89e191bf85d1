package server

import (
	"bufio"
	"bytes"
	"testing"

	"github.com/gozk/gozk/proto"
)

// TestLeaderEndsFuzzyWindow: a member whose tree came from a snapshot
// without a digest (a learner's, taken within a SNAP's fuzzy window)
// treats it as fuzzy, so its start-up snapshot records no digest; once it
// leads, its tree is the one digests are computed from, and its
// snapshots record one again.
func TestLeaderEndsFuzzyWindow(t *testing.T) {
	ensemble := func(c *Config) { c.Ensemble = true; c.ServerID = 3 }
	src := startTestServer(t, t.TempDir(), ensemble)
	var stream bytes.Buffer
	if _, err := src.StartSnapStream().WriteTo(&stream); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := startTestServer(t, dir, ensemble)
	if err := s.LoadSnapStream(bufio.NewReader(&stream), 0x100000000); err != nil {
		t.Fatal(err)
	}
	if err := s.SnapshotAfterSync(); err != nil {
		t.Fatal(err)
	}
	create := proto.TxnEntry{
		Header: proto.TxnHeader{ClientId: 0x100, Cxid: 1, Zxid: 0x100000001, Time: 1, Type: int32(proto.OpCreate)},
		Body:   &proto.CreateTxn{Path: "/a", Data: []byte("v"), Acl: proto.OpenACLUnsafe, ParentCVersion: 1},
	}
	if err := s.LogTxn(0x100000001, create.Marshal()); err != nil {
		t.Fatal(err)
	}
	if err := s.StopServing(); err != nil { // reloads: replays /a
		t.Fatal(err)
	}
	s.Close()

	s = startTestServer(t, dir, ensemble)
	infos, err := s.Store().Snapshots()
	if err != nil || len(infos) == 0 || infos[0].Zxid != 0x100000001 || infos[0].Digest != nil {
		t.Fatalf("snapshots %+v, %v; want the start-up one at 0x100000001, without a digest", infos, err)
	}
	q := &quorumSink{s: s, rolled: make(chan struct{})}
	if err := s.StartLeading(Leading{Sink: q, Epoch: 2}); err != nil {
		t.Fatal(err)
	}
	info, err := s.TakeSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	if info.Digest == nil {
		t.Fatalf("the leader's snapshot at 0x%x recorded no digest", info.Zxid)
	}
}
