package cclient

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gozk/gozk/compat/suite"
)

// DefaultBinDir is where Debian's zookeeper-bin package installs cli_mt
// and load_gen.
const DefaultBinDir = "/usr/lib/zookeeper/bin"

// Environment variables that say where the C client's pieces are.
const (
	// EnvBinDir names the directory holding cli_mt and load_gen.
	EnvBinDir = "GOZK_ZK_C_BIN"
	// EnvCC names the C compiler for the check program (default gcc).
	EnvCC = "CC"
)

// DefaultIncludeDir holds zookeeper.h (libzookeeper-mt-dev).
const DefaultIncludeDir = "/usr/include/zookeeper"

// InstallHint says how to get the C client on Debian.
const InstallHint = "apt-get install -y zookeeper-bin libzookeeper-mt-dev gcc"

// ErrUnavailable means a piece of the C client is missing.
var ErrUnavailable = errors.New("cclient: the ZooKeeper C client is not available")

// Tool returns the path of one of Debian's C client programs (cli_mt,
// load_gen).
func Tool(name string) (string, error) {
	dir := os.Getenv(EnvBinDir)
	if dir == "" {
		dir = DefaultBinDir
	}
	p := filepath.Join(dir, name)
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p, nil
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%w: no %s in %s or on PATH (set %s, or %s)", ErrUnavailable, name, dir, EnvBinDir, InstallHint)
}

// Compile builds the C check program src into dir with the multi-threaded
// C client library, and returns the binary's path.
func Compile(ctx context.Context, src, dir string) (string, error) {
	cc := os.Getenv(EnvCC)
	if cc == "" {
		cc = "gcc"
	}
	ccPath, err := exec.LookPath(cc)
	if err != nil {
		return "", fmt.Errorf("%w: no C compiler %q (%s)", ErrUnavailable, cc, InstallHint)
	}
	if _, err := os.Stat(filepath.Join(DefaultIncludeDir, "zookeeper.h")); err != nil {
		return "", fmt.Errorf("%w: no zookeeper.h in %s (%s)", ErrUnavailable, DefaultIncludeDir, InstallHint)
	}
	bin := filepath.Join(dir, strings.TrimSuffix(filepath.Base(src), ".c"))
	cmd := exec.CommandContext(ctx, ccPath, "-O1", "-Wall", "-DTHREADED", "-I"+DefaultIncludeDir,
		"-o", bin, src, "-lzookeeper_mt", "-lpthread")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("cclient: compiling %s: %v\n%s", src, err, out)
	}
	return bin, nil
}

// Barrier is the path of the sync that RunCli sends after each command:
// a session's replies come in the order of its requests, so once the
// sync's completion is printed, so is everything the command caused.
const Barrier = "/__cli_barrier__"

// Step is one command of a cli_mt run and what cli_mt printed for it.
type Step struct {
	Command string
	Lines   []string
}

// CliRun is a whole cli_mt session.
type CliRun struct {
	Steps []Step
	// Stdout is what cli_mt printed on stdout (only "myid" writes there,
	// and it is block-buffered, so it arrives at exit).
	Stdout   string
	ExitCode int
	// Killed says the script ended with KillCommand.
	Killed bool
}

// KillCommand, as a script's last line, ends cli_mt with SIGKILL instead
// of closing its stdin. After an auth failure cli_mt closes its handle
// from the watcher while its main thread reads stdin, and whether it then
// prints "bye", exits, or hangs is a race inside cli_mt, against either
// server.
const KillCommand = "!kill"

// stepLimit bounds one command; a guard against a hung client.
const stepLimit = 20 * time.Second

// quiet is how long a command sent without a barrier is given to finish
// printing.
const quiet = time.Second

