package datatools

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gozk/gozk/persistence"
	"github.com/gozk/gozk/persistence/zkfiles"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/server"
)

// ImportOptions are the choices of an Import.
type ImportOptions struct {
	// Force replaces a gozk store that is not empty: the old one is
	// renamed aside (<dir>.replaced-<time>).
	Force bool
	// TrustEmptySnapshot is zookeeper.snapshot.trust.empty: replay the
	// logs when there is no snapshot.
	TrustEmptySnapshot bool
	// IgnoreDigestMismatch imports even when a digest check fails and no
	// later one matches; the store then holds one snapshot of the tree as
	// replayed.
	IgnoreDigestMismatch bool
	// Log receives a line per step (snapshot used, txns replayed, digest
	// mismatches, a store moved aside); nil discards them.
	Log io.Writer
}

// ImportResult describes the store an Import wrote.
type ImportResult struct {
	// Zxid is the store's last zxid, Java's at the end of its logs.
	Zxid int64
	// Nodes counts the znodes (the root counted as Java counts it) and
	// Sessions the sessions of the tree.
	Nodes, Sessions int
	// Epochs are the acceptedEpoch and currentEpoch the store keeps:
	// those of Java's files (currentEpoch.tmp's value when Java would
	// take it), none for a standalone server's directory.
	Epochs zkfiles.Epochs
}

// Import reads from (an Apache ZooKeeper data directory) and writes to's
// gozk store, then reads that store back as the server will and checks
// that it gives the same tree. The gozk store must be empty unless
// o.Force. Neither server may be running.
func Import(from, to Dirs, o ImportOptions) (ImportResult, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	src, dst := &from, &to
	var rep ImportResult
	snapDir, logDir := src.javaVersionDirs()
	for _, d := range []string{snapDir, logDir} {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return rep, fmt.Errorf("%s is not an Apache ZooKeeper data directory (no %s)", filepath.Dir(d), zkfiles.VersionDir)
		}
	}
	r, err := restoreJava(src, o.TrustEmptySnapshot)
	if err != nil {
		return rep, err
	}
	for _, s := range r.res.Skipped {
		fmt.Fprintf(o.Log, "skipped a snapshot that does not load (as Java would): %v\n", s)
	}
	if r.res.Snapshot.Path != "" {
		fmt.Fprintf(o.Log, "snapshot %s (zxid 0x%x), then %d txns from the logs up to 0x%x; %d digest checks\n",
			r.res.Snapshot.Path, r.res.Snapshot.Zxid, r.res.Txns, r.res.LastZxid, r.digests.checked)
	} else {
		fmt.Fprintf(o.Log, "no snapshot; %d txns from the logs up to 0x%x\n", r.res.Txns, r.res.LastZxid)
	}
	if n := len(r.digests.mismatches); n > 0 {
		for _, m := range r.digests.mismatches {
			fmt.Fprintf(o.Log, "digest mismatch: %s\n", m)
		}
		if r.digests.settled() {
			fmt.Fprintf(o.Log, "the tree digest matched Java's again from txn 0x%x to the last check: "+
				"the mismatches are those of Java's fuzzy snapshots; importing the tree as replayed\n", r.digests.settledAt)
		} else if !o.IgnoreDigestMismatch {
			return rep, fmt.Errorf("%d digest checks failed (Java only logs these; --ignore-digest-mismatch imports anyway)", n)
		}
	}

	// The epochs are checked before anything is written.
	epochs, tookTmp, err := javaEpochsToImport(snapDir, r.tree.LastProcessedZxid())
	if err != nil {
		return rep, err
	}
	switch {
	case tookTmp:
		fmt.Fprintf(o.Log, "epochs: accepted %s, current %d from %s (the current epoch is behind the last zxid; Java takes the tmp file's value)\n",
			epochText(epochs.Accepted, epochs.HasAccepted), epochs.Current, zkfiles.CurrentEpochTmpFile)
	case epochs.HasAccepted || epochs.HasCurrent:
		fmt.Fprintf(o.Log, "epochs: accepted %s, current %s\n", epochText(epochs.Accepted, epochs.HasAccepted), epochText(epochs.Current, epochs.HasCurrent))
	default:
		fmt.Fprintf(o.Log, "no epoch files (a standalone server's directory): the store keeps none\n")
	}

	store, err := openEmptyStore(dst, o)
	if err != nil {
		return rep, err
	}
	defer func() {
		if store != nil {
			store.Close()
		}
	}()
	if len(r.digests.mismatches) == 0 && r.res.Snapshot.Path != "" {
		err = copyJavaHistory(store, src, r)
	} else {
		err = writeTreeSnapshot(store, r)
	}
	if err != nil {
		return rep, err
	}
	if epochs.HasAccepted {
		if err := store.SetAcceptedEpoch(epochs.Accepted); err != nil {
			return rep, err
		}
	}
	if epochs.HasCurrent {
		if err := store.SetCurrentEpoch(epochs.Current); err != nil {
			return rep, err
		}
	}

	// Read the store back as the server will.
	tree, _, err := server.Recover(store, dst.Tree, dst.limit())
	if err != nil {
		return rep, fmt.Errorf("the new store does not load: %w", err)
	}
	if err := sameTree(r.tree, tree); err != nil {
		return rep, fmt.Errorf("the new store loads to a tree other than Java's data gives: %w", err)
	}
	err = store.Close()
	store = nil
	if err != nil {
		return rep, err
	}
	rep.Zxid = tree.LastProcessedZxid()
	rep.Nodes = tree.NodeCount()
	rep.Sessions = len(tree.Sessions())
	rep.Epochs = epochs
	return rep, nil
}

