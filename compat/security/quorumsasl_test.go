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
	"github.com/gozk/gozk/internal/kdctest"
)

// The quorum SASL interop tests run ensembles of Java 3.8.0 and gozk
// members on loopback with quorum.auth.* in the same zoo.cfg text and the
// same JAAS file (-Djava.security.auth.login.config, SERVER_JVMFLAGS for
// gozk), and check that they admit each other, serve writes through
// every member with identical trees, keep out a member with a wrong
// password whatever its kind, and go through Java's rollout sequence
// mixed. At most two JVMs run at once.

// qsWait bounds every wait: it guards against what never happens.
const qsWait = 2 * time.Minute

type qsKind string

const (
	qsJava qsKind = "java"
	qsGozk qsKind = "gozk"
)

const qsJAAS = `QuorumServer {
    org.apache.zookeeper.server.auth.DigestLoginModule required
    user_zkquorum="quorum-secret";
};
QuorumLearner {
    org.apache.zookeeper.server.auth.DigestLoginModule required
    username="zkquorum"
    password="%s";
};
`

// The three quorum.auth settings of Java's rollout, cumulative.
var (
	qsEnable        = []string{"quorum.auth.enableSasl=true"}
	qsLearnerRequre = append(qsEnable[:1:1], "quorum.auth.learnerRequireSasl=true")
	qsRequireAll    = append(qsLearnerRequre[:2:2], "quorum.auth.serverRequireSasl=true")
)

// qsMember is one ensemble member and its process.
type qsMember struct {
	t                        *testing.T
	id                       int64
	kind                     qsKind
	quorum, election, client int
	dir, cfgPath, logPath    string
	servers                  *[]string // every member's server.N line
	settings                 []string  // this member's quorum.auth lines
	jaas                     string    // the JAAS file it starts with
	flags                    []string  // more -D flags
	mu                       sync.Mutex
	cmd                      *exec.Cmd
	exited                   chan struct{}
}

// qsEnsemble lays out members of the given kinds (server 1 first), all
// with the DIGEST-MD5 JAAS file whose learner password is right.
func qsEnsemble(t *testing.T, kinds ...qsKind) []*qsMember {
	t.Helper()
	ms := qsEnsembleOn(t, "127.0.0.1", kinds...)
	good := qsWriteJAAS(t, filepath.Dir(ms[0].dir), "jaas.conf", "quorum-secret")
	for _, m := range ms {
		m.jaas = good
	}
	return ms
}

