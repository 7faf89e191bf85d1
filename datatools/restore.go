package datatools

import (
	"bytes"
	"fmt"
	"maps"
	"slices"

	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/persistence/zkfiles"
	"github.com/gozk/gozk/proto"
)

// digestReport collects the digest comparisons of a restore, which Java
// makes too (it only logs and counts a mismatch).
type digestReport struct {
	checked    int
	mismatches []string
	// settledAt is the zxid of the first check that matched after the
	// last mismatch, 0 if none did (or there was no mismatch).
	settledAt int64
}

// record counts one comparison at zxid; what describes a mismatch.
func (d *digestReport) record(zxid int64, match bool, what func() string) {
	d.checked++
	switch {
	case !match:
		d.mismatches = append(d.mismatches, what())
		d.settledAt = 0
	case len(d.mismatches) > 0 && d.settledAt == 0:
		d.settledAt = zxid
	}
}

// settled reports whether every mismatch was followed by checks that
// matched up to the last one: the tree as replayed is Java's at that
// point. Java's own fuzzy snapshots cause such mismatches: it records a
// snapshot's digest with the zxid of the txn applied last, which it
// updates after that txn's changes, so a snapshot that ends in between
// pairs a tree holding one more txn with the zxid before it; the next
// txn that changes the same node makes the two agree again.
func (d *digestReport) settled() bool { return len(d.mismatches) > 0 && d.settledAt != 0 }

// restoredJava is a Java data directory read as Java's restore reads it.
type restoredJava struct {
	tree    *db.Tree
	res     zkfiles.RestoreResult
	digests digestReport
}

// restoreJava rebuilds the tree of a Java data directory exactly as
// FileTxnSnapLog.restore does: the newest snapshot that loads, then every
// later txn of the logs, comparing the snapshot's digest when replay
// reaches its zxid and each txn's digest after that.
func restoreJava(d *Dirs, trustEmpty bool) (*restoredJava, error) {
	snapDir, logDir := d.javaVersionDirs()
	r := &restoredJava{}
	var ld *db.Loader
	var sessions map[int64]int32
	var snapDigest *proto.ZxidDigest
	checkSnap := func(zxid int64) {
		if snapDigest == nil {
			return
		}
		switch {
		case zxid == snapDigest.Zxid:
			got, want := r.tree.Digest(), snapDigest.Digest
			r.digests.record(zxid, got == want, func() string {
				return fmt.Sprintf("snapshot 0x%x: the tree digest at 0x%x is %d, the snapshot recorded %d", r.res.Snapshot.Zxid, zxid, got, want)
			})
			snapDigest = nil
		case zxid > snapDigest.Zxid:
			snapDigest = nil // that txn is not in the log: Java skips the check
		}
	}
	res, err := zkfiles.Restore(snapDir, logDir, zkfiles.RestoreOptions{Limit: d.limit(), TrustEmptySnapshot: trustEmpty}, zkfiles.RestoreHandler{
		Snapshot: func(zkfiles.File) zkfiles.SnapshotHandler {
			r.tree = db.New(d.Tree)
			ld = r.tree.NewLoader()
			sessions = make(map[int64]int32)
			return zkfiles.SnapshotHandler{
				Session: func(id int64, to int32) error { sessions[id] = to; return nil },
				ACL:     func(e proto.ACLCacheEntry) error { ld.ACL(e.Id, e.Acl); return nil },
				Node: func(n *zkfiles.Node) error {
					return ld.Node(n.Path, n.Data, n.ACLID, &n.Stat)
				},
			}
		},
		SnapshotDone: func(f zkfiles.File, info zkfiles.SnapshotInfo) error {
			r.tree.SetSessions(sessions)
			r.tree.FinishLoad()
			r.tree.SetLastProcessedZxid(f.Zxid)
			r.res.Snapshot = f
			if dg, ok := info.DigestValue(); ok && d.Tree.DigestEnabled && dg.Zxid >= f.Zxid && dg.DigestVersion == proto.DigestVersion {
				snapDigest = &dg
				checkSnap(f.Zxid)
			}
			return nil
		},
		Txn: func(file string, rec zkfiles.Record) error {
			txn, err := proto.DecodeTxn(rec.Data, d.limit())
			if err != nil {
				return fmt.Errorf("%s: the txn at offset %d cannot be decoded: %w", file, rec.Offset, err)
			}
			r.tree.Apply(txn)
			checkSnap(txn.Header.Zxid)
			if dg := txn.Digest; dg != nil && snapDigest == nil && d.Tree.DigestEnabled && dg.Version == proto.DigestVersion {
				got := r.tree.Digest()
				r.digests.record(txn.Header.Zxid, got == dg.TreeDigest, func() string {
					return fmt.Sprintf("txn 0x%x (%s): the tree digest is %d, the txn recorded %d", txn.Header.Zxid, file, got, dg.TreeDigest)
				})
			}
			return nil
		},
	})
	r.res = res
	if err != nil {
		return nil, err
	}
	return r, nil
}

// sameTree reports the first difference between two trees: a node's data
// (null and empty kept apart), ACL or stored stat, a node only in one, the
// session tables, the last zxid.
func sameTree(a, b *db.Tree) error {
	if za, zb := a.LastProcessedZxid(), b.LastProcessedZxid(); za != zb {
		return fmt.Errorf("last zxid 0x%x against 0x%x", za, zb)
	}
	type nodeRef struct {
		data []byte
		acl  []proto.ACL
		stat proto.StatPersisted
	}
	nodes := make(map[string]nodeRef)
	a.Walk(func(path string, data []byte, acl []proto.ACL, stat proto.StatPersisted) error {
		nodes[path] = nodeRef{data, acl, stat}
		return nil
	})
	err := b.Walk(func(path string, data []byte, acl []proto.ACL, stat proto.StatPersisted) error {
		n, ok := nodes[path]
		switch {
		case !ok:
			return fmt.Errorf("%q is only in the new tree", path)
		case !bytes.Equal(n.data, data) || (n.data == nil) != (data == nil):
			return fmt.Errorf("%q: the data differs", path)
		case !slices.Equal(n.acl, acl):
			return fmt.Errorf("%q: ACL %v against %v", path, n.acl, acl)
		case n.stat != stat:
			return fmt.Errorf("%q: stat %+v against %+v", path, n.stat, stat)
		}
		delete(nodes, path)
		return nil
	})
	if err != nil {
		return err
	}
	for p := range nodes {
		return fmt.Errorf("%q is missing from the new tree", p)
	}
	if sa, sb := a.Sessions(), b.Sessions(); !maps.Equal(sa, sb) {
		return fmt.Errorf("sessions %v against %v", sa, sb)
	}
	return nil
}
