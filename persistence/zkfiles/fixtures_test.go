package zkfiles

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gozk/gozk/proto"
)

// The fixtures under testdata/java-3.8.0 were written by Apache ZooKeeper
// 3.8.0 itself (compat/datadir's TestGenerateFixtures): one data directory
// per snapshot compression, each with snapshot.0, log.1, the snapshot a
// restart took and a log after it.
const fixtureRoot = "testdata/java-3.8.0"

var fixtureCases = []string{"plain", "gz", "snappy"}

// streamOrder records a snapshot's contents in stream order, to write it
// back.
type streamOrder struct {
	sessions []proto.SnapshotSession
	acls     []proto.ACLCacheEntry
	nodes    []Node
}

func (s *streamOrder) handler() SnapshotHandler {
	return SnapshotHandler{
		Session: func(id int64, to int32) error {
			s.sessions = append(s.sessions, proto.SnapshotSession{Id: id, Timeout: to})
			return nil
		},
		ACL:  func(e proto.ACLCacheEntry) error { s.acls = append(s.acls, e); return nil },
		Node: func(n *Node) error { s.nodes = append(s.nodes, *n); return nil },
	}
}

func uncompressed(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := Decompress(f, CompressionOf(path))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestJavaSnapshotsReadAndRewrite decodes every snapshot Java wrote,
// checks its seals and digest section, and writes the same contents back
// in the same order: the uncompressed stream must be byte-identical to
// Java's.
func TestJavaSnapshotsReadAndRewrite(t *testing.T) {
	for _, fc := range fixtureCases {
		snaps, err := ListSnapshots(VersionPath(filepath.Join(fixtureRoot, fc)))
		if err != nil || len(snaps) != 2 {
			t.Fatalf("%s: snapshots %v, %v", fc, snaps, err)
		}
		for _, sf := range snaps {
			t.Run(fc+"/"+filepath.Base(sf.Path), func(t *testing.T) {
				if ok, err := IsValidSnapshot(sf.Path); !ok || err != nil {
					t.Fatalf("not a valid snapshot: %v", err)
				}
				var so streamOrder
				info, err := ReadSnapshotFile(sf.Path, 0, so.handler())
				if err != nil {
					t.Fatal(err)
				}
				if !info.HasDigest || info.Digest.DigestVersion != 2 {
					t.Fatalf("3.8.0 writes a digest section: %+v", info)
				}
				if info.Nodes < 4 || so.nodes[0].Path != "" {
					t.Fatalf("nodes %d, first %q", info.Nodes, so.nodes[0].Path)
				}
				var buf bytes.Buffer
				sw := NewSnapshotWriter(&buf, Checked)
				sw.Sessions(so.sessions)
				sw.ACLs(so.acls)
				for i := range so.nodes {
					n := &so.nodes[i]
					if err := sw.Node(n.Path, n.Data, n.ACLID, &n.Stat); err != nil {
						t.Fatal(err)
					}
				}
				d := info.Digest
				if err := sw.Finish(&d); err != nil {
					t.Fatal(err)
				}
				if want := uncompressed(t, sf.Path); !bytes.Equal(buf.Bytes(), want) {
					t.Fatalf("rewritten stream differs from Java's (%d vs %d bytes)", buf.Len(), len(want))
				}
			})
		}
	}
}

// TestJavaLogsReadAndRewrite reads every log Java wrote to its zero tail
// and writes the records back with the same preallocation (8 KiB, as the
// fixtures were made): the file must be byte-identical.
func TestJavaLogsReadAndRewrite(t *testing.T) {
	for _, fc := range fixtureCases {
		logs, err := ListLogs(VersionPath(filepath.Join(fixtureRoot, fc)))
		if err != nil || len(logs) != 2 {
			t.Fatalf("%s: logs %v, %v", fc, logs, err)
		}
		for _, lf := range logs {
			t.Run(fc+"/"+filepath.Base(lf.Path), func(t *testing.T) {
				var recs [][]byte
				lr, err := ReadLogFile(lf.Path, 0, func(r Record) error {
					if _, err := proto.DecodeTxn(r.Data, 0); err != nil {
						t.Fatalf("txn at %d: %v", r.Offset, err)
					}
					recs = append(recs, r.Data)
					return nil
				})
				if err != nil || lr.End != EndZero || len(recs) == 0 {
					t.Fatalf("%d records, end %v, %v", len(recs), lr.End, err)
				}
				out := filepath.Join(t.TempDir(), filepath.Base(lf.Path))
				lw, err := CreateLogFile(out, 8<<10)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range recs {
					lw.Append(r)
				}
				if err := lw.Close(); err != nil {
					t.Fatal(err)
				}
				got, _ := os.ReadFile(out)
				want, _ := os.ReadFile(lf.Path)
				if !bytes.Equal(got, want) {
					t.Fatalf("rewritten log differs from Java's (%d vs %d bytes)", len(got), len(want))
				}
			})
		}
	}
}

// TestJavaRestore picks the restart's snapshot and replays the later log.
func TestJavaRestore(t *testing.T) {
	for _, fc := range fixtureCases {
		dir := VersionPath(filepath.Join(fixtureRoot, fc))
		var txns []int64
		res, err := Restore(dir, dir, RestoreOptions{}, RestoreHandler{
			Snapshot: func(File) SnapshotHandler { return SnapshotHandler{} },
			Txn:      func(_ string, r Record) error { txns = append(txns, r.Zxid()); return nil },
		})
		if err != nil {
			t.Fatalf("%s: %v", fc, err)
		}
		snaps, _ := ListSnapshots(dir)
		if res.Snapshot.Zxid != snaps[0].Zxid || res.Snapshot.Zxid == 0 || len(txns) == 0 || txns[0] != res.Snapshot.Zxid+1 || res.LastZxid != txns[len(txns)-1] {
			t.Fatalf("%s: restore %+v, txns %#x", fc, res, txns)
		}
	}
}