// RunCli runs cli_mt against addr and feeds it commands one at a time on
// stdin, each followed by a sync of Barrier, and collects what each one
// printed (cli_mt prints everything but myid on stderr). A command
// written as "!cmd => regexp" is sent without the barrier (for commands
// that end the session, or whose work goes on after their completion),
// and its output is collected up to the first line that matches regexp;
// "!cmd" alone collects until cli_mt has been quiet for a second. Stdin
// is closed after the last command.
func RunCli(ctx context.Context, cli, addr string, commands []string) (CliRun, error) {
	var run CliRun
	cmd := exec.CommandContext(ctx, cli, "-h", addr)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return run, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return run, err
	}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		return run, err
	}
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	fail := func(err error) (CliRun, error) {
		cmd.Process.Kill()
		cmd.Wait()
		return run, err
	}

	// The first step is the connection itself.
	all := append([]string{""}, commands...)
	for i, c := range all {
		if c == KillCommand {
			// What cli_mt prints while it dies is not the server's doing.
			cmd.Process.Kill()
			cmd.Wait()
			for range lines {
			}
			run.Killed = true
			run.Stdout = stdout.String()
			return run, nil
		}
		noBarrier := strings.HasPrefix(c, "!")
		c = strings.TrimPrefix(c, "!")
		var until *regexp.Regexp
		if cc, pattern, ok := strings.Cut(c, " => "); ok && noBarrier {
			if until, err = regexp.Compile(pattern); err != nil {
				return fail(fmt.Errorf("command %q: %v", c, err))
			}
			c = cc
		}
		input := ""
		if c != "" {
			input = c + "\n"
		}
		if !noBarrier {
			input += "sync " + Barrier + "\n"
		}
		if _, err := io.WriteString(stdin, input); err != nil {
			return fail(fmt.Errorf("writing %q: %v", c, err))
		}
		step := Step{Command: c}
		if i == 0 {
			step.Command = "(connect)"
		}
		switch {
		case until != nil:
			got, err := collectUntil(lines, until)
			step.Lines = got
			if err != nil {
				run.Steps = append(run.Steps, step)
				return fail(fmt.Errorf("command %q: %v", c, err))
			}
		case noBarrier:
			step.Lines = collectQuiet(lines)
		default:
			got, err := collectBarrier(lines)
			step.Lines = got
			if err != nil {
				run.Steps = append(run.Steps, step)
				return fail(fmt.Errorf("command %q: %v", c, err))
			}
		}
		run.Steps = append(run.Steps, step)
	}
	stdin.Close()
	var rest []string
	for l := range lines {
		rest = append(rest, l)
	}
	if len(rest) > 0 {
		run.Steps = append(run.Steps, Step{Command: "(end of input)", Lines: rest})
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		run.ExitCode, err = exit.ExitCode(), nil
	}
	run.Stdout = stdout.String()
	return run, err
}

var barrierRC = regexp.MustCompile(`^\[` + regexp.QuoteMeta(Barrier) + `\]: rc = (-?\d+)$`)

// collectBarrier reads lines up to and including the barrier's completion,
// which it leaves out.
func collectBarrier(lines <-chan string) ([]string, error) {
	var got []string
	timer := time.NewTimer(stepLimit)
	defer timer.Stop()
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return got, errors.New("cli_mt ended before the barrier")
			}
			m := barrierRC.FindStringSubmatch(l)
			if m == nil {
				got = append(got, l)
				continue
			}
			if m[1] != "0" {
				return got, fmt.Errorf("barrier sync failed: %s", l)
			}
			// "\tname = <path>" follows a successful sync.
			select {
			case l := <-lines:
				if l != "\tname = "+Barrier {
					got = append(got, l)
				}
			case <-timer.C:
			}
			return got, nil
		case <-timer.C:
			return got, fmt.Errorf("no barrier within %v", stepLimit)
		}
	}
}

// collectUntil reads lines up to and including the first that matches
// re.
func collectUntil(lines <-chan string, re *regexp.Regexp) ([]string, error) {
	var got []string
	timer := time.NewTimer(stepLimit)
	defer timer.Stop()
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return got, fmt.Errorf("cli_mt ended before printing a line matching %q", re)
			}
			got = append(got, l)
			if re.MatchString(l) {
				return got, nil
			}
		case <-timer.C:
			return got, fmt.Errorf("no line matching %q within %v", re, stepLimit)
		}
	}
}

func collectQuiet(lines <-chan string) []string {
	var got []string
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return got
			}
			got = append(got, l)
		case <-time.After(quiet):
			return got
		}
	}
}

