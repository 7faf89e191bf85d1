package zkcli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gozk/gozk/compat/suite"
)

// DefaultZkCli is where Debian's zookeeper package installs zkCli.sh.
const DefaultZkCli = "/usr/share/zookeeper/bin/zkCli.sh"

// EnvZkCli names the zkCli.sh to use.
const EnvZkCli = "GOZK_ZKCLI"

// ErrUnavailable means zkCli.sh could not be found.
var ErrUnavailable = errors.New("zkcli: zkCli.sh is not available")

// Find returns the path of zkCli.sh.
func Find() (string, error) {
	if p := os.Getenv(EnvZkCli); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: %s=%s: %v", ErrUnavailable, EnvZkCli, p, err)
		}
		return p, nil
	}
	if p, err := exec.LookPath("zkCli.sh"); err == nil {
		return p, nil
	}
	if _, err := os.Stat(DefaultZkCli); err == nil {
		return DefaultZkCli, nil
	}
	return "", fmt.Errorf("%w: set %s, put zkCli.sh on PATH, or apt-get install -y zookeeper zookeeper-bin default-jdk-headless", ErrUnavailable, EnvZkCli)
}

// Result is one run of zkCli.
type Result struct {
	// Raw is everything zkCli wrote, stdout and stderr in one stream (one
	// pipe, so in the order zkCli wrote it).
	Raw      string
	ExitCode int
}

// jvmFlags make the short-lived client JVM start quickly.
const jvmFlags = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1"

func command(ctx context.Context, zkcli, addr string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, zkcli, append([]string{"-server", addr}, args...)...)
	env := []string{"TZ=UTC", "CLIENT_JVMFLAGS=" + jvmFlags, "JVMFLAGS="}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TZ=") || strings.HasPrefix(kv, "CLIENT_JVMFLAGS=") || strings.HasPrefix(kv, "JVMFLAGS=") {
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = env
	cmd.Dir = os.TempDir()
	return cmd
}

func run(cmd *exec.Cmd) (Result, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return result(out.String(), err)
}

// result is a finished run: its output and exit status, or the error that
// kept zkCli from running.
func result(raw string, err error) (Result, error) {
	res := Result{Raw: raw}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
		err = nil
	}
	return res, err
}

// A Step is one line of a script: a command for zkCli's stdin, or a wait
// before the next command is given.
//
// zkCli prints watch notifications from its event thread, which can fall
// several commands behind the main one on a loaded machine; a command that
// changes how events are printed (printwatches) then decides about events
// that were sent before it. A script makes that deterministic by waiting:
// Await holds the next command back until zkCli has printed the text (as
// many times as the script has awaited it so far); Pause, for an event
// that must not be printed and so cannot be awaited, gives the event
// thread time.
type Step struct {
	Command string
	Await   string
	Pause   time.Duration
}

// ParseStep reads one script line: "# await: <text>", "# pause: <duration>"
// or a command. ok is false for other comments and blank lines.
func ParseStep(line string) (s Step, ok bool, err error) {
	switch {
	case strings.HasPrefix(line, "# await: "):
		text := strings.TrimSpace(strings.TrimPrefix(line, "# await: "))
		if text == "" {
			return Step{}, false, errors.New("await: no text to wait for")
		}
		return Step{Await: text}, true, nil
	case strings.HasPrefix(line, "# pause: "):
		d, err := time.ParseDuration(strings.TrimSpace(strings.TrimPrefix(line, "# pause: ")))
		if err != nil || d <= 0 {
			return Step{}, false, fmt.Errorf("pause: want a positive duration: %q", line)
		}
		return Step{Pause: d}, true, nil
	case strings.HasPrefix(line, "#"), strings.TrimSpace(line) == "":
		return Step{}, false, nil
	}
	return Step{Command: line}, true, nil
}

// RunScript runs zkCli against addr with the steps' commands on stdin,
// one per line, and returns when zkCli exits at the end of its input. A
// wait that zkCli's output never satisfies ends at ctx's deadline, with
// the error naming the text.
func RunScript(ctx context.Context, zkcli, addr string, steps []Step) (Result, error) {
	cmd := command(ctx, zkcli, addr)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return Result{}, err
	}
	out := &watchedBuffer{changed: make(chan struct{}, 1)}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return Result{}, err
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()

	feedErr := feed(ctx, stdin, out, exited, steps)
	_ = stdin.Close()
	<-exited
	res, err := result(out.String(), waitErr)
	if err == nil {
		err = feedErr
	}
	return res, err
}