// openEmptyStore opens dst's gozk store, which must be empty unless force
// is set; then the old one is renamed aside and a new one created.
func openEmptyStore(dst *Dirs, o ImportOptions) (*persistence.Store, error) {
	store, err := dst.openGozkStore(false)
	if err != nil {
		return nil, err
	}
	snaps, err := store.Snapshots()
	if err != nil {
		store.Close()
		return nil, err
	}
	// Epochs alone make a store not empty too: a member's promises must
	// not outlive the data they went with.
	epochs, err := store.Epochs()
	if err != nil {
		store.Close()
		return nil, err
	}
	if len(snaps) == 0 && store.Log().LastZxid() == 0 && !epochs.HasAccepted && !epochs.HasCurrent {
		return store, nil
	}
	store.Close()
	if !o.Force {
		return nil, fmt.Errorf("gozk's store in %s is not empty (%d snapshots, txns up to 0x%x, epochs: accepted %s, current %s); --force replaces it",
			dst.DataDir, len(snaps), store.Log().LastZxid(), epochText(epochs.Accepted, epochs.HasAccepted), epochText(epochs.Current, epochs.HasCurrent))
	}
	for _, p := range []string{filepath.Join(dst.DataDir, persistence.SnapshotDirName), filepath.Join(dst.logDir(), persistence.StoreDirName)} {
		moved, err := moveAside(p)
		if err != nil {
			return nil, err
		}
		if moved != "" {
			fmt.Fprintf(o.Log, "moved the old store %s to %s\n", p, moved)
		}
	}
	return dst.openGozkStore(false)
}

// copyJavaHistory writes the Java snapshot Java's restore used as gozk's
// snapshot at the same zxid (with its digest), and the txns after it to
// gozk's txn log, so that gozk's own recovery replays exactly what Java's
// does.
func copyJavaHistory(store *persistence.Store, src *Dirs, r *restoredJava) error {
	snap := r.res.Snapshot
	w, err := store.CreateSnapshot(snap.Zxid)
	if err != nil {
		return err
	}
	info, err := zkfiles.ReadSnapshotFile(snap.Path, src.limit(), zkfiles.SnapshotHandler{
		Session: func(id int64, to int32) error { return w.AddSession(proto.SnapshotSession{Id: id, Timeout: to}) },
		ACL:     func(e proto.ACLCacheEntry) error { return w.AddACL(&e) },
		Node: func(n *zkfiles.Node) error {
			return w.AddNode(n.Path, &proto.DataNode{Data: n.Data, Acl: n.ACLID, Stat: n.Stat})
		},
	})
	if err != nil {
		w.Abort()
		return err
	}
	var digest *proto.ZxidDigest
	if d, ok := info.DigestValue(); ok && d.Zxid >= snap.Zxid {
		digest = &d
	}
	if _, err := w.Commit(digest); err != nil {
		return err
	}
	_, logDir := src.javaVersionDirs()
	var batch []persistence.Entry
	flush := func() error {
		err := store.Log().Append(batch)
		batch = batch[:0]
		return err
	}
	last := snap.Zxid
	err = zkfiles.ReadLogs(logDir, snap.Zxid+1, src.limit(), func(file string, rec zkfiles.Record) error {
		z := rec.Zxid()
		if z <= last {
			return fmt.Errorf("%s: txn 0x%x follows 0x%x (Java applies it anyway; gozk's log keeps zxids strictly increasing)", file, z, last)
		}
		last = z
		batch = append(batch, persistence.Entry{Zxid: z, Data: rec.Data})
		if len(batch) == 1000 {
			return flush()
		}
		return nil
	})
	if err == nil && len(batch) > 0 {
		err = flush()
	}
	return err
}

// writeTreeSnapshot writes the replayed tree as one snapshot at its last
// zxid, with the digest gozk computes.
func writeTreeSnapshot(store *persistence.Store, r *restoredJava) error {
	tree := r.tree
	w, err := store.CreateSnapshot(tree.LastProcessedZxid())
	if err != nil {
		return err
	}
	for _, s := range tree.SessionList() {
		if err := w.AddSession(s); err != nil {
			w.Abort()
			return err
		}
	}
	err = tree.WalkSnapshot(func(acls []proto.ACLCacheEntry) error {
		for i := range acls {
			if err := w.AddACL(&acls[i]); err != nil {
				return err
			}
		}
		return nil
	}, func(path string, data []byte, aclID int64, stat proto.StatPersisted) error {
		return w.AddNode(path, &proto.DataNode{Data: data, Acl: aclID, Stat: stat})
	})
	if err != nil {
		w.Abort()
		return err
	}
	var digest *proto.ZxidDigest
	if tree.DigestEnabled() {
		digest = &proto.ZxidDigest{Zxid: tree.LastProcessedZxid(), DigestVersion: proto.DigestVersion, Digest: tree.Digest()}
	}
	_, err = w.Commit(digest)
	return err
}

// epochText is an epoch for a progress line, "none" when absent.
func epochText(epoch int64, has bool) string {
	if !has {
		return "none"
	}
	return fmt.Sprint(epoch)
}
