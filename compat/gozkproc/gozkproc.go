package gozkproc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/zkwire"
)

// EnvBin names a prebuilt gozk binary to use instead of building one.
const EnvBin = "GOZK_BIN"

// Package is the import path of the server command that Start builds.
const Package = "github.com/gozk/gozk/cmd/gozk"

// Bounds on waiting. They guard against a server that never comes up or
// never goes down; they are not performance checks.
const (
	startupLimit = 60 * time.Second
	stopGrace    = 10 * time.Second
)

// Options shape the server. The zero value is a plain standalone server.
type Options struct {
	// Config holds extra zoo.cfg lines ("key=value"), written after the
	// defaults so that they win.
	Config []string
	// TickTime in ms; 0 means 2000.
	TickTime int
	// Env holds extra environment variables ("KEY=value") for the server.
	// JVMFLAGS and SERVER_JVMFLAGS, which gozk reads -D flags from, are
	// not inherited from the test's environment; set them here if needed.
	Env []string
	// Args are extra arguments after "server --config <file>", for
	// example "--log-level=debug".
	Args []string
}

// Process is a running (or stopped) gozk server.
type Process struct {
	// Dir holds zoo.cfg, the data directory and the log.
	Dir        string
	ConfigPath string
	DataDir    string
	// LogPath collects the server's stdout and stderr across restarts.
	LogPath string
	Port    int

	tb   testing.TB
	bin  string
	opts Options

	mu      sync.Mutex
	cmd     *exec.Cmd
	exited  chan struct{}
	waitErr error
	// expectExit is set while we are stopping the process, so that its
	// exit is not reported as a crash.
	expectExit bool
	crashed    bool
}

// Start builds gozk if needed, starts it for a test and stops it when the
// test ends. Any failure to build or to start fails the test.
func Start(tb testing.TB, opts Options) *Process {
	tb.Helper()
	bin, err := Binary()
	if err != nil {
		tb.Fatalf("gozkproc: %v", err)
	}
	p := &Process{tb: tb, bin: bin, opts: opts, Dir: tb.TempDir()}
	p.DataDir = filepath.Join(p.Dir, "data")
	p.ConfigPath = filepath.Join(p.Dir, "zoo.cfg")
	p.LogPath = filepath.Join(p.Dir, "server.log")
	if err := os.MkdirAll(p.DataDir, 0o755); err != nil {
		tb.Fatalf("gozkproc: %v", err)
	}

	// Another process may take the free port between our probe and the
	// server's bind; try a few ports before giving up.
	for attempt := 1; ; attempt++ {
		p.Port, err = zkwire.FreePort()
		if err != nil {
			tb.Fatalf("gozkproc: %v", err)
		}
		if err := os.WriteFile(p.ConfigPath, []byte(p.renderConfig()), 0o644); err != nil {
			tb.Fatalf("gozkproc: %v", err)
		}
		err = p.launch()
		if err == nil {
			break
		}
		if attempt == 3 || !errors.Is(err, errExited) {
			tb.Fatalf("gozkproc: gozk on %s did not start: %v\n%s", p.Addr(), err, p.LogTail(4096))
		}
	}
	tb.Cleanup(p.cleanup)
	return p
}

// Addr is the client address, "127.0.0.1:<port>".
func (p *Process) Addr() string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(p.Port))
}

// Kill sends SIGKILL and waits for the process to end, like a crash.
func (p *Process) Kill() {
	p.tb.Helper()
	p.signalAndWait(syscall.SIGKILL, 0)
}

// Stop sends SIGTERM and waits for the process to end; if it has not
// ended after a grace period it gets SIGKILL and the test fails. A
// non-zero exit status after SIGTERM also fails the test. Stopping a
// stopped server does nothing.
func (p *Process) Stop() {
	p.tb.Helper()
	if err := p.signalAndWait(syscall.SIGTERM, stopGrace); err != nil {
		p.tb.Errorf("gozkproc: %v\n%s", err, p.LogTail(4096))
	}
}

// Restart stops the server with SIGTERM if it is still running and starts
// it again with the same zoo.cfg, so on the same dataDir and port.
func (p *Process) Restart() {
	p.tb.Helper()
	p.Stop()
	if f, err := os.OpenFile(p.LogPath, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644); err == nil {
		fmt.Fprintf(f, "\n--- gozkproc: restart at %s ---\n", time.Now().Format(time.RFC3339Nano))
		f.Close()
	}
	// The old listener's port is normally free at once; a short retry
	// covers a kernel that is slow to release it.
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		if err = p.launch(); err == nil || !errors.Is(err, errExited) {
			break
		}
		time.Sleep(time.Duration(attempt) * 500 * time.Millisecond)
	}
	if err != nil {
		p.tb.Fatalf("gozkproc: restart of gozk on %s failed: %v\n%s", p.Addr(), err, p.LogTail(4096))
	}
}

// Running reports whether the server process is alive.
func (p *Process) Running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.runningLocked()
}

