//go:build chaos

package chaos

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/javazk"
)

func TestMain(m *testing.M) { os.Exit(gozkproc.RunTests(m)) }

// TestChaos runs the fault matrix: every layout (and the all-Java
// control) under every nemesis that applies to it, each cell with every
// workload running through every member. One pass by default;
// CHAOS_TIME=30m repeats passes, with new seeds, until that much time
// has gone. CHAOS_LAYOUTS and CHAOS_NEMESES (regular expressions) narrow
// the matrix; CHAOS_REPORT names a file for the results table.
func TestChaos(t *testing.T) {
	var soak time.Duration
	if v := os.Getenv("CHAOS_TIME"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("CHAOS_TIME=%q: %v", v, err)
		}
		soak = d
	}
	layoutRE := envRegexp(t, "CHAOS_LAYOUTS")
	nemesisRE := envRegexp(t, "CHAOS_NEMESES")
	_, javaErr := javazk.Lookup()
	if javaErr != nil && os.Getenv("GOZK_REQUIRE_JAVA") == "1" {
		t.Fatalf("Java is required: %v", javaErr)
	}

	start := time.Now()
	var rows []Row
	seed := time.Now().UnixNano()
	if v := os.Getenv("CHAOS_SEED"); v != "" {
		fmt.Sscan(v, &seed)
	}
	t.Logf("seed %d (CHAOS_SEED repeats a run's choices)", seed)
	for pass := 1; ; pass++ {
		for _, layout := range append(append([]Layout(nil), Layouts...), JavaControl) {
			if !layoutRE.MatchString(layout.Name) {
				continue
			}
			if javaErr != nil && usesJava(layout) {
				t.Logf("%s: skipped, no Java (%v)", layout.Name, javaErr)
				continue
			}
			var nemeses []Nemesis
			for _, n := range Nemeses() {
				if n.Applies(layout) && nemesisRE.MatchString(n.Name) {
					nemeses = append(nemeses, n)
				}
			}
			if len(nemeses) == 0 {
				continue
			}
			t.Run(fmt.Sprintf("pass%d/%s", pass, layout.Name), func(t *testing.T) {
				rows = append(rows, runLayout(t, layout, nemeses, seed+int64(pass)*1000)...)
			})
		}
		if soak == 0 || time.Since(start) > soak {
			break
		}
	}
	table := Summary(rows) + "\n" + Table(rows)
	t.Logf("results after %v:\n%s", time.Since(start).Round(time.Second), table)
	if path := os.Getenv("CHAOS_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
			t.Error(err)
		}
	}
}

func runLayout(t *testing.T, layout Layout, nemeses []Nemesis, seed int64) []Row {
	ctx := context.Background()
	dir := t.TempDir()
	c, err := StartCluster(ctx, dir, layout, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		c.Close()
		if t.Failed() {
			for _, m := range c.Members {
				t.Logf("%v log tail:\n%s", m, m.LogTail(40))
			}
		}
		keepLogs(t, c)
	}()
	control := !hasGozk(layout)
	var rows []Row
	for i, n := range nemeses {
		cellSeed := seed + int64(i)
		row, err := RunCell(ctx, c, n, AllWorkloads(), cellSeed, DefaultTiming, t.Logf)
		rows = append(rows, row)
		if err != nil {
			t.Fatalf("%s / %s: %v", layout.Name, n.Name, err)
		}
		for _, r := range row.Results {
			if r.Passed() {
				continue
			}
			msg := fmt.Sprintf("%s / %s / %s: lost %d, duplicated %d, anomalies: %s",
				layout.Name, n.Name, r.Workload, r.Lost, r.Duplicated, strings.Join(r.Anomalies, "; "))
			if control {
				t.Logf("Java control finding: %s", msg)
			} else {
				t.Error(msg)
			}
		}
		t.Logf("%s / %s: %d faults, longest write outage %v", layout.Name, n.Name, row.Faults, row.Recover.Round(time.Millisecond))
	}
	return rows
}

func usesJava(l Layout) bool {
	for _, k := range l.Kinds {
		if k == Java {
			return true
		}
	}
	return false
}

func envRegexp(t *testing.T, name string) *regexp.Regexp {
	v := os.Getenv(name)
	re, err := regexp.Compile(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return re
}

// keepLogs copies the members' logs where CHAOS_LOGS points, when set,
// since the test's directory goes with the test.
func keepLogs(t *testing.T, c *Cluster) {
	dir := os.Getenv("CHAOS_LOGS")
	if dir == "" {
		return
	}
	for _, m := range c.Members {
		dst := filepath.Join(dir, strings.NewReplacer(" ", "_", "+", "").Replace(c.Layout.Name), fmt.Sprintf("server%d.log", m.ID))
		os.MkdirAll(filepath.Dir(dst), 0o755)
		os.WriteFile(dst, []byte(m.Log()), 0o644)
	}
}
