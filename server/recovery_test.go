package server

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/persistence"
	"github.com/gozk/gozk/proto"
)

// recoveryStore builds a store holding txns 1..100 (creates of /n1../n100)
// and snapshots at zxids 40 and 80, the one at 80 with digest wrongDigest
// when that is not 0.
func recoveryStore(t *testing.T, wrongDigest int64) (string, int64) {
	t.Helper()
	dir := t.TempDir()
	store, err := persistence.OpenStore(persistence.StoreOptions{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	opts := db.Options{DigestEnabled: true}
	tree := db.New(opts)
	for z := int64(1); z <= 100; z++ {
		txn := &proto.TxnEntry{
			Header: proto.TxnHeader{ClientId: 1, Zxid: z, Time: 1000 + z, Type: int32(proto.OpCreate)},
			Body:   &proto.CreateTxn{Path: fmt.Sprintf("/n%d", z), Data: []byte("x"), Acl: proto.OpenACLUnsafe, ParentCVersion: int32(z)},
		}
		if err := store.Log().Append([]persistence.Entry{{Zxid: z, Data: txn.Marshal()}}); err != nil {
			t.Fatal(err)
		}
		tree.Apply(txn)
		if z == 40 || z == 80 {
			walk := tree.StartFuzzyWalk()
			w, err := store.CreateSnapshot(walk.Zxid())
			if err != nil {
				t.Fatal(err)
			}
			for nodes := walk.Next(nil, 10); len(nodes) > 0; nodes = walk.Next(nil, 10) {
				for _, n := range nodes {
					w.AddACL(&proto.ACLCacheEntry{Id: n.ACLID, Acl: n.ACL})
					w.AddNode(n.Path, &proto.DataNode{Data: n.Data, Acl: n.ACLID, Stat: n.Stat})
				}
			}
			zx, d := walk.End()
			if z == 80 && wrongDigest != 0 {
				d = wrongDigest
			}
			if _, err := w.Commit(&proto.ZxidDigest{Zxid: zx, DigestVersion: proto.DigestVersion, Digest: d}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir, tree.Digest()
}

func recoverDir(t *testing.T, dir string, purgeBefore int64) (*db.Tree, Recovery, error) {
	t.Helper()
	store, err := persistence.OpenStore(persistence.StoreOptions{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if purgeBefore > 0 {
		if err := store.Log().PurgeBefore(purgeBefore); err != nil {
			t.Fatal(err)
		}
	}
	return Recover(store, db.Options{DigestEnabled: true}, jute.DefaultFieldLimit)
}

// damageNewestSnapshot flips bytes in the middle of the newest table of
// the snapshot store: each snapshot is one ingested table.
func damageNewestSnapshot(t *testing.T, dir string) {
	t.Helper()
	tables, _ := filepath.Glob(filepath.Join(dir, persistence.SnapshotDirName, "*.sst"))
	slices.Sort(tables)
	if len(tables) == 0 {
		t.Fatal("no tables")
	}
	f := tables[len(tables)-1]
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(b) / 4; i < len(b)/4+64; i++ {
		b[i] ^= 0x5a
	}
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRecoverFromNewestSnapshot(t *testing.T) {
	dir, digest := recoveryStore(t, 0)
	tree, rec, err := recoverDir(t, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Snapshot == nil || rec.Snapshot.Zxid != 80 || rec.Txns != 20 || rec.Zxid != 100 || rec.DigestChecks != 1 {
		t.Fatalf("recovery %+v", rec)
	}
	if tree.Digest() != digest || tree.NodeCount() != 105 {
		t.Fatalf("recovered digest %d (want %d), %d nodes", tree.Digest(), digest, tree.NodeCount())
	}
}

// A damaged newest snapshot is skipped for the older one while the log
// still holds every txn after it, and refused once it does not.
func TestRecoverFallsBackOnlyWhenTheLogAllows(t *testing.T) {
	dir, digest := recoveryStore(t, 0)
	damageNewestSnapshot(t, dir)
	tree, rec, err := recoverDir(t, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Snapshot == nil || rec.Snapshot.Zxid != 40 || len(rec.Skipped) != 1 || rec.Skipped[0].Zxid != 80 || rec.Txns != 60 {
		t.Fatalf("recovery %+v", rec)
	}
	if tree.Digest() != digest {
		t.Fatalf("digest %d, want %d", tree.Digest(), digest)
	}
	t.Logf("skipped: %v", rec.Skipped[0].Err)

	_, _, err = recoverDir(t, dir, 60)
	if err == nil || !strings.Contains(err.Error(), "snapshot 0x50") || !strings.Contains(err.Error(), "older snapshot 0x28") ||
		!strings.Contains(err.Error(), "purged before 0x3c") {
		t.Fatalf("recovery with the log purged past the older snapshot: %v", err)
	}
	t.Log(err)
}

func TestRecoverRefusesDigestMismatch(t *testing.T) {
	dir, _ := recoveryStore(t, 12345)
	_, _, err := recoverDir(t, dir, 0)
	if err == nil || !strings.Contains(err.Error(), "snapshot recorded 12345") {
		t.Fatalf("recovery with a wrong snapshot digest: %v", err)
	}
	t.Log(err)
}