func (p *Process) runningLocked() bool {
	if p.exited == nil {
		return false
	}
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// FourLetterWord sends a four-letter word and returns the whole answer.
func (p *Process) FourLetterWord(word string) (string, error) {
	return zkwire.FourLetterWord(p.Addr(), word, 10*time.Second)
}

// Log returns everything the server has written so far.
func (p *Process) Log() string {
	b, _ := os.ReadFile(p.LogPath)
	return string(b)
}

// LogTail returns about the last n bytes of the server's output.
func (p *Process) LogTail(n int) string {
	b, err := os.ReadFile(p.LogPath)
	if err != nil {
		return "(no server log: " + err.Error() + ")"
	}
	if len(b) > n {
		b = b[len(b)-n:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return string(b)
}

func (p *Process) renderConfig() string {
	tick := p.opts.TickTime
	if tick == 0 {
		tick = 2000
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tickTime=%d\n", tick)
	fmt.Fprintf(&b, "dataDir=%s\n", p.DataDir)
	fmt.Fprintf(&b, "clientPort=%d\n", p.Port)
	b.WriteString("clientPortAddress=127.0.0.1\n")
	b.WriteString("4lw.commands.whitelist=*\n")
	b.WriteString("admin.enableServer=false\n")
	for _, line := range p.opts.Config {
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

var errExited = errors.New("server process exited")

// launch starts the process and waits until it answers ruok.
func (p *Process) launch() error {
	p.mu.Lock()
	if p.runningLocked() {
		p.mu.Unlock()
		return errors.New("already running")
	}
	logFile, err := os.OpenFile(p.LogPath, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		p.mu.Unlock()
		return err
	}
	defer logFile.Close() // the child keeps its own descriptor
	args := append([]string{"server", "--config", p.ConfigPath}, p.opts.Args...)
	cmd := exec.Command(p.bin, args...)
	cmd.Dir = p.Dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = append(WithoutEnv(os.Environ(), "JVMFLAGS", "SERVER_JVMFLAGS"), p.opts.Env...)
	setProcAttr(cmd)
	if err := cmd.Start(); err != nil {
		p.mu.Unlock()
		return err
	}
	exited := make(chan struct{})
	p.cmd, p.exited, p.waitErr, p.expectExit = cmd, exited, nil, false
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.waitErr = err
		if !p.expectExit {
			p.crashed = true
		}
		p.mu.Unlock()
		close(exited)
	}()
	p.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), startupLimit)
	defer cancel()
	if err := waitServing(ctx, p.Addr(), exited); err != nil {
		p.signalAndWait(syscall.SIGKILL, 0)
		if errors.Is(err, errExited) {
			p.mu.Lock()
			err = fmt.Errorf("%w (%v)", errExited, p.waitErr)
			p.mu.Unlock()
		}
		return err
	}
	return nil
}

// signalAndWait signals the process and waits for it to end. With a
// grace period, SIGKILL follows when it runs out, and an error says so;
// an exit status other than 0 after SIGTERM is also an error.
func (p *Process) signalAndWait(sig syscall.Signal, grace time.Duration) error {
	p.mu.Lock()
	if !p.runningLocked() {
		p.mu.Unlock()
		return nil
	}
	p.expectExit = true
	cmd, exited := p.cmd, p.exited
	p.mu.Unlock()

	_ = cmd.Process.Signal(sig)
	if grace <= 0 {
		<-exited
		return nil
	}
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-exited:
	case <-timer.C:
		_ = cmd.Process.Kill()
		<-exited
		return fmt.Errorf("gozk did not exit within %v of %v and was killed", grace, sig)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.waitErr != nil {
		return fmt.Errorf("gozk exited with %v after %v", p.waitErr, sig)
	}
	return nil
}

func (p *Process) cleanup() {
	p.mu.Lock()
	crashed, waitErr := p.crashed, p.waitErr
	p.mu.Unlock()
	if crashed {
		p.tb.Errorf("gozkproc: gozk on %s ended by itself during the test (%v)", p.Addr(), waitErr)
	}
	if err := p.signalAndWait(syscall.SIGTERM, stopGrace); err != nil {
		p.tb.Errorf("gozkproc: stopping gozk: %v", err)
	}
	if p.tb.Failed() {
		p.tb.Logf("gozkproc: tail of %s:\n%s", p.LogPath, p.LogTail(8192))
	}
}

// WithoutEnv is env (as os.Environ gives it) without the variables
// named: what a gozk process is started with when the test sets its
// SERVER_JVMFLAGS, or GOZK_FAILPOINTS, itself.
func WithoutEnv(env []string, drop ...string) []string {
	out := env[:0:0]
next:
	for _, kv := range env {
		for _, d := range drop {
			if strings.HasPrefix(kv, d+"=") {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}

// The binary is built once per test binary.
var build struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// Binary returns the path of the gozk binary: $GOZK_BIN if set, else one
// built from Package the first time it is asked for.
func Binary() (string, error) {
	if b := os.Getenv(EnvBin); b != "" {
		if _, err := os.Stat(b); err != nil {
			return "", fmt.Errorf("%s=%s: %v", EnvBin, b, err)
		}
		return b, nil
	}
	build.once.Do(func() {
		build.dir, build.err = os.MkdirTemp("", "gozkproc-")
		if build.err != nil {
			return
		}
		bin := filepath.Join(build.dir, "gozk")
		goTool, err := exec.LookPath("go")
		if err != nil {
			build.err = fmt.Errorf("cannot build %s: %v (or set %s)", Package, err, EnvBin)
			return
		}
		cmd := exec.Command(goTool, "build", "-o", bin, Package)
		out, err := cmd.CombinedOutput()
		if err != nil {
			build.err = fmt.Errorf("go build %s failed: %v\n%s", Package, err, out)
			return
		}
		build.bin = bin
	})
	return build.bin, build.err
}

// RunTests runs the tests and then removes the binary Start built.
func RunTests(m *testing.M) int {
	code := m.Run()
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
	return code
}

// waitServing polls until addr answers ruok with imok.
func waitServing(ctx context.Context, addr string, exited <-chan struct{}) error {
	var last error
	for {
		out, err := zkwire.FourLetterWord(addr, "ruok", 10*time.Second)
		if err == nil && out == "imok" {
			return nil
		}
		last = fmt.Errorf("ruok answered %q (%v)", out, err)
		select {
		case <-exited:
			return errExited
		case <-ctx.Done():
			return fmt.Errorf("%w (last probe: %v)", ctx.Err(), last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
