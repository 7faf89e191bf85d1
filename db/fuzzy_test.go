package db

import (
	"fmt"
	"strings"
	"testing"
)

// TestFuzzyWalkReplayConverges walks a tree while txns keep being applied
// between the walk's steps, loads what the walk yielded into a new tree,
// replays every txn after the walk's zxid, and requires the exact state of
// the original: the fuzzy snapshot contract. It also checks the digest the
// walk recorded at its end once replay reaches that zxid.
func TestFuzzyWalkReplayConverges(t *testing.T) {
	txns := generateTxns(1500)
	for _, c := range []struct{ before, step, budget int }{
		{0, 1, 1}, {50, 2, 3}, {300, 1, 2}, {700, 5, 4}, {1000, 3, 64}, {1400, 1, 1},
	} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			live := New(Options{DigestEnabled: true, ExtendedTypesEnabled: true})
			for _, txn := range txns[:c.before] {
				live.Apply(txn)
			}
			next := c.before
			walk := live.StartFuzzyWalk()
			sessions := live.SessionList()
			var copied []SnapshotNode
			acls := map[int64][]any{}
			for {
				nodes := walk.Next(nil, c.budget)
				if len(nodes) == 0 {
					break
				}
				copied = append(copied, nodes...)
				for _, n := range nodes {
					acls[n.ACLID] = nil
				}
				// Writes land between the walk's steps.
				for i := 0; i < c.step && next < len(txns); i++ {
					live.Apply(txns[next])
					next++
				}
			}
			endZxid, endDigest := walk.End()
			for _, txn := range txns[next:] {
				live.Apply(txn)
			}

			got := New(Options{DigestEnabled: true, ExtendedTypesEnabled: true})
			ld := got.NewLoader()
			for _, n := range copied {
				if n.ACLID != OpenACLID {
					ld.ACL(n.ACLID, n.ACL)
				}
			}
			for _, n := range copied {
				stat := n.Stat
				if err := ld.Node(n.Path, n.Data, n.ACLID, &stat); err != nil {
					t.Fatal(err)
				}
			}
			m := map[int64]int32{}
			for _, s := range sessions {
				m[s.Id] = s.Timeout
			}
			got.SetSessions(m)
			got.FinishLoad()
			got.SetLastProcessedZxid(walk.Zxid())
			checked := endZxid == walk.Zxid()
			if checked && got.Digest() != endDigest {
				t.Fatalf("digest right after loading: %d, the walk recorded %d", got.Digest(), endDigest)
			}
			for _, txn := range txns {
				if txn.Header.Zxid <= walk.Zxid() {
					continue
				}
				got.Apply(txn)
				if txn.Header.Zxid == endZxid {
					checked = true
					if got.Digest() != endDigest {
						t.Fatalf("digest at 0x%x after replay: %d, the walk recorded %d", endZxid, got.Digest(), endDigest)
					}
				}
			}
			if !checked {
				t.Fatalf("replay never reached the walk's end zxid 0x%x", endZxid)
			}
			var gotDump, wantDump strings.Builder
			dumpTree(&gotDump, got)
			dumpTree(&wantDump, live)
			if gotDump.String() != wantDump.String() {
				t.Fatalf("replayed state differs:\n%s\nwant:\n%s", gotDump.String(), wantDump.String())
			}
			if got.Digest() != live.Digest() || got.ApproximateDataSize() != live.ApproximateDataSize() ||
				got.EphemeralCount() != live.EphemeralCount() || len(got.Sessions()) != len(live.Sessions()) {
				t.Fatalf("digest %d/%d size %d/%d", got.Digest(), live.Digest(), got.ApproximateDataSize(), live.ApproximateDataSize())
			}
			assertDigestConsistent(t, got)
		})
	}
}
