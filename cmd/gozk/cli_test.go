package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gozk/gozk/internal/testport"
)

// The CLI tests build the binary once and run it as scripts would.
var gozkBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gozk-cli")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	gozkBin = filepath.Join(dir, "gozk")
	build := exec.Command("go", "build", "-o", gozkBin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building gozk:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// gozk runs the binary and returns stdout, stderr and the exit status.
func gozk(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(gozkBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

func freePort(t *testing.T) int { return testport.MustFree(t) }

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.cfg", "dataDir="+dir+"\nclientPort=2181\ntickTime=fast\n")
	stranger := filepath.Join(dir, "stranger")
	if err := os.Mkdir(stranger, 0o755); err != nil {
		t.Fatal(err)
	}
	ensemble := writeFile(t, stranger, "ensemble.cfg", "dataDir="+stranger+"\nclientPort=2181\ninitLimit=5\nsyncLimit=2\n"+
		"server.1=127.0.0.1:2888:3888\nserver.2=127.0.0.2:2888:3888\nserver.3=127.0.0.3:2888:3888\n")
	writeFile(t, stranger, "myid", "4\n")
	noAutocreate := writeFile(t, dir, "noauto.cfg", "dataDir="+dir+"/absent\nclientPort=2181\ndatadir.autocreate=false\n")
	closed := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	cases := []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"version"}, exitOK, "gozk ", ""},
		{[]string{"--help"}, exitOK, "EXIT STATUS", ""},
		{[]string{"server", "--help"}, exitOK, "--log-file", ""},
		{[]string{"nonsense"}, exitUsage, "", `unknown command "nonsense"`},
		{[]string{}, exitUsage, "COMMANDS", ""},
		{[]string{"server", "--no-such-flag"}, exitUsage, "", "flag provided but not defined"},
		{[]string{"server", "--log-level", "loud"}, exitUsage, "", "--log-level"},
		{[]string{"server", "--log-format", "xml"}, exitUsage, "", "--log-format"},
		{[]string{"data", "nonsense"}, exitUsage, "", `unknown command "nonsense"`},
		{[]string{"server", "--config", filepath.Join(dir, "missing.cfg")}, exitBadConfig, "", "missing.cfg"},
		{[]string{"server", "--config", bad}, exitBadConfig, "", "bad.cfg:3: tickTime:"},
		{[]string{"server", "--config", ensemble}, exitBadConfig, "", "my id 4 is not in the peer list"},
		{[]string{"server", "--config", noAutocreate}, exitBadConfig, "", "missing data directory"},
		{[]string{"server", bad}, exitBadConfig, "", "bad.cfg:3: tickTime:"},
		{[]string{"server", bad, "extra"}, exitUsage, "", "unexpected arguments"},
		{[]string{"4lw"}, exitUsage, "", "exactly one word"},
		{[]string{"4lw", "toolong"}, exitUsage, "", "not four letters"},
		{[]string{"4lw", "ruok", "--server", closed, "--timeout", "2s"}, exitRuntime, "", "connection refused"},
		{[]string{"completion"}, exitUsage, "", "bash, zsh or fish"},
		{[]string{"completion", "tcsh"}, exitUsage, "", "unknown shell"},
		{[]string{"completion", "bash"}, exitOK, "complete -o bashdefault -o default -F _gozk_complete gozk", ""},
		{[]string{"completion", "zsh"}, exitOK, "#compdef gozk", ""},
		{[]string{"completion", "fish"}, exitOK, "complete -c gozk", ""},
		{[]string{"--generate-bash-completion"}, exitOK, "4lw\ncompletion\n", ""},
		{[]string{"4lw", "--generate-bash-completion"}, exitOK, "ruok\n", ""},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			stdout, stderr, code := gozk(t, nil, c.args...)
			if code != c.code || !strings.Contains(stdout, c.stdout) || !strings.Contains(stderr, c.stderr) {
				t.Fatalf("exit %d (want %d)\nstdout: %s\nstderr: %s\nwant stdout with %q, stderr with %q",
					code, c.code, stdout, stderr, c.stdout, c.stderr)
			}
		})
	}
}

