package bench

import (
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
	"syscall"
	"time"

	"github.com/gozk/gozk/internal/testport"
	"github.com/gozk/gozk/proto"
)

// ServerProcess is a server this package started for a comparison.
type ServerProcess struct {
	Name    string // "gozk" or "java"
	Addr    string
	PID     int
	Dir     string // zoo.cfg, data directory and log
	LogPath string
	// StartedIn is the time from launching the process to the first
	// request it answered (a handshake and an exists).
	StartedIn time.Duration
	cfgPath   string
	command   func(cfgPath string) *exec.Cmd
	cmd       *exec.Cmd
	exited    chan struct{}
}

// ServerSettings are the zoo.cfg settings both servers of a comparison get.
type ServerSettings struct {
	// Dir is where the server's zoo.cfg, data and log go; it is created.
	Dir string
	// TickTime in milliseconds.
	TickTime int
	// ForceSync fsyncs the txn log before acknowledging a write.
	ForceSync bool
}

// zooCfg renders the shared zoo.cfg: standalone, loopback, no limit on
// connections per IP (Java's default of 60 would refuse a 64-session run),
// AdminServer off.
func (s ServerSettings) zooCfg(dataDir string, port int) string {
	forceSync := "no"
	if s.ForceSync {
		forceSync = "yes"
	}
	return strings.Join([]string{
		"tickTime=" + strconv.Itoa(s.TickTime),
		"dataDir=" + dataDir,
		"clientPort=" + strconv.Itoa(port),
		"clientPortAddress=127.0.0.1",
		"maxClientCnxns=0",
		"forceSync=" + forceSync,
		"admin.enableServer=false",
		"4lw.commands.whitelist=*",
		"",
	}, "\n")
}

// JavaServer says how to start Apache ZooKeeper.
type JavaServer struct {
	// Java is the java binary.
	Java string
	// Classpath holds ZooKeeper's jars.
	Classpath []string
	// JVMArgs go before the main class; nil means -Xmx1000m, the heap
	// zkEnv.sh gives a server.
	JVMArgs []string
}

