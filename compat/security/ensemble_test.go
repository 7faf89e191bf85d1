//go:build interop

package security

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/compat/ensemble"
	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/javazk"
	"github.com/gozk/gozk/compat/zkwire"
)

// The mixed ensembles of the quorum TLS and quorum SASL tests: Java
// 3.8.0 QuorumPeerMain and gozk members on loopback, each in a directory
// of its own with zoo.cfg, data/myid and server.log, started and killed
// one at a time. compat/ensemble's harness does the same for plain
// ensembles but lives in test files, so it cannot be imported here.

// memberWait bounds every wait: it guards against what never happens.
const memberWait = 2 * time.Minute

type memberKind string

const (
	kindJava memberKind = "java"
	kindGozk memberKind = "gozk"
)

// member is one ensemble member and its process.
type member struct {
	t                        *testing.T
	id                       int64
	kind                     memberKind
	quorum, election, client int
	dir, cfgPath, logPath    string
	servers                  *[]string // every member's server.N line
	settings                 []string  // this member's lines beyond the common ones
	jaas                     string    // the JAAS file it starts with, if any
	flags                    []string  // more -D flags
	mu                       sync.Mutex
	cmd                      *exec.Cmd
	exited                   chan struct{}
}

// newEnsemble lays out members of the given kinds (server 1 first) whose
// server.N lines name host. It skips the test when a Java member is
// wanted and Java ZooKeeper is not installed (fails if it is required).
func newEnsemble(t *testing.T, host string, kinds ...memberKind) []*member {
	t.Helper()
	for _, k := range kinds {
		if k == kindJava {
			if _, err := javazk.Lookup(); err != nil {
				if javazk.JavaRequired() {
					t.Fatal(err)
				}
				t.Skipf("skipping: %v", err)
			}
		}
	}
	root := t.TempDir()
	used := map[int]bool{}
	port := func() int {
		for {
			p, err := zkwire.FreePort()
			if err != nil {
				t.Fatal(err)
			}
			if !used[p] {
				used[p] = true
				return p
			}
		}
	}
	servers := new([]string)
	var ms []*member
	for i, k := range kinds {
		m := &member{t: t, id: int64(i + 1), kind: k, quorum: port(), election: port(), client: port(), servers: servers}
		m.layout(filepath.Join(root, fmt.Sprintf("%s%d", k, m.id)))
		*servers = append(*servers, fmt.Sprintf("server.%d=%s:%d:%d", m.id, host, m.quorum, m.election))
		ms = append(ms, m)
	}
	t.Cleanup(func() {
		for _, m := range ms {
			m.release()
		}
	})
	return ms
}

// layout makes the member's directory with its data/myid.
func (m *member) layout(dir string) {
	m.t.Helper()
	m.dir = dir
	m.cfgPath = filepath.Join(dir, "zoo.cfg")
	m.logPath = filepath.Join(dir, "server.log")
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		m.t.Fatal(err)
	}
	myid := []byte(strconv.FormatInt(m.id, 10) + "\n")
	if err := os.WriteFile(filepath.Join(dir, "data", "myid"), myid, 0o644); err != nil {
		m.t.Fatal(err)
	}
}

// release kills the member at the end of the test and shows its log when
// the test failed.
func (m *member) release() {
	m.kill()
	// QT_KEEP_LOGS=dir keeps every member's log there.
	if dir := os.Getenv("QT_KEEP_LOGS"); dir != "" {
		name := strings.ReplaceAll(m.t.Name(), "/", "_")
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%s%d.log", name, m.kind, m.id)), []byte(m.log()), 0o644)
	}
	if m.t.Failed() {
		m.t.Logf("log of %v, last lines:\n%s", m, tail(m.log(), 60))
	}
}

// twin is the same server (id, ports, ensemble, JAAS file and flags) as
// a member of another kind, in a directory of its own, not started.
func (m *member) twin(kind memberKind) *member {
	m.t.Helper()
	o := &member{t: m.t, id: m.id, kind: kind, quorum: m.quorum, election: m.election, client: m.client,
		servers: m.servers, jaas: m.jaas, flags: m.flags}
	o.layout(m.dir + "-" + string(kind))
	m.t.Cleanup(o.release)
	return o
}

