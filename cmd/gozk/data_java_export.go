package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/persistence/zkfiles"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/server"
)

func init() {
	dataSubcommands = append(dataSubcommands, exportCommand())
}

func exportCommand() *cli.Command {
	flags := dirFlags("from", "from-log-dir", "config", "gozk's")
	flags = append(flags, dirFlags("to", "to-log-dir", "to-config", "Apache ZooKeeper's")...)
	flags = append(flags,
		&cli.StringFlag{Name: "compression", Usage: "snapshot compression: none, gz or snappy (default: zookeeper.snapshot.compression.method of --to-config)"},
		&cli.BoolFlag{Name: "force", Usage: "replace Java files already in the destination's version-2 (the old directory is renamed aside)"},
	)
	return &cli.Command{
		Name:  "export",
		Usage: "write an Apache ZooKeeper 3.8 data directory from gozk's store",
		Description: "Loads gozk's store as the server does and writes version-2/snapshot.<zxid> of the whole tree,\n" +
			"its sessions and ACLs at the last zxid (with Java's checksums and the digest as 3.8.0 writes it)\n" +
			"and the acceptedEpoch and currentEpoch files. Apache ZooKeeper 3.8.0 starts from it with the\n" +
			"same tree, sessions and zxid. The destination defaults to the same directories. Stop gozk first.",
		Flags:  flags,
		Action: runExport,
	}
}

func runExport(c *cli.Context) error {
	src, err := resolveDirs(c, "from", "from-log-dir", "config", nil)
	if err != nil {
		return err
	}
	dst, err := resolveDirs(c, "to", "to-log-dir", "to-config", src)
	if err != nil {
		return err
	}
	if v := c.String("compression"); v != "" {
		if v != "none" && v != "gz" && v != "snappy" {
			return cli.Exit("--compression must be none, gz or snappy", exitUsage)
		}
		dst.compression = zkfiles.ParseCompression(v)
	}
	path, zxid, err := exportJava(src, dst, c.Bool("force"), c.App.Writer)
	if err != nil {
		return cli.Exit("export: "+err.Error(), exitRuntime)
	}
	fmt.Fprintf(c.App.Writer, "exported gozk's store in %s to %s (zxid 0x%x)\n", src.data, path, zxid)
	return nil
}

// exportJava loads src's gozk store and writes dst's Java version-2
// directories. It returns the snapshot file and its zxid.
func exportJava(src, dst *dataDirs, force bool, log io.Writer) (string, int64, error) {
	store, err := openGozkStore(src, true)
	if err != nil {
		return "", 0, err
	}
	tree, rec, err := server.Recover(store, src.opts, src.limit)
	if err != nil {
		store.Close()
		return "", 0, err
	}
	epochs, err := store.Epochs()
	store.Close()
	if err != nil {
		return "", 0, err
	}
	fmt.Fprintf(log, "gozk's store: zxid 0x%x (%d txns after the snapshot), %d znodes, %d sessions\n",
		rec.Zxid, rec.Txns, tree.NodeCount(), len(tree.Sessions()))

	zxid := tree.LastProcessedZxid()
	snapDir, logDir := dst.javaVersionDirs()
	// Java files already there are fine when they are all older than the
	// export (a rollback in place: Java picks the new snapshot and skips
	// every older txn); anything at or past its zxid would be mixed in.
	conflicts, err := newerJavaFiles(snapDir, logDir, zxid, dst.limit)
	if err != nil {
		return "", 0, err
	}
	if len(conflicts) > 0 && !force {
		return "", 0, fmt.Errorf("%s already holds Apache ZooKeeper files at or past zxid 0x%x (%s); --force moves them aside",
			filepath.Dir(conflicts[0]), zxid, strings.Join(conflicts, ", "))
	}
	for _, d := range uniq(snapDir, logDir) {
		if len(conflicts) > 0 {
			moved, err := moveAside(d)
			if err != nil {
				return "", 0, err
			}
			if moved != "" {
				fmt.Fprintf(log, "moved %s to %s\n", d, moved)
			}
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", 0, err
		}
	}

	path, err := zkfiles.CreateSnapshotFile(snapDir, zxid, dst.compression, func(sw *zkfiles.SnapshotWriter) error {
		return writeJavaSnapshot(sw, tree)
	})
	if err != nil {
		return "", 0, err
	}
	acc, cur := zkfiles.EpochOf(zxid), zkfiles.EpochOf(zxid)
	if epochs.HasAccepted {
		acc = epochs.Accepted
	}
	if epochs.HasCurrent {
		cur = epochs.Current
	}
	// Epoch files left by the Java server may be ahead (a quorum member's);
	// Java refuses to start when they go backwards.
	if old, ok, _ := zkfiles.ReadEpoch(filepath.Join(snapDir, zkfiles.CurrentEpochFile)); ok && old > cur {
		cur = old
	}
	if old, ok, _ := zkfiles.ReadEpoch(filepath.Join(snapDir, zkfiles.AcceptedEpochFile)); ok && old > acc {
		acc = old
	}
	if err := zkfiles.WriteEpoch(snapDir, zkfiles.AcceptedEpochFile, max(acc, cur)); err != nil {
		return "", 0, err
	}
	if err := zkfiles.WriteEpoch(snapDir, zkfiles.CurrentEpochFile, cur); err != nil {
		return "", 0, err
	}

	// Read the file back as Java will and compare.
	back, err := restoreJava(dst, false)
	if err != nil {
		return "", 0, fmt.Errorf("the exported directory does not load: %w", err)
	}
	if len(back.digests.mismatches) > 0 {
		return "", 0, fmt.Errorf("the exported directory fails Java's digest check: %s", back.digests.mismatches[0])
	}
	if err := sameTree(tree, back.tree); err != nil {
		return "", 0, fmt.Errorf("the exported directory loads to a tree other than gozk's: %w", err)
	}
	return path, zxid, nil
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

// writeJavaSnapshot writes tree as FileSnap.serialize does: sessions, the
// ACL map, the nodes from the root, and the digest section that 3.8.0
// writes with zookeeper.digest.enabled (an all-zero one when the digest
// is off in gozk, which Java reads as "no digest").
func writeJavaSnapshot(sw *zkfiles.SnapshotWriter, tree *db.Tree) error {
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