// feed writes the steps' commands to zkCli, holding each back until the
// waits before it are over.
func feed(ctx context.Context, stdin io.Writer, out *watchedBuffer, exited <-chan struct{}, steps []Step) error {
	awaited := map[string]int{}
	for _, s := range steps {
		switch {
		case s.Await != "":
			awaited[s.Await]++
			for strings.Count(out.String(), s.Await) < awaited[s.Await] {
				select {
				case <-out.changed:
				case <-exited:
					return fmt.Errorf("zkCli exited before it printed %q", s.Await)
				case <-ctx.Done():
					return fmt.Errorf("zkCli did not print %q: %w", s.Await, ctx.Err())
				}
			}
		case s.Pause > 0:
			select {
			case <-time.After(s.Pause):
			case <-exited:
				return errors.New("zkCli exited in the middle of its script")
			case <-ctx.Done():
				return ctx.Err()
			}
		default:
			if _, err := io.WriteString(stdin, s.Command+"\n"); err != nil {
				return fmt.Errorf("writing %q to zkCli: %w", s.Command, err)
			}
		}
	}
	return nil
}

// watchedBuffer is zkCli's output, with a signal for each write.
type watchedBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func (b *watchedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	n, err := b.buf.Write(p)
	b.mu.Unlock()
	select {
	case b.changed <- struct{}{}:
	default:
	}
	return n, err
}

func (b *watchedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// RunCommand runs zkCli against addr with one command given as
// arguments.
func RunCommand(ctx context.Context, zkcli, addr string, args ...string) (Result, error) {
	cmd := command(ctx, zkcli, addr, args...)
	cmd.Stdin = strings.NewReader("")
	return run(cmd)
}

// Transcript is a normalized zkCli run.
type Transcript struct {
	// Lines is the command output, in order.
	Lines []string
	// Events are the watch notifications zkCli printed, in order, as
	// "state:<s> type:<t> path:<p>".
	Events []string
}

// String renders a transcript the way golden files store it.
func (t Transcript) String() string {
	var b strings.Builder
	b.WriteString("# output\n")
	for _, l := range t.Lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.WriteString("# events\n")
	for _, e := range t.Events {
		b.WriteString(e)
		b.WriteByte('\n')
	}
	return b.String()
}

var (
	logLine   = regexp.MustCompile(`^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d`)
	zxidLine  = regexp.MustCompile(`^([cmp]Zxid = )0x([0-9a-f]+)$`)
	ownerLine = regexp.MustCompile(`^(ephemeralOwner = )0x([0-9a-f]+)$`)
	timeLine  = regexp.MustCompile(`^([cm]time = )(.+)$`)
)

// epoch is how zkCli prints time 0 with TZ=UTC.
const epoch = "Thu Jan 01 00:00:00 UTC 1970"

// Normalize turns raw zkCli output into a transcript (see the package
// comment for what it changes). addr, if not empty, is replaced by
// "<addr>".
func Normalize(raw, addr string) Transcript {
	raw = strings.ReplaceAll(raw, "\r\n", "\n")
	if addr != "" {
		raw = strings.ReplaceAll(raw, addr, "<addr>")
	}
	lines := strings.Split(strings.TrimSuffix(raw, "\n"), "\n")
	if raw == "" {
		lines = nil
	}

	// Take out the watcher blocks: "", "WATCHER::", "", "WatchedEvent ...".
	// When other output lands inside a block, the block's parts are
	// found apart: split counts blocks whose event line is still to come.
	//
	// The event thread may also write in the middle of a command's line
	// (ls prints a list in pieces): each watcher message starts with its
	// own newline, so a message line right after a non-empty output line
	// means that output line was cut, and the next output line is its
	// rest. cut is the index in kept of such a line, or -1.
	var kept []string
	var t Transcript
	split := 0
	cut, lastKeptRaw := -1, -1
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if isWatcherLine(l) && i > 0 && lastKeptRaw == i-1 && lines[i-1] != "" {
			cut = len(kept) - 1
		}
		if l == "WATCHER::" {
			if n := len(kept); n > 0 && kept[n-1] == "" {
				kept = kept[:n-1]
			}
			j := i + 1
			if j < len(lines) && lines[j] == "" {
				j++
			}
			if j < len(lines) && strings.HasPrefix(lines[j], "WatchedEvent ") {
				t.Events = append(t.Events, strings.TrimPrefix(lines[j], "WatchedEvent "))
				i = j
			} else {
				split++
				i = j - 1
			}
			continue
		}
		if strings.HasPrefix(l, "WatchedEvent ") {
			t.Events = append(t.Events, strings.TrimPrefix(l, "WatchedEvent "))
			if split > 0 {
				split--
				if n := len(kept); n > 0 && kept[n-1] == "" {
					kept = kept[:n-1]
				}
			}
			continue
		}
		switch {
		case strings.HasPrefix(l, "SLF4J:"), logLine.MatchString(l),
			strings.HasPrefix(l, "Connecting to "), l == "Welcome to ZooKeeper!",
			strings.HasPrefix(l, "JLine support is "):
			continue
		}
		// An empty line just before a watcher message is that message's
		// own leading newline, not the rest of a cut line.
		leadsMessage := l == "" && i+1 < len(lines) && isWatcherLine(lines[i+1])
		if cut >= 0 && !leadsMessage {
			kept[cut] += l
			cut, lastKeptRaw = -1, i
			continue
		}
		kept = append(kept, l)
		lastKeptRaw = i
	}

	// The Java client reports the watches one removewatches took away
	// from a HashMap keyed by event type, so their order changes from run
	// to run: sort each run of removals for one path.
	sortWatchRemovals(t.Events)

	// zxids by rank, session ids by first appearance.
	zxidName := suite.ZxidNames(kept, zxidLine)
	sessionName := suite.SessionNames{}
	for _, l := range kept {
		switch {
		case zxidLine.MatchString(l):
			m := zxidLine.FindStringSubmatch(l)
			z, _ := strconv.ParseUint(m[2], 16, 64)
			if z != 0 {
				l = m[1] + zxidName[z]
			}
		case ownerLine.MatchString(l):
			m := ownerLine.FindStringSubmatch(l)
			if m[2] != "0" {
				l = m[1] + sessionName.Name(m[2])
			}
		case timeLine.MatchString(l):
			m := timeLine.FindStringSubmatch(l)
			if m[2] != epoch {
				l = m[1] + "<time>"
			}
		}
		t.Lines = append(t.Lines, l)
	}
	return t
}

