package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/persistence"
	"github.com/gozk/gozk/server"
)

// exitDamaged is `gozk data verify`'s exit code for a data directory that
// is not sound.
const exitDamaged = 4

func init() {
	dataSubcommands = append(dataSubcommands, verifyCommand())
}

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:      "verify",
		Usage:     "check gozk's data directory offline: every txn, every snapshot, and a full recovery",
		ArgsUsage: "[dataDir]",
		Description: "Opens the stores read-only (the server must be stopped), checks the checksum of every\n" +
			"logged txn and every snapshot chunk, then recovers the tree as a starting server would\n" +
			"(newest valid snapshot, txns after it, digests). Exit status 0 when all is sound, " + fmt.Sprint(exitDamaged) + "\n" +
			"with a report naming each damaged snapshot, key and zxid otherwise, 1 when the check\n" +
			"itself could not run. The directories come from --config, or from dataDir and --data-log-dir.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "config", Aliases: []string{"c"}, Usage: "zoo.cfg naming dataDir and dataLogDir", TakesFile: true},
			&cli.StringFlag{Name: "data-log-dir", Usage: "dataLogDir when it is not dataDir"},
		},
		Action: func(c *cli.Context) error {
			cfg := conf.Defaults()
			if path := c.String("config"); path != "" {
				var err error
				if cfg, err = loadConfig(path); err != nil {
					return cli.Exit(err.Error(), exitBadConfig)
				}
			}
			switch {
			case c.NArg() == 1:
				cfg.DataDir = c.Args().First()
			case c.NArg() > 1 || c.String("config") == "":
				return cli.Exit("verify takes a dataDir or --config", exitUsage)
			}
			if d := c.String("data-log-dir"); d != "" {
				cfg.DataLogDir = d
			}
			sound, err := verifyDataDir(os.Stdout, persistence.StoreOptions{
				DataDir: cfg.DataDir, DataLogDir: cfg.DataLogDir, ReadOnly: true,
			}, db.Options{ExtendedTypesEnabled: cfg.ExtendedTypesEnabled, DigestEnabled: cfg.DigestEnabled},
				jute.FieldLimit(cfg.JuteMaxBuffer, cfg.JuteMaxBufferExtra))
			switch {
			case err != nil:
				return cli.Exit(err.Error(), exitRuntime)
			case !sound:
				return cli.Exit("the data directory is damaged", exitDamaged)
			}
			return nil
		},
	}
}

// verifyDataDir reports on the store to w and says whether it is sound.
// Its error means the check could not run (no store, store in use).
func verifyDataDir(w io.Writer, so persistence.StoreOptions, dbo db.Options, fieldLimit int) (bool, error) {
	store, err := persistence.OpenStore(so)
	if err != nil {
		if errors.Is(err, persistence.ErrCorrupt) {
			fmt.Fprintf(w, "DAMAGED: %v\n", err)
			return false, nil
		}
		return false, err
	}
	defer store.Close()
	sound := true
	damaged := func(format string, args ...any) {
		sound = false
		fmt.Fprintf(w, "DAMAGED: "+format+"\n", args...)
	}

	log := store.Log()
	first, err := log.FirstZxid()
	if err != nil {
		damaged("txn log %s: %v", log.Dir(), err)
	}
	n, err := log.Verify(func(ce *persistence.CorruptionError) { damaged("%v", ce) })
	if err != nil {
		damaged("txn log %s: %v", log.Dir(), err)
	}
	fmt.Fprintf(w, "txn log %s: %d txns, 0x%x to 0x%x, purged before 0x%x\n", log.Dir(), n, first, log.LastZxid(), log.PurgedBefore())

	infos, err := store.Snapshots()
	if err != nil {
		damaged("snapshot store %s: %v", store.SnapshotDir(), err)
	}
	for _, info := range infos {
		if info.Err == nil {
			_, info.Err = store.ReadSnapshot(info.Zxid, persistence.SnapshotVisitor{})
		}
		if info.Err != nil {
			damaged("%v", info.Err)
			continue
		}
		digest := "no digest"
		if d := info.Digest; d != nil {
			digest = fmt.Sprintf("digest %d at 0x%x", d.Digest, d.Zxid)
		}
		fmt.Fprintf(w, "snapshot 0x%x: %d nodes, %d ACLs, %d sessions, %d bytes, %s, taken %s\n",
			info.Zxid, info.Nodes, info.ACLs, info.Sessions, info.Bytes, digest, info.Created.Format(time.RFC3339))
	}
	if len(infos) == 0 {
		fmt.Fprintf(w, "snapshot store %s: no snapshots\n", store.SnapshotDir())
	}
	if e, err := store.Epochs(); err != nil {
		damaged("epochs: %v", err)
	} else if e.HasAccepted || e.HasCurrent {
		fmt.Fprintf(w, "epochs: accepted %d, current %d\n", e.Accepted, e.Current)
	}

	began := time.Now()
	tree, rec, err := server.Recover(store, dbo, fieldLimit)
	if err != nil {
		damaged("recovery fails: %v", err)
		return false, nil
	}
	from := "an empty tree"
	if rec.Snapshot != nil {
		from = fmt.Sprintf("snapshot 0x%x", rec.Snapshot.Zxid)
	}
	fmt.Fprintf(w, "recovery: %s + %d txns to zxid 0x%x: %d znodes, %d sessions, %d digest checks passed, in %s\n",
		from, rec.Txns, rec.Zxid, tree.NodeCount(), len(tree.Sessions()), rec.DigestChecks, time.Since(began).Round(time.Millisecond))
	if sound {
		fmt.Fprintln(w, "sound")
	}
	return sound, nil
}
