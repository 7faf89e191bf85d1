//go:build interop

package cclient

import (
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/suite"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the Java runs")

func TestMain(m *testing.M) { os.Exit(gozkproc.RunTests(m)) }

// runLimit bounds one client run: a guard against a hung client, not a
// performance check.
const runLimit = 2 * time.Minute

// settings are both servers': TTL nodes enabled, containers and TTL
// nodes checked every 100 ms.
var settings = suite.Settings{ExtendedTypes: true, ContainerCheckMs: 100}

// need skips the test when a piece of the C client is missing, or fails
// it when GOZK_REQUIRE_JAVA=1 (CI installs the C client with the oracle).
func need(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		suite.Unavailable(t, err.Error())
	}
}

// checkGolden compares text with testdata/<name>.golden, or writes it
// there on a Java run with -update.
func checkGolden(t *testing.T, backendName, name, text string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	golden, compare := suite.Golden(t, path, backendName, *update, text)
	if !compare {
		return
	}
	if d := DiffText(golden, text); d != "" {
		t.Errorf("%s output differs from %s (recorded from Java):\n%s", backendName, path, d)
	}
}

func digest(userPassword string) string {
	user, _, _ := strings.Cut(userPassword, ":")
	sum := sha1.Sum([]byte(userPassword))
	return user + ":" + base64.StdEncoding.EncodeToString(sum[:])
}

// prepare makes what a script expects to find: /secret, readable and
// writable by alice:secret only.
func prepare(t *testing.T, addr string) {
	t.Helper()
	c, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	acl := []zk.ACL{{Perms: zk.PermAll, Scheme: "digest", ID: digest("alice:secret")}}
	if _, err := c.Create("/secret", []byte("for alice"), 0, acl); err != nil {
		t.Fatalf("creating /secret: %v", err)
	}
}

func loadScript(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var commands []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "" {
			continue
		}
		commands = append(commands, l)
	}
	return commands
}

// TestCliMt feeds each testdata/*.cli script to Debian's cli_mt on a
// fresh server of each kind, one command at a time, and compares the
// normalized transcript with testdata/<script>.cli.golden, recorded from
// Java.
func TestCliMt(t *testing.T) {
	cli, err := Tool("cli_mt")
	need(t, err)
	scripts, _ := filepath.Glob(filepath.Join("testdata", "*.cli"))
	if len(scripts) == 0 {
		t.Fatal("no testdata/*.cli scripts")
	}
	for _, b := range suite.Backends {
		t.Run(b.Name, func(t *testing.T) {
			for _, s := range scripts {
				name := strings.TrimSuffix(filepath.Base(s), ".cli")
				t.Run(name, func(t *testing.T) {
					commands := loadScript(t, s)
					addr := b.Start(t, settings).Addr
					prepare(t, addr)
					ctx, cancel := context.WithTimeout(context.Background(), runLimit)
					defer cancel()
					run, err := RunCli(ctx, cli, addr, commands)
					text := NormalizeCli(run, addr)
					if err != nil {
						t.Fatalf("cli_mt: %v\nso far:\n%s", err, text)
					}
					checkGolden(t, b.Name, filepath.Base(s), text)
				})
			}
		})
	}
}

// TestCheckProgram compiles testdata/zkcheck.c against libzookeeper_mt,
// runs it against each server, and compares each of its lines (one per
// check) with the Java line in testdata/zkcheck.golden.
func TestCheckProgram(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	bin, err := Compile(ctx, filepath.Join("testdata", "zkcheck.c"), t.TempDir())
	need(t, err)
	golden := map[string]string{}
	var order []string
	if b, err := os.ReadFile(filepath.Join("testdata", "zkcheck.golden")); err == nil {
		lines, err := ParseChecks(string(b))
		if err != nil {
			t.Fatalf("zkcheck.golden: %v", err)
		}
		for _, l := range lines {
			golden[l.Name] = l.Result
			order = append(order, l.Name)
		}
	} else if !*update {
		t.Fatalf("%v (run the java subtests with -update to create it)", err)
	}
	for _, b := range suite.Backends {
		t.Run(b.Name, func(t *testing.T) {
			addr := b.Start(t, settings).Addr
			ctx, cancel := context.WithTimeout(context.Background(), runLimit)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, addr, "/capi")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Errorf("zkcheck: %v\nstderr:\n%s", err, stderr.String())
			}
			lines, perr := ParseChecks(string(out))
			if perr != nil {
				t.Fatalf("%v\noutput:\n%s", perr, out)
			}
			if *update && b.Name == "java" {
				if err := os.WriteFile(filepath.Join("testdata", "zkcheck.golden"), out, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			got := map[string]bool{}
			for _, l := range lines {
				got[l.Name] = true
				t.Run(l.Name, func(t *testing.T) {
					if strings.Contains(l.Result, "FAIL(") {
						t.Errorf("the check program reports a failure: %s", l.Result)
					}
					want, ok := golden[l.Name]
					if !ok {
						t.Fatalf("no line for %s in zkcheck.golden (run the java subtests with -update)", l.Name)
					}
					if want != l.Result {
						t.Errorf("%s differs from Java:\n  java: %s\n  %s: %s\n  first difference: %s",
							l.Name, want, b.Name, l.Result, firstDifference(want, l.Result))
					}
				})
			}
			for _, name := range order {
				if !got[name] {
					t.Errorf("check %s printed nothing (the program stopped early?)\nstderr:\n%s", name, stderr.String())
				}
			}
		})
	}
}