func (m *member) String() string { return fmt.Sprintf("server %d (%s)", m.id, m.kind) }

// configure rewrites the member's zoo.cfg with settings (read at its
// next start).
func (m *member) configure(settings ...string) {
	m.t.Helper()
	m.settings = settings
	text := fmt.Sprintf("tickTime=200\ninitLimit=50\nsyncLimit=25\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n"+
		"maxSessionTimeout=60000\n4lw.commands.whitelist=*\nadmin.enableServer=false\n%s\n%s\n",
		filepath.Join(m.dir, "data"), m.client, strings.Join(*m.servers, "\n"), strings.Join(settings, "\n"))
	if err := os.WriteFile(m.cfgPath, []byte(text), 0o644); err != nil {
		m.t.Fatal(err)
	}
}

// startWith writes the member's zoo.cfg with settings and starts it.
func (m *member) startWith(settings ...string) {
	m.t.Helper()
	m.configure(settings...)
	m.start()
}

// start starts the member with its zoo.cfg as it stands. Its -D flags
// (the JAAS file first) go on Java's command line and into gozk's
// SERVER_JVMFLAGS, where gozk reads them as zkServer.sh passes them.
func (m *member) start() {
	m.t.Helper()
	var flags []string
	if m.jaas != "" {
		flags = append(flags, "-Djava.security.auth.login.config="+m.jaas)
	}
	flags = append(flags, m.flags...)
	var cmd *exec.Cmd
	switch m.kind {
	case kindJava:
		inst, err := javazk.Lookup()
		if err != nil {
			m.t.Fatal(err)
		}
		cp := append([]string(nil), inst.Classpath...)
		// Java's TLS listener (UnifiedServerSocket) needs Netty's codec
		// classes, which Debian's zookeeper.jar does not put on its class
		// path: without them the election listener thread dies at the
		// first connection (NoClassDefFoundError, not logged).
		for _, jar := range inst.Classpath {
			codec := filepath.Join(filepath.Dir(jar), "netty-codec.jar")
			if _, err := os.Stat(codec); err == nil {
				cp = append(cp, codec)
				break
			}
		}
		if inst.LogBinding != "" {
			cp = append(cp, inst.LogBinding)
		}
		cmd = exec.Command(inst.Java, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xms32m", "-Xmx256m",
			"-Dzookeeper.jmx.log4j.disable=true", "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
			"-Dorg.slf4j.simpleLogger.showDateTime=true")
		cmd.Args = append(append(cmd.Args, flags...),
			"-cp", strings.Join(cp, string(os.PathListSeparator)), javazk.QuorumMainClass, m.cfgPath)
	case kindGozk:
		bin, err := gozkproc.Binary()
		if err != nil {
			m.t.Fatal(err)
		}
		cmd = exec.Command(bin, "server", "--config", m.cfgPath)
		if len(flags) > 0 {
			cmd.Env = append(gozkproc.WithoutEnv(os.Environ(), "JVMFLAGS", "SERVER_JVMFLAGS"), "SERVER_JVMFLAGS="+strings.Join(flags, " "))
		}
	}
	logFile, err := os.OpenFile(m.logPath, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		m.t.Fatal(err)
	}
	defer logFile.Close()
	if m.jaas != "" {
		fmt.Fprintf(logFile, "--- start with %q, %s ---\n", m.settings, filepath.Base(m.jaas))
	} else {
		fmt.Fprintf(logFile, "--- start with %q ---\n", m.settings)
	}
	cmd.Dir = m.dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		m.t.Fatalf("starting %v: %v", m, err)
	}
	exited := make(chan struct{})
	m.mu.Lock()
	m.cmd, m.exited = cmd, exited
	m.mu.Unlock()
	go func() { cmd.Wait(); close(exited) }()
}

// kill ends the process (kill -9) and waits for it.
func (m *member) kill() {
	m.mu.Lock()
	cmd, exited := m.cmd, m.exited
	m.cmd = nil
	m.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Kill()
	<-exited
}

func (m *member) log() string {
	b, _ := os.ReadFile(m.logPath)
	return string(b)
}

func (m *member) addr() string { return fmt.Sprintf("127.0.0.1:%d", m.client) }