// TestServerLogAndFourLetterWords runs a server with a JSON log file,
// asks it four-letter words, rotates the log with SIGHUP and stops it.
func TestServerLogAndFourLetterWords(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cfg := writeFile(t, dir, "zoo.cfg", fmt.Sprintf("tickTime=2000\ndataDir=%s/data\nclientPort=%d\nclientPortAddress=127.0.0.1\n"+
		"4lw.commands.whitelist=ruok,isro\nautopurge.snapRetainCount=1\nadmin.serverAddress=127.0.0.1\nadmin.serverPort=%d\n", dir, port, freePort(t)))
	logPath := filepath.Join(dir, "gozk.log")
	proc := startServerProcess(t, nil, "server", "--config", cfg, "--log-file", logPath, "--log-format", "json")
	proc.waitRuok(t, addr)
	srv, done, stderr := proc.cmd, proc.done, &proc.stderr
	if out, _, code := gozk(t, nil, "4lw", "-s", addr, "isro"); code != 0 || out != "rw\n" {
		t.Errorf("isro: exit %d, %q", code, out)
	}
	if out, errOut, code := gozk(t, nil, "4lw", "stat", "--server", addr); code != exitRuntime ||
		!strings.Contains(out, "is not executed because it is not in the whitelist") || !strings.Contains(errOut, "refused") {
		t.Errorf("stat: exit %d, %q %q", code, out, errOut)
	}

	// Rotate: rename the file, SIGHUP, then stop with SIGTERM.
	rotated := logPath + ".1"
	if err := os.Rename(logPath, rotated); err != nil {
		t.Fatal(err)
	}
	_ = srv.Process.Signal(syscall.SIGHUP)
	waitFor(t, func() bool { _, err := os.Stat(logPath); return err == nil })
	_ = srv.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("server exit: %v\n%s", err, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("server did not stop on SIGTERM")
	}
	if stderr.Len() != 0 {
		t.Errorf("with --log-file, stderr should stay empty: %s", stderr.String())
	}

	first := readJSONLines(t, rotated)
	second := readJSONLines(t, logPath)
	start := find(t, first, "starting gozk")
	if start["version"] != version || start["clientAddr"] != addr || start["config"] != cfg || start["level"] != "info" {
		t.Errorf("start line: %v", start)
	}
	if w := find(t, first, "autopurge.snapRetainCount: invalid"); w["level"] != "warn" {
		t.Errorf("config warning: %v", w)
	}
	if l := find(t, first, "serving clients"); l["address"] != addr {
		t.Errorf("listening line: %v", l)
	}
	find(t, second, "log file reopened")
	find(t, second, "shutting down")
	find(t, second, "shutdown complete")
	for _, lines := range [][]map[string]any{first, second} {
		for _, l := range lines {
			if _, ok := l["time"].(string); !ok || l["level"] == nil || l["message"] == nil {
				t.Errorf("line without time, level or message: %v", l)
			}
		}
	}
	// Nothing per request at info: the four-letter words above are not
	// logged at info.
	for _, l := range append(first, second...) {
		if msg, _ := l["message"].(string); strings.Contains(msg, "ruok") || strings.Contains(msg, "isro") {
			t.Errorf("per-request line: %v", l)
		}
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readJSONLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: not a JSON line: %q", path, sc.Text())
		}
		out = append(out, m)
	}
	return out
}

func find(t *testing.T, lines []map[string]any, msg string) map[string]any {
	t.Helper()
	for _, l := range lines {
		if m, _ := l["message"].(string); strings.Contains(m, msg) {
			return l
		}
	}
	t.Fatalf("no log line with %q in %v", msg, lines)
	return nil
}

// TestBashCompletionScript sources the bash script and completes a few
// command lines with it, as bash would.
func TestBashCompletionScript(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	script := `source <(gozk completion bash)
c() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gozk_complete; echo "${COMPREPLY[*]}"; }
c gozk 4l
c gozk 4lw mn
c gozk server --log-f
c gozk completion z`
	cmd := exec.Command(bash, "-c", script)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(gozkBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got, want := string(out), "4lw\nmntr\n--log-format --log-file\nzsh\n"; got != want {
		t.Fatalf("completions %q, want %q", got, want)
	}
}

// serverProcess is a `gozk server` a test started; it is killed when the
// test ends unless it has exited by then.
type serverProcess struct {
	cmd    *exec.Cmd
	done   chan error // receives Wait's result, once
	stderr bytes.Buffer
}

// startServerProcess starts gozkBin with args (env, when not nil, as its
// environment).
func startServerProcess(t *testing.T, env []string, args ...string) *serverProcess {
	t.Helper()
	p := &serverProcess{cmd: exec.Command(gozkBin, args...), done: make(chan error, 1)}
	p.cmd.Env = env
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// waitRuok waits until the server at addr answers ruok.
func (p *serverProcess) waitRuok(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		out, _, code := gozk(t, nil, "4lw", "ruok", "--server", addr, "--timeout", "1s")
		if code == 0 && out == "imok\n" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not answer ruok: %q %d\nstderr: %s", out, code, p.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
