package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

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

// TestServerStartOnFullDisk: `gozk server` on a full disk (a small tmpfs)
// exits with status 1 and one message naming the directory and the lack
// of space, for a new data directory and for an existing one whose WAL it
// must flush; once space returns, it starts. Before, the first panicked
// and left a store called damaged, the second retried for ever, logging
// thousands of lines a second.
func TestServerStartOnFullDisk(t *testing.T) {
	for _, existing := range []bool{false, true} {
		name := map[bool]string{false: "new data dir", true: "existing store"}[existing]
		t.Run(name, func(t *testing.T) {
			mnt := t.TempDir()
			if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=16m"); err != nil {
				t.Skipf("cannot mount a tmpfs here (%v): this test needs one", err)
			}
			// Detached: nothing may keep it busy at cleanup.
			t.Cleanup(func() { unix.Unmount(mnt, unix.MNT_DETACH) })
			data := filepath.Join(mnt, "data")
			if existing {
				store, err := persistence.OpenStore(persistence.StoreOptions{DataDir: data, ForceSync: true})
				if err != nil {
					t.Fatal(err)
				}
				txn := &proto.TxnEntry{
					Header: proto.TxnHeader{ClientId: 1, Zxid: 1, Time: 1, Type: int32(proto.OpCreate)},
					Body:   &proto.CreateTxn{Path: "/a", Data: []byte("x"), Acl: proto.OpenACLUnsafe, ParentCVersion: 1},
				}
				if err := store.Log().Append([]persistence.Entry{{Zxid: 1, Data: txn.Marshal()}}); err != nil {
					t.Fatal(err)
				}
				if err := store.Close(); err != nil {
					t.Fatal(err)
				}
			}
			filler := filepath.Join(mnt, "filler")
			f, err := os.Create(filler)
			if err != nil {
				t.Fatal(err)
			}
			for buf := make([]byte, 64<<10); ; {
				if _, err := f.Write(buf); err != nil {
					if !errors.Is(err, syscall.ENOSPC) {
						t.Fatal(err)
					}
					break
				}
			}
			f.Close()

			cfg := writeFile(t, t.TempDir(), "zoo.cfg", fmt.Sprintf("tickTime=2000\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n", data, freePort(t)))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			srv := exec.CommandContext(ctx, gozkBin, "server", "--config", cfg)
			var stderr bytes.Buffer
			srv.Stderr = &stderr
			err = srv.Run()
			if ctx.Err() != nil {
				t.Fatalf("the server was still running on a full disk after 2 minutes; %d bytes of log", stderr.Len())
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitRuntime {
				t.Fatalf("server on a full disk: %v, want exit status %d; stderr:\n%s", err, exitRuntime, stderr.String())
			}
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			last := lines[len(lines)-1]
			if !strings.Contains(last, "no space left on device") || !strings.Contains(last, data) || len(lines) > 3 {
				t.Fatalf("server on a full disk said (%d lines):\n%s\nwant one error naming %s and the lack of space", len(lines), stderr.String(), data)
			}
			t.Log(last)

			if err := os.Remove(filler); err != nil {
				t.Fatal(err)
			}
			stdout, _, code := gozk(t, nil, "data", "verify", data)
			if existing && (code != 0 || !strings.Contains(stdout, "sound")) {
				t.Fatalf("data verify once space returns: exit %d\n%s", code, stdout)
			}
			if !existing && code != exitRuntime {
				t.Fatalf("data verify of a data dir never created: exit %d, want %d (no store)\n%s", code, exitRuntime, stdout)
			}
		})
	}
}