// mode is the Mode line of srvr, "" while the member does not serve.
func (m *member) mode() string {
	out, err := zkwire.FourLetterWord(m.addr(), "srvr", 5*time.Second)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(out, "\n") {
		if mode, ok := strings.CutPrefix(line, "Mode: "); ok {
			return strings.TrimSpace(mode)
		}
	}
	return ""
}

func (m *member) exitedEarly() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cmd == nil {
		return false
	}
	select {
	case <-m.exited:
		return true
	default:
		return false
	}
}

// waitServing waits until the member serves in one of modes.
func (m *member) waitServing(modes ...string) string {
	m.t.Helper()
	deadline := time.Now().Add(memberWait)
	for {
		mode := m.mode()
		for _, want := range modes {
			if mode == want {
				return mode
			}
		}
		if m.exitedEarly() {
			m.t.Fatalf("%v ended by itself:\n%s", m, tail(m.log(), 60))
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("%v is %q after %v, want %v", m, mode, memberWait, modes)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitLog waits until the member's log since its last start holds one
// of lines.
func (m *member) waitLog(lines ...string) string {
	m.t.Helper()
	return m.awaitLog(true, fmt.Sprintf("any of %q", lines), lines...)
}

// requireLog waits until the member's whole log, over all its starts,
// holds one of patterns, which show what.
func (m *member) requireLog(what string, patterns ...string) {
	m.t.Helper()
	m.awaitLog(false, fmt.Sprintf("a line for %s (one of %q)", what, patterns), patterns...)
}

func (m *member) awaitLog(sinceStart bool, what string, lines ...string) string {
	m.t.Helper()
	deadline := time.Now().Add(memberWait)
	for {
		log := m.log()
		if i := strings.LastIndex(log, "--- start with"); sinceStart && i >= 0 {
			log = log[i:]
		}
		for _, l := range lines {
			if strings.Contains(log, l) {
				return l
			}
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("%v never logged %s:\n%s", m, what, tail(log, 40))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (m *member) connect() *zk.Conn {
	m.t.Helper()
	conn, events, err := zk.Connect([]string{m.addr()}, 30*time.Second, zk.WithLogger(quietLogger{}))
	if err != nil {
		m.t.Fatal(err)
	}
	m.t.Cleanup(conn.Close)
	timeout := time.After(memberWait)
	for {
		select {
		case ev := <-events:
			if ev.Type == zk.EventSession && ev.State == zk.StateHasSession {
				return conn
			}
		case <-timeout:
			m.t.Fatalf("no session with %v", m)
		}
	}
}

type quietLogger struct{}

func (quietLogger) Printf(string, ...interface{}) {}

// writeThrough creates a node through each member.
func writeThrough(t *testing.T, tag string, ms ...*member) {
	t.Helper()
	for _, m := range ms {
		conn := m.connect()
		p := fmt.Sprintf("/%s-%s%d", tag, m.kind, m.id)
		if _, err := conn.Create(p, []byte(tag), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatalf("create %s through %v: %v", p, m, err)
		}
		conn.Close()
	}
}

// identicalTrees dumps every member's tree after a sync and compares.
func identicalTrees(t *testing.T, ms ...*member) {
	t.Helper()
	var want ensemble.Tree
	for i, m := range ms {
		conn := m.connect()
		if _, err := conn.Sync("/"); err != nil {
			t.Fatalf("sync on %v: %v", m, err)
		}
		tree, err := ensemble.Dump(conn)
		conn.Close()
		if err != nil {
			t.Fatalf("dump of %v: %v", m, err)
		}
		if i == 0 {
			want = tree
			continue
		}
		if d := ensemble.DiffTrees(want, tree); d != "" {
			t.Fatalf("the trees of %v and %v differ: %s", ms[0], m, d)
		}
	}
	t.Logf("%d nodes, identical on %d members", len(want), len(ms))
}

// waitLeader waits for every member to serve and returns the leader.
func waitLeader(t *testing.T, ms ...*member) *member {
	t.Helper()
	var leader *member
	for _, m := range ms {
		if m.waitServing("leader", "follower") == "leader" {
			leader = m
		}
	}
	if leader == nil {
		t.Fatal("no member leads")
	}
	return leader
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
