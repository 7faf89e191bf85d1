package javazk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/zkwire"
)

// MainClass is the standalone server entry point.
const MainClass = "org.apache.zookeeper.server.ZooKeeperServerMain"

// ExpectedVersion is the oracle's version; a different one is reported
// because the reference notes describe 3.8.0 exactly.
const ExpectedVersion = "3.8.0"

// startupLimit bounds how long a server may take to start serving. It is
// a guard against a server that never comes up, not a performance check.
const startupLimit = 90 * time.Second

// probeLimit bounds one readiness probe; an unanswered probe is simply
// repeated until startupLimit.
const probeLimit = 2 * time.Second

// Options shape the server. The zero value is the plain oracle.
type Options struct {
	// Config holds extra zoo.cfg lines ("key=value"), written after the
	// defaults so that they win.
	Config []string
	// SystemProperties become -Dkey=value JVM arguments.
	SystemProperties map[string]string
	// JVMArgs are further JVM arguments, before the main class.
	JVMArgs []string
	// AdminServer enables the AdminServer on a loopback port: AdminPort,
	// or a free one when AdminPort is 0. The servlet API jar is added to
	// the class path for it (Installation.ServletAPI).
	AdminServer bool
	AdminPort   int
	// TickTime in ms; 0 means 2000.
	TickTime int
	// Log puts an SLF4J binding on the class path and keeps the server's
	// output in LogPath (GOZK_JAVA_LOG=1 does the same).
	Log bool
}

// Server is a running Java ZooKeeper.
type Server struct {
	// Addr is the client address, "127.0.0.1:<port>".
	Addr string
	Port int
	// AdminPort is the AdminServer port, or 0.
	AdminPort int
	// Dir holds zoo.cfg, the data directory and the log.
	Dir        string
	ConfigPath string
	DataDir    string
	// LogPath holds the server's stdout and stderr.
	LogPath string
	// Version is the version line reported by "srvr".
	Version string

	java     string
	args     []string
	mu       sync.Mutex // guards cmd and exited, which Restart replaces
	cmd      *exec.Cmd
	exited   chan struct{}
	waitErr  error
	stopOnce sync.Once
	ownDir   bool
}