// qsEnsembleOn lays out members whose server.N lines name host.
func qsEnsembleOn(t *testing.T, host string, kinds ...qsKind) []*qsMember {
	t.Helper()
	for _, k := range kinds {
		if k == qsJava {
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
	var ms []*qsMember
	for i, k := range kinds {
		m := &qsMember{t: t, id: int64(i + 1), kind: k, quorum: port(), election: port(), client: port(), servers: servers}
		m.dir = filepath.Join(root, fmt.Sprintf("%s%d", k, m.id))
		m.cfgPath = filepath.Join(m.dir, "zoo.cfg")
		m.logPath = filepath.Join(m.dir, "server.log")
		if err := os.MkdirAll(filepath.Join(m.dir, "data"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(m.dir, "data", "myid"), []byte(strconv.FormatInt(m.id, 10)+"\n"), 0o644)
		*servers = append(*servers, fmt.Sprintf("server.%d=%s:%d:%d", m.id, host, m.quorum, m.election))
		ms = append(ms, m)
	}
	t.Cleanup(func() {
		for _, m := range ms {
			m.kill()
			if t.Failed() {
				t.Logf("log of %v, last lines:\n%s", m, qsTail(m.log(), 60))
			}
		}
	})
	return ms
}

func qsWriteJAAS(t *testing.T, dir, name, password string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(fmt.Sprintf(qsJAAS, password)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (m *qsMember) String() string { return fmt.Sprintf("server %d (%s)", m.id, m.kind) }

// start writes the member's zoo.cfg with settings and starts it.
func (m *qsMember) start(settings ...string) {
	m.t.Helper()
	m.settings = settings
	text := fmt.Sprintf("tickTime=200\ninitLimit=50\nsyncLimit=25\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n"+
		"maxSessionTimeout=60000\n4lw.commands.whitelist=*\nadmin.enableServer=false\n%s\n%s\n",
		filepath.Join(m.dir, "data"), m.client, strings.Join(*m.servers, "\n"), strings.Join(settings, "\n"))
	if err := os.WriteFile(m.cfgPath, []byte(text), 0o644); err != nil {
		m.t.Fatal(err)
	}
	flags := append([]string{"-Djava.security.auth.login.config=" + m.jaas}, m.flags...)
	var cmd *exec.Cmd
	switch m.kind {
	case qsJava:
		inst, err := javazk.Lookup()
		if err != nil {
			m.t.Fatal(err)
		}
		cp := append([]string(nil), inst.Classpath...)
		if inst.LogBinding != "" {
			cp = append(cp, inst.LogBinding)
		}
		cmd = exec.Command(inst.Java, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xms32m", "-Xmx256m",
			"-Dzookeeper.jmx.log4j.disable=true", "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
			"-Dorg.slf4j.simpleLogger.showDateTime=true")
		cmd.Args = append(append(cmd.Args, flags...),
			"-cp", strings.Join(cp, string(os.PathListSeparator)), javazk.QuorumMainClass, m.cfgPath)
	case qsGozk:
		bin, err := gozkproc.Binary()
		if err != nil {
			m.t.Fatal(err)
		}
		cmd = exec.Command(bin, "server", "--config", m.cfgPath)
		cmd.Env = append(qsWithoutEnv(os.Environ(), "JVMFLAGS", "SERVER_JVMFLAGS"), "SERVER_JVMFLAGS="+strings.Join(flags, " "))
	}
	logFile, err := os.OpenFile(m.logPath, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		m.t.Fatal(err)
	}
	defer logFile.Close()
	fmt.Fprintf(logFile, "--- start with %q, %s ---\n", m.settings, filepath.Base(m.jaas))
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

func qsWithoutEnv(env []string, names ...string) []string {
	var out []string
next:
	for _, kv := range env {
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}

// kill ends the process (kill -9) and waits for it.
func (m *qsMember) kill() {
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

func (m *qsMember) log() string {
	b, _ := os.ReadFile(m.logPath)
	return string(b)
}

func (m *qsMember) addr() string { return fmt.Sprintf("127.0.0.1:%d", m.client) }

// mode is the Mode line of srvr, "" while the member does not serve.
func (m *qsMember) mode() string {
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

func (m *qsMember) exitedEarly() bool {
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
func (m *qsMember) waitServing(modes ...string) string {
	m.t.Helper()
	deadline := time.Now().Add(qsWait)
	for {
		mode := m.mode()
		for _, want := range modes {
			if mode == want {
				return mode
			}
		}
		if m.exitedEarly() {
			m.t.Fatalf("%v ended by itself:\n%s", m, qsTail(m.log(), 60))
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("%v is %q after %v, want %v", m, mode, qsWait, modes)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitLog waits until the member's log (since its last start) holds one
// of lines.
func (m *qsMember) waitLog(lines ...string) string {
	m.t.Helper()
	deadline := time.Now().Add(qsWait)
	for {
		log := m.log()
		if i := strings.LastIndex(log, "--- start with"); i >= 0 {
			log = log[i:]
		}
		for _, l := range lines {
			if strings.Contains(log, l) {
				return l
			}
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("%v never logged any of %q:\n%s", m, lines, qsTail(log, 40))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (m *qsMember) connect() *zk.Conn {
	m.t.Helper()
	conn, events, err := zk.Connect([]string{m.addr()}, 30*time.Second, zk.WithLogger(qsQuiet{}))
	if err != nil {
		m.t.Fatal(err)
	}
	m.t.Cleanup(conn.Close)
	timeout := time.After(qsWait)
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

type qsQuiet struct{}

func (qsQuiet) Printf(string, ...interface{}) {}

// qsWriteThrough creates a node through each member.
func qsWriteThrough(t *testing.T, tag string, ms ...*qsMember) {
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

// qsIdenticalTrees dumps every member's tree after a sync and compares.
func qsIdenticalTrees(t *testing.T, ms ...*qsMember) {
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

func qsTail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// qsLeader waits for every member to serve and returns the leader.
func qsLeader(t *testing.T, ms ...*qsMember) *qsMember {
	t.Helper()
	var leader *qsMember
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

// The gozk side's lines that show a successful exchange, and Java's.
const (
	qsGozkAuthenticated = "authenticated to a quorum server with SASL"
	qsJavaAuthenticated = "Successfully completed the authentication using SASL"
)

// TestQuorumSASLMixedDigest: Java servers 1 and 2 and gozk server 3, all
// requiring DIGEST-MD5 with the same JAAS file: gozk 3 leads first, then
// Java 2 once 3 is gone; writes go through every member and the trees
// are identical; both kinds log successful exchanges.
func TestQuorumSASLMixedDigest(t *testing.T) {
	ms := qsEnsemble(t, qsJava, qsJava, qsGozk)
	// 3 and 1 first: they both vote for the larger id.
	ms[2].start(qsRequireAll...)
	ms[0].start(qsRequireAll...)
	qsLeader(t, ms[0], ms[2])
	ms[1].start(qsRequireAll...)
	if leader := qsLeader(t, ms...); leader != ms[2] {
		t.Fatalf("%v leads, want the gozk server 3", leader)
	}
	qsWriteThrough(t, "gozk-leads", ms...)
	qsIdenticalTrees(t, ms...)
	ms[2].waitLog("quorum learner authenticated with SASL")
	ms[2].waitLog(qsGozkAuthenticated)
	ms[0].waitLog(qsJavaAuthenticated)

	ms[2].kill()
	if leader := qsLeader(t, ms[:2]...); leader != ms[1] {
		t.Fatalf("%v leads, want the Java server 2", leader)
	}
	ms[2].start(qsRequireAll...)
	ms[2].waitServing("follower")
	qsWriteThrough(t, "java-leads", ms...)
	qsIdenticalTrees(t, ms...)
}

// TestQuorumSASLWrongPasswordKeptOut: with Java 1 and gozk 2 requiring
// DIGEST-MD5, a server 3 whose learner password is wrong is refused on
// every connection it opens, first as a gozk server and then as a Java
// one; it never serves, and the ensemble serves without it.
func TestQuorumSASLWrongPasswordKeptOut(t *testing.T) {
	ms := qsEnsemble(t, qsJava, qsGozk, qsGozk)
	bad := qsWriteJAAS(t, filepath.Dir(ms[0].dir), "bad-jaas.conf", "wrong")
	ms[0].start(qsRequireAll...)
	ms[1].start(qsRequireAll...)
	qsLeader(t, ms[:2]...)

	ms[2].jaas = bad
	ms[2].start(qsRequireAll...)
	ms[2].waitLog("server 1 (127.0.0.1:")
	ms[2].waitLog(`answered ERROR`)
	ms[0].waitLog("Failed to authenticate using SASL")
	ms[1].waitLog("closing an election connection: quorum authentication failed")
	qsWriteThrough(t, "without-gozk-3", ms[:2]...)
	if mode := ms[2].mode(); mode != "" {
		t.Fatalf("gozk server 3 with a wrong password serves as %s", mode)
	}
	ms[2].kill()

	// The same server 3 (ports, JAAS file) as a Java server, in a
	// directory of its own.
	g := ms[2]
	java3 := &qsMember{t: t, id: 3, kind: qsJava, quorum: g.quorum, election: g.election, client: g.client, servers: g.servers, jaas: bad}
	java3.dir = g.dir + "-java"
	java3.cfgPath = filepath.Join(java3.dir, "zoo.cfg")
	java3.logPath = filepath.Join(java3.dir, "server.log")
	if err := os.MkdirAll(filepath.Join(java3.dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(java3.dir, "data", "myid"), []byte("3\n"), 0o644)
	java3.start(qsRequireAll...)
	t.Cleanup(java3.kill)
	java3.waitLog("Authentication failed against server addr")
	qsWriteThrough(t, "without-java-3", ms[:2]...)
	if mode := java3.mode(); mode != "" {
		t.Fatalf("Java server 3 with a wrong password serves as %s", mode)
	}
	qsIdenticalTrees(t, ms[:2]...)
}

// TestQuorumSASLRollout: Java's rollout with Java servers 1 and 3 and
// gozk server 2, one member restarted at a time, the ensemble serving
// writes through every member after each restart: quorum.auth.enableSasl
// everywhere, then learnerRequireSasl, then serverRequireSasl.
func TestQuorumSASLRollout(t *testing.T) {
	ms := qsEnsemble(t, qsJava, qsGozk, qsJava)
	for _, m := range ms {
		m.start()
	}
	qsLeader(t, ms...)
	qsWriteThrough(t, "plain", ms...)
	for s, settings := range [][]string{qsEnable, qsLearnerRequre, qsRequireAll} {
		for _, m := range ms {
			m.kill()
			m.start(settings...)
			qsLeader(t, ms...)
			qsWriteThrough(t, fmt.Sprintf("step%d-%d", s+1, m.id), ms...)
		}
	}
	qsIdenticalTrees(t, ms...)
	ms[1].waitLog(qsGozkAuthenticated)
	ms[0].waitLog(qsJavaAuthenticated)
}

// TestQuorumSASLMixedKerberos: Java servers 1 and 2 and gozk server 3
// requiring Kerberos against a private KDC, every member logging in as
// zkquorum/localhost from one JAAS file, the server lines naming
// localhost (a principal's host must be a server of the ensemble): gozk
// 3 leads Java followers that authenticated with GSSAPI, and the reverse.
func TestQuorumSASLMixedKerberos(t *testing.T) {
	kdc := kdctest.Start(t)
	ms := qsEnsembleOn(t, "localhost", qsJava, qsJava, qsGozk)
	kt := kdc.Keytab(kdctest.QuorumPrincipal)
	jaas := filepath.Join(filepath.Dir(ms[0].dir), "krb-jaas.conf")
	entry := fmt.Sprintf(`    com.sun.security.auth.module.Krb5LoginModule required
    useKeyTab=true keyTab="%s" storeKey=true useTicketCache=false
    principal="%s";`, kt, kdctest.Principal(kdctest.QuorumPrincipal))
	text := "QuorumServer {\n" + entry + "\n};\nQuorumLearner {\n" + entry + "\n};\n"
	if err := os.WriteFile(jaas, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		m.jaas = jaas
		m.flags = []string{"-Djava.security.krb5.conf=" + kdc.Krb5Conf}
	}
	ms[2].start(qsRequireAll...)
	ms[0].start(qsRequireAll...)
	qsLeader(t, ms[0], ms[2])
	ms[1].start(qsRequireAll...)
	if leader := qsLeader(t, ms...); leader != ms[2] {
		t.Fatalf("%v leads, want the gozk server 3", leader)
	}
	qsWriteThrough(t, "kerberos", ms...)
	qsIdenticalTrees(t, ms...)
	ms[2].waitLog("mechanism=GSSAPI")
	ms[2].waitLog("quorum learner authenticated with SASL")
	ms[2].waitLog(qsGozkAuthenticated)
	ms[0].waitLog(qsJavaAuthenticated)
}
