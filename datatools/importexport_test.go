package datatools

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/persistence"
	"github.com/gozk/gozk/persistence/zkfiles"
	"github.com/gozk/gozk/proto"
)

func fixtureDirs(name string) *Dirs {
	dir := filepath.Join(javaFixtures, name)
	return &Dirs{DataDir: dir, DataLogDir: dir, Tree: db.Options{DigestEnabled: true, ExtendedTypesEnabled: true}, FieldLimit: jute.DefaultFieldLimit}
}

func tmpDirs(t *testing.T) *Dirs {
	d := t.TempDir()
	return &Dirs{DataDir: d, DataLogDir: d, Tree: db.Options{DigestEnabled: true, ExtendedTypesEnabled: true}, FieldLimit: jute.DefaultFieldLimit}
}

// treeDump is a comparable picture of a tree: every node's data, ACL and
// stored stat, and the sessions.
type treeDump struct {
	nodes    map[string]string
	sessions map[int64]int32
	zxid     int64
	digest   int64
}

func dumpTree(t *testing.T, tree *db.Tree) treeDump {
	t.Helper()
	d := treeDump{nodes: map[string]string{}, sessions: tree.Sessions(), zxid: tree.LastProcessedZxid(), digest: tree.Digest()}
	err := tree.Walk(func(path string, data []byte, acl []proto.ACL, stat proto.StatPersisted) error {
		d.nodes[path] = fmt.Sprintf("%q null=%v acl=%v stat=%+v", data, data == nil, acl, stat)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestImportExportFixtures: each Java fixture imported into a gozk store
// and exported again reads back (as Java's restore reads it) to the very
// same tree, sessions, zxid and digest; and a second import into the same
// store is refused.
func TestImportExportFixtures(t *testing.T) {
	for _, name := range []string{"plain", "gz", "snappy"} {
		t.Run(name, func(t *testing.T) {
			src := fixtureDirs(name)
			orig, err := restoreJava(src, false)
			if err != nil {
				t.Fatal(err)
			}
			if orig.digests.checked == 0 || len(orig.digests.mismatches) > 0 {
				t.Fatalf("digest checks: %+v", orig.digests)
			}
			store := tmpDirs(t)
			rep, err := Import(*src, *store, ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Zxid != orig.tree.LastProcessedZxid() {
				t.Fatalf("imported at 0x%x, Java's data is at 0x%x", rep.Zxid, orig.tree.LastProcessedZxid())
			}
			if _, err := Import(*src, *store, ImportOptions{}); err == nil || !strings.Contains(err.Error(), "not empty") {
				t.Fatalf("second import into a full store: %v", err)
			}

			out := tmpDirs(t)
			out.Compression = zkfiles.CompressionOf("x." + name)
			res, err := Export(*store, *out, ExportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			path, zxid := res.Snapshot, res.Zxid
			if zxid != rep.Zxid || zkfiles.CompressionOf(path) != out.Compression {
				t.Fatalf("exported %s at 0x%x", path, zxid)
			}
			back, err := restoreJava(out, false)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := dumpTree(t, orig.tree), dumpTree(t, back.tree); !reflect.DeepEqual(a, b) {
				t.Fatalf("round trip differs:\n%+v\n%+v", a, b)
			}
			// A standalone server's directory has no epoch files, its
			// store keeps none, and the export writes none.
			if rep.Epochs != (zkfiles.Epochs{}) || res.Epochs != (zkfiles.Epochs{}) {
				t.Fatalf("epochs imported %+v, exported %+v", rep.Epochs, res.Epochs)
			}
			for _, f := range []string{zkfiles.AcceptedEpochFile, zkfiles.CurrentEpochFile} {
				if e, ok, err := zkfiles.ReadEpoch(filepath.Join(zkfiles.VersionPath(out.DataDir), f)); ok || err != nil {
					t.Fatalf("%s: %d %v %v", f, e, ok, err)
				}
			}
			if _, err := Export(*store, *out, ExportOptions{}); err == nil {
				t.Fatal("export over Java files without --force succeeded")
			}
			if _, err := Export(*store, *out, ExportOptions{Force: true}); err != nil {
				t.Fatalf("export --force: %v", err)
			}
			// --force on import moves the old store aside.
			if _, err := Import(*src, *store, ImportOptions{Force: true}); err != nil {
				t.Fatalf("import --force: %v", err)
			}
		})
	}
}

// TestInPlaceMigrationAndRollback: import beside the Java files (the
// same dataDir), then export back into the same version-2 while the old
// Java files are still there: allowed, because they are all older, and
// Java's restore then picks the exported snapshot.
func TestInPlaceMigrationAndRollback(t *testing.T) {
	dir := t.TempDir()
	src := fixtureDirs("snappy")
	ver := zkfiles.VersionPath(dir)
	if err := os.MkdirAll(ver, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(zkfiles.VersionPath(src.DataDir))
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(zkfiles.VersionPath(src.DataDir), e.Name()))
		os.WriteFile(filepath.Join(ver, e.Name()), b, 0o644)
	}
	d := &Dirs{DataDir: dir, DataLogDir: dir, Tree: src.Tree, FieldLimit: src.FieldLimit, Compression: zkfiles.Snappy}
	orig, err := restoreJava(d, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Import(*d, *d, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := Export(*d, *d, ExportOptions{})
	path := res.Snapshot
	if err != nil {
		t.Fatalf("rollback in place: %v", err)
	}
	back, err := restoreJava(d, false)
	if err != nil {
		t.Fatal(err)
	}
	if back.res.Snapshot.Path != path || back.res.Txns != 0 {
		t.Fatalf("Java would restore from %s with %d txns, want the export %s alone", back.res.Snapshot.Path, back.res.Txns, path)
	}
	if a, b := dumpTree(t, orig.tree), dumpTree(t, back.tree); !reflect.DeepEqual(a, b) {
		t.Fatalf("rollback differs:\n%+v\n%+v", a, b)
	}
}

// TestDumpGozkStore: dump-log and dump-snapshot read the gozk store an
// import wrote, in the same layout as for Java's files.
func TestDumpGozkStore(t *testing.T) {
	store := tmpDirs(t)
	if _, err := Import(*fixtureDirs("plain"), *store, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	d := &txnDumper{w: &buf, loc: time.UTC}
	if err := dumpGozkLog(d, store.DataLogDir, 0); err != nil {
		t.Fatal(err)
	}
	// The txns after the Java snapshot, printed as TxnLogToolkit printed
	// them from Java's log.
	want := toolOutput(t, filepath.Join(javaFixtures, "plain", "version-2", "log.2c"), ".txt")
	wantLines := strings.Split(want, "\n")
	gotLines := strings.Split(buf.String(), "\n")
	if len(gotLines) != len(wantLines) || !reflect.DeepEqual(gotLines[1:], wantLines[1:]) {
		t.Fatalf("gozk log dump:\n%s\nwant (after the first line):\n%s", buf.String(), want)
	}
	snap, err := loadGozkSnapshot(store.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	snap.writeText(&buf, false, time.UTC)
	wantSnap := toolOutput(t, filepath.Join(javaFixtures, "plain", "version-2", "snapshot.2b"), ".txt")
	gn, gr := snapshotBlocks(buf.String())
	wn, wr := snapshotBlocks(wantSnap)
	if !reflect.DeepEqual(gn, wn) || !reflect.DeepEqual(gr, wr) {
		t.Fatalf("gozk snapshot dump differs from SnapshotFormatter's on the Java snapshot:\n%s", buf.String())
	}
	if _, err := os.Stat(filepath.Join(store.DataDir, "gozk-snap")); err != nil {
		t.Fatal(err)
	}
}

// TestDigestReportSettles: a mismatch followed by checks that match up to
// the last one is settled (Java's fuzzy snapshot recorded its digest a txn
// early); one that the last check repeats, or that no check follows, is
// not.
func TestDigestReportSettles(t *testing.T) {
	what := func() string { return "mismatch" }
	for _, c := range []struct {
		name    string
		checks  []bool
		settled bool
		at      int64
	}{
		{"all match", []bool{true, true}, false, 0},
		{"mismatch then matches", []bool{true, false, false, true, true}, true, 4},
		{"mismatch last", []bool{false, true, false}, false, 0},
		{"only a mismatch", []bool{false}, false, 0},
		{"settles twice", []bool{false, true, false, true}, true, 4},
	} {
		var d digestReport
		for i, ok := range c.checks {
			d.record(int64(i+1), ok, what)
		}
		if d.settled() != c.settled || (c.settled && d.settledAt != c.at) || d.checked != len(c.checks) {
			t.Errorf("%s: settled %v at 0x%x after %d checks, want %v at 0x%x", c.name, d.settled(), d.settledAt, d.checked, c.settled, c.at)
		}
	}
}

// TestDumpSnapshotNewStore: a new store has no snapshot; DumpSnapshot
// says so with ErrNoSnapshot and prints nothing, in every format, while a
// store with a snapshot prints it.
func TestDumpSnapshotNewStore(t *testing.T) {
	dir := t.TempDir()
	store, err := persistence.OpenStore(persistence.StoreOptions{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	store.Close()
	for _, f := range []SnapshotFormat{SnapshotText, SnapshotTextData, SnapshotJSON} {
		var buf bytes.Buffer
		err := DumpSnapshot(&buf, dir, SnapshotDumpOptions{Format: f})
		if !errors.Is(err, ErrNoSnapshot) || buf.Len() != 0 || !strings.Contains(err.Error(), "no snapshot yet") {
			t.Errorf("format %d: %v, printed %q", f, err, buf.String())
		}
	}
	full := tmpDirs(t)
	if _, err := Import(*fixtureDirs("plain"), *full, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := DumpSnapshot(&buf, full.DataDir, SnapshotDumpOptions{Location: time.UTC}); err != nil || !strings.HasPrefix(buf.String(), "ZNode Details") {
		t.Errorf("store with a snapshot: %v\n%s", err, buf.String())
	}
}