// isWatcherLine reports whether l is one of the two lines zkCli's event
// thread prints for a notification.
func isWatcherLine(l string) bool {
	return l == "WATCHER::" || strings.HasPrefix(l, "WatchedEvent ")
}

var watchRemoved = regexp.MustCompile(`^state:\S+ type:\w+WatchRemoved path:(.*)$`)

func sortWatchRemovals(events []string) {
	for i := 0; i < len(events); {
		m := watchRemoved.FindStringSubmatch(events[i])
		if m == nil {
			i++
			continue
		}
		j := i + 1
		for j < len(events) {
			n := watchRemoved.FindStringSubmatch(events[j])
			if n == nil || n[1] != m[1] {
				break
			}
			j++
		}
		sort.Strings(events[i:j])
		i = j
	}
}

// ParseTranscript reads the String form back.
func ParseTranscript(s string) (Transcript, error) {
	var t Transcript
	section := ""
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		switch l {
		case "# output", "# events":
			section = l
			continue
		}
		switch section {
		case "# output":
			t.Lines = append(t.Lines, l)
		case "# events":
			t.Events = append(t.Events, l)
		default:
			return t, fmt.Errorf("line %q before any section", l)
		}
	}
	if section != "# events" {
		return t, errors.New("no # events section")
	}
	return t, nil
}

// Diff describes how got differs from want, or returns "" if it does
// not. Each difference is shown with a little context.
func Diff(want, got Transcript) string {
	var b strings.Builder
	diffLines(&b, "output", want.Lines, got.Lines)
	wantEvents, gotEvents := trimFinalClosed(want.Events, got.Events)
	diffLines(&b, "events", wantEvents, gotEvents)
	return b.String()
}

// sessionClosed is the event of a session's close.
const sessionClosed = "state:Closed type:None path:null"

// trimFinalClosed drops a last Closed event that only one side has. A
// script's quit closes the session and exits: zkCli's event thread prints
// that close's event, and the JVM's exit sometimes comes first, with a
// Java server as with gozk; the event says nothing of the server.
func trimFinalClosed(want, got []string) ([]string, []string) {
	switch {
	case len(want) == len(got)+1 && want[len(want)-1] == sessionClosed:
		return want[:len(want)-1], got
	case len(got) == len(want)+1 && got[len(got)-1] == sessionClosed:
		return want, got[:len(got)-1]
	}
	return want, got
}

func diffLines(b *strings.Builder, what string, want, got []string) {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	if i == len(want) && i == len(got) {
		return
	}
	fmt.Fprintf(b, "%s differs from line %d on (%d lines expected, %d got)\n", what, i+1, len(want), len(got))
	lo := i - 3
	if lo < 0 {
		lo = 0
	}
	show := func(name string, lines []string) {
		fmt.Fprintf(b, "  %s:\n", name)
		for j := lo; j < len(lines) && j < i+6; j++ {
			mark := " "
			if j >= i {
				mark = "!"
			}
			fmt.Fprintf(b, "   %s%4d  %s\n", mark, j+1, lines[j])
		}
		if i >= len(lines) {
			fmt.Fprintf(b, "   !      (ends here)\n")
		}
	}
	show("want", want)
	show("got", got)
}
