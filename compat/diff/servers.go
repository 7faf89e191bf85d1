package diff

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
	"testing"
	"time"

	"github.com/gozk/gozk/compat/javazk"
)

// Launcher starts a fresh server with cfg for a test, stops it when the
// test ends (tb.Cleanup), and returns its client address
// ("127.0.0.1:port"). Launchers run concurrently (both servers of a
// comparison start at once), so they must not call tb.Fatal, tb.Skip or
// anything else that stops the test goroutine: they return an error
// instead, wrapping javazk.ErrUnavailable when the server cannot be run on
// this machine at all (the test is then skipped).
type Launcher func(tb testing.TB, cfg ServerConfig) (addr string, err error)

// StartGozk, when set (by a file in this package that the server's
// authors add, typically from an init function), starts a gozk server for
// the differential tests. When it is nil, the binary named by $GOZK_BIN
// is used.
var StartGozk Launcher

// EnvGozkBin names a gozk binary to compare with Java.
const EnvGozkBin = "GOZK_BIN"

// EnvWaitLimit overrides DefaultWaitLimit in the interop tests (a Go
// duration such as "60s").
const EnvWaitLimit = "GOZK_COMPAT_WAIT"

// StartJava is the Launcher for Apache ZooKeeper 3.8.0 (see javazk).
func StartJava(tb testing.TB, cfg ServerConfig) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	s, err := javazk.StartServer(ctx, javazk.Options{Config: cfg.Config, SystemProperties: cfg.SystemProperties})
	if err != nil {
		return "", err
	}
	tb.Cleanup(func() { s.Stop() })
	return s.Addr, nil
}

// StartPair starts two servers concurrently, which halves the wait on a
// JVM's start-up. It skips the test when a launcher reports
// javazk.ErrUnavailable (fails instead with GOZK_REQUIRE_JAVA=1) and
// fails it on any other error.
func StartPair(tb testing.TB, cfg ServerConfig, a, b Launcher) (addrA, addrB string) {
	tb.Helper()
	var errA, errB error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); addrA, errA = a(tb, cfg) }()
	go func() { defer wg.Done(); addrB, errB = b(tb, cfg) }()
	wg.Wait()
	for _, err := range []error{errA, errB} {
		if errors.Is(err, javazk.ErrUnavailable) && !javazk.JavaRequired() {
			tb.Skipf("skipping: %v", err)
		}
	}
	for _, err := range []error{errA, errB} {
		if err != nil {
			tb.Fatalf("starting servers (%s configuration): %v", cfg.GroupName(), err)
		}
	}
	return addrA, addrB
}

// GozkLauncher returns the launcher for gozk: StartGozk if registered,
// else one that runs $GOZK_BIN. When neither is available it returns nil
// and the reason.
func GozkLauncher() (Launcher, string) {
	if StartGozk != nil {
		return StartGozk, ""
	}
	bin := os.Getenv(EnvGozkBin)
	if bin == "" {
		return nil, "no gozk to compare with: set " + EnvGozkBin + " to a gozk binary or register diff.StartGozk"
	}
	return BinaryLauncher(bin), ""
}

// BinaryLauncher runs "<bin> server --config <zoo.cfg>" with the same
// generated zoo.cfg as the Java server gets. System properties are passed
// the way zkServer.sh passes them to Java, as -D flags in SERVER_JVMFLAGS,
// which gozk reads; JVMFLAGS and SERVER_JVMFLAGS are not inherited from the
// test's environment, so a run does not depend on the caller's shell.
func BinaryLauncher(bin string) Launcher {
	return func(tb testing.TB, cfg ServerConfig) (string, error) {
		dir := tb.TempDir()
		cfgPath, port, flags, err := writeGozkConfig(dir, cfg)
		if err != nil {
			return "", err
		}
		logPath := filepath.Join(dir, "gozk.log")
		logFile, err := os.Create(logPath)
		if err != nil {
			return "", err
		}
		defer logFile.Close()
		cmd := exec.Command(bin, "server", "--config", cfgPath)
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = logFile, logFile
		cmd.Env = append(withoutJVMFlags(os.Environ()), "SERVER_JVMFLAGS="+flags)
		if err := cmd.Start(); err != nil {
			return "", fmt.Errorf("starting %s: %w", bin, err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		tb.Cleanup(func() {
			if tb.Failed() {
				if b, err := os.ReadFile(logPath); err == nil {
					tb.Logf("gozk log (%s):\n%s", logPath, lastBytes(b, 4096))
				}
			}
			cmd.Process.Kill()
			<-exited
		})
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if _, err := javazk.WaitServing(ctx, addr, false, exited); err != nil {
			return "", fmt.Errorf("gozk (%s) did not start serving on %s: %w", bin, addr, err)
		}
		return addr, nil
	}
}

func withoutJVMFlags(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "JVMFLAGS=") && !strings.HasPrefix(kv, "SERVER_JVMFLAGS=") {
			out = append(out, kv)
		}
	}
	return out
}

func lastBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// waitLimitFromEnv returns the wait limit from $GOZK_COMPAT_WAIT, or 0.
func waitLimitFromEnv(tb testing.TB) time.Duration {
	v := os.Getenv(EnvWaitLimit)
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		tb.Fatalf("%s=%q: %v", EnvWaitLimit, v, err)
	}
	return d
}

// Differential runs sc against the Java server at javaAddr and the gozk
// server at gozkAddr (both fresh, with sc.Server's configuration) and
// fails the test with a line diff when the normalised transcripts differ.
func Differential(t testing.TB, sc Scenario, javaAddr, gozkAddr string) {
	t.Helper()
	CompareRuns(t, sc, "java", javaAddr, "gozk", gozkAddr)
}

// CompareRuns runs sc against two servers concurrently and fails the test
// when the transcripts differ; wantName's transcript is the reference. A
// run error on the reference side is a broken scenario or oracle; on the
// other side it is shown together with the diff.
func CompareRuns(t testing.TB, sc Scenario, wantName, wantAddr, gotName, gotAddr string) (want, got Transcript) {
	t.Helper()
	opts := RunOptions{WaitLimit: waitLimitFromEnv(t)}
	var wantErr, gotErr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); want, wantErr = RunWith(wantAddr, sc, opts) }()
	go func() { defer wg.Done(); got, gotErr = RunWith(gotAddr, sc, opts) }()
	wg.Wait()
	if wantErr != nil {
		t.Errorf("%s run failed: %v\n%s transcript:\n%s", wantName, wantErr, wantName, want)
	}
	if d := Compare(want, got); d != "" {
		t.Errorf("%s and %s answer differently (scenario %s: %s):\n%s\n%s transcript:\n%s",
			wantName, gotName, sc.Name, sc.Doc, d, wantName, want)
	} else if gotErr != nil {
		t.Errorf("%s run failed: %v", gotName, gotErr)
	}
	return want, got
}

// Groups returns the scenarios grouped by server configuration, in the
// order the groups first appear.
func Groups(scs []Scenario) (names []string, groups map[string][]Scenario) {
	groups = make(map[string][]Scenario)
	for _, sc := range scs {
		g := sc.Server.GroupName()
		if _, ok := groups[g]; !ok {
			names = append(names, g)
		}
		groups[g] = append(groups[g], sc)
	}
	return names, groups
}

// String renders a scenario's identity for messages.
func (sc Scenario) String() string {
	return fmt.Sprintf("%s/%s", sc.Server.GroupName(), sc.Name)
}

// writeGozkConfig writes into dir the zoo.cfg a gozk server of cfg runs
// with (the one the Java server gets, on a free port, data in dir/data)
// and returns its path, the port, and cfg's system properties as the -D
// flags of SERVER_JVMFLAGS.
func writeGozkConfig(dir string, cfg ServerConfig) (cfgPath string, port int, jvmFlags string, err error) {
	if port, err = javazk.FreePort(); err != nil {
		return "", 0, "", err
	}
	keys := make([]string, 0, len(cfg.SystemProperties))
	for k := range cfg.SystemProperties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	flags := make([]string, len(keys))
	for i, k := range keys {
		flags[i] = "-D" + k + "=" + cfg.SystemProperties[k]
	}
	dataDir := filepath.Join(dir, "data")
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return "", 0, "", err
	}
	cfgPath = filepath.Join(dir, "zoo.cfg")
	text := javazk.Config{DataDir: dataDir, Port: port, Extra: cfg.Config}.Render()
	if err := os.WriteFile(cfgPath, []byte(text), 0o644); err != nil {
		return "", 0, "", err
	}
	return cfgPath, port, strings.Join(flags, " "), nil
}
