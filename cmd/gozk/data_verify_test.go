package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/persistence"
	"github.com/gozk/gozk/proto"
)

// TestVerifyDataDir: a sound store is reported sound; a damaged snapshot
// table is named and makes the report unsound.
func TestVerifyDataDir(t *testing.T) {
	dir := t.TempDir()
	store, err := persistence.OpenStore(persistence.StoreOptions{DataDir: dir, DataLogDir: dir + "/log"})
	if err != nil {
		t.Fatal(err)
	}
	tree := db.New(db.Options{DigestEnabled: true})
	for z := int64(1); z <= 50; z++ {
		txn := &proto.TxnEntry{
			Header: proto.TxnHeader{ClientId: 1, Zxid: z, Time: z, Type: int32(proto.OpCreate)},
			Body:   &proto.CreateTxn{Path: fmt.Sprintf("/n%d", z), Data: []byte("x"), Acl: proto.OpenACLUnsafe, ParentCVersion: int32(z)},
		}
		if err := store.Log().Append([]persistence.Entry{{Zxid: z, Data: txn.Marshal()}}); err != nil {
			t.Fatal(err)
		}
		tree.Apply(txn)
		if z == 30 {
			walk := tree.StartFuzzyWalk()
			w, err := store.CreateSnapshot(walk.Zxid())
			if err != nil {
				t.Fatal(err)
			}
			for nodes := walk.Next(nil, 100); len(nodes) > 0; nodes = walk.Next(nil, 100) {
				for _, n := range nodes {
					w.AddACL(&proto.ACLCacheEntry{Id: n.ACLID, Acl: n.ACL})
					w.AddNode(n.Path, &proto.DataNode{Data: n.Data, Acl: n.ACLID, Stat: n.Stat})
				}
			}
			zx, d := walk.End()
			if _, err := w.Commit(&proto.ZxidDigest{Zxid: zx, DigestVersion: proto.DigestVersion, Digest: d}); err != nil {
				t.Fatal(err)
			}
		}
	}
	store.Close()
	so := persistence.StoreOptions{DataDir: dir, DataLogDir: dir + "/log", ReadOnly: true}
	dbo := db.Options{DigestEnabled: true}
	var out bytes.Buffer
	sound, err := verifyDataDir(&out, so, dbo, jute.DefaultFieldLimit)
	if err != nil || !sound || !strings.Contains(out.String(), "recovery: snapshot 0x1e + 20 txns to zxid 0x32") {
		t.Fatalf("sound store: %v %v\n%s", sound, err, out.String())
	}

	// The snapshot is the largest table of the snapshot store.
	tables, _ := filepath.Glob(filepath.Join(dir, persistence.SnapshotDirName, "*.sst"))
	var largest []byte
	var name string
	for _, f := range tables {
		if b, _ := os.ReadFile(f); len(b) > len(largest) {
			largest, name = b, f
		}
	}
	for i := 40; i < 80; i++ {
		largest[i] ^= 0xff
	}
	if err := os.WriteFile(name, largest, 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	sound, err = verifyDataDir(&out, so, dbo, jute.DefaultFieldLimit)
	if err != nil || sound || !strings.Contains(out.String(), "DAMAGED: persistence: snapshot 0x1e") {
		t.Fatalf("damaged store: %v %v\n%s", sound, err, out.String())
	}
	t.Log(out.String())
}

// TestDamagedWALRefusedAtStart: a WAL that lost its records (zero-filled,
// or truncated to nothing) after a clean stop makes `gozk data verify`
// report it (exit 4, naming the WAL file) and `gozk server` refuse to
// start (exit 1, naming it too) instead of serving a tree without the
// txns.
func TestDamagedWALRefusedAtStart(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(wal []byte) []byte
	}{
		{"zero-filled", func(wal []byte) []byte { return make([]byte, len(wal)) }},
		{"truncated to zero", func([]byte) []byte { return nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			data := filepath.Join(dir, "data")
			store, err := persistence.OpenStore(persistence.StoreOptions{DataDir: data, ForceSync: true})
			if err != nil {
				t.Fatal(err)
			}
			for z := int64(1); z <= 20; z++ {
				txn := &proto.TxnEntry{
					Header: proto.TxnHeader{ClientId: 1, Zxid: z, Time: z, Type: int32(proto.OpCreate)},
					Body:   &proto.CreateTxn{Path: fmt.Sprintf("/n%d", z), Data: []byte("x"), Acl: proto.OpenACLUnsafe, ParentCVersion: int32(z)},
				}
				if err := store.Log().Append([]persistence.Entry{{Zxid: z, Data: txn.Marshal()}}); err != nil {
					t.Fatal(err)
				}
			}
			if err := store.Close(); err != nil {
				t.Fatal(err)
			}
			wals, _ := filepath.Glob(filepath.Join(data, persistence.StoreDirName, "*.log"))
			if len(wals) == 0 {
				t.Fatal("no WAL")
			}
			wal := wals[len(wals)-1] // the newest: names sort by number
			b, err := os.ReadFile(wal)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(wal, tc.damage(b), 0o644); err != nil {
				t.Fatal(err)
			}

			stdout, _, code := gozk(t, nil, "data", "verify", data)
			if code != exitDamaged || !strings.Contains(stdout, "DAMAGED: ") || !strings.Contains(stdout, wal) {
				t.Fatalf("data verify: exit %d, want %d and a report naming %s:\n%s", code, exitDamaged, wal, stdout)
			}
			cfg := writeFile(t, dir, "zoo.cfg", fmt.Sprintf("tickTime=2000\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n", data, freePort(t)))
			_, stderr, code := gozk(t, nil, "server", "--config", cfg)
			if code != exitRuntime || !strings.Contains(stderr, wal) || !strings.Contains(stderr, "damaged") {
				t.Fatalf("server: exit %d, want %d and a message naming %s:\n%s", code, exitRuntime, wal, stderr)
			}
			t.Log(strings.TrimSpace(stderr))
		})
	}
}