// JavaClasspath finds ZooKeeper's jars in lib: a Debian-style directory
// whose zookeeper.jar names its own dependencies, or the lib/ of an Apache
// binary release (every jar).
func JavaClasspath(lib string) ([]string, error) {
	if main := filepath.Join(lib, "zookeeper.jar"); fileExists(main) {
		cp := []string{main}
		if jute := filepath.Join(lib, "zookeeper-jute.jar"); fileExists(jute) {
			cp = append(cp, jute)
		}
		return cp, nil
	}
	jars, _ := filepath.Glob(filepath.Join(lib, "*.jar"))
	sort.Strings(jars)
	for _, j := range jars {
		if strings.HasPrefix(filepath.Base(j), "zookeeper-3.") {
			return jars, nil
		}
	}
	return nil, fmt.Errorf("no ZooKeeper jars in %s", lib)
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// startupLimit bounds how long a server may take to serve.
const startupLimit = 2 * time.Minute

// StartJava starts ZooKeeperServerMain with the shared settings.
func StartJava(ctx context.Context, j JavaServer, s ServerSettings) (*ServerProcess, error) {
	args := j.JVMArgs
	if args == nil {
		args = []string{"-Xmx1000m"}
	}
	return startServer(ctx, "java", s, func(cfgPath string) *exec.Cmd {
		a := append(append([]string(nil), args...), "-cp", strings.Join(j.Classpath, string(os.PathListSeparator)),
			"org.apache.zookeeper.server.ZooKeeperServerMain", cfgPath)
		return exec.Command(j.Java, a...)
	})
}

// StartGozk starts `gozk server` from the binary at path.
func StartGozk(ctx context.Context, path, logLevel string, s ServerSettings) (*ServerProcess, error) {
	return startServer(ctx, "gozk", s, func(cfgPath string) *exec.Cmd {
		return exec.Command(path, "server", "--config", cfgPath, "--log-level", logLevel)
	})
}

func startServer(ctx context.Context, name string, s ServerSettings, command func(cfgPath string) *exec.Cmd) (*ServerProcess, error) {
	dir, err := filepath.Abs(s.Dir)
	if err != nil {
		return nil, err
	}
	s.Dir = dir
	dataDir := filepath.Join(dir, "data")
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	p := &ServerProcess{Name: name, Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Dir: s.Dir,
		LogPath: filepath.Join(s.Dir, "server.log")}
	cfgPath := filepath.Join(s.Dir, "zoo.cfg")
	if err := os.WriteFile(cfgPath, []byte(s.zooCfg(dataDir, port)), 0o644); err != nil {
		return nil, err
	}
	p.cfgPath, p.command = cfgPath, command
	if err := p.launch(ctx); err != nil {
		return nil, fmt.Errorf("%s did not start on %s: %w", name, p.Addr, err)
	}
	return p, nil
}

// launch starts the process on its zoo.cfg and waits until it serves,
// timing that in StartedIn. The log is appended to, so a restart keeps the
// first run's lines.
func (p *ServerProcess) launch(ctx context.Context) error {
	launched := time.Now()
	if err := p.start(); err != nil {
		return err
	}
	if err := p.waitServing(ctx); err != nil {
		p.Stop()
		return fmt.Errorf("%w\n%s", err, p.logTail())
	}
	p.StartedIn = time.Since(launched)
	return nil
}

// start starts the process on its zoo.cfg without waiting for it to
// serve: an ensemble member cannot serve until a quorum of the others
// runs too.
func (p *ServerProcess) start() error {
	logFile, err := os.OpenFile(p.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close()
	p.cmd = p.command(p.cfgPath)
	p.cmd.Dir = p.Dir
	p.cmd.Stdout, p.cmd.Stderr = logFile, logFile
	setProcAttr(p.cmd)
	if err := p.cmd.Start(); err != nil {
		return err
	}
	p.PID = p.cmd.Process.Pid
	exited := make(chan struct{})
	p.exited = exited
	cmd := p.cmd
	go func() {
		cmd.Wait()
		close(exited)
	}()
	return nil
}

// logTail is the end of the server's log, for an error message.
func (p *ServerProcess) logTail() string {
	log, _ := os.ReadFile(p.LogPath)
	if len(log) > 2048 {
		log = log[len(log)-2048:]
	}
	return string(log)
}

// Restart stops the server with SIGTERM, as an init system would, and
// starts it again on the same configuration and data, timing the way back
// to serving in StartedIn.
func (p *ServerProcess) Restart(ctx context.Context) error {
	p.Terminate()
	if err := p.launch(ctx); err != nil {
		return fmt.Errorf("%s did not restart on %s: %w", p.Name, p.Addr, err)
	}
	return nil
}

// Terminate sends SIGTERM and waits for the process to exit, killing it
// after terminateGrace.
func (p *ServerProcess) Terminate() {
	if p.cmd == nil || p.cmd.Process == nil || !p.Alive() {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(terminateGrace):
		p.Stop()
	}
}

// terminateGrace bounds a graceful stop.
const terminateGrace = 30 * time.Second

// servingPoll is the interval between readiness probes: short, so that
// start-up times in the tens of milliseconds are resolved.
const servingPoll = 2 * time.Millisecond

// waitServing waits until a request is answered. A probe starts every
// servingPoll without waiting for the earlier ones, since a server may
// accept a connection while starting and never answer on it (Java does):
// the first probe to succeed marks the server serving.
func (p *ServerProcess) waitServing(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, startupLimit)
	defer cancel()
	served := make(chan struct{})
	var once sync.Once
	var mu sync.Mutex
	var last error
	sem := make(chan struct{}, maxProbes)
	tick := time.NewTicker(servingPoll)
	defer tick.Stop()
	for {
		select {
		case sem <- struct{}{}:
			go func() {
				defer func() { <-sem }()
				if err := probeServing(p.Addr); err != nil {
					mu.Lock()
					last = err
					mu.Unlock()
					return
				}
				once.Do(func() { close(served) })
			}()
		default:
		}
		select {
		case <-served:
			return nil
		case <-p.exited:
			return errors.New("the process exited")
		case <-ctx.Done():
			mu.Lock()
			defer mu.Unlock()
			return fmt.Errorf("%w (last: %v)", ctx.Err(), last)
		case <-tick.C:
		}
	}
}

// maxProbes bounds the readiness probes waiting for an answer at once.
const maxProbes = 32

// probeServing opens a session, asks for "/" and closes the session: the
// first request a server answers counts as serving, whatever it did
// before (Java answers handshakes only once its data is loaded).
func probeServing(addr string) error {
	c, err := dial(addr, dialOptions{sessionTimeout: 30 * time.Second, ioTimeout: 5 * time.Second})
	if err != nil {
		return err
	}
	defer c.close()
	rep, err := c.call(proto.OpExists, &proto.ExistsRequest{Path: "/"})
	if err == nil && rep.err != proto.ErrOK {
		err = fmt.Errorf("exists /: %s", rep.err.Name())
	}
	return err
}

// Stop kills the server and waits for it to exit.
func (p *ServerProcess) Stop() {
	if p.cmd == nil || p.cmd.Process == nil {
		return
	}
	select {
	case <-p.exited:
		return
	default:
	}
	p.cmd.Process.Kill()
	<-p.exited
}

// Alive reports whether the process is still running.
func (p *ServerProcess) Alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

func freePort() (int, error) { return testport.Free() }