// firstDifference names the first space-separated field that differs.
func firstDifference(want, got string) string {
	w, g := strings.Fields(want), strings.Fields(got)
	for i := 0; i < len(w) && i < len(g); i++ {
		if w[i] != g[i] {
			return fmt.Sprintf("field %d: java %q, got %q", i+1, w[i], g[i])
		}
	}
	return fmt.Sprintf("java has %d fields, got %d", len(w), len(g))
}

var (
	loadGenCycle = regexp.MustCompile(`Creating children for path`)
	loadGenClean = regexp.MustCompile(`Successfully deleted a subtree starting at (\S+) \((\d+) nodes\)`)
	loadGenError = regexp.MustCompile(`ZOO_ERROR|Failed to|Invalid read`)
)

// loadGenCycles is how many whole create/write/read/delete cycles
// load_gen must finish on each server before it is stopped.
const loadGenCycles = 3

// TestLoadGen runs Debian's load_gen against each server (usage:
// load_gen host:port path #children, which loops create/write/read/delete
// cycles over #children nodes until stopped, logging each phase and
// exiting 1 on a read that does not see the write; load_gen host:port
// path clean deletes the subtree). It lets load_gen finish three cycles of
// 500 children, stops it, cleans up with it, and checks that nothing
// failed and that the subtree is gone.
func TestLoadGen(t *testing.T) {
	lg, err := Tool("load_gen")
	need(t, err)
	for _, b := range suite.Backends {
		t.Run(b.Name, func(t *testing.T) {
			addr := b.Start(t, settings).Addr
			t.Run("cycles", func(t *testing.T) {
				cmd := exec.Command(lg, addr, "/loadgen", "500")
				pr, pw, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				cmd.Stdout, cmd.Stderr = pw, pw
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				pw.Close()
				defer func() {
					cmd.Process.Signal(syscall.SIGTERM)
					cmd.Wait()
				}()
				var text strings.Builder
				cycles := 0
				sc := bufio.NewScanner(pr)
				deadline := time.AfterFunc(runLimit, func() { cmd.Process.Kill() })
				defer deadline.Stop()
				// The start of cycle n+1 means cycle n is done.
				for cycles <= loadGenCycles && sc.Scan() {
					l := sc.Text()
					text.WriteString(l + "\n")
					if loadGenCycle.MatchString(l) {
						cycles++
					}
					if loadGenError.MatchString(l) {
						t.Errorf("load_gen reported an error: %s", l)
					}
				}
				if cycles <= loadGenCycles {
					t.Fatalf("load_gen ended after %d cycles (guard %v):\n%s", cycles-1, runLimit, tail(text.String()))
				}
			})
			t.Run("clean", func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), runLimit)
				defer cancel()
				out, err := exec.CommandContext(ctx, lg, addr, "/loadgen", "clean").CombinedOutput()
				if err != nil {
					t.Fatalf("load_gen clean: %v\n%s", err, tail(string(out)))
				}
				m := loadGenClean.FindStringSubmatch(string(out))
				if m == nil || m[1] != "/loadgen" {
					t.Fatalf("load_gen clean did not report the deletion:\n%s", tail(string(out)))
				}
				if n, _ := strconv.Atoi(m[2]); n < 1 || n > 501 {
					t.Errorf("load_gen clean deleted %d nodes, want 1..501", n)
				}
				if m := loadGenError.FindString(string(out)); m != "" {
					t.Errorf("load_gen clean reported %q:\n%s", m, tail(string(out)))
				}
				c, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogInfo(false))
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if ok, _, err := c.Exists("/loadgen"); err != nil || ok {
					t.Errorf("after clean: exists(/loadgen) = %v, %v", ok, err)
				}
			})
		})
	}
}

func tail(s string) string {
	if len(s) > 3000 {
		s = "..." + s[len(s)-3000:]
	}
	return s
}
