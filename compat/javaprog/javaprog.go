// Package javaprog compiles a Java test program against Debian's ZooKeeper
// 3.8.0 and Curator 5.4.0 jars, runs it against a server, and turns the
// checks it reports into Go subtests.
//
// The program is compiled with javac into a temporary directory (no .class
// file is ever written next to the sources). It talks to the test over its
// standard streams, one line at a time:
//
//	PLAN <name> <name> ...        the checks the program will report
//	CHECK <name> PASS [detail]    a check passed
//	CHECK <name> FAIL <detail>    a check failed, and why
//	SIGNAL <word>                 asks the test to act (for example to
//	                              restart the server); the test answers
//	                              "OK <word>" or "ERR <word> <reason>" on
//	                              the program's standard input
//
// Any other line is kept as the program's log and shown when a check
// fails. Check names are unique within a run; a planned check that is
// never reported fails (the program died or skipped it).
//
// RunOnBackends runs a program against each of compat/suite's servers
// (java and gozk) at once and reports its checks as subtests of each.
//
// Where things are found: javac and java next to each other ($GOZK_JAVA's
// directory, else $JAVA_HOME/bin, else PATH); the jars in
// $GOZK_ZOOKEEPER_LIB, default /usr/share/java, where each Debian jar's
// manifest names its own dependencies.
package javaprog

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/javazk"
	"github.com/gozk/gozk/compat/suite"
)

// Jars name the client libraries a program can be compiled against, as
// Debian installs them.
var (
	ZooKeeperJars = []string{"zookeeper.jar", "zookeeper-jute.jar"}
	CuratorJars   = []string{"curator-recipes.jar", "curator-framework.jar", "curator-client.jar", "guava.jar"}
)

// Program is a compiled Java program.
type Program struct {
	Java      string
	Classpath []string // the class directory first, then the jars
	Main      string
}

// Compile compiles sources (relative to the test's directory) against the
// named jars into a temporary directory of tb. It skips the test when
// javac or a jar is missing, unless GOZK_REQUIRE_JAVA=1.
func Compile(tb testing.TB, main string, jars []string, sources ...string) *Program {
	tb.Helper()
	java, javac, cp, err := lookup(jars)
	if err != nil {
		suite.Unavailable(tb, err.Error())
	}
	classes := tb.TempDir()
	args := append([]string{"-nowarn", "-encoding", "UTF-8", "-d", classes, "-cp", strings.Join(cp, ":")}, sources...)
	if out, err := exec.Command(javac, args...).CombinedOutput(); err != nil {
		tb.Fatalf("javac %s: %v\n%s", strings.Join(sources, " "), err, out)
	}
	return &Program{Java: java, Classpath: append([]string{classes}, cp...), Main: main}
}

func lookup(jars []string) (java, javac string, cp []string, err error) {
	inst, err := javazk.Lookup()
	if err != nil {
		return "", "", nil, err
	}
	java = inst.Java
	javac = filepath.Join(filepath.Dir(java), "javac")
	if _, err := os.Stat(javac); err != nil {
		if javac, err = exec.LookPath("javac"); err != nil {
			return "", "", nil, fmt.Errorf("%w: javac not found (apt-get install -y default-jdk-headless)", javazk.ErrUnavailable)
		}
	}
	dir := os.Getenv(javazk.EnvLibDir)
	if dir == "" {
		dir = javazk.DefaultLibDir
	}
	// Logging: slf4j-nop keeps the clients quiet; slf4j-simple when
	// GOZK_JAVA_LOG=1 shows what they do, on standard error.
	binding := "slf4j-nop.jar"
	if os.Getenv(javazk.EnvLog) == "1" {
		binding = "slf4j-simple.jar"
	}
	for _, j := range append(append([]string(nil), jars...), "slf4j-api.jar", binding) {
		p := filepath.Join(dir, j)
		if _, err := os.Stat(p); err != nil {
			return "", "", nil, fmt.Errorf("%w: %s is missing (make interop-deps)", javazk.ErrUnavailable, p)
		}
		cp = append(cp, p)
	}
	return java, javac, cp, nil
}

