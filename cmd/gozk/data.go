package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/gozk/gozk/datatools"
	"github.com/gozk/gozk/persistence/zkfiles"
)

// dataSubcommands are the `gozk data ...` tools, appended by init
// functions: this file's for the tools of package datatools (it wires
// their flags), data_verify.go's for verify. The help text sorts them by
// name.
var dataSubcommands []*cli.Command

func init() {
	dataSubcommands = append(dataSubcommands, dumpLogCommand(), dumpSnapshotCommand(), exportCommand(), importCommand())
}

func dataCommand() *cli.Command {
	return &cli.Command{
		Name:        "data",
		Usage:       "inspect, verify, import and export data directories",
		Subcommands: dataSubcommands,
	}
}

// dataError maps an error of package datatools to the exit status: a
// store without a snapshot yet is a fact, not a failure (the message goes
// to stderr, stdout stays empty); anything else is a runtime failure,
// a store held by a running server included.
func dataError(prefix string, err error) error {
	if errors.Is(err, datatools.ErrNoSnapshot) {
		return cli.Exit(err.Error(), exitOK)
	}
	return cli.Exit(prefix+err.Error(), exitRuntime)
}

// dirFlags are the flags that name one side of a move: a directory, an
// optional separate log directory, and a zoo.cfg to read both from.
func dirFlags(dir, logDir, config, side string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: dir, Usage: side + " dataDir"},
		&cli.StringFlag{Name: logDir, Usage: side + " dataLogDir (default: the dataDir)"},
		&cli.StringFlag{Name: config, Usage: "zoo.cfg to read " + side + " dataDir and dataLogDir (and settings) from"},
	}
}

// resolveDirs reads one side's flags. With neither a directory nor a
// config, fallback (the other side) is used when not nil.
func resolveDirs(c *cli.Context, dir, logDir, config string, fallback *datatools.Dirs) (*datatools.Dirs, error) {
	d := datatools.NewDirs("", "")
	if path := c.String(config); path != "" {
		cfg, err := loadConfig(path)
		if err != nil {
			return nil, cli.Exit(err.Error(), exitBadConfig)
		}
		d = datatools.DirsFromConfig(cfg)
	}
	if v := c.String(dir); v != "" {
		d.DataDir = v
	}
	if v := c.String(logDir); v != "" {
		d.DataLogDir = v
	}
	if d.DataDir == "" {
		if fallback == nil {
			return nil, cli.Exit(fmt.Sprintf("--%s or --%s is required", dir, config), exitUsage)
		}
		cp := *fallback
		if c.String(logDir) != "" {
			cp.DataLogDir = c.String(logDir)
		}
		return &cp, nil
	}
	if d.DataLogDir == "" {
		d.DataLogDir = d.DataDir
	}
	return &d, nil
}

func dumpLogCommand() *cli.Command {
	return &cli.Command{
		Name:      "dump-log",
		Usage:     "print the txns of a log, as ZooKeeper's TxnLogToolkit (zkTxnLogToolkit.sh) does",
		ArgsUsage: "<log.N file of Apache ZooKeeper | gozk dataLogDir or store directory>",
		Description: "A path to a file is read as an Apache ZooKeeper txn log (log.<zxid>); a directory as gozk's\n" +
			"store (the dataLogDir, or its gozk/ subdirectory). Text output follows TxnLogToolkit's layout;\n" +
			"--json prints one JSON object per txn instead.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "one JSON object per line per txn"},
			&cli.Int64Flag{Name: "from", Usage: "gozk store only: first zxid to print"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cli.Exit("dump-log takes one path", exitUsage)
			}
			err := datatools.DumpLog(os.Stdout, c.Args().First(), datatools.LogDumpOptions{JSON: c.Bool("json"), From: c.Int64("from")})
			if err != nil {
				return dataError("", err)
			}
			return nil
		},
	}
}

func dumpSnapshotCommand() *cli.Command {
	return &cli.Command{
		Name:      "dump-snapshot",
		Usage:     "print a snapshot, as ZooKeeper's SnapshotFormatter (zkSnapShotToolkit.sh) does",
		ArgsUsage: "<snapshot.N[.gz|.snappy] file of Apache ZooKeeper | gozk dataDir or store directory>",
		Description: "A path to a file is read as an Apache ZooKeeper snapshot; a directory as gozk's store, whose\n" +
			"newest snapshot is printed. Text output follows SnapshotFormatter's layout and order; --json prints\n" +
			"the whole snapshot as one JSON document.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "d", Usage: "print each node's data (base64), as SnapshotFormatter -d"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON: sessions, ACL map, nodes with stat and data, digest"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cli.Exit("dump-snapshot takes one path", exitUsage)
			}
			format := datatools.SnapshotText
			switch {
			case c.Bool("d") && c.Bool("json"):
				return cli.Exit("cannot specify both data dump (-d) and json mode (--json) in same call", exitUsage)
			case c.Bool("d"):
				format = datatools.SnapshotTextData
			case c.Bool("json"):
				format = datatools.SnapshotJSON
			}
			if err := datatools.DumpSnapshot(os.Stdout, c.Args().First(), datatools.SnapshotDumpOptions{Format: format}); err != nil {
				return dataError("", err)
			}
			return nil
		},
	}
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
		dst.Compression = zkfiles.ParseCompression(v)
	}
	res, err := datatools.Export(*src, *dst, datatools.ExportOptions{Force: c.Bool("force"), Log: c.App.Writer})
	if err != nil {
		return dataError("export: ", err)
	}
	fmt.Fprintf(c.App.Writer, "exported gozk's store in %s to %s (zxid 0x%x)\n", src.DataDir, res.Snapshot, res.Zxid)
	return nil
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
	res, err := datatools.Import(*src, *dst, datatools.ImportOptions{
		Force:                c.Bool("force"),
		TrustEmptySnapshot:   c.Bool("trust-empty-snapshot"),
		IgnoreDigestMismatch: c.Bool("ignore-digest-mismatch"),
		Log:                  out,
	})
	if err != nil {
		return dataError("import: ", err)
	}
	fmt.Fprintf(out, "imported %s into gozk's store in %s: zxid 0x%x, %d znodes, %d sessions\n",
		src.DataDir, dst.DataDir, res.Zxid, res.Nodes, res.Sessions)
	return nil
}
