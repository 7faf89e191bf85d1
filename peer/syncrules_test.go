package peer

import (
	"bytes"
	"fmt"
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
