package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/gozk/gozk/persistence"
	"github.com/gozk/gozk/persistence/zkfiles"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/server"
)

func init() {
	dataSubcommands = append(dataSubcommands, importCommand())
}

func importCommand() *cli.Command {
	flags := dirFlags("from", "from-log-dir", "config", "Apache ZooKeeper's")
	flags = append(flags, dirFlags("to", "to-log-dir", "to-config", "gozk's")...)
	flags = append(flags,
		&cli.BoolFlag{Name: "force", Usage: "replace a gozk store that is not empty (the old one is renamed aside)"},
		&cli.BoolFlag{Name: "trust-empty-snapshot", Usage: "zookeeper.snapshot.trust.empty: replay logs without any snapshot"},
		&cli.BoolFlag{Name: "ignore-digest-mismatch", Usage: "import even when a digest check fails and no later one matches (the store then holds one snapshot of the tree as replayed)"},
	)
	return &cli.Command{
		Name:  "import",
		Usage: "build gozk's store from an Apache ZooKeeper data directory (version-2/snapshot.* and log.*)",
		Description: "Reads the Java data directory as ZooKeeper 3.8's restore does (the newest snapshot that loads,\n" +
			"plain, gz or snappy, then every later txn of the log files, with the same digest checks) and\n" +
			"writes gozk's store at the same zxid: that snapshot, the txns after it and the epochs. The gozk\n" +
			"destination defaults to the same directories (gozk's store sits beside version-2/). Stop both\n" +
			"servers first.",
		Flags:  flags,
		Action: runImport,
	}
}

func runImport(c *cli.Context) error {
	src, err := resolveDirs(c, "from", "from-log-dir", "config", nil)
	if err != nil {
		return err
	}
	dst, err := resolveDirs(c, "to", "to-log-dir", "to-config", src)
	if err != nil {
		return err
	}
	out := c.App.Writer
	rep, err := importJava(src, dst, importOptions{
		force:          c.Bool("force"),
		trustEmpty:     c.Bool("trust-empty-snapshot"),
		ignoreMismatch: c.Bool("ignore-digest-mismatch"),
		log:            out,
	})
	if err != nil {
		return cli.Exit("import: "+err.Error(), exitRuntime)
	}
	fmt.Fprintf(out, "imported %s into gozk's store in %s: zxid 0x%x, %d znodes, %d sessions\n",
		src.data, dst.data, rep.zxid, rep.nodes, rep.sessions)
	return nil
}

type importOptions struct {
	force, trustEmpty, ignoreMismatch bool
	log                               io.Writer
}

type importReport struct {
	zxid     int64
	nodes    int
	sessions int
}

// importJava reads src (a Java data directory) and writes dst's gozk
// store, then reads that store back as the server would and checks it
// gives the same tree.
func importJava(src, dst *dataDirs, o importOptions) (importReport, error) {
	var rep importReport
	snapDir, logDir := src.javaVersionDirs()
	for _, d := range []string{snapDir, logDir} {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return rep, fmt.Errorf("%s is not an Apache ZooKeeper data directory (no %s)", filepath.Dir(d), zkfiles.VersionDir)
		}
	}
	r, err := restoreJava(src, o.trustEmpty)
	if err != nil {
		return rep, err
	}
	for _, s := range r.res.Skipped {
		fmt.Fprintf(o.log, "skipped a snapshot that does not load (as Java would): %v\n", s)
	}
	if r.res.Snapshot.Path != "" {
		fmt.Fprintf(o.log, "snapshot %s (zxid 0x%x), then %d txns from the logs up to 0x%x; %d digest checks\n",
			r.res.Snapshot.Path, r.res.Snapshot.Zxid, r.res.Txns, r.res.LastZxid, r.digests.checked)
	} else {
		fmt.Fprintf(o.log, "no snapshot; %d txns from the logs up to 0x%x\n", r.res.Txns, r.res.LastZxid)
	}
	if n := len(r.digests.mismatches); n > 0 {
		for _, m := range r.digests.mismatches {
			fmt.Fprintf(o.log, "digest mismatch: %s\n", m)
		}
		if r.digests.settled() {
			fmt.Fprintf(o.log, "the tree digest matched Java's again from txn 0x%x to the last check: "+
				"the mismatches are those of Java's fuzzy snapshots; importing the tree as replayed\n", r.digests.settledAt)
		} else if !o.ignoreMismatch {
			return rep, fmt.Errorf("%d digest checks failed (Java only logs these; --ignore-digest-mismatch imports anyway)", n)
		}
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
	if err := importEpochs(store, snapDir); err != nil {
		return rep, err
	}

	// Read the store back as the server will.
	tree, _, err := server.Recover(store, dst.opts, dst.limit)
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
	rep.zxid = tree.LastProcessedZxid()
	rep.nodes = tree.NodeCount()
	rep.sessions = len(tree.Sessions())
	return rep, nil
}

