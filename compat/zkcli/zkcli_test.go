//go:build interop

package zkcli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/suite"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the Java runs")

func TestMain(m *testing.M) { os.Exit(gozkproc.RunTests(m)) }

// runLimit bounds one zkCli run; a guard against a hung client, not a
// performance check.
const runLimit = 2 * time.Minute

// defaultSettings are the servers' settings unless a script asks for
// others: TTL nodes enabled, containers and TTL nodes checked every
// 100 ms.
var defaultSettings = suite.Settings{ExtendedTypes: true, ContainerCheckMs: 100}

func findZkCli(t *testing.T) string {
	t.Helper()
	p, err := Find()
	if err != nil {
		suite.Unavailable(t, err.Error())
	}
	return p
}

// script is one testdata/*.zk file.
type script struct {
	name     string
	steps    []Step
	settings suite.Settings
}

func loadScripts(t *testing.T) []script {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.zk"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts in testdata: %v", err)
	}
	var out []script
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := script{name: strings.TrimSuffix(filepath.Base(f), ".zk"), settings: defaultSettings}
		for _, line := range strings.Split(string(b), "\n") {
			switch {
			case strings.HasPrefix(line, "# option: "):
				switch opt := strings.TrimPrefix(line, "# option: "); opt {
				case "noextended":
					s.settings.ExtendedTypes = false
				default:
					t.Fatalf("%s: unknown option %q", f, opt)
				}
			default:
				step, ok, err := ParseStep(line)
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				if ok {
					s.steps = append(s.steps, step)
				}
			}
		}
		out = append(out, s)
	}
	return out
}

// checkGolden compares got with testdata/<name>.golden, or writes it
// there when -update is given on a Java run.
func checkGolden(t *testing.T, backendName, name string, got Transcript, exitCode int) {
	t.Helper()
	text := got.String() + fmt.Sprintf("# exit %d\n", exitCode)
	path := filepath.Join("testdata", name+".golden")
	golden, compare := suite.Golden(t, path, backendName, *update, text)
	if !compare || golden == text {
		return
	}
	wantText, wantExit, _ := strings.Cut(golden, "# exit ")
	want, err := ParseTranscript(wantText)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	msg := Diff(want, got)
	if w := strings.TrimSpace(wantExit); w != fmt.Sprint(exitCode) {
		msg += fmt.Sprintf("exit status %d, want %s\n", exitCode, w)
	}
	if msg == "" {
		// Equal but for the final Closed event that zkCli's exit may cut
		// off (Diff forgives it).
		return
	}
	t.Errorf("%s transcript differs from %s (the Java transcript):\n%s", backendName, path, msg)
}

// TestScripts runs every testdata/*.zk script through zkCli's stdin on a
// fresh server of each kind and compares the normalized transcript with
// the Java one in testdata/*.golden.
func TestScripts(t *testing.T) {
	zkcli := findZkCli(t)
	scripts := loadScripts(t)
	for _, b := range suite.Backends {
		t.Run(b.Name, func(t *testing.T) {
			for _, s := range scripts {
				t.Run(s.name, func(t *testing.T) {
					addr := b.Start(t, s.settings).Addr
					steps := make([]Step, len(s.steps))
					for i, st := range s.steps {
						st.Command = strings.ReplaceAll(st.Command, "{addr}", addr)
						steps[i] = st
					}
					ctx, cancel := context.WithTimeout(context.Background(), runLimit)
					defer cancel()
					res, err := RunScript(ctx, zkcli, addr, steps)
					if err != nil {
						t.Fatalf("zkCli: %v\n%s", err, res.Raw)
					}
					got := Normalize(res.Raw, addr)
					checkGolden(t, b.Name, s.name, got, res.ExitCode)
					if t.Failed() {
						t.Logf("raw zkCli output:\n%s", res.Raw)
					}
				})
			}
		})
	}
}

// singleCommands run one zkCli process each, the command given as
// arguments; their exit statuses matter.
var singleCommands = [][]string{
	{"create", "/a", "hello"},
	{"create", "/a", "again"},
	{"get", "-s", "/a"},
	{"create", "/a/e"},
	{"ls", "-s", "/a"},
	{"set", "/a", "x"},
	{"set", "-v", "9", "/a", "y"},
	{"get", "/nope"},
	{"stat", "/nope"},
	{"delete", "/a"},
	{"delete", "/nope"},
	{"getAllChildrenNumber", "/"},
	{"bogus"},
	{"ls"},
	{"whoami"},
	{"ls", "/"},
}

// watchEvents drops the connection-state events (type:None) of a
// one-command zkCli run: zkCli runs the command and exits without waiting
// for its watcher thread, so whether "SyncConnected" is printed before the
// JVM ends is a race inside the client, against either server.
func watchEvents(events []string) []string {
	var kept []string
	for _, e := range events {
		if !strings.Contains(e, "type:None") {
			kept = append(kept, e)
		}
	}
	return kept
}

// TestSingleCommands runs zkCli once per command, with the command as
// arguments, and compares outputs and exit statuses with the Java ones.
func TestSingleCommands(t *testing.T) {
	zkcli := findZkCli(t)
	for _, b := range suite.Backends {
		t.Run(b.Name, func(t *testing.T) {
			addr := b.Start(t, defaultSettings).Addr
			var all Transcript
			for _, args := range singleCommands {
				ctx, cancel := context.WithTimeout(context.Background(), runLimit)
				res, err := RunCommand(ctx, zkcli, addr, args...)
				cancel()
				if err != nil {
					t.Fatalf("zkCli %v: %v\n%s", args, err, res.Raw)
				}
				tr := Normalize(res.Raw, addr)
				all.Lines = append(all.Lines, "$ "+strings.Join(args, " "))
				all.Lines = append(all.Lines, tr.Lines...)
				all.Lines = append(all.Lines, fmt.Sprintf("(exit %d)", res.ExitCode))
				all.Events = append(all.Events, watchEvents(tr.Events)...)
			}
			checkGolden(t, b.Name, "single_commands", all, 0)
		})
	}
}
