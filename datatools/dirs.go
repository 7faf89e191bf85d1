package datatools

import (
	"fmt"
	"os"
	"time"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/persistence"
	"github.com/gozk/gozk/persistence/zkfiles"
)

// Dirs are a server's dataDir and dataLogDir, as zoo.cfg names them, with
// the settings that matter for reading and writing their files.
type Dirs struct {
	// DataDir holds Java's snapshots and epochs (version-2/) and gozk's
	// snapshot store (gozk-snap/).
	DataDir string
	// DataLogDir holds Java's log files (version-2/) and gozk's txn log
	// (gozk/); "" means DataDir.
	DataLogDir string
	// Tree are extendedTypesEnabled and digest.enabled. Mind that the
	// zero value turns the digest off; NewDirs has zoo.cfg's default.
	Tree db.Options
	// FieldLimit is jute's field limit (jute.maxbuffer + extra); 0 means
	// jute.DefaultFieldLimit.
	FieldLimit int
	// Compression is zookeeper.snapshot.compression.method, for the Java
	// snapshot Export writes.
	Compression zkfiles.Compression
}

// NewDirs returns Dirs with zoo.cfg's defaults (digest on, the default
// jute limit, no compression).
func NewDirs(dataDir, dataLogDir string) Dirs {
	return Dirs{DataDir: dataDir, DataLogDir: dataLogDir, Tree: db.Options{DigestEnabled: true}, FieldLimit: jute.DefaultFieldLimit}
}

// DirsFromConfig returns the directories and settings of a zoo.cfg.
func DirsFromConfig(cfg *conf.Config) Dirs {
	d := Dirs{
		DataDir:    cfg.DataDir,
		DataLogDir: cfg.DataLogDir,
		Tree:       db.Options{ExtendedTypesEnabled: cfg.ExtendedTypesEnabled, DigestEnabled: cfg.DigestEnabled},
		FieldLimit: jute.FieldLimit(cfg.JuteMaxBuffer, cfg.JuteMaxBufferExtra),
	}
	for _, k := range []string{"zookeeper.snapshot.compression.method", "snapshot.compression.method"} {
		if p, ok := cfg.Properties[k]; ok {
			d.Compression = zkfiles.ParseCompression(p.Value)
		}
	}
	return d
}

func (d *Dirs) logDir() string {
	if d.DataLogDir == "" {
		return d.DataDir
	}
	return d.DataLogDir
}

func (d *Dirs) limit() int {
	if d.FieldLimit == 0 {
		return jute.DefaultFieldLimit
	}
	return d.FieldLimit
}

// javaVersionDirs returns the version-2 directories of a Java data
// directory: snapshots (and epochs) under dataDir, logs under dataLogDir.
func (d *Dirs) javaVersionDirs() (snap, log string) {
	return zkfiles.VersionPath(d.DataDir), zkfiles.VersionPath(d.logDir())
}

// openGozkStore opens the gozk store of d.
func (d *Dirs) openGozkStore(readOnly bool) (*persistence.Store, error) {
	return persistence.OpenStore(persistence.StoreOptions{DataDir: d.DataDir, DataLogDir: d.logDir(), ForceSync: true, ReadOnly: readOnly})
}

// moveAside renames path to path.replaced-<time> when it exists, and
// returns the new name ("" when there was nothing).
func moveAside(path string) (string, error) {
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return "", nil
	}
	to := fmt.Sprintf("%s.replaced-%s", path, time.Now().UTC().Format("20060102T150405.000000000"))
	if err := os.Rename(path, to); err != nil {
		return "", err
	}
	return to, nil
}
