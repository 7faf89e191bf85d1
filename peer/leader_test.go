package peer

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gozk/gozk/server"
)

// logged returns a server whose log holds a create at each of zxids,
// with a snapshot taken after the one at snapAt (none when 0), reloaded
// so that its tree has applied them all.
func logged(t *testing.T, snapAt int64, zxids ...int64) *server.Server {
	t.Helper()
	srv := ensembleServer(t, t.TempDir())
	t.Cleanup(func() { srv.Close() })
	for i, z := range zxids {
		if err := srv.LogTxn(z, createTxn(z, 0x100, int32(i+1), fmt.Sprintf("/n%x", z), int32(i))); err != nil {
			t.Fatal(err)
		}
		if z == snapAt {
			if err := srv.FlushLog(); err != nil {
				t.Fatal(err)
			}
			if err := srv.StopServing(); err != nil {
				t.Fatal(err)
			}
			if _, err := srv.TakeSnapshot(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := srv.FlushLog(); err != nil {
		t.Fatal(err)
	}
	if err := srv.StopServing(); err != nil {
		t.Fatal(err)
	}
	if z := srv.LastZxid(); z != zxids[len(zxids)-1] {
		t.Fatalf("reloaded tree at 0x%x", z)
	}
	return srv
}

func seeded(t *testing.T, srv *server.Server, max int) *committedWindow {
	t.Helper()
	w := &committedWindow{max: max, data: map[int64][]byte{}}
	if err := w.seed(srv); err != nil {
		t.Fatal(err)
	}
	return w
}

func zxidList(zxids []int64) string {
	var b bytes.Buffer
	for _, z := range zxids {
		fmt.Fprintf(&b, " 0x%x", z)
	}
	return b.String()
}

// TestLeaderWindowStartsWithLoggedTxns: a leader's committed window
// starts with the newest txns of its log, as Java's committedLog holds
// what it replayed and committed before it led, a snapshot taken since
// notwithstanding: up to commitLogCount of them, across epochs after
// the newest snapshot, and before it the last epoch's after any gap.
func TestLeaderWindowStartsWithLoggedTxns(t *testing.T) {
	srv := logged(t, 0, 0x100000001, 0x100000002, 0x100000003, 0x200000001, 0x200000002, 0x200000003, 0x200000004)
	w := seeded(t, srv, 500)
	if got, want := zxidList(w.zxids), " 0x100000001 0x100000002 0x100000003 0x200000001 0x200000002 0x200000003 0x200000004"; got != want {
		t.Fatalf("window holds%s, want%s", got, want)
	}
	for i, z := range w.zxids {
		if want := createTxn(z, 0x100, int32(i+1), fmt.Sprintf("/n%x", z), int32(i)); !bytes.Equal(w.data[z], want) {
			t.Fatalf("window's txn 0x%x is %x, want the logged %x", z, w.data[z], want)
		}
	}
	if got, want := zxidList(seeded(t, srv, 2).zxids), " 0x200000003 0x200000004"; got != want {
		t.Fatalf("a window of 2 holds%s, want%s", got, want)
	}
	if got := seeded(t, srv, 0).zxids; len(got) != 0 {
		t.Fatalf("a window of 0 holds%s", zxidList(got))
	}

	// A snapshot taken at the last txn (as gozk does after loading)
	// leaves the window as it was.
	if _, err := srv.TakeSnapshot(); err != nil {
		t.Fatal(err)
	}
	if got, want := zxidList(seeded(t, srv, 3).zxids), " 0x200000002 0x200000003 0x200000004"; got != want {
		t.Fatalf("after a snapshot at the last txn a window of 3 holds%s, want%s", got, want)
	}
	// Before the newest snapshot, earlier epochs are left out.
	if got, want := zxidList(seeded(t, srv, 500).zxids), " 0x200000001 0x200000002 0x200000003 0x200000004"; got != want {
		t.Fatalf("window before the snapshot holds%s, want%s", got, want)
	}

	// A snapshot from a leader left a gap before it (0x100000003 and
	// 0x100000004 were never logged here): a DIFF cannot span it.
	srv = logged(t, 0x100000005, 0x100000001, 0x100000002, 0x100000005, 0x100000006)
	if got, want := zxidList(seeded(t, srv, 500).zxids), " 0x100000005 0x100000006"; got != want {
		t.Fatalf("window after a gap holds%s, want%s", got, want)
	}
}
