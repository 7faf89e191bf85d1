//go:build interop

package datadir

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/javazk"
	"github.com/gozk/gozk/compat/zkwire"
	"github.com/gozk/gozk/persistence/zkfiles"
)

func TestMain(m *testing.M) { os.Exit(gozkproc.RunTests(m)) }

// gozkConfig are the zoo.cfg lines of every gozk server here.
var gozkConfig = append([]string{"extendedTypesEnabled=true"}, serverConfig...)

// runData runs `gozk data <args>` and fails the test on an error.
func runData(t *testing.T, args ...string) string {
	t.Helper()
	bin, err := gozkproc.Binary()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, append([]string{"data"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("gozk data %v: %v\n%s", args, err, out)
	}
	t.Logf("gozk data %v:\n%s", args, out)
	return string(out)
}

// startJavaOn starts Java 3.8.0 on an existing data directory.
func startJavaOn(t *testing.T, dataDir string, props map[string]string) *javazk.Server {
	return javazk.Start(t, javazk.Options{SystemProperties: props, Config: append([]string{"dataDir=" + dataDir}, serverConfig...)})
}

// javaState builds the tree on Java and leaves the data directory in the
// shape the case asks for; it returns the state Java serves at the end,
// the live session and the data directory.
type javaCase struct {
	name        string
	compression string
	snapCount   int  // zookeeper.snapCount; 0 = Java's default
	restart     bool // restart before the final kill: the startup snapshot holds everything
	noDigest    bool // zookeeper.digest.enabled=false: no digests in snapshots or txns
	logDir      bool // a dataLogDir apart from the dataDir
}

var javaCases = []javaCase{
	// Killed: the newest state is only in log files.
	{name: "killed-logs-only"},
	// Restarted, then killed: the snapshot Java takes at start-up holds
	// everything (Java has no graceful stop).
	{name: "stopped-after-snapshot", restart: true},
	// Many fuzzy snapshots and rolled log files.
	{name: "snapcount-20", snapCount: 20},
	{name: "gz", compression: "gz", restart: true, snapCount: 50},
	{name: "snappy", compression: "snappy", restart: true, snapCount: 50},
	{name: "no-digest", noDigest: true, snapCount: 40},
	{name: "separate-log-dir", logDir: true, snapCount: 40},
}

func (jc javaCase) props() map[string]string {
	p := javaProps(jc.compression)
	delete(p, "zookeeper.preAllocSize")
	if jc.snapCount > 0 {
		p["zookeeper.snapCount"] = itoa(jc.snapCount)
	}
	if jc.noDigest {
		p["zookeeper.digest.enabled"] = "false"
	}
	return p
}

func itoa(n int) string {
	b := []byte{}
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	if len(b) == 0 {
		return "0"
	}
	return string(b)
}

// runJava builds the tree on Java and stops Java as jc says. It returns
// Java's final state, the live session and the data directory (with
// jc.logDir, the dataLogDir is <dataDir>-log).
func runJava(t *testing.T, jc javaCase) (state, *live, string) {
	t.Helper()
	cfg := serverConfig
	if jc.logDir {
		// javazk puts the dataDir in a directory of its own; the log
		// directory goes next to the test's other files.
		cfg = append([]string{"dataLogDir=" + logDirFor(t)}, serverConfig...)
	}
	srv := javazk.Start(t, javazk.Options{SystemProperties: jc.props(), Config: cfg})
	l := buildTree(t, srv.Addr, workload{big: true})
	laterWrites(t, srv.Addr)
	if jc.restart {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := srv.Restart(ctx); err != nil {
			t.Fatal(err)
		}
	}
	want := captureState(t, srv.Addr)
	srv.Stop() // SIGKILL
	l.c.Close()
	return want, l, srv.DataDir
}

// logDirs holds the dataLogDir of each case that has a separate one.
var logDirs = map[string]string{}

// logDirFor is the dataLogDir of the running case, made on first use.
func logDirFor(t *testing.T) string {
	if d, ok := logDirs[t.Name()]; ok {
		return d
	}
	d := filepath.Join(t.TempDir(), "datalog")
	logDirs[t.Name()] = d
	// With -count, the next run of the case has the same name and must
	// not reuse this (removed) directory.
	t.Cleanup(func() { delete(logDirs, t.Name()) })
	return d
}

// TestJavaToGozk: a tree made by Java, imported, served by gozk exactly
// as Java served it: every node's data, ACL, children and Stat, the last
// zxid, and the live session with its ephemerals.
func TestJavaToGozk(t *testing.T) {
	for _, jc := range javaCases {
		t.Run(jc.name, func(t *testing.T) {
			want, l, javaDir := runJava(t, jc)
			if jc.compression != "" {
				snaps, _ := zkfiles.ListSnapshots(zkfiles.VersionPath(javaDir))
				if len(snaps) == 0 || zkfiles.CompressionOf(snaps[0].Path).String() != jc.compression {
					t.Fatalf("Java wrote no %s snapshot: %v", jc.compression, snaps)
				}
			}
			gozkDir := filepath.Join(t.TempDir(), "gozk-data")
			args := []string{"import", "--from", javaDir, "--to", gozkDir}
			if jc.logDir {
				logs, _ := zkfiles.ListLogs(zkfiles.VersionPath(logDirFor(t)))
				snapLogs, _ := zkfiles.ListLogs(zkfiles.VersionPath(javaDir))
				if len(logs) == 0 || len(snapLogs) != 0 {
					t.Fatalf("Java's logs are not in the dataLogDir: %v / %v", logs, snapLogs)
				}
				args = append(args, "--from-log-dir", logDirFor(t))
			}
			runData(t, args...)
			p := gozkproc.Start(t, gozkproc.Options{Config: append([]string{"dataDir=" + gozkDir}, gozkConfig...)})
			checkLiveSession(t, p.Addr(), l)
			got := captureState(t, p.Addr())
			compareTrees(t, "java", want.Tree, "gozk", got.Tree)
			if jc.restart || jc.snapCount == 0 {
				// Java served from the snapshot gozk loads, or from the
				// log replayed over its first, empty snapshot, as gozk
				// does: both rebuilt the same children sets.
				compareChildOrder(t, "java", want.Tree, "gozk", got.Tree)
			}
			// Our capture on Java cost 2 zxids, the checks on gozk cost
			// the live session's resume nothing and the new capture
			// session's createSession one.
			if got.LastZxid != want.LastZxid+2 {
				t.Errorf("gozk's last zxid is 0x%x, Java's was 0x%x (+2 expected for the capture sessions)", got.LastZxid, want.LastZxid)
			}
		})
	}
}

// TestGozkToJava: a tree made on gozk, exported, served by Java 3.8.0
// exactly as gozk served it.
func TestGozkToJava(t *testing.T) {
	for _, compression := range []string{"none", "gz", "snappy"} {
		t.Run(compression, func(t *testing.T) {
			p := gozkproc.Start(t, gozkproc.Options{Config: gozkConfig})
			l := buildTree(t, p.Addr(), workload{big: true})
			laterWrites(t, p.Addr())
			want := captureState(t, p.Addr())
			p.Stop()
			l.c.Close()
			javaDir := filepath.Join(t.TempDir(), "java-data")
			runData(t, "export", "--from", p.DataDir, "--to", javaDir, "--compression", compression)
			srv := startJavaOn(t, javaDir, javaProps(""))
			checkLiveSession(t, srv.Addr, l)
			got := captureState(t, srv.Addr)
			compareTrees(t, "gozk", want.Tree, "java", got.Tree)
			if got.LastZxid != want.LastZxid+2 {
				t.Errorf("Java's last zxid is 0x%x, gozk's was 0x%x (+2 expected for the capture sessions)", got.LastZxid, want.LastZxid)
			}
		})
	}
}

// TestJavaGozkJavaRoundTrip: Java's data through gozk's store and back
// gives Java exactly the tree, sessions and zxid it had: first straight
// through the tools, then with gozk serving in between.
func TestJavaGozkJavaRoundTrip(t *testing.T) {
	jc := javaCase{name: "roundtrip", snapCount: 30}
	want, l, javaDir := runJava(t, jc)

	gozkDir := filepath.Join(t.TempDir(), "gozk-data")
	runData(t, "import", "--from", javaDir, "--to", gozkDir)
	backDir := filepath.Join(t.TempDir(), "java-again")
	runData(t, "export", "--from", gozkDir, "--to", backDir)
	srv := startJavaOn(t, backDir, jc.props())
	checkLiveSession(t, srv.Addr, l)
	got := captureState(t, srv.Addr)
	srv.Stop()
	compareTrees(t, "java before", want.Tree, "java after", got.Tree)
	if got.LastZxid != want.LastZxid+2 {
		t.Errorf("after the round trip Java's last zxid is 0x%x, it was 0x%x (+2 for the capture sessions)", got.LastZxid, want.LastZxid)
	}

	// Again, with gozk serving (and taking the capture session's txns) in
	// the middle.
	p := gozkproc.Start(t, gozkproc.Options{Config: append([]string{"dataDir=" + gozkDir}, gozkConfig...)})
	mid := captureState(t, p.Addr())
	compareTrees(t, "java", want.Tree, "gozk", mid.Tree)
	p.Stop()
	againDir := filepath.Join(t.TempDir(), "java-third")
	runData(t, "export", "--from", gozkDir, "--to", againDir, "--compression", "snappy")
	srv2 := startJavaOn(t, againDir, jc.props())
	checkLiveSession(t, srv2.Addr, l)
	final := captureState(t, srv2.Addr)
	compareTrees(t, "gozk", mid.Tree, "java", final.Tree)
	if final.LastZxid != mid.LastZxid+2 {
		t.Errorf("Java's last zxid is 0x%x, gozk's was 0x%x (+2)", final.LastZxid, mid.LastZxid)
	}
}

// TestInPlaceMigrationAndRollback is the operator's path: Java's dataDir
// imported in place (gozk's store beside version-2/), gozk served from
// the same dataDir and taking more writes, then exported in place over
// the old Java files and Java started again on that dataDir.
func TestInPlaceMigrationAndRollback(t *testing.T) {
	jc := javaCase{name: "in-place", snapCount: 30}
	want, l, dir := runJava(t, jc)
	runData(t, "import", "--from", dir)
	p := gozkproc.Start(t, gozkproc.Options{Config: append([]string{"dataDir=" + dir}, gozkConfig...)})
	mid := captureState(t, p.Addr())
	compareTrees(t, "java", want.Tree, "gozk", mid.Tree)
	laterGozkWrites(t, p.Addr())
	after := captureState(t, p.Addr())
	p.Stop()
	runData(t, "export", "--from", dir)
	srv := startJavaOn(t, dir, jc.props())
	checkLiveSession(t, srv.Addr, l)
	got := captureState(t, srv.Addr)
	compareTrees(t, "gozk", after.Tree, "java", got.Tree)
	if got.LastZxid != after.LastZxid+2 {
		t.Errorf("Java's last zxid is 0x%x, gozk's was 0x%x (+2)", got.LastZxid, after.LastZxid)
	}
}

// laterGozkWrites changes the tree on gozk after the import.
func laterGozkWrites(t *testing.T, addr string) {
	t.Helper()
	c := connect(t, addr, zkwire.Options{})
	defer c.Close()
	must[string](t, "create")(c.Create("/written-on-gozk", []byte("gozk"), digestACL, 0))
	must[string](t, "create")(c.Create("/seq/n-", []byte("gozk seq"), open, 2))
	mustErr(t, "delete", c.Delete("/app/utf8-é", -1))
}
