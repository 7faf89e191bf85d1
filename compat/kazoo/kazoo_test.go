//go:build interop

package kazoo

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/suite"
)

var update = flag.Bool("update", false, "rewrite testdata/recipes.golden from the Java run")

func TestMain(m *testing.M) { os.Exit(gozkproc.RunTests(m)) }

// runLimit bounds the whole script: a guard against a hung client, not a
// performance check.
const runLimit = 5 * time.Minute

// DefaultPython is Debian's interpreter, the one python3-kazoo is
// installed for (a python3 earlier on PATH may not have kazoo).
const DefaultPython = "/usr/bin/python3"

// EnvPython names another interpreter that has kazoo.
const EnvPython = "GOZK_KAZOO_PYTHON"

// python returns an interpreter that can import kazoo, and its version.
func python(t *testing.T) string {
	t.Helper()
	py := os.Getenv(EnvPython)
	if py == "" {
		py = DefaultPython
	}
	out, err := exec.Command(py, "-c", "import kazoo.version; print(kazoo.version.__version__)").CombinedOutput()
	if err != nil {
		suite.Unavailable(t, fmt.Sprintf("%s cannot import kazoo (%v: %s); apt-get install -y python3-kazoo, or set %s", py, err, strings.TrimSpace(string(out)), EnvPython))
	}
	t.Logf("kazoo %s with %s", strings.TrimSpace(string(out)), py)
	return py
}

// TestRecipes runs recipes.py (kazoo's Lock, ReadLock/WriteLock,
// Semaphore, Election, Barrier, DoubleBarrier, Queue, LockingQueue, Party,
// ShallowParty, Counter, TreeCache, DataWatch/ChildrenWatch, raw watches
// and transactions, with several clients contending) against each
// server. Each check is a subtest: it fails on any invariant the script
// saw broken, and its facts must equal the Java run's.
func TestRecipes(t *testing.T) {
	py := python(t)
	suite.FactsProgram{
		Name:    "recipes.py",
		Command: func(addr string) []string { return []string{py, "recipes.py", addr, "/kazoo"} },
		Golden:  filepath.Join("testdata", "recipes.golden"),
		Limit:   runLimit,
		Update:  *update,
	}.Run(t)
}