// openEmptyStore opens dst's gozk store, which must be empty unless force
// is set; then the old one is renamed aside and a new one created.
func openEmptyStore(dst *dataDirs, o importOptions) (*persistence.Store, error) {
	store, err := openGozkStore(dst, false)
	if err != nil {
		return nil, err
	}
	snaps, err := store.Snapshots()
	if err != nil {
		store.Close()
		return nil, err
	}
	if len(snaps) == 0 && store.Log().LastZxid() == 0 {
		return store, nil
	}
	store.Close()
	if !o.force {
		return nil, fmt.Errorf("gozk's store in %s is not empty (%d snapshots, txns up to 0x%x); --force replaces it",
			dst.data, len(snaps), store.Log().LastZxid())
	}
	for _, p := range []string{filepath.Join(dst.data, persistence.SnapshotDirName), filepath.Join(dst.log, persistence.StoreDirName)} {
		moved, err := moveAside(p)
		if err != nil {
			return nil, err
		}
		if moved != "" {
			fmt.Fprintf(o.log, "moved the old store %s to %s\n", p, moved)
		}
	}
	return openGozkStore(dst, false)
}

// copyJavaHistory writes the Java snapshot Java's restore used as gozk's
// snapshot at the same zxid (with its digest), and the txns after it to
// gozk's txn log, so that gozk's own recovery replays exactly what Java's
// does.
func copyJavaHistory(store *persistence.Store, src *dataDirs, r *restoredJava) error {
	snap := r.res.Snapshot
	w, err := store.CreateSnapshot(snap.Zxid)
	if err != nil {
		return err
	}
	info, err := zkfiles.ReadSnapshotFile(snap.Path, src.limit, zkfiles.SnapshotHandler{
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
	err = zkfiles.ReadLogs(logDir, snap.Zxid+1, src.limit, func(file string, rec zkfiles.Record) error {
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

// importEpochs copies acceptedEpoch and currentEpoch when the Java
// directory has them (a quorum member's), with Java's fallback to
// currentEpoch.tmp for an interrupted write.
func importEpochs(store *persistence.Store, snapDir string) error {
	acc, hasAcc, err := zkfiles.ReadEpoch(filepath.Join(snapDir, zkfiles.AcceptedEpochFile))
	if err != nil {
		return err
	}
	cur, hasCur, err := zkfiles.ReadEpoch(filepath.Join(snapDir, zkfiles.CurrentEpochFile))
	if err != nil {
		return err
	}
	if tmp, hasTmp, err := zkfiles.ReadEpoch(filepath.Join(snapDir, zkfiles.CurrentEpochFile+".tmp")); err == nil && hasTmp && (!hasCur || tmp > cur) {
		cur, hasCur = tmp, true
	}
	if hasAcc && hasCur && acc < cur {
		return errors.New("acceptedEpoch is older than currentEpoch (Java refuses to start on this directory)")
	}
	if hasAcc {
		if err := store.SetAcceptedEpoch(acc); err != nil {
			return err
		}
	}
	if hasCur {
		if err := store.SetCurrentEpoch(cur); err != nil {
			return err
		}
	}
	return nil
}
