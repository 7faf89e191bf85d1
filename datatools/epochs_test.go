package datatools

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gozk/gozk/persistence"
	"github.com/gozk/gozk/persistence/zkfiles"
)

// The ensemble fixture is member 1 of a Java 3.8.0 ensemble in its second
// epoch: acceptedEpoch and currentEpoch 2, last zxid 0x200000008.
const ensembleFixture = "ensemble"

// copyFixture copies a fixture's version-2 into a new data directory,
// leaving out the files named in skip, and returns its Dirs.
func copyFixture(t *testing.T, name string, skip ...string) *Dirs {
	t.Helper()
	d := tmpDirs(t)
	src := zkfiles.VersionPath(fixtureDirs(name).DataDir)
	dst := zkfiles.VersionPath(d.DataDir)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if contains(skip, e.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func writeVersionFile(t *testing.T, d *Dirs, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(zkfiles.VersionPath(d.DataDir), name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func storeEpochs(t *testing.T, d *Dirs) zkfiles.Epochs {
	t.Helper()
	s, err := d.openGozkStore(true)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	e, err := s.Epochs()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestEnsembleEpochsRoundTrip: a Java ensemble member's directory
// imported keeps its epochs in gozk's store; exported, it gets back the
// very acceptedEpoch and currentEpoch files Java wrote; imported again,
// the same epochs.
func TestEnsembleEpochsRoundTrip(t *testing.T) {
	src := fixtureDirs(ensembleFixture)
	store := tmpDirs(t)
	rep, err := Import(*src, *store, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := zkfiles.Epochs{Accepted: 2, HasAccepted: true, Current: 2, HasCurrent: true}
	if rep.Epochs != want || storeEpochs(t, store) != want || zkfiles.EpochOf(rep.Zxid) != 2 {
		t.Fatalf("imported epochs %+v, store %+v, zxid 0x%x", rep.Epochs, storeEpochs(t, store), rep.Zxid)
	}
	out := tmpDirs(t)
	res, err := Export(*store, *out, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Epochs != want {
		t.Fatalf("exported epochs %+v", res.Epochs)
	}
	for _, f := range []string{zkfiles.AcceptedEpochFile, zkfiles.CurrentEpochFile} {
		got, err := os.ReadFile(filepath.Join(zkfiles.VersionPath(out.DataDir), f))
		if err != nil {
			t.Fatal(err)
		}
		orig, _ := os.ReadFile(filepath.Join(zkfiles.VersionPath(src.DataDir), f))
		if string(got) != string(orig) {
			t.Fatalf("%s: exported %q, Java wrote %q", f, got, orig)
		}
		if _, err := os.Stat(filepath.Join(zkfiles.VersionPath(out.DataDir), f+".tmp")); !os.IsNotExist(err) {
			t.Fatalf("%s.tmp left behind: %v", f, err)
		}
	}
	again := tmpDirs(t)
	rep2, err := Import(*out, *again, ImportOptions{})
	if err != nil || rep2.Epochs != want || rep2.Zxid != rep.Zxid {
		t.Fatalf("second import: %+v, %v", rep2, err)
	}
}

// TestImportEpochFiles: the epoch files Java would start with are kept
// as Java would read them; those it would refuse, and a few it would
// take and then fail on, are refused with a message naming the file, and
// nothing is written.
func TestImportEpochFiles(t *testing.T) {
	type files = map[string]string
	const acc, cur, tmp = zkfiles.AcceptedEpochFile, zkfiles.CurrentEpochFile, zkfiles.CurrentEpochTmpFile
	for _, c := range []struct {
		name  string
		files files    // written over the fixture's
		skip  []string // fixture files left out
		want  zkfiles.Epochs
		err   string // the file at fault, then the message
	}{
		{name: "as written", want: zkfiles.Epochs{Accepted: 2, HasAccepted: true, Current: 2, HasCurrent: true}},
		{name: "accepted ahead", files: files{acc: "7"}, want: zkfiles.Epochs{Accepted: 7, HasAccepted: true, Current: 2, HasCurrent: true}},
		{name: "newline ends the line", files: files{acc: "3\n", cur: "2\r\nignored"}, want: zkfiles.Epochs{Accepted: 3, HasAccepted: true, Current: 2, HasCurrent: true}},
		{name: "lone CR ends the line", files: files{cur: "2\r9"}, want: zkfiles.Epochs{Accepted: 2, HasAccepted: true, Current: 2, HasCurrent: true}},
		{name: "no files", skip: []string{acc, cur}},
		{name: "current only", skip: []string{acc}, want: zkfiles.Epochs{Current: 2, HasCurrent: true}},
		{name: "accepted only", skip: []string{cur}, want: zkfiles.Epochs{Accepted: 2, HasAccepted: true}},
		{name: "tmp repairs a current epoch behind", files: files{cur: "1", tmp: "2"}, want: zkfiles.Epochs{Accepted: 2, HasAccepted: true, Current: 2, HasCurrent: true}},
		{name: "tmp not needed, not read", files: files{tmp: "garbage"}, want: zkfiles.Epochs{Accepted: 2, HasAccepted: true, Current: 2, HasCurrent: true}},

		{name: "accepted garbage", files: files{acc: "garbage"}, err: acc + `: "garbage" is not an epoch (a decimal number)`},
		{name: "current empty", files: files{cur: ""}, err: cur + `: "" is not an epoch (a decimal number)`},
		{name: "current with a blank", files: files{cur: " 2"}, err: cur + `: " 2" is not an epoch (a decimal number)`},
		{name: "current hex", files: files{cur: "0x2"}, err: cur + `: "0x2" is not an epoch (a decimal number)`},
		{name: "accepted negative", files: files{acc: "-1"}, err: acc + ": epoch -1 is negative"},
		{name: "current negative", files: files{cur: "-3"}, err: cur + ": epoch -3 is negative"},
		{name: "accepted below current", files: files{acc: "1"}, err: acc + ": zab: the accepted epoch is less than the current epoch: accepted epoch 1, current epoch 2 (Java refuses to start on this directory)"},
		{name: "accepted missing, current ahead of the zxid", skip: []string{acc}, files: files{cur: "3"},
			err: acc + ": zab: the accepted epoch is less than the current epoch: accepted epoch 2, current epoch 3"},
		{name: "current behind the last zxid", files: files{cur: "1"},
			err: cur + ": zab: the current epoch is older than the last zxid: current epoch 1, last zxid 0x200000008 (epoch 2), no currentEpoch.tmp (Java refuses to start on this directory)"},
		{name: "tmp needed and garbage", files: files{cur: "1", tmp: "x"},
			err: tmp + `: "x" is not an epoch (a decimal number) (Java refuses to start on this directory)`},
		{name: "tmp behind the last zxid too", files: files{cur: "0", tmp: "1"},
			err: tmp + ": epoch 1, which would replace currentEpoch (0), is older than the last zxid, 0x200000008 (epoch 2): Java would start with it and refuse its next start"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := copyFixture(t, ensembleFixture, c.skip...)
			for name, text := range c.files {
				writeVersionFile(t, src, name, text)
			}
			dst := tmpDirs(t)
			rep, err := Import(*src, *dst, ImportOptions{})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), filepath.Join(zkfiles.VersionPath(src.DataDir), c.err)) {
					t.Fatalf("error %v\nwant one containing %s", err, filepath.Join(zkfiles.VersionPath(src.DataDir), c.err))
				}
				// Refused before anything was written.
				if _, err := os.Stat(filepath.Join(dst.DataDir, persistence.SnapshotDirName)); !os.IsNotExist(err) {
					t.Fatalf("a refused import created gozk's store: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rep.Epochs != c.want || storeEpochs(t, dst) != c.want {
				t.Fatalf("imported %+v, store %+v; want %+v", rep.Epochs, storeEpochs(t, dst), c.want)
			}
		})
	}
}

// TestExportEpochFiles: the export writes the epochs the store has and
// no others; an acceptedEpoch already in the destination and higher is
// kept; epoch files left in the destination that Java would refuse next
// to the export are refused without --force and moved aside with it.
func TestExportEpochFiles(t *testing.T) {
	const acc, cur = zkfiles.AcceptedEpochFile, zkfiles.CurrentEpochFile
	withEpochs := tmpDirs(t)
	if _, err := Import(*fixtureDirs(ensembleFixture), *withEpochs, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	// The same data without epochs: what a standalone gozk server would
	// hold at an epoch-2 zxid.
	withoutEpochs := tmpDirs(t)
	if _, err := Import(*copyFixture(t, ensembleFixture, acc, cur), *withoutEpochs, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	read := func(d *Dirs) map[string]string {
		out := map[string]string{}
		for _, f := range []string{acc, cur} {
			if b, err := os.ReadFile(filepath.Join(zkfiles.VersionPath(d.DataDir), f)); err == nil {
				out[f] = string(b)
			}
		}
		return out
	}
	for _, c := range []struct {
		name    string
		store   *Dirs
		before  map[string]string // epoch files already in the destination
		want    map[string]string // after the export
		refused string            // without --force
	}{
		{name: "store epochs", store: withEpochs, want: map[string]string{acc: "2", cur: "2"}},
		{name: "over older files", store: withEpochs, before: map[string]string{acc: "1", cur: "1"}, want: map[string]string{acc: "2", cur: "2"}},
		{name: "accepted promise kept", store: withEpochs, before: map[string]string{acc: "5", cur: "4"}, want: map[string]string{acc: "5", cur: "2"}},
		{name: "garbage overwritten", store: withEpochs, before: map[string]string{acc: "x", cur: "y"}, want: map[string]string{acc: "2", cur: "2"}},
		{name: "none in the store", store: withoutEpochs, want: map[string]string{}},
		{name: "none in the store, usable files left", store: withoutEpochs, before: map[string]string{acc: "3", cur: "2"}, want: map[string]string{acc: "3", cur: "2"}},
		{name: "none in the store, stale current", store: withoutEpochs, before: map[string]string{acc: "1", cur: "1"}, want: map[string]string{},
			refused: "version-2/currentEpoch: zab: the current epoch is older than the last zxid: current epoch 1, last zxid 0x200000008 (epoch 2)"},
		{name: "none in the store, garbage left", store: withoutEpochs, before: map[string]string{acc: "x"}, want: map[string]string{},
			refused: `version-2/acceptedEpoch: "x" is not an epoch`},
		{name: "none in the store, accepted behind", store: withoutEpochs, before: map[string]string{acc: "2", cur: "3"}, want: map[string]string{},
			refused: "version-2/acceptedEpoch: zab: the accepted epoch is less than the current epoch: accepted epoch 2, current epoch 3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := tmpDirs(t)
			if c.before != nil {
				if err := os.MkdirAll(zkfiles.VersionPath(out.DataDir), 0o755); err != nil {
					t.Fatal(err)
				}
				for f, text := range c.before {
					writeVersionFile(t, out, f, text)
				}
			}
			_, err := Export(*c.store, *out, ExportOptions{})
			if c.refused != "" {
				if err == nil || !strings.Contains(err.Error(), c.refused) || !strings.Contains(err.Error(), "--force moves") {
					t.Fatalf("export over stale epoch files: %v; want %q", err, c.refused)
				}
				if got := read(out); !reflect.DeepEqual(got, c.before) {
					t.Fatalf("a refused export changed the epoch files: %q", got)
				}
				_, err = Export(*c.store, *out, ExportOptions{Force: true})
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := read(out); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("epoch files %q, want %q", got, c.want)
			}
		})
	}
}

// TestImportOverStoreWithEpochsOnly: a store that holds epochs and
// nothing else is not empty; --force replaces it, and the new store has
// only the epochs of the Java directory (none for a standalone one).
func TestImportOverStoreWithEpochsOnly(t *testing.T) {
	dst := tmpDirs(t)
	s, err := dst.openGozkStore(false)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetAcceptedEpoch(5); err != nil {
		t.Fatal(err)
	}
	s.Close()
	src := fixtureDirs("plain")
	if _, err := Import(*src, *dst, ImportOptions{}); err == nil || !strings.Contains(err.Error(), "epochs: accepted 5, current none); --force replaces it") {
		t.Fatalf("import over a store with epochs: %v", err)
	}
	if _, err := Import(*src, *dst, ImportOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if e := storeEpochs(t, dst); e != (zkfiles.Epochs{}) {
		t.Fatalf("epochs after the import: %+v", e)
	}
}
