package zab

import (
	"fmt"
	"strings"
	"testing"
)

// wholeLog is the txn log of Java's LearnerHandlerTest mock: all of it
// when the peer's zxid is at or after its first entry, else nothing.
func wholeLog(log ...int64) func(int64) []int64 {
	return func(peer int64) []int64 {
		if len(log) > 0 && peer >= log[0] {
			return log
		}
		return nil
	}
}

func z(epoch int64, counter uint32) int64 { return MakeZxid(epoch, counter) }

func renderPlan(p SyncPlan) string {
	if p.Snap {
		return fmt.Sprintf("SNAP from 0x%x", p.ForwardFrom)
	}
	var b strings.Builder
	for i, s := range p.Steps {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s:0x%x", s.Type, s.Zxid)
	}
	fmt.Fprintf(&b, " from 0x%x", p.ForwardFrom)
	return b.String()
}

// TestPlanSync holds PlanSync to the cases of Java 3.8.0's own
// LearnerHandlerTest, each with the packets and the forwarding point Java
// asserts.
func TestPlanSync(t *testing.T) {
	for _, c := range []struct {
		name string
		in   SyncInput
		want string
	}{
		// testEmptyCommittedLog
		{"empty committed log, peer ahead", SyncInput{PeerLastZxid: 3, LastProcessedZxid: 1, TxnLogSyncEnabled: true}, "TRUNC:0x1 from 0x1"},
		{"empty committed log, in sync", SyncInput{PeerLastZxid: 1, LastProcessedZxid: 1, TxnLogSyncEnabled: true}, "DIFF:0x1 from 0x1"},
		{"empty committed log, peer behind, no txn log sync", SyncInput{PeerLastZxid: 0, LastProcessedZxid: 1}, "SNAP from 0x1"},
		// testCommittedLog
		{"within the committed log, missing zxid", SyncInput{PeerLastZxid: 4, LastProcessedZxid: 6, CommittedLog: []int64{2, 3, 5}, TxnLogSyncEnabled: true},
			"TRUNC:0x3 PROPOSAL:0x5 COMMIT:0x5 from 0x5"},
		{"within the committed log", SyncInput{PeerLastZxid: 2, LastProcessedZxid: 6, CommittedLog: []int64{2, 3, 5}, TxnLogSyncEnabled: true},
			"DIFF:0x5 PROPOSAL:0x3 COMMIT:0x3 PROPOSAL:0x5 COMMIT:0x5 from 0x5"},
		{"before the committed log, no txn log sync", SyncInput{PeerLastZxid: 1, LastProcessedZxid: 6, CommittedLog: []int64{2, 3, 5}}, "SNAP from 0x6"},
		// testTxnLog
		{"txn log then committed log, missing zxid", SyncInput{PeerLastZxid: 4, LastProcessedZxid: 9, CommittedLog: []int64{6, 7, 8}, TxnLogSyncEnabled: true,
			TxnLog: wholeLog(2, 3, 5, 6, 7, 8, 9)}, "TRUNC:0x3 PROPOSAL:0x5 COMMIT:0x5 PROPOSAL:0x6 COMMIT:0x6 PROPOSAL:0x7 COMMIT:0x7 PROPOSAL:0x8 COMMIT:0x8 from 0x8"},
		{"txn log then committed log", SyncInput{PeerLastZxid: 3, LastProcessedZxid: 9, CommittedLog: []int64{6, 7, 8}, TxnLogSyncEnabled: true,
			TxnLog: wholeLog(2, 3, 5, 6, 7, 8, 9)}, "DIFF:0x8 PROPOSAL:0x5 COMMIT:0x5 PROPOSAL:0x6 COMMIT:0x6 PROPOSAL:0x7 COMMIT:0x7 PROPOSAL:0x8 COMMIT:0x8 from 0x8"},
		// testTxnLogProposalIteratorClosure
		{"txn log yields nothing", SyncInput{PeerLastZxid: 4, LastProcessedZxid: 7, TxnLogSyncEnabled: true, CommittedLog: nil,
			TxnLog: func(int64) []int64 { return nil }}, "SNAP from 0x7"},
		// testTxnLogOnly
		{"txn log only, missing zxid", SyncInput{PeerLastZxid: 4, LastProcessedZxid: 7, TxnLogSyncEnabled: true, TxnLog: wholeLog(2, 3, 5, 6, 7, 8)},
			"TRUNC:0x3 PROPOSAL:0x5 COMMIT:0x5 PROPOSAL:0x6 COMMIT:0x6 PROPOSAL:0x7 COMMIT:0x7 from 0x7"},
		{"txn log only", SyncInput{PeerLastZxid: 2, LastProcessedZxid: 7, TxnLogSyncEnabled: true, TxnLog: wholeLog(2, 3, 5, 6, 7, 8)},
			"DIFF:0x7 PROPOSAL:0x3 COMMIT:0x3 PROPOSAL:0x5 COMMIT:0x5 PROPOSAL:0x6 COMMIT:0x6 PROPOSAL:0x7 COMMIT:0x7 from 0x7"},
		{"txn log only, peer before it", SyncInput{PeerLastZxid: 1, LastProcessedZxid: 7, TxnLogSyncEnabled: true, TxnLog: wholeLog(2, 3, 5, 6, 7, 8)},
			"SNAP from 0x7"},
		// testTxnLogWithNegativeZxid (epoch 0xf)
		{"high epoch, missing zxid", SyncInput{PeerLastZxid: z(0xf, 4), LastProcessedZxid: z(0xf, 9), CommittedLog: []int64{z(0xf, 6), z(0xf, 7), z(0xf, 8)},
			TxnLogSyncEnabled: true, TxnLog: wholeLog(z(0xf, 2), z(0xf, 3), z(0xf, 5), z(0xf, 6), z(0xf, 7), z(0xf, 8), z(0xf, 9))},
			"TRUNC:0xf00000003 PROPOSAL:0xf00000005 COMMIT:0xf00000005 PROPOSAL:0xf00000006 COMMIT:0xf00000006 PROPOSAL:0xf00000007 COMMIT:0xf00000007 PROPOSAL:0xf00000008 COMMIT:0xf00000008 from 0xf00000008"},
		// testNewEpochZxid
		{"new-epoch peer zxid before the logs", SyncInput{PeerLastZxid: z(0, 0), LastProcessedZxid: z(2, 0), CommittedLog: []int64{z(1, 1), z(1, 2)},
			TxnLogSyncEnabled: true, TxnLog: wholeLog(z(0, 1), z(1, 1), z(1, 2))}, "SNAP from 0x200000000"},
		{"new-epoch peer zxid", SyncInput{PeerLastZxid: z(1, 0), LastProcessedZxid: z(2, 0), CommittedLog: []int64{z(1, 1), z(1, 2)},
			TxnLogSyncEnabled: true, TxnLog: wholeLog(z(0, 1), z(1, 1), z(1, 2))}, "DIFF:0x100000002 PROPOSAL:0x100000001 COMMIT:0x100000001 PROPOSAL:0x100000002 COMMIT:0x100000002 from 0x100000002"},
		{"new-epoch peer zxid in sync", SyncInput{PeerLastZxid: z(2, 0), LastProcessedZxid: z(2, 0), CommittedLog: []int64{z(1, 1), z(1, 2)},
			TxnLogSyncEnabled: true, TxnLog: wholeLog(z(0, 1), z(1, 1), z(1, 2))}, "DIFF:0x200000000 from 0x200000000"},
		// testDuplicatedTxn
		{"duplicated txns", SyncInput{PeerLastZxid: z(1, 0), LastProcessedZxid: z(2, 0), CommittedLog: []int64{z(1, 1), z(1, 2), z(1, 1), z(1, 2)},
			TxnLogSyncEnabled: true, TxnLog: wholeLog(z(0, 1), z(1, 1), z(1, 2), z(1, 1), z(1, 2))}, "DIFF:0x100000002 PROPOSAL:0x100000001 COMMIT:0x100000001 PROPOSAL:0x100000002 COMMIT:0x100000002 from 0x100000002"},
		// testCrossEpochTrunc
		{"TRUNC across an epoch", SyncInput{PeerLastZxid: z(3, 1), LastProcessedZxid: z(6, 0), TxnLogSyncEnabled: true,
			TxnLog: wholeLog(z(1, 1), z(2, 1), z(2, 2), z(4, 1))}, "SNAP from 0x600000000"},
		// testTxnLogGap
		{"gap between the txn log and the committed log", SyncInput{PeerLastZxid: 3, LastProcessedZxid: 8, CommittedLog: []int64{7, 8}, TxnLogSyncEnabled: true,
			TxnLog: wholeLog(2, 3, 4)}, "SNAP from 0x8"},
		// Beyond Java's cases: a TRUNC across an epoch inside the committed
		// log, and a peer whose new-epoch zxid is past the committed log
		// (no TRUNC for it: it has no txn of that epoch), both SNAP.
		{"TRUNC across an epoch in the committed log", SyncInput{PeerLastZxid: z(3, 1), LastProcessedZxid: z(4, 1), CommittedLog: []int64{z(2, 1), z(2, 2), z(4, 1)},
			TxnLogSyncEnabled: true}, "SNAP from 0x400000001"},
		{"new-epoch peer zxid past the committed log", SyncInput{PeerLastZxid: z(3, 0), LastProcessedZxid: z(2, 5), CommittedLog: []int64{z(2, 4), z(2, 5)},
			TxnLogSyncEnabled: true}, "SNAP from 0x200000005"},
		// A negative zookeeper.snapshotSizeFactor: no DIFF from the txn
		// log, even one that holds every txn the peer lacks.
		{"txn log sync off", SyncInput{PeerLastZxid: 3, LastProcessedZxid: 9, CommittedLog: []int64{6, 7, 8},
			TxnLog: wholeLog(2, 3, 5, 6, 7, 8, 9)}, "SNAP from 0x9"},
		// zookeeper.forceSnapshotSync
		{"forced", SyncInput{ForceSnap: true, PeerLastZxid: 5, LastProcessedZxid: 5, TxnLogSyncEnabled: true}, "SNAP from 0x5"},
	} {
		if got := renderPlan(PlanSync(c.in)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}
