package datatools

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// javaFixtures holds data directories written by ZooKeeper 3.8.0 and, in
// each tools/ directory, what Java's TxnLogToolkit and SnapshotFormatter
// printed for every file (in UTC and the en_US locale); see
// compat/datadir's TestGenerateFixtures.
const javaFixtures = "../persistence/zkfiles/testdata/java-3.8.0"

func fixtureFiles(t *testing.T, prefix string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(javaFixtures, "*", "version-2", prefix+".*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no %s fixtures: %v", prefix, err)
	}
	return files
}

func toolOutput(t *testing.T, file, suffix string) string {
	t.Helper()
	dir := filepath.Dir(filepath.Dir(file))
	b, err := os.ReadFile(filepath.Join(dir, "tools", filepath.Base(file)+suffix))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDumpLogMatchesTxnLogToolkit: the text dump of each Java log is
// byte for byte what TxnLogToolkit printed.
func TestDumpLogMatchesTxnLogToolkit(t *testing.T) {
	for _, f := range fixtureFiles(t, "log") {
		var buf bytes.Buffer
		d := &txnDumper{w: &buf, loc: time.UTC}
		if err := d.javaLog(f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if want := toolOutput(t, f, ".txt"); buf.String() != want {
			t.Errorf("%s: dump differs from TxnLogToolkit's\n--- got\n%s\n--- want\n%s", f, buf.String(), want)
		}
	}
}

// snapshotBlocks splits SnapshotFormatter output into its node blocks,
// in the order printed, and the rest, whose session lines are sorted (Java
// prints them in its session map's order).
func snapshotBlocks(s string) (nodes []string, rest []string) {
	parts := strings.Split(s, "----\n")
	for _, p := range parts {
		if strings.HasPrefix(p, "/") {
			nodes = append(nodes, p)
			continue
		}
		lines := strings.Split(p, "\n")
		slices.Sort(lines)
		rest = append(rest, strings.Join(lines, "\n"))
	}
	return nodes, rest
}

// TestDumpSnapshotMatchesSnapshotFormatter: the text dump of each Java
// snapshot, plain and with -d, has SnapshotFormatter's lines, siblings in
// its order; only the order of sessions (Java's hash order) may differ.
func TestDumpSnapshotMatchesSnapshotFormatter(t *testing.T) {
	for _, f := range fixtureFiles(t, "snapshot") {
		for _, withData := range []bool{false, true} {
			snap, err := loadJavaSnapshot(f)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			var buf bytes.Buffer
			snap.writeText(&buf, withData, time.UTC)
			suffix := ".txt"
			if withData {
				suffix = ".d.txt"
			}
			want := toolOutput(t, f, suffix)
			gotNodes, gotRest := snapshotBlocks(buf.String())
			wantNodes, wantRest := snapshotBlocks(want)
			if !slices.Equal(gotNodes, wantNodes) || !slices.Equal(gotRest, wantRest) {
				t.Errorf("%s (data %v): dump differs from SnapshotFormatter's\n--- got\n%s\n--- want\n%s", f, withData, buf.String(), want)
			}
		}
	}
}