// Result is one CHECK line.
type Result struct {
	Name   string
	Pass   bool
	Detail string
}

// ParseCheck parses a CHECK line; ok is false for any other line.
func ParseCheck(line string) (r Result, ok bool) {
	rest, found := strings.CutPrefix(line, "CHECK ")
	if !found {
		return r, false
	}
	fields := strings.SplitN(rest, " ", 3)
	if len(fields) < 2 || fields[0] == "" || (fields[1] != "PASS" && fields[1] != "FAIL") {
		return r, false
	}
	r.Name, r.Pass = fields[0], fields[1] == "PASS"
	if len(fields) == 3 {
		r.Detail = fields[2]
	}
	return r, true
}

// Run is a finished run of a program.
type Run struct {
	Plan    []string
	Results []Result
	// Log holds every line that was not a CHECK line, and standard error.
	Log string
	Err error // the program's exit status, or a timeout
}

// Signals answers SIGNAL lines: it is called with the word and returns an
// error to report back, or nil.
type Signals func(word string) error

// Run runs the program with args, answering signals, and waits for it to
// end or for limit to pass (then it is killed).
func (p *Program) Run(tb testing.TB, limit time.Duration, signals Signals, args ...string) Run {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	jvm := []string{"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx256m",
		"-cp", strings.Join(p.Classpath, ":"), p.Main}
	cmd := exec.CommandContext(ctx, p.Java, append(jvm, args...)...)
	setProcAttr(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	var logMu sync.Mutex
	var log strings.Builder
	cmd.Stderr = writerFunc(func(b []byte) (int, error) {
		logMu.Lock()
		defer logMu.Unlock()
		return log.Write(b)
	})
	if err := cmd.Start(); err != nil {
		tb.Fatalf("java %s: %v", p.Main, err)
	}
	var run Run
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if r, ok := ParseCheck(line); ok {
			run.Results = append(run.Results, r)
			continue
		}
		if plan, ok := strings.CutPrefix(line, "PLAN "); ok {
			run.Plan = append(run.Plan, strings.Fields(plan)...)
			continue
		}
		logMu.Lock()
		log.WriteString(line + "\n")
		logMu.Unlock()
		if word, ok := strings.CutPrefix(line, "SIGNAL "); ok {
			reply := "OK " + word
			if signals == nil {
				reply = "ERR " + word + " no signal handler"
			} else if err := signals(word); err != nil {
				reply = "ERR " + word + " " + strings.ReplaceAll(err.Error(), "\n", " ")
			}
			io.WriteString(stdin, reply+"\n")
		}
	}
	stdin.Close()
	run.Err = cmd.Wait()
	if ctx.Err() != nil {
		run.Err = fmt.Errorf("killed after %v: %w", limit, ctx.Err())
	}
	run.Log = log.String()
	return run
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// Report turns the run into subtests of t, one per check, so that the
// output names every check; a failed check fails its subtest with the
// program's detail. A planned check that was not reported fails, and so
// does a run that exited badly; then the program's log is shown.
func (r Run) Report(t *testing.T) {
	t.Helper()
	seen := map[string]bool{}
	for _, res := range r.Results {
		if seen[res.Name] {
			t.Errorf("check %s reported twice", res.Name)
		}
		seen[res.Name] = true
		t.Run(res.Name, func(t *testing.T) {
			if !res.Pass {
				t.Error(res.Detail)
			} else if res.Detail != "" {
				t.Log(res.Detail)
			}
		})
	}
	if len(r.Plan) == 0 {
		t.Error("the program announced no PLAN")
	}
	for _, name := range r.Plan {
		if !seen[name] {
			t.Run(name, func(t *testing.T) { t.Error("not reported by the program") })
		}
	}
	if r.Err != nil {
		t.Errorf("the program ended badly: %v", r.Err)
	}
	if t.Failed() {
		t.Logf("program log:\n%s", tailString(r.Log, 16384))
	}
}

// ErrNoSignal is returned for a SIGNAL word a test does not know.
var ErrNoSignal = errors.New("unknown signal")

func tailString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