var (
	cliLogLine = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+:\d+\(0x[0-9a-f]+\):(ZOO_[A-Z]+@[A-Za-z_]+)@\d+: (.*)$`)
	cliTime    = regexp.MustCompile(`^time = -?\d+ msec$`)
	cliSession = regexp.MustCompile(`^(Got a new session id: 0x)([0-9a-f]+)$`)
	cliMyID    = regexp.MustCompile(`^(session Id = )([0-9a-f]+)$`)
	cliCtime   = regexp.MustCompile(`^(\tctime = |\tmtime=)(.*)$`)
	cliZxid    = regexp.MustCompile(`^(\tczxid=|\tmzxid=)([0-9a-f]+)$`)
	cliOwner   = regexp.MustCompile(`^(\tephemeralOwner = )([0-9a-f]+)$`)
)

// cliEpoch is how the C client's ctime_r prints time 0 with TZ=UTC.
const cliEpoch = "Thu Jan  1 00:00:00 1970"

// NormalizeCli turns a cli_mt run into the text that is compared between
// servers: one "> command" line per step followed by its output, then the
// stdout section. It replaces only what legitimately differs: times and
// timings, zxids (numbered by rank), session ids (numbered by first
// appearance) and addr; the C client's log lines lose their time stamp,
// thread and source line. The children that ls and ls2 list keep the
// server's order, which is Java's hash-set order on both servers.
func NormalizeCli(run CliRun, addr string) string {
	var all []string
	for _, s := range run.Steps {
		all = append(all, "> "+s.Command)
		for i := 0; i < len(s.Lines); i++ {
			l := s.Lines[i]
			if addr != "" {
				l = strings.ReplaceAll(l, addr, "<addr>")
			}
			if m := cliLogLine.FindStringSubmatch(l); m != nil {
				if strings.Contains(m[2], "Exceeded deadline by") {
					continue // a slow test machine, not the server
				}
				l = m[1] + ": " + m[2]
			}
			all = append(all, l)
		}
	}
	all = append(all, "# stdout")
	all = append(all, strings.Split(strings.TrimSuffix(run.Stdout, "\n"), "\n")...)
	if run.Killed {
		all = append(all, "# killed")
	} else {
		all = append(all, fmt.Sprintf("# exit %d", run.ExitCode))
	}

	zxidName := suite.ZxidNames(all, cliZxid)
	session := suite.SessionNames{}.Name
	var out []string
	for _, l := range all {
		switch {
		case cliTime.MatchString(l):
			l = "time = <ms> msec"
		case cliSession.MatchString(l):
			m := cliSession.FindStringSubmatch(l)
			l = m[1] + session(m[2])
		case cliMyID.MatchString(l):
			m := cliMyID.FindStringSubmatch(l)
			l = m[1] + session(m[2])
		case cliOwner.MatchString(l):
			m := cliOwner.FindStringSubmatch(l)
			l = m[1] + session(m[2])
		case cliZxid.MatchString(l):
			m := cliZxid.FindStringSubmatch(l)
			if z, _ := strconv.ParseUint(m[2], 16, 64); z != 0 {
				l = m[1] + zxidName[z]
			}
		case cliCtime.MatchString(l):
			m := cliCtime.FindStringSubmatch(l)
			if m[2] != cliEpoch {
				l = m[1] + "<time>"
			}
		}
		out = append(out, l)
	}
	var b strings.Builder
	for _, l := range compressRepeats(out) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// compressRepeats replaces a block of one or two lines that comes three
// or more times in a row with the block once and a count, so that
// hundreds of identical completions (the od command) stay readable.
func compressRepeats(lines []string) []string {
	var out []string
	for i := 0; i < len(lines); {
		done := false
		for k := 1; k <= 2 && !done; k++ {
			n := 1
			for i+(n+1)*k <= len(lines) && equal(lines[i:i+k], lines[i+n*k:i+(n+1)*k]) {
				n++
			}
			if n >= 3 {
				out = append(out, lines[i:i+k]...)
				what := "line"
				if k > 1 {
					what = strconv.Itoa(k) + " lines"
				}
				out = append(out, fmt.Sprintf("(the %s above, %d times in all)", what, n))
				i += n * k
				done = true
			}
		}
		if !done {
			out = append(out, lines[i])
			i++
		}
	}
	return out
}

func equal(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// CheckLine is one line of the check program's output: "<name>: <result>".
type CheckLine struct {
	Name, Result string
}

// ParseChecks splits the check program's output into its lines.
func ParseChecks(out string) ([]CheckLine, error) {
	var checks []CheckLine
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if l == "" {
			continue
		}
		name, result, ok := strings.Cut(l, ": ")
		if !ok || strings.ContainsAny(name, " \t") {
			return checks, fmt.Errorf("not a check line: %q", l)
		}
		checks = append(checks, CheckLine{Name: name, Result: result})
	}
	return checks, nil
}

// DiffText describes how got differs from want line by line, or returns
// "" when they are equal.
func DiffText(want, got string) string {
	if want == got {
		return ""
	}
	w := strings.Split(want, "\n")
	g := strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "differs from line %d on (%d lines expected, %d got)\n", i+1, len(w), len(g))
	lo := i - 3
	if lo < 0 {
		lo = 0
	}
	for _, side := range []struct {
		name  string
		lines []string
	}{{"want", w}, {"got", g}} {
		fmt.Fprintf(&b, "  %s:\n", side.name)
		for j := lo; j < len(side.lines) && j < i+6; j++ {
			mark := " "
			if j >= i {
				mark = "!"
			}
			fmt.Fprintf(&b, "   %s%4d  %s\n", mark, j+1, side.lines[j])
		}
	}
	return b.String()
}
