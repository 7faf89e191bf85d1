//go:build interop

package datadir

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/javazk"
	"github.com/gozk/gozk/persistence/zkfiles"
)

// EnvUpdateFixtures makes TestGenerateFixtures rewrite the committed
// fixtures.
const EnvUpdateFixtures = "GOZK_UPDATE_FIXTURES"

// fixtureRoot is where the Java-made data directories live, relative to
// this package.
const fixtureRoot = "../../persistence/zkfiles/testdata/java-3.8.0"

// fixtureCases are the fixture data directories: one per snapshot
// compression.
var fixtureCases = []struct {
	name        string
	compression string
}{
	{"plain", ""},
	{"gz", "gz"},
	{"snappy", "snappy"},
}

// javaProps are the system properties of every Java server here: TTL
// nodes, and log files preallocated in 8 KiB steps so that fixtures stay
// small (the zero tail is still there).
func javaProps(compression string) map[string]string {
	p := map[string]string{
		"zookeeper.extendedTypesEnabled": "true",
		"zookeeper.preAllocSize":         "8",
		"user.timezone":                  "UTC",
	}
	if compression != "" {
		p["zookeeper.snapshot.compression.method"] = compression
	}
	return p
}

// TestGenerateFixtures makes the small data directories `go test` reads:
// Java 3.8.0 builds the tree, is killed, restarted (which writes a
// snapshot of everything so far), takes a few more writes and is killed
// again. So each directory holds snapshot.0, a log, the restart's snapshot
// and a log after it. Java's TxnLogToolkit and SnapshotFormatter outputs
// on every file are saved beside them under tools/.
func TestGenerateFixtures(t *testing.T) {
	if os.Getenv(EnvUpdateFixtures) != "1" {
		t.Skipf("set %s=1 to regenerate the fixtures", EnvUpdateFixtures)
	}
	for _, fc := range fixtureCases {
		t.Run(fc.name, func(t *testing.T) {
			srv := javazk.Start(t, javazk.Options{SystemProperties: javaProps(fc.compression), Config: serverConfig})
			l := buildTree(t, srv.Addr, workload{})
			l.c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if err := srv.Restart(ctx); err != nil {
				t.Fatal(err)
			}
			laterWrites(t, srv.Addr)
			srv.Stop()

			dst := saveFixture(t, srv.DataDir, fc.name)
			t.Logf("wrote %s", dst)
		})
	}
}

// saveFixture copies the version-2 directory of dataDir to the fixture
// directory name, with the outputs of Java's TxnLogToolkit and
// SnapshotFormatter on each of its files under tools/, and returns the
// fixture directory.
func saveFixture(t *testing.T, dataDir, name string) string {
	t.Helper()
	dst := filepath.Join(fixtureRoot, name)
	if err := os.RemoveAll(dst); err != nil {
		t.Fatal(err)
	}
	src := zkfiles.VersionPath(dataDir)
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	ver := zkfiles.VersionPath(dst)
	tools := filepath.Join(dst, "tools")
	for _, d := range []string{ver, tools} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ver, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
		var class string
		switch {
		case strings.HasPrefix(e.Name(), "log."):
			class = "org.apache.zookeeper.server.persistence.TxnLogToolkit"
		case strings.HasPrefix(e.Name(), "snapshot."):
			class = "org.apache.zookeeper.server.SnapshotFormatter"
		default:
			continue
		}
		out := runJavaTool(t, class, filepath.Join(ver, e.Name()))
		if err := os.WriteFile(filepath.Join(tools, e.Name()+".txt"), out, 0o644); err != nil {
			t.Fatal(err)
		}
		if class == "org.apache.zookeeper.server.SnapshotFormatter" {
			out := runJavaTool(t, class, "-d", filepath.Join(ver, e.Name()))
			if err := os.WriteFile(filepath.Join(tools, e.Name()+".d.txt"), out, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dst
}

// runJavaTool runs one of ZooKeeper's command-line tools on Java 3.8.0 in
// UTC and the en_US locale, and returns its standard output.
func runJavaTool(t testing.TB, class string, args ...string) []byte {
	t.Helper()
	inst, err := javazk.Lookup()
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	cmdArgs := []string{"-Duser.timezone=UTC", "-Duser.language=en", "-Duser.country=US",
		"-cp", strings.Join(inst.Classpath, string(os.PathListSeparator)), class}
	cmd := exec.Command(inst.Java, append(cmdArgs, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "TZ=UTC")
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", class, args, err, stderr.String())
	}
	return stdout.Bytes()
}
