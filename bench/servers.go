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
	"time"
)

// ServerProcess is a server this package started for a comparison.
type ServerProcess struct {
	Name    string // "gozk" or "java"
	Addr    string
	PID     int
	Dir     string // zoo.cfg, data directory and log
	LogPath string
	cmd     *exec.Cmd
	exited  chan struct{}
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
	logFile, err := os.Create(p.LogPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	p.cmd = command(cfgPath)
	p.cmd.Dir = s.Dir
	p.cmd.Stdout, p.cmd.Stderr = logFile, logFile
	setProcAttr(p.cmd)
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	p.PID = p.cmd.Process.Pid
	p.exited = make(chan struct{})
	go func() {
		p.cmd.Wait()
		close(p.exited)
	}()
	if err := p.waitServing(ctx); err != nil {
		p.Stop()
		log, _ := os.ReadFile(p.LogPath)
		if len(log) > 2048 {
			log = log[len(log)-2048:]
		}
		return nil, fmt.Errorf("%s did not start on %s: %w\n%s", name, p.Addr, err, log)
	}
	return p, nil
}

// waitServing waits until a session can be established.
func (p *ServerProcess) waitServing(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, startupLimit)
	defer cancel()
	var last error
	for {
		c, err := dial(p.Addr, dialOptions{sessionTimeout: 30 * time.Second, ioTimeout: 5 * time.Second})
		if err == nil {
			return c.close()
		}
		last = err
		select {
		case <-p.exited:
			return errors.New("the process exited")
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), last)
		case <-time.After(100 * time.Millisecond):
		}
	}
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

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
