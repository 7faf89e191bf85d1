package db

import (
	"testing"

	"github.com/gozk/gozk/proto"
)

// FuzzApply feeds arbitrary txn bytes, decoded as the log reader decodes
// them, to a populated tree: Apply must never panic, and the digest, the
// node count and the ephemeral count must stay consistent with the nodes.
func FuzzApply(f *testing.F) {
	for _, txn := range generateTxns(60) {
		f.Add(txn.Marshal())
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		txn, err := proto.DecodeTxn(raw, 1<<20)
		if err != nil {
			return
		}
		tree := New(Options{DigestEnabled: true, ExtendedTypesEnabled: true})
		for _, seed := range generateTxns(60) {
			tree.Apply(seed)
		}
		tree.Apply(txn)
		assertDigestConsistent(t, tree)
		nodes, ephemerals := 0, 0
		err = tree.Walk(func(path string, _ []byte, _ []proto.ACL, stat proto.StatPersisted) error {
			nodes++
			if path != "" && proto.KindOf(stat.EphemeralOwner, true) == proto.KindEphemeral {
				ephemerals++
			}
			if _, _, _, ok := tree.getDataLocked(path); !ok {
				t.Errorf("walked node %q not found by path", path)
			}
			return nil
		})
		if err != nil || nodes+1 != tree.NodeCount() || ephemerals != tree.EphemeralCount() {
			t.Errorf("walk %v: %d nodes (count %d), %d ephemerals (count %d)", err, nodes, tree.NodeCount(), ephemerals, tree.EphemeralCount())
		}
	})
}

// getDataLocked looks a node up without taking the lock (for use inside
// Walk callbacks in tests).
func (t *Tree) getDataLocked(path string) ([]byte, proto.Stat, []proto.ACL, bool) {
	n := t.lookup(path)
	if n == nil {
		return nil, proto.Stat{}, nil, false
	}
	return t.dataOf(n), t.visibleStat(n), t.acls.slots[n.acl].acl, true
}
