package server

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/persistence"
	"github.com/gozk/gozk/proto"
)

// Recovery describes what Recover loaded.
type Recovery struct {
	// Snapshot is the snapshot the tree was loaded from; nil when the
	// whole log was replayed onto an empty tree.
	Snapshot *persistence.SnapshotInfo
	// Skipped are newer snapshots found damaged, with the reason in Err.
	Skipped []persistence.SnapshotInfo
	// Txns counts the txns replayed after the snapshot.
	Txns int
	// Zxid is the last zxid reflected in the tree.
	Zxid int64
	// DigestChecks counts digest comparisons that passed (the snapshot's
	// and those carried by txns).
	DigestChecks int
}

// Recover rebuilds the data tree from store as a server start does: the
// newest snapshot that reads back intact, then every logged txn after its
// zxid, comparing digests where the snapshot or a txn carries one. A
// damaged snapshot is skipped for an older one only when the log still
// holds every txn after that older one (else recovery would silently lose
// writes); with none usable, the whole log is replayed onto an empty tree
// if it was never purged. Anything else, a damaged txn, a digest mismatch,
// a txn that cannot be decoded, is an error naming what is damaged: the
// server must not serve a partial tree.
func Recover(store *persistence.Store, opts db.Options, fieldLimit int) (*db.Tree, Recovery, error) {
	var rec Recovery
	log := store.Log()
	infos, err := store.Snapshots()
	if err != nil {
		return nil, rec, err
	}
	purged := log.PurgedBefore()
	var tree *db.Tree
	for i := range infos {
		info := infos[i]
		if info.Err == nil {
			if t, err := loadSnapshot(store, info, opts); err == nil {
				tree = t
				rec.Snapshot = &info
				break
			} else if !errors.Is(err, persistence.ErrCorrupt) {
				return nil, rec, err
			} else {
				info.Err = err
			}
		}
		rec.Skipped = append(rec.Skipped, info)
		if i+1 < len(infos) && purged > infos[i+1].Zxid+1 {
			return nil, rec, fmt.Errorf("%w; the older snapshot 0x%x cannot stand in for it: the txn log no longer holds the txns from 0x%x to 0x%x (purged before 0x%x)",
				info.Err, infos[i+1].Zxid, infos[i+1].Zxid+1, purged-1, purged)
		}
	}
	var from int64 = 1
	if tree == nil {
		if len(infos) > 0 && purged > 1 {
			return nil, rec, fmt.Errorf("%w; no older snapshot can stand in for it and the txn log was purged before 0x%x", rec.Skipped[len(rec.Skipped)-1].Err, purged)
		}
		if purged > 1 {
			return nil, rec, fmt.Errorf("%w: there is no snapshot in %s, and the txn log in %s was purged before 0x%x: the txns up to there are lost",
				persistence.ErrCorrupt, store.SnapshotDir(), log.Dir(), purged)
		}
		tree = db.New(opts)
	} else {
		from = rec.Snapshot.Zxid + 1
		if purged > from {
			return nil, rec, fmt.Errorf("%w: snapshot 0x%x needs the txns after it, but the txn log in %s was purged before 0x%x",
				persistence.ErrCorrupt, rec.Snapshot.Zxid, log.Dir(), purged)
		}
	}

	// The snapshot's digest is compared when replay reaches its zxid (the
	// end of a fuzzy walk); txn digests once past that point, as Java does.
	// A snapshot without a digest hides where its fuzzy part ends, so
	// txn digests cannot be compared after one.
	var snapDigest *proto.ZxidDigest
	compareTxns := opts.DigestEnabled
	if rec.Snapshot != nil {
		if d := rec.Snapshot.Digest; opts.DigestEnabled && d != nil && d.DigestVersion == proto.DigestVersion {
			snapDigest = d
		} else {
			compareTxns = false
		}
	}
	checkSnapDigest := func(zxid int64) error {
		if snapDigest == nil || zxid < snapDigest.Zxid {
			return nil
		}
		d := snapDigest
		snapDigest = nil
		if zxid > d.Zxid {
			return nil // that zxid was not a txn of this log; Java skips too
		}
		if got := tree.Digest(); got != d.Digest {
			return fmt.Errorf("%w: after loading snapshot 0x%x and replaying the log to 0x%x the tree digest is %d, the snapshot recorded %d",
				persistence.ErrCorrupt, rec.Snapshot.Zxid, zxid, got, d.Digest)
		}
		rec.DigestChecks++
		return nil
	}
	if err := checkSnapDigest(from - 1); err != nil {
		return nil, rec, err
	}
	err = log.Replay(from, func(zxid int64, data []byte) error {
		txn, err := proto.DecodeTxn(data, fieldLimit)
		if err != nil {
			return fmt.Errorf("%w: txn 0x%x in %s cannot be decoded: %w", persistence.ErrCorrupt, zxid, log.Dir(), err)
		}
		tree.Apply(txn)
		rec.Txns++
		if err := checkSnapDigest(zxid); err != nil {
			return err
		}
		if d := txn.Digest; d != nil && snapDigest == nil && compareTxns && d.Version == proto.DigestVersion {
			if got := tree.Digest(); got != d.TreeDigest {
				return fmt.Errorf("%w: after replaying txn 0x%x the tree digest is %d, the txn recorded %d", persistence.ErrCorrupt, zxid, got, d.TreeDigest)
			}
			rec.DigestChecks++
		}
		return nil
	})
	if err != nil {
		return nil, rec, err
	}
	rec.Zxid = tree.LastProcessedZxid()
	return tree, rec, nil
}

// DigestUnverified reports whether the recovered tree's digest was
// checked against nothing: it came from a snapshot that recorded no
// digest, as a learner's does when taken within a SNAP's fuzzy window,
// so it may hold effects of txns its log does not have yet.
func (r Recovery) DigestUnverified(digestEnabled bool) bool {
	if !digestEnabled || r.Snapshot == nil {
		return false
	}
	d := r.Snapshot.Digest
	return d == nil || d.DigestVersion != proto.DigestVersion
}

// loadSnapshot loads one snapshot into a new tree.
func loadSnapshot(store *persistence.Store, info persistence.SnapshotInfo, opts db.Options) (*db.Tree, error) {
	tree := db.New(opts)
	ld := tree.NewLoader()
	ld.Reserve(int(info.Nodes))
	// The tree is all live data: collecting while it grows only costs
	// time (the default GOGC would run a dozen cycles for a big tree).
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	sessions := make(map[int64]int32, info.Sessions)
	_, err := store.ReadSnapshot(info.Zxid, persistence.SnapshotVisitor{
		Session: func(s proto.SnapshotSession) error {
			sessions[s.Id] = s.Timeout
			return nil
		},
		ACL: func(e *proto.ACLCacheEntry) error {
			ld.ACL(e.Id, e.Acl)
			return nil
		},
		Node: func(path string, n *proto.DataNode) error {
			if err := ld.Node(path, n.Data, n.Acl, &n.Stat); err != nil {
				return fmt.Errorf("%w: snapshot 0x%x in %s: %w", persistence.ErrCorrupt, info.Zxid, store.SnapshotDir(), err)
			}
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	tree.SetSessions(sessions)
	tree.FinishLoad()
	tree.SetLastProcessedZxid(info.Zxid)
	return tree, nil
}

// describeSkipped names the damaged snapshots recovery went past, for the
// start-up log.
func describeSkipped(skipped []persistence.SnapshotInfo) string {
	parts := make([]string, len(skipped))
	for i, s := range skipped {
		parts[i] = s.Err.Error()
	}
	return strings.Join(parts, "; ")
}
