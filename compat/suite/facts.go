package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FactResult is one line of a facts program's output: the check's name,
// the facts that must be the same on every server (counts, orders, event
// sequences, error names) and the invariants the program saw broken.
type FactResult struct {
	Check   string   `json:"check"`
	Facts   []string `json:"facts"`
	Errors  []string `json:"errors,omitempty"`
	Seconds float64  `json:"seconds,omitempty"`
}

// FactsProgram is a check program that prints one FactResult per line
// (kazoo's recipes.py, node-zookeeper-client's client.js).
type FactsProgram struct {
	// Name names the program in messages ("recipes.py").
	Name string
	// Command is the program's argv against a server at addr.
	Command func(addr string) []string
	// Golden is the file of the Java run's facts, one FactResult (without
	// errors) per line.
	Golden string
	// Limit bounds one run: a guard against a hung client, not a
	// performance check.
	Limit time.Duration
	// Settings are the servers' settings.
	Settings Settings
	// Update rewrites Golden from the java run instead of comparing.
	Update bool
}

// Run runs the program against each backend. Each check is a subtest
// <backend>/<check> that fails on any error the program reported and on
// facts that differ from the golden's; a golden check the program did not
// report fails its backend. With Update, the java run's facts are written
// to the golden.
func (p FactsProgram) Run(t *testing.T) {
	t.Helper()
	golden := p.readGolden(t)
	var recorded []string
	for _, b := range Backends {
		t.Run(b.Name, func(t *testing.T) {
			srv := b.Start(t, p.Settings)
			ctx, cancel := context.WithTimeout(context.Background(), p.Limit)
			defer cancel()
			argv := p.Command(srv.Addr)
			cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			var results []FactResult
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				var r FactResult
				if l == "" {
					continue
				}
				if err := json.Unmarshal([]byte(l), &r); err != nil {
					t.Fatalf("%s printed %q: %v\nstderr:\n%s", p.Name, l, err, stderr.String())
				}
				results = append(results, r)
			}
			if err != nil && len(results) == 0 {
				t.Fatalf("%s: %v\nstderr:\n%s", p.Name, err, stderr.String())
			}
			record := p.Update && b.Name == "java"
			seen := map[string]bool{}
			for _, r := range results {
				seen[r.Check] = true
				t.Run(r.Check, func(t *testing.T) {
					for _, e := range r.Errors {
						t.Errorf("%s", e)
					}
					if record {
						line, _ := json.Marshal(FactResult{Check: r.Check, Facts: r.Facts})
						recorded = append(recorded, string(line))
						return
					}
					want, ok := golden[r.Check]
					if !ok {
						t.Fatalf("no facts for %s in %s (run the java subtests with -update)", r.Check, filepath.Base(p.Golden))
					}
					if d := DiffFacts(want, r.Facts); d != "" {
						t.Errorf("facts differ from Java's:\n%s", d)
					}
				})
			}
			if !p.Update {
				for name := range golden {
					if !seen[name] {
						t.Errorf("check %s did not run\nstderr:\n%s", name, stderr.String())
					}
				}
			}
			if record {
				text := strings.Join(recorded, "\n") + "\n"
				if err := os.WriteFile(p.Golden, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// readGolden returns the golden's facts by check; with Update, a missing
// golden is an empty one.
func (p FactsProgram) readGolden(t *testing.T) map[string][]string {
	t.Helper()
	golden := map[string][]string{}
	b, err := os.ReadFile(p.Golden)
	if err != nil {
		if p.Update {
			return golden
		}
		t.Fatalf("%v (run the java subtests with -update to create it)", err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r FactResult
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%s: %v: %q", filepath.Base(p.Golden), err, l)
		}
		golden[r.Check] = r.Facts
	}
	return golden
}

// DiffFacts lists, one line each, the facts at which got differs from
// the Java run's want; "" when they are the same.
func DiffFacts(want, got []string) string {
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
