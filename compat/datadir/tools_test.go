//go:build interop

package datadir

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/datatools"
	"github.com/gozk/gozk/persistence/zkfiles"
)

// TestDumpToolsMatchJava runs Java's TxnLogToolkit and SnapshotFormatter
// and gozk's (datatools.DumpLog and DumpSnapshot, behind `gozk data
// dump-log` / `dump-snapshot`) on the same files of a data directory Java
// just wrote (large values, binary data, many snapshots and logs): the log
// dumps must be identical, the snapshot dumps identical but for the order
// of siblings and sessions, which Java prints in hash order.
func TestDumpToolsMatchJava(t *testing.T) {
	_, _, dir := runJava(t, javaCase{name: "tools", snapCount: 40})
	ver := zkfiles.VersionPath(dir)
	entries, err := os.ReadDir(ver)
	if err != nil {
		t.Fatal(err)
	}
	logs, snaps := 0, 0
	for _, e := range entries {
		path := filepath.Join(ver, e.Name())
		switch {
		case strings.HasPrefix(e.Name(), "log."):
			logs++
			want := string(runJavaTool(t, "org.apache.zookeeper.server.persistence.TxnLogToolkit", path))
			var got strings.Builder
			if err := datatools.DumpLog(&got, path, datatools.LogDumpOptions{Location: time.UTC}); err != nil {
				t.Fatalf("%s: %v", e.Name(), err)
			}
			if got := got.String(); got != want {
				t.Errorf("%s: dump-log differs from TxnLogToolkit:\n%s", e.Name(), firstDiff(got, want))
			}
		case strings.HasPrefix(e.Name(), "snapshot."):
			if ok, _ := zkfiles.IsValidSnapshot(path); !ok {
				// Java was killed while writing it in the background;
				// its restore skips such a file too.
				t.Logf("skipping the incomplete %s", e.Name())
				continue
			}
			snaps++
			for _, d := range [][]string{nil, {"-d"}} {
				want := string(runJavaTool(t, "org.apache.zookeeper.server.SnapshotFormatter", append(d, path)...))
				o := datatools.SnapshotDumpOptions{Location: time.UTC}
				if d != nil {
					o.Format = datatools.SnapshotTextData
				}
				var b strings.Builder
				if err := datatools.DumpSnapshot(&b, path, o); err != nil {
					t.Fatalf("%s %v: %v", e.Name(), d, err)
				}
				got := b.String()
				gn, gr := snapshotBlocks(got)
				wn, wr := snapshotBlocks(want)
				if !slices.Equal(gn, wn) || !slices.Equal(gr, wr) {
					t.Errorf("%s %v: dump-snapshot differs from SnapshotFormatter:\n%s", e.Name(), d, firstDiff(strings.Join(gn, "----\n"), strings.Join(wn, "----\n")))
				}
			}
		}
	}
	if logs < 2 || snaps < 2 {
		t.Fatalf("expected several logs and snapshots, got %d and %d", logs, snaps)
	}
}

// snapshotBlocks splits SnapshotFormatter output into its sorted node
// blocks and the rest with sorted lines.
func snapshotBlocks(s string) (nodes []string, rest []string) {
	for _, p := range strings.Split(s, "----\n") {
		if strings.HasPrefix(p, "/") {
			nodes = append(nodes, p)
			continue
		}
		lines := strings.Split(p, "\n")
		slices.Sort(lines)
		rest = append(rest, strings.Join(lines, "\n"))
	}
	slices.Sort(nodes)
	return nodes, rest
}

// firstDiff shows the first differing line of two texts.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			if len(gl) > 300 {
				gl = gl[:300] + "..."
			}
			if len(wl) > 300 {
				wl = wl[:300] + "..."
			}
			return "line " + itoa(i+1) + ":\n gozk: " + gl + "\n java: " + wl
		}
	}
	return "(same lines)"
}
