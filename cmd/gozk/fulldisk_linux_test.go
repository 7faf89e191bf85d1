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

	"github.com/gozk/gozk/persistence"
	"github.com/gozk/gozk/proto"
)

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
