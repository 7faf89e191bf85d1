//go:build interop

package kazoo

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/javazk"
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

type backend struct {
	name  string
	start func(t *testing.T) string
}

var backends = []backend{
	{name: "java", start: func(t *testing.T) string { return javazk.Start(t, javazk.Options{}).Addr }},
	{name: "gozk", start: func(t *testing.T) string { return gozkproc.Start(t, gozkproc.Options{}).Addr() }},
}

// result is one line of recipes.py's output.
type result struct {
	Check   string   `json:"check"`
	Facts   []string `json:"facts"`
	Errors  []string `json:"errors,omitempty"`
	Seconds float64  `json:"seconds,omitempty"`
}

// python returns an interpreter that can import kazoo, and its version.
func python(t *testing.T) string {
	t.Helper()
	py := os.Getenv(EnvPython)
	if py == "" {
		py = DefaultPython
	}
	out, err := exec.Command(py, "-c", "import kazoo.version; print(kazoo.version.__version__)").CombinedOutput()
	if err != nil {
		msg := fmt.Sprintf("%s cannot import kazoo (%v: %s); apt-get install -y python3-kazoo, or set %s", py, err, strings.TrimSpace(string(out)), EnvPython)
		if javazk.JavaRequired() {
			t.Fatalf("%s (%s=1 makes this fatal)", msg, javazk.EnvRequireJava)
		}
		t.Skip("skipping: " + msg)
	}
	t.Logf("kazoo %s with %s", strings.TrimSpace(string(out)), py)
	return py
}

func readGolden(t *testing.T) map[string][]string {
	t.Helper()
	golden := map[string][]string{}
	b, err := os.ReadFile(filepath.Join("testdata", "recipes.golden"))
	if err != nil {
		if *update {
			return golden
		}
		t.Fatalf("%v (run the java subtests with -update to create it)", err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r result
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("recipes.golden: %v: %q", err, l)
		}
		golden[r.Check] = r.Facts
	}
	return golden
}

// TestRecipes runs recipes.py (kazoo's Lock, ReadLock/WriteLock,
// Semaphore, Election, Barrier, DoubleBarrier, Queue, LockingQueue, Party,
// ShallowParty, Counter, TreeCache, DataWatch/ChildrenWatch, raw watches
// and transactions, with several clients contending) against each
// server. Each check is a subtest: it fails on any invariant the script
// saw broken, and its facts must equal the Java run's.
func TestRecipes(t *testing.T) {
	py := python(t)
	golden := readGolden(t)
	var recorded []string
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			addr := b.start(t)
			ctx, cancel := context.WithTimeout(context.Background(), runLimit)
			defer cancel()
			cmd := exec.CommandContext(ctx, py, "recipes.py", addr, "/kazoo")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			var results []result
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				var r result
				if l == "" {
					continue
				}
				if err := json.Unmarshal([]byte(l), &r); err != nil {
					t.Fatalf("recipes.py printed %q: %v\nstderr:\n%s", l, err, stderr.String())
				}
				results = append(results, r)
			}
			if err != nil && len(results) == 0 {
				t.Fatalf("recipes.py: %v\nstderr:\n%s", err, stderr.String())
			}
			seen := map[string]bool{}
			for _, r := range results {
				seen[r.Check] = true
				t.Run(r.Check, func(t *testing.T) {
					for _, e := range r.Errors {
						t.Errorf("%s", e)
					}
					if *update && b.name == "java" {
						line, _ := json.Marshal(result{Check: r.Check, Facts: r.Facts})
						recorded = append(recorded, string(line))
						return
					}
					want, ok := golden[r.Check]
					if !ok {
						t.Fatalf("no facts for %s in recipes.golden (run the java subtests with -update)", r.Check)
					}
					if d := diffFacts(want, r.Facts); d != "" {
						t.Errorf("facts differ from Java's:\n%s", d)
					}
				})
			}
			if !*update {
				for name := range golden {
					if !seen[name] {
						t.Errorf("check %s did not run\nstderr:\n%s", name, stderr.String())
					}
				}
			}
			if *update && b.name == "java" {
				text := strings.Join(recorded, "\n") + "\n"
				if err := os.WriteFile(filepath.Join("testdata", "recipes.golden"), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func diffFacts(want, got []string) string {
	var b strings.Builder
	for i := 0; i < len(want) || i < len(got); i++ {
		w, g := "(none)", "(none)"
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			fmt.Fprintf(&b, "  fact %d: java %q, got %q\n", i+1, w, g)
		}
	}
	return b.String()
}
