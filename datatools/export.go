package datatools

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/persistence/zkfiles"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/server"
	"github.com/gozk/gozk/zab"
)

// ExportOptions are the choices of an Export.
type ExportOptions struct {
	// Force moves aside (<dir>.replaced-<time>) a version-2 directory
	// that holds Java files at or past the export's zxid. Older files
	// may stay: Java's restore picks the newest snapshot and skips every
	// txn it holds.
	Force bool
	// Log receives a line per step (the store loaded, a directory moved
	// aside); nil discards them.
	Log io.Writer
}

// ExportResult describes the Java snapshot an Export wrote.
type ExportResult struct {
	// Snapshot is the path of version-2/snapshot.<zxid>.
	Snapshot string
	// Zxid is its zxid, the gozk store's last.
	Zxid int64
	// Epochs are the acceptedEpoch and currentEpoch files written: those
	// the store has (none for a standalone server's), with an
	// acceptedEpoch already there kept when higher.
	Epochs zkfiles.Epochs
}

// Export recovers from's gozk store as the server does and writes to's
// Java version-2 directories (to.Compression chooses the snapshot's), then
// reads them back as Java's restore will and checks that they give the
// same tree. Neither server may be running.
func Export(from, to Dirs, o ExportOptions) (ExportResult, error) {
	return exportJava(&from, &to, o.Force, o.Log)
}

func exportJava(src, dst *Dirs, force bool, log io.Writer) (ExportResult, error) {
	if log == nil {
		log = io.Discard
	}
	store, err := src.openGozkStore(true)
	if err != nil {
		return ExportResult{}, err
	}
	tree, rec, err := server.Recover(store, src.Tree, src.limit())
	if err != nil {
		store.Close()
		return ExportResult{}, err
	}
	epochs, err := store.Epochs()
	store.Close()
	if err != nil {
		return ExportResult{}, err
	}
	fmt.Fprintf(log, "gozk's store: zxid 0x%x (%d txns after the snapshot), %d znodes, %d sessions\n",
		rec.Zxid, rec.Txns, tree.NodeCount(), len(tree.Sessions()))

	zxid := tree.LastProcessedZxid()
	snapDir, logDir := dst.javaVersionDirs()
	// Java files already there are fine when they are all older than the
	// export (a rollback in place: Java picks the new snapshot and skips
	// every older txn); anything at or past its zxid would be mixed in.
	conflicts, err := newerJavaFiles(snapDir, logDir, zxid, dst.limit())
	if err != nil {
		return ExportResult{}, err
	}
	if len(conflicts) > 0 && !force {
		return ExportResult{}, fmt.Errorf("%s already holds Apache ZooKeeper files at or past zxid 0x%x (%s); --force moves them aside",
			filepath.Dir(conflicts[0]), zxid, strings.Join(conflicts, ", "))
	}
	writeEpochs, stale, err := javaEpochsToExport(epochs, snapDir, zxid)
	if err != nil {
		return ExportResult{}, err
	}
	if stale != nil {
		if !force {
			return ExportResult{}, fmt.Errorf("%w: Java would refuse to start with this beside the export; --force moves %s aside", stale, snapDir)
		}
		conflicts = append(conflicts, snapDir)
	}
	for _, d := range uniq(snapDir, logDir) {
		if len(conflicts) > 0 {
			moved, err := moveAside(d)
			if err != nil {
				return ExportResult{}, err
			}
			if moved != "" {
				fmt.Fprintf(log, "moved %s to %s\n", d, moved)
			}
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return ExportResult{}, err
		}
	}

	path, err := zkfiles.CreateSnapshotFile(snapDir, zxid, dst.Compression, func(sw *zkfiles.SnapshotWriter) error {
		return WriteJavaSnapshot(sw, tree)
	})
	if err != nil {
		return ExportResult{}, err
	}
	if err := zkfiles.WriteEpochs(snapDir, writeEpochs); err != nil {
		return ExportResult{}, err
	}
	if writeEpochs.HasAccepted || writeEpochs.HasCurrent {
		fmt.Fprintf(log, "epochs: accepted %s, current %s\n", epochText(writeEpochs.Accepted, writeEpochs.HasAccepted), epochText(writeEpochs.Current, writeEpochs.HasCurrent))
	} else {
		fmt.Fprintf(log, "no epochs in gozk's store (a standalone server's): no epoch files written\n")
	}

	// Read the file back as Java will and compare.
	back, err := restoreJava(dst, false)
	if err != nil {
		return ExportResult{}, fmt.Errorf("the exported directory does not load: %w", err)
	}
	if len(back.digests.mismatches) > 0 {
		return ExportResult{}, fmt.Errorf("the exported directory fails Java's digest check: %s", back.digests.mismatches[0])
	}
	if err := sameTree(tree, back.tree); err != nil {
		return ExportResult{}, fmt.Errorf("the exported directory loads to a tree other than gozk's: %w", err)
	}
	files, err := zkfiles.ReadEpochs(snapDir)
	if err == nil {
		_, _, _, _, err = zab.EpochsAtStart(back.tree.LastProcessedZxid(), files)
	}
	if err != nil {
		return ExportResult{}, fmt.Errorf("the exported directory's epoch files would not let Java start: %w", err)
	}
	return ExportResult{Snapshot: path, Zxid: zxid, Epochs: writeEpochs}, nil
}

// newerJavaFiles lists the snapshots of snapDir at or past zxid and the
// log files of logDir holding txns past it.
func newerJavaFiles(snapDir, logDir string, zxid int64, limit int) ([]string, error) {
	var out []string
	snaps, err := zkfiles.ListSnapshots(snapDir)
	if err != nil {
		return nil, err
	}
	for _, s := range snaps {
		if s.Zxid >= zxid {
			out = append(out, s.Path)
		}
	}
	logs, err := zkfiles.ListLogs(logDir)
	if err != nil {
		return nil, err
	}
	for i, l := range logs {
		if l.Zxid > zxid {
			out = append(out, l.Path)
		} else if i == len(logs)-1 {
			last, err := zkfiles.LastLoggedZxid(logDir, limit)
			if err != nil || last > zxid {
				out = append(out, l.Path)
			}
		}
	}
	return out, nil
}

func uniq(a, b string) []string {
	if a == b {
		return []string{a}
	}
	return []string{a, b}
}

// WriteJavaSnapshot writes tree as Java's FileSnap.serialize does:
// sessions (by id), the ACL map, the nodes from the root, and the digest
// section that 3.8.0 writes with zookeeper.digest.enabled (an all-zero one
// when the tree's digest is off, which Java reads as "no digest"), and
// calls sw.Finish. The tree must not change meanwhile.
func WriteJavaSnapshot(sw *zkfiles.SnapshotWriter, tree *db.Tree) error {
	sessions := tree.SessionList()
	slices.SortFunc(sessions, func(a, b proto.SnapshotSession) int { return cmp.Compare(a.Id, b.Id) })
	if err := sw.Sessions(sessions); err != nil {
		return err
	}
	err := tree.WalkSnapshot(sw.ACLs, func(path string, data []byte, aclID int64, stat proto.StatPersisted) error {
		return sw.Node(path, data, aclID, &stat)
	})
	if err != nil {
		return err
	}
	digest := &proto.ZxidDigest{DigestVersion: proto.DigestVersion}
	if tree.DigestEnabled() {
		digest.Zxid, digest.Digest = tree.LastProcessedZxid(), tree.Digest()
	}
	return sw.Finish(digest)
}