// Start starts a server for a test and stops it when the test ends. It
// skips the test when Java or the jars are missing, unless
// GOZK_REQUIRE_JAVA=1.
func Start(tb testing.TB, opts Options) *Server {
	tb.Helper()
	inst, err := Lookup()
	if err != nil {
		if JavaRequired() {
			tb.Fatalf("%v (%s=1 makes this fatal)", err, EnvRequireJava)
		}
		tb.Skipf("skipping: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), startupLimit)
	defer cancel()
	s, err := startIn(ctx, inst, tb.TempDir(), opts)
	if err != nil {
		tb.Fatalf("javazk: %v", err)
	}
	tb.Cleanup(func() {
		if tb.Failed() && s.LogPath != "" {
			tb.Logf("javazk: tail of %s:\n%s", s.LogPath, tail(s.LogPath, 4096))
		}
		s.Stop()
	})
	if !strings.Contains(s.Version, ExpectedVersion) {
		tb.Logf("javazk: the oracle should be ZooKeeper %s, this is %q", ExpectedVersion, s.Version)
	}
	return s
}

// StartServer starts a server outside a test; Stop removes its directory.
// The error wraps ErrUnavailable when Java or the jars are missing.
func StartServer(ctx context.Context, opts Options) (*Server, error) {
	inst, err := Lookup()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "javazk-")
	if err != nil {
		return nil, err
	}
	s, err := startIn(ctx, inst, dir, opts)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.ownDir = true
	return s, nil
}

// startIn starts the server under dir, retrying with a new port when the
// process dies before serving (another process may have taken the free
// port between our probe and Java's bind).
func startIn(ctx context.Context, inst Installation, dir string, opts Options) (*Server, error) {
	var lastErr error
	for attempt := 1; attempt <= 3; attempt++ {
		sub := filepath.Join(dir, "zk"+strconv.Itoa(attempt))
		s, err := launch(ctx, inst, sub, opts)
		if err == nil {
			return s, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, lastErr
}

func launch(ctx context.Context, inst Installation, dir string, opts Options) (*Server, error) {
	s := &Server{Dir: dir, DataDir: filepath.Join(dir, "data"), ConfigPath: filepath.Join(dir, "zoo.cfg"), LogPath: filepath.Join(dir, "server.log")}
	if err := os.MkdirAll(s.DataDir, 0o755); err != nil {
		return nil, err
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	s.Port, s.Addr = port, net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cfg := Config{TickTime: opts.TickTime, DataDir: s.DataDir, Port: port, Extra: opts.Config}
	if opts.AdminServer {
		cfg.AdminPort = opts.AdminPort
		if cfg.AdminPort == 0 {
			if cfg.AdminPort, err = FreePort(); err != nil {
				return nil, err
			}
		}
		s.AdminPort = cfg.AdminPort
	}
	if err := os.WriteFile(s.ConfigPath, []byte(cfg.Render()), 0o644); err != nil {
		return nil, err
	}

	logging := opts.Log || os.Getenv(EnvLog) == "1"
	classpath := append([]string(nil), inst.Classpath...)
	if logging && inst.LogBinding != "" {
		classpath = append(classpath, inst.LogBinding)
	}
	if opts.AdminServer && inst.ServletAPI != "" {
		classpath = append(classpath, inst.ServletAPI)
	}
	args := []string{
		// Small, quick-starting JVM: tests are short and the machine is
		// shared with the Go side.
		"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xms32m", "-Xmx512m",
		"-Dzookeeper.jmx.log4j.disable=true",
	}
	if logging {
		args = append(args, "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
			"-Dorg.slf4j.simpleLogger.showDateTime=true")
	}
	keys := make([]string, 0, len(opts.SystemProperties))
	for k := range opts.SystemProperties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "-D"+k+"="+opts.SystemProperties[k])
	}
	args = append(args, opts.JVMArgs...)
	args = append(args, "-cp", strings.Join(classpath, string(os.PathListSeparator)), MainClass, s.ConfigPath)

	s.java, s.args = inst.Java, args
	if err := s.exec(ctx); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// exec starts the JVM with the server's arguments, appending to its log,
// and waits until it serves.
func (s *Server) exec(ctx context.Context) error {
	exited, err := s.startJVM()
	if err != nil {
		return err
	}
	version, err := WaitServing(ctx, s.Addr, true, exited)
	if err != nil {
		s.kill()
		return fmt.Errorf("java ZooKeeper on %s did not start: %w\n%s", s.Addr, err, tail(s.LogPath, 2048))
	}
	s.Version = version
	return nil
}

// startJVM starts the JVM with the server's arguments, its output
// appended to the log, and returns a channel closed when it exits.
func (s *Server) startJVM() (<-chan struct{}, error) {
	logFile, err := os.OpenFile(s.LogPath, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child keeps its own descriptor
	cmd := exec.Command(s.java, s.args...)
	cmd.Dir = s.Dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	setProcAttr(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	s.mu.Lock()
	s.cmd, s.exited = cmd, exited
	s.mu.Unlock()
	go func() {
		err := cmd.Wait()
		s.mu.Lock()
		s.waitErr = err
		s.mu.Unlock()
		close(exited)
	}()
	return exited, nil
}

// kill ends the JVM with SIGKILL, if it runs, and waits for it to exit.
// Every reply Java sent followed an fsync of its txn log, so nothing
// acknowledged is lost.
func (s *Server) kill() {
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.mu.Unlock()
	if cmd != nil && cmd.Process != nil {
		cmd.Process.Kill()
		<-exited
	}
}

// Restart kills the server and starts it again with the same zoo.cfg: the
// same port and data directory, so clients reconnect to the address they
// had and find their sessions and data. Java binds its client port with
// SO_REUSEADDR; a few attempts cover a port that is slow to be released.
func (s *Server) Restart(ctx context.Context) error {
	s.kill()
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		if f, ferr := os.OpenFile(s.LogPath, os.O_APPEND|os.O_WRONLY, 0o644); ferr == nil {
			fmt.Fprintf(f, "\n--- javazk: restart at %s ---\n", time.Now().Format(time.RFC3339Nano))
			f.Close()
		}
		if err = s.exec(ctx); err == nil || !errors.Is(err, ErrExited) || ctx.Err() != nil {
			return err
		}
		time.Sleep(time.Duration(attempt) * 500 * time.Millisecond)
	}
	return err
}

// Stop kills the server and waits for it to exit. It is idempotent.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		s.kill()
		if s.ownDir {
			os.RemoveAll(s.Dir)
		}
	})
	return nil
}

// Exited reports whether the server process has ended.
func (s *Server) Exited() bool {
	s.mu.Lock()
	exited := s.exited
	s.mu.Unlock()
	select {
	case <-exited:
		return true
	default:
		return false
	}
}

// FourLetterWord sends a four-letter word to the server and returns the
// whole answer.
func (s *Server) FourLetterWord(word string) (string, error) {
	return FourLetterWord(s.Addr, word)
}

// Config is the generated zoo.cfg.
type Config struct {
	TickTime  int // 0 means 2000
	DataDir   string
	Port      int
	AdminPort int // 0 disables the AdminServer
	Extra     []string
}

// Render returns the zoo.cfg text. Keys that later lines repeat are
// overridden by them, as java.util.Properties does.
func (c Config) Render() string {
	tick := c.TickTime
	if tick == 0 {
		tick = 2000
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tickTime=%d\n", tick)
	fmt.Fprintf(&b, "dataDir=%s\n", c.DataDir)
	fmt.Fprintf(&b, "clientPort=%d\n", c.Port)
	b.WriteString("clientPortAddress=127.0.0.1\n")
	b.WriteString("4lw.commands.whitelist=*\n")
	if c.AdminPort != 0 {
		b.WriteString("admin.enableServer=true\n")
		b.WriteString("admin.serverAddress=127.0.0.1\n")
		fmt.Fprintf(&b, "admin.serverPort=%d\n", c.AdminPort)
	} else {
		b.WriteString("admin.enableServer=false\n")
	}
	for _, line := range c.Extra {
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort() (int, error) { return zkwire.FreePort() }

// FourLetterWord sends word on a fresh connection to addr and returns
// everything the server writes before closing it.
func FourLetterWord(addr, word string) (string, error) {
	return zkwire.FourLetterWord(addr, word, 10*time.Second)
}

// ErrExited means the server process ended while being waited for.
var ErrExited = errors.New("server process exited")

// WaitServing polls addr until the server serves clients, and returns the
// first line of its "srvr" answer. With requireFourLetterWords false, an
// accepted TCP connection is enough (for servers that do not implement the
// four-letter words yet); then the returned line may be empty. exited, if
// not nil, ends the wait early when it is closed.
func WaitServing(ctx context.Context, addr string, requireFourLetterWords bool, exited <-chan struct{}) (string, error) {
	var last error
	for {
		select {
		case <-exited:
			return "", ErrExited
		case <-ctx.Done():
			return "", fmt.Errorf("%w (last probe: %v)", ctx.Err(), last)
		default:
		}
		// ruok only says the process is up; srvr also says whether it
		// serves requests ("not currently serving" during startup). A
		// probe that gets no answer is abandoned quickly and repeated: a
		// server that accepts before it reads must not stall the wait.
		out, err := zkwire.FourLetterWord(addr, "ruok", probeLimit)
		switch {
		case err == nil && out == "imok":
			srvr, err := zkwire.FourLetterWord(addr, "srvr", probeLimit)
			if err == nil && strings.HasPrefix(srvr, "Zookeeper version:") {
				line, _, _ := strings.Cut(srvr, "\n")
				return strings.TrimSpace(strings.TrimPrefix(line, "Zookeeper version:")), nil
			}
			if !requireFourLetterWords {
				return "", nil
			}
			last = fmt.Errorf("srvr answered %q (%v)", srvr, err)
		case err == nil && !requireFourLetterWords:
			// The connection was accepted; a server without 4lw support
			// closes it after reading "ruok" as a frame length.
			return "", nil
		default:
			last = fmt.Errorf("ruok answered %q (%v)", out, err)
		}
		select {
		case <-exited:
			return "", ErrExited
		case <-ctx.Done():
			return "", fmt.Errorf("%w (last probe: %v)", ctx.Err(), last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// tail returns the last n bytes of a file, for failure messages.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	if len(b) > n {
		b = b[len(b)-n:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return string(b)
}
