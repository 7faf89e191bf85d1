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
	"github.com/gozk/gozk/compat/javazk"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the Java runs")

func TestMain(m *testing.M) { os.Exit(gozkproc.RunTests(m)) }

// runLimit bounds one zkCli run; a guard against a hung client, not a
// performance check.
const runLimit = 2 * time.Minute

type serverOpts struct {
	noExtendedTypes bool
}

type backend struct {
	name  string
	start func(t *testing.T, o serverOpts) string // returns the address
}

var backends = []backend{
	{name: "java", start: func(t *testing.T, o serverOpts) string {
		props := map[string]string{"znode.container.checkIntervalMs": "100"}
		if !o.noExtendedTypes {
			props["zookeeper.extendedTypesEnabled"] = "true"
		}
		return javazk.Start(t, javazk.Options{SystemProperties: props}).Addr
	}},
	{name: "gozk", start: func(t *testing.T, o serverOpts) string {
		cfg := []string{"znode.container.checkIntervalMs=100"}
		if !o.noExtendedTypes {
			cfg = append(cfg, "extendedTypesEnabled=true")
		}
		return gozkproc.Start(t, gozkproc.Options{Config: cfg}).Addr()
	}},
}

func findZkCli(t *testing.T) string {
	t.Helper()
	p, err := Find()
	if err != nil {
		if javazk.JavaRequired() {
			t.Fatalf("%v (%s=1 makes this fatal)", err, javazk.EnvRequireJava)
		}
		t.Skipf("skipping: %v", err)
	}
	return p
}

// script is one testdata/*.zk file.
type script struct {
	name     string
	commands []string
	opts     serverOpts
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
		s := script{name: strings.TrimSuffix(filepath.Base(f), ".zk")}
		for _, line := range strings.Split(string(b), "\n") {
			switch {
			case strings.HasPrefix(line, "# option: "):
				switch opt := strings.TrimPrefix(line, "# option: "); opt {
				case "noextended":
					s.opts.noExtendedTypes = true
				default:
					t.Fatalf("%s: unknown option %q", f, opt)
				}
			case strings.HasPrefix(line, "#"), strings.TrimSpace(line) == "":
			default:
				s.commands = append(s.commands, line)
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
	if *update && backendName == "java" {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the java subtests with -update to create it)", err)
	}
	if string(b) == text {
		return
	}
	wantText, wantExit, _ := strings.Cut(string(b), "# exit ")
	want, err := ParseTranscript(wantText)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	msg := Diff(want, got)
	if w := strings.TrimSpace(wantExit); w != fmt.Sprint(exitCode) {
		msg += fmt.Sprintf("exit status %d, want %s\n", exitCode, w)
	}
	if msg == "" {
		msg = "(only whitespace differs)"
	}
	t.Errorf("%s transcript differs from %s (the Java transcript):\n%s", backendName, path, msg)
}

// TestScripts runs every testdata/*.zk script through zkCli's stdin on a
// fresh server of each kind and compares the normalized transcript with
// the Java one in testdata/*.golden.
func TestScripts(t *testing.T) {
	zkcli := findZkCli(t)
	scripts := loadScripts(t)
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			for _, s := range scripts {
				t.Run(s.name, func(t *testing.T) {
					addr := b.start(t, s.opts)
					commands := make([]string, len(s.commands))
					for i, c := range s.commands {
						commands[i] = strings.ReplaceAll(c, "{addr}", addr)
					}
					ctx, cancel := context.WithTimeout(context.Background(), runLimit)
					defer cancel()
					res, err := RunScript(ctx, zkcli, addr, commands)
					if err != nil {
						t.Fatalf("zkCli: %v\n%s", err, res.Raw)
					}
					got := Normalize(res.Raw, addr)
					checkGolden(t, b.name, s.name, got, res.ExitCode)
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

// TestSingleCommands runs zkCli once per command, with the command as
// arguments, and compares outputs and exit statuses with the Java ones.
func TestSingleCommands(t *testing.T) {
	zkcli := findZkCli(t)
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			addr := b.start(t, serverOpts{})
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
				all.Events = append(all.Events, tr.Events...)
			}
			checkGolden(t, b.name, "single_commands", all, 0)
		})
	}
}
