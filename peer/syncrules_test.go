package peer

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozk/gozk/server"
	"github.com/gozk/gozk/zab"
)

// TestLeaderLogSyncsAsConfigured: the leader's log gives PlanSync what
// the sync settings allow: a DIFF from its committed window, a SNAP
// whatever the learner has with forceSnapshotSync, and a DIFF from the
// txn log only within snapshotSizeFactor of the newest snapshot's size
// (none with a negative factor).
func TestLeaderLogSyncsAsConfigured(t *testing.T) {
	// A snapshot after 0x100000004, then four txns, which take more
	// than 0.33 of the snapshot's size and less than all of it.
	srv := logged(t, 0x100000004, 0x100000001, 0x100000002, 0x100000003, 0x100000004, 0x100000005, 0x100000006, 0x100000007, 0x100000008)
	window := seeded(t, srv, 2)
	plan := func(peerZxid int64, forceSnap bool, factor float64) string {
		t.Helper()
		l := &leaderLog{srv: srv, window: window, forceSnap: forceSnap, sizeFactor: factor}
		in := l.SyncInput()
		in.PeerLastZxid = peerZxid
		p := zab.PlanSync(in)
		if p.Snap {
			return fmt.Sprintf("SNAP 0x%x", p.ForwardFrom)
		}
		var b strings.Builder
		for _, s := range p.Steps {
			fmt.Fprintf(&b, "%s 0x%x, ", s.Type, s.Zxid)
			if s.Type == zab.Proposal {
				data, err := l.TxnData(s.Zxid)
				if err != nil {
					t.Fatal(err)
				}
				if i := int32(s.Zxid - 0x100000001); !bytes.Equal(data, createTxn(s.Zxid, 0x100, i+1, fmt.Sprintf("/n%x", s.Zxid), i)) {
					t.Fatalf("txn 0x%x is %x, not the logged one", s.Zxid, data)
				}
			}
		}
		return fmt.Sprintf("%sthen from 0x%x", b.String(), p.ForwardFrom)
	}
	for _, c := range []struct {
		name      string
		peer      int64
		forceSnap bool
		factor    float64
		want      string
	}{
		{"in the committed window", 0x100000007, false, server.DefaultSnapshotSizeFactor,
			"DIFF 0x100000008, PROPOSAL 0x100000008, COMMIT 0x100000008, then from 0x100000008"},
		{"forceSnapshotSync", 0x100000007, true, server.DefaultSnapshotSizeFactor, "SNAP 0x100000008"},
		{"before the window, the txns within the factor", 0x100000005, false, 1,
			"DIFF 0x100000008, PROPOSAL 0x100000006, COMMIT 0x100000006, PROPOSAL 0x100000007, COMMIT 0x100000007, " +
				"PROPOSAL 0x100000008, COMMIT 0x100000008, then from 0x100000008"},
		{"before the window, the txns past the factor", 0x100000005, false, server.DefaultSnapshotSizeFactor, "SNAP 0x100000008"},
		{"before the window, txn log sync off", 0x100000005, false, -1, "SNAP 0x100000008"},
	} {
		if got := plan(c.peer, c.forceSnap, c.factor); got != c.want {
			t.Errorf("%s: learner at 0x%x is synced by\n%s\nwant\n%s", c.name, c.peer, got, c.want)
		}
	}
}

// TestFollowerSnapReplacesADivergedHistory: a follower whose log and
// snapshots hold txns of another history, some past the zxid of the
// leader's SNAP, keeps none of them: after the sync, and after a
// restart, its tree is the leader's, and its data directory holds the
// snapshot taken at NEWLEADER and no txn below it. A snapshot newer than
// the SNAP left behind would be the one a restart loads.
func TestFollowerSnapReplacesADivergedHistory(t *testing.T) {
	snap, err := os.ReadFile(filepath.Join("..", "persistence", "zkfiles", "testdata", "java-snapstream.bin"))
	if err != nil {
		t.Fatal(err)
	}
	const snapZxid = 0x100000006 // the stream's
	dir := t.TempDir()
	srv := ensembleServer(t, dir)
	defer func() { srv.Close() }()
	for i := range 9 {
		z := int64(0x100000001 + i)
		if err := srv.LogTxn(z, createTxn(z, 0x100, int32(i+1), fmt.Sprintf("/stale%d", i+1), int32(i))); err != nil {
			t.Fatal(err)
		}
		if z == 0x100000003 || z == 0x100000009 {
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
	srv.Store().SetAcceptedEpoch(1)
	srv.Store().SetCurrentEpoch(1)
	if err := srv.StopServing(); err != nil {
		t.Fatal(err)
	}
	// A leader that runs with forceSnapshotSync sends a SNAP to a
	// follower ahead of it.
	addr, done := leaderOnLoopback(t, func(l *scriptedLeader) {
		l.handshake(1, 2, 0x100000009)
		l.send(zab.Snap, snapZxid, nil)
		l.conn.Write(snap)
		l.send(zab.NewLeader, 0x200000000, nil)
		l.expect(zab.Ack, 0x200000000)
		l.send(zab.UpToDate, -1, nil)
		l.expect(zab.Ack, 0x200000000)
	})
	err = followServer(t, addr, srv, false)
	<-done
	if !errors.Is(err, ErrLeaderLost) {
		t.Fatalf("FollowLeader = %v", err)
	}
	snapPaths := paths(srv)
	if strings.Contains(snapPaths, "/stale") || snapPaths == "" || srv.LastZxid() != snapZxid {
		t.Fatalf("after the SNAP the tree holds %q at 0x%x", snapPaths, srv.LastZxid())
	}
	infos, err := srv.Store().Snapshots()
	if err != nil {
		t.Fatal(err)
	}
	var snaps []string
	for _, info := range infos {
		snaps = append(snaps, fmt.Sprintf("0x%x", info.Zxid))
	}
	if len(infos) != 1 || infos[0].Zxid != snapZxid {
		t.Errorf("snapshots after the SNAP sync: %v, want the one taken at NEWLEADER (0x%x)", snaps, int64(snapZxid))
	}
	var logged []string
	if err := srv.Store().Log().Replay(0, func(zxid int64, _ []byte) error {
		if zxid < snapZxid {
			logged = append(logged, fmt.Sprintf("0x%x", zxid))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(logged) > 0 {
		t.Errorf("the log still holds %v, below the snapshot taken at NEWLEADER", logged)
	}
	srv = reopen(t, srv, dir)
	if got := paths(srv); got != snapPaths || srv.LastZxid() != snapZxid {
		t.Fatalf("after a restart the tree holds %q at 0x%x, want the SNAP's %q at 0x%x", got, srv.LastZxid(), snapPaths, int64(snapZxid))
	}
}
