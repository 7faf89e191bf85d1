//go:build interop

package diff

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/java/*.txt from the Java server")

// TestJavaIsStable runs every scenario against two fresh Java servers and
// requires identical transcripts: this is what proves the normalisation
// removes everything that varies between runs and nothing else. The
// transcript must also match the recorded one in testdata/java, so that a
// change of scenario or normalisation is noticed (-update rewrites them).
func TestJavaIsStable(t *testing.T) {
	for _, sc := range Scenarios() {
		t.Run(sc.String(), func(t *testing.T) {
			a, b := StartPair(t, sc.Server, StartJava, StartJava)
			want, _ := CompareRuns(t, sc, "java#1", a, "java#2", b)
			if t.Failed() {
				return
			}
			golden := goldenPath(sc)
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(want.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			recorded, err := readGolden(sc)
			if err != nil {
				t.Fatalf("%v (run with -update to record it)", err)
			}
			if d := Compare(recorded, want); d != "" {
				t.Errorf("Java no longer answers as recorded in %s (run with -update if the scenario changed on purpose):\n%s", golden, d)
			}
		})
	}
}

// TestGozkMatchesJava runs every scenario against a fresh Java server and
// a fresh gozk server side by side and requires identical transcripts.
func TestGozkMatchesJava(t *testing.T) {
	launch, reason := GozkLauncher()
	if launch == nil {
		t.Skip(reason)
	}
	for _, sc := range Scenarios() {
		t.Run(sc.String(), func(t *testing.T) {
			javaAddr, gozkAddr := StartPair(t, sc.Server, StartJava, launch)
			if reason, known := gozkKnownDifferences[sc.Name]; known {
				checkKnownDifference(t, sc, reason, func() (Transcript, Transcript) {
					want, _ := RunWith(javaAddr, sc, RunOptions{WaitLimit: waitLimitFromEnv(t)})
					got, _ := RunWith(gozkAddr, sc, RunOptions{WaitLimit: waitLimitFromEnv(t)})
					return want, got
				})
				return
			}
			Differential(t, sc, javaAddr, gozkAddr)
		})
	}
}

// TestGozkMatchesRecordedJava compares gozk with the transcripts recorded
// from Java in testdata/java, for machines that have gozk but no Java.
func TestGozkMatchesRecordedJava(t *testing.T) {
	launch, reason := GozkLauncher()
	if launch == nil {
		t.Skip(reason)
	}
	for _, sc := range Scenarios() {
		t.Run(sc.String(), func(t *testing.T) {
			want, err := readGolden(sc)
			if err != nil {
				t.Skip(err)
			}
			addr, err := launch(t, sc.Server)
			if err != nil {
				t.Fatal(err)
			}
			got, runErr := RunWith(addr, sc, RunOptions{WaitLimit: waitLimitFromEnv(t)})
			if reason, known := gozkKnownDifferences[sc.Name]; known {
				checkKnownDifference(t, sc, reason, func() (Transcript, Transcript) { return want, got })
				return
			}
			if d := Compare(want, got); d != "" {
				t.Errorf("gozk answers differently from the recorded Java transcript (%s):\n%s", sc.Doc, d)
			} else if runErr != nil {
				t.Error(runErr)
			}
		})
	}
}
