//go:build interop

package curator

import (
	"os"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/javaprog"
)

func TestMain(m *testing.M) { os.Exit(gozkproc.RunTests(m)) }

// runLimit bounds one run of the program; a guard against a hung client.
const runLimit = 4 * time.Minute

// tickTime is short so that the clients' 4 s sessions are within the
// server's bounds and TTL nodes are reaped quickly.
const tickTime = 500

// TestCurator runs CuratorCheck against Java (java/<check>) and gozk
// (gozk/<check>). GOZK_CURATOR_CHECKS names a subset of checks to run.
func TestCurator(t *testing.T) {
	prog := javaprog.Compile(t, "CuratorCheck", append(javaprog.CuratorJars, javaprog.ZooKeeperJars...),
		"testdata/CuratorCheck.java", "../javaprog/java/Checks.java")
	prog.RunOnBackends(t, tickTime, runLimit, "GOZK_CURATOR_CHECKS", nil)
}
