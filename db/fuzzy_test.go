package db

import (
	"fmt"
	"slices"
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
				copied = append(copied, keepNodes(nodes)...)
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

// TestFuzzyWalkLargeChildList: a child list longer than the step's budget
// is ordered outside the lock, from node pointers copied under it. The
// order must be Java's, as WalkSnapshot gives it, and the changes between
// the copy and each child's turn must show: deleted children skipped, new
// data copied, children added after the copy not seen.
func TestFuzzyWalkLargeChildList(t *testing.T) {
	const kids = 5000
	tree := New(Options{DigestEnabled: true})
	zxid := int64(1)
	tree.Apply(createTxn(zxid, "/big", nil, 1))
	for i := range kids {
		zxid++
		tree.Apply(createTxn(zxid, fmt.Sprintf("/big/k%d", i), []byte("old"), int32(i+1)))
	}
	want := snapshotPaths(t, tree)

	w := tree.StartFuzzyWalk()
	var got []SnapshotNode
	for len(got) == 0 || got[len(got)-1].Path != "/big" {
		b := w.Next(nil, 100)
		if len(b) == 0 {
			t.Fatal("the walk ended before /big")
		}
		got = append(got, keepNodes(b)...)
	}
	// /big's children are copied; change some of them before their turn.
	deleted, changed := map[string]bool{}, map[string]bool{}
	for i := 0; i < kids; i += 7 {
		zxid++
		p := fmt.Sprintf("/big/k%d", i)
		if i%2 == 0 {
			tree.Apply(deleteTxn(zxid, p))
			deleted[p] = true
		} else {
			tree.Apply(setDataTxn(zxid, p, []byte("new"), 0))
			changed[p] = true
		}
	}
	zxid++
	tree.Apply(createTxn(zxid, "/big/late", nil, kids+1))
	for b := w.Next(nil, 100); len(b) > 0; b = w.Next(nil, 100) {
		got = append(got, keepNodes(b)...)
	}

	var wantLeft []string
	for _, p := range want {
		if !deleted[p] {
			wantLeft = append(wantLeft, p)
		}
	}
	var gotPaths []string
	for _, n := range got {
		gotPaths = append(gotPaths, n.Path)
		wantData := "old"
		if changed[n.Path] {
			wantData = "new"
		}
		if strings.HasPrefix(n.Path, "/big/k") && string(n.Data) != wantData {
			t.Errorf("%s copied with data %q, want %q", n.Path, n.Data, wantData)
		}
	}
	if !slices.Equal(gotPaths, wantLeft) {
		t.Errorf("walk order differs from WalkSnapshot's less the deleted children (%d against %d paths)", len(gotPaths), len(wantLeft))
	}
	if len(w.kids) != 0 {
		t.Errorf("the walk still holds %d copied children", len(w.kids))
	}
}

// keepNodes copies the paths of one step's nodes, which the walk's next
// step reuses.
func keepNodes(nodes []SnapshotNode) []SnapshotNode {
	out := slices.Clone(nodes)
	for i := range out {
		out[i].Path = strings.Clone(out[i].Path)
	}
	return out
}

// TestFuzzyWalkStaleParentIndex: a child the walk stacked is replaced,
// then deleted with its parent, whose index a new node takes. The child's
// own record of its parent then names the new node; the walk must name
// it by the path it was stacked under, find nothing there, and skip it.
func TestFuzzyWalkStaleParentIndex(t *testing.T) {
	tree := New(Options{DigestEnabled: true})
	tree.Apply(createTxn(1, "/a", nil, 1))
	tree.Apply(createTxn(2, "/a/x", []byte("1"), 1))
	w := tree.StartFuzzyWalk()
	var got []string
	step := func() int {
		b := w.Next(nil, 1)
		for _, n := range b {
			got = append(got, n.Path)
		}
		return len(b)
	}
	for !slices.Contains(got, "/a") {
		if step() == 0 {
			t.Fatal("the walk ended before /a")
		}
	}
	ia := tree.nodes.indexOf("/a")
	tree.Apply(setDataTxn(3, "/a/x", []byte("2"), 0))
	tree.Apply(deleteTxn(4, "/a/x"))
	tree.Apply(deleteTxn(5, "/a"))
	tree.Apply(createTxn(6, "/b", nil, 2))
	tree.Apply(createTxn(7, "/b/x", []byte("3"), 1))
	if tree.nodes.indexOf("/b") != ia {
		t.Fatalf("/b has index %d, not /a's %d: the case is not made", tree.nodes.indexOf("/b"), ia)
	}
	for step() > 0 {
	}
	seen := map[string]bool{}
	for _, p := range got {
		if seen[p] {
			t.Errorf("%q copied twice", p)
		}
		seen[p] = true
		if strings.HasPrefix(p, "/b") || p == "/a/x" {
			t.Errorf("copied %q, which the walk never stacked or was deleted", p)
		}
	}
}
