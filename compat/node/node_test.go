//go:build interop

package node

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

var update = flag.Bool("update", false, "rewrite testdata/client.golden from the Java run")

func TestMain(m *testing.M) { os.Exit(gozkproc.RunTests(m)) }

// runLimit bounds the whole script: a guard against a hung client, not a
// performance check.
const runLimit = 3 * time.Minute

type backend struct {
	name  string
	start func(t *testing.T) string
}

var backends = []backend{
	{name: "java", start: func(t *testing.T) string {
		return javazk.Start(t, javazk.Options{SystemProperties: map[string]string{
			"zookeeper.extendedTypesEnabled": "true",
		}}).Addr
	}},
	{name: "gozk", start: func(t *testing.T) string {
		return gozkproc.Start(t, gozkproc.Options{Config: []string{"extendedTypesEnabled=true"}}).Addr()
	}},
}

// result is one line of client.js's output.
type result struct {
	Check   string   `json:"check"`
	Facts   []string `json:"facts"`
	Errors  []string `json:"errors,omitempty"`
	Seconds float64  `json:"seconds,omitempty"`
}

// nodeJS returns the node binary, once the pinned client is installed in
// node_modules (make interop-deps runs npm ci).
func nodeJS(t *testing.T) string {
	t.Helper()
	skip := func(msg string) {
		if javazk.JavaRequired() {
			t.Fatalf("%s (%s=1 makes this fatal)", msg, javazk.EnvRequireJava)
		}
		t.Skip("skipping: " + msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		skip("node is not on PATH (Node 20 and npm are needed)")
	}
	pkg, err := os.ReadFile(filepath.Join("node_modules", "node-zookeeper-client", "package.json"))
	if err != nil {
		skip("node-zookeeper-client is not installed in compat/node/node_modules: run make interop-deps (npm ci)")
	}
	var meta struct{ Version string }
	json.Unmarshal(pkg, &meta)
	t.Logf("node-zookeeper-client %s", meta.Version)
	return node
}

func readGolden(t *testing.T) map[string][]string {
	t.Helper()
	golden := map[string][]string{}
	b, err := os.ReadFile(filepath.Join("testdata", "client.golden"))
	if err != nil {
		if *update {
			return golden
		}
		t.Fatalf("%v (run the java subtests with -update to create it)", err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r result
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("client.golden: %v: %q", err, l)
		}
		golden[r.Check] = r.Facts
	}
	return golden
}

// TestClient runs client.js (create in every mode, getData, setData,
// exists, getChildren, remove, getACL/setACL, transactions, addAuthInfo,
// data/children/exists watches, ephemerals on close) against each server.
// Each check is a subtest: it fails on any error the script saw, and its
// facts must equal the Java run's in testdata/client.golden.
func TestClient(t *testing.T) {
	node := nodeJS(t)
	golden := readGolden(t)
	var recorded []string
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			addr := b.start(t)
			ctx, cancel := context.WithTimeout(context.Background(), runLimit)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, "client.js", addr, "/node")
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
					t.Fatalf("client.js printed %q: %v\nstderr:\n%s", l, err, stderr.String())
				}
				results = append(results, r)
			}
			if err != nil && len(results) == 0 {
				t.Fatalf("client.js: %v\nstderr:\n%s", err, stderr.String())
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
						t.Fatalf("no facts for %s in client.golden (run the java subtests with -update)", r.Check)
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
				if err := os.WriteFile(filepath.Join("testdata", "client.golden"), []byte(text), 0o644); err != nil {
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
