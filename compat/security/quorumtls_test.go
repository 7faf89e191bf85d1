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
	"github.com/gozk/gozk/internal/certtest"
)

// The quorum TLS interop tests run ensembles of Java 3.8.0 and gozk
// members on loopback with sslQuorum, the same zoo.cfg text and the same
// key and trust stores on both kinds, and check that they elect, serve,
// agree on the tree, and refuse the same certificates.

// qtWait bounds every wait: it guards against what never happens.
const qtWait = 2 * time.Minute

type qtKind string

const (
	qtJava qtKind = "java"
	qtGozk qtKind = "gozk"
)

// qtMember is one ensemble member and its process.
type qtMember struct {
	t                        *testing.T
	id                       int64
	kind                     qtKind
	quorum, election, client int
	dir, cfgPath, logPath    string
	servers                  *[]string // every member's server.N line
	settings                 []string  // this member's TLS lines
	mu                       sync.Mutex
	cmd                      *exec.Cmd
	exited                   chan struct{}
}

// qtEnsemble lays out members of the given kinds (server 1 first); own
// gives each its zoo.cfg lines beyond the common ones.
func qtEnsemble(t *testing.T, kinds []qtKind, own func(id int64) []string) []*qtMember {
	t.Helper()
	for _, k := range kinds {
		if k == qtJava {
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
	var ms []*qtMember
	for i, k := range kinds {
		m := &qtMember{t: t, id: int64(i + 1), kind: k, quorum: port(), election: port(), client: port(), servers: servers}
		m.dir = filepath.Join(root, fmt.Sprintf("%s%d", k, m.id))
		m.cfgPath = filepath.Join(m.dir, "zoo.cfg")
		m.logPath = filepath.Join(m.dir, "server.log")
		if err := os.MkdirAll(filepath.Join(m.dir, "data"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(m.dir, "data", "myid"), []byte(strconv.FormatInt(m.id, 10)+"\n"), 0o644)
		*servers = append(*servers, fmt.Sprintf("server.%d=127.0.0.1:%d:%d", m.id, m.quorum, m.election))
		ms = append(ms, m)
	}
	for _, m := range ms {
		m.configure(own(m.id)...)
	}
	t.Cleanup(func() {
		for _, m := range ms {
			m.kill()
			// QT_KEEP_LOGS=dir keeps every member's log there.
			if dir := os.Getenv("QT_KEEP_LOGS"); dir != "" {
				name := strings.ReplaceAll(t.Name(), "/", "_")
				os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%s%d.log", name, m.kind, m.id)), []byte(m.log()), 0o644)
			}
			if t.Failed() {
				t.Logf("log of server %d (%s), last lines:\n%s", m.id, m.kind, qtTail(m.log(), 40))
			}
		}
	})
	return ms
}

// configure rewrites the member's zoo.cfg with settings (read at its
// next start).
func (m *qtMember) configure(settings ...string) {
	m.t.Helper()
	m.settings = settings
	text := fmt.Sprintf("tickTime=200\ninitLimit=50\nsyncLimit=25\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n"+
		"maxSessionTimeout=60000\n4lw.commands.whitelist=*\nadmin.enableServer=false\n%s\n%s\n",
		filepath.Join(m.dir, "data"), m.client, strings.Join(*m.servers, "\n"), strings.Join(settings, "\n"))
	if err := os.WriteFile(m.cfgPath, []byte(text), 0o644); err != nil {
		m.t.Fatal(err)
	}
}

func (m *qtMember) String() string { return fmt.Sprintf("server %d (%s)", m.id, m.kind) }

func (m *qtMember) start() {
	m.t.Helper()
	var cmd *exec.Cmd
	switch m.kind {
	case qtJava:
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
			"-Dorg.slf4j.simpleLogger.showDateTime=true",
			"-cp", strings.Join(cp, string(os.PathListSeparator)), javazk.QuorumMainClass, m.cfgPath)
	case qtGozk:
		bin, err := gozkproc.Binary()
		if err != nil {
			m.t.Fatal(err)
		}
		cmd = exec.Command(bin, "server", "--config", m.cfgPath)
	}
	logFile, err := os.OpenFile(m.logPath, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		m.t.Fatal(err)
	}
	defer logFile.Close()
	fmt.Fprintf(logFile, "--- start with %q ---\n", m.settings)
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
func (m *qtMember) kill() {
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

func (m *qtMember) log() string {
	b, _ := os.ReadFile(m.logPath)
	return string(b)
}

func (m *qtMember) addr() string { return fmt.Sprintf("127.0.0.1:%d", m.client) }

// mode is the Mode line of srvr, "" while the member does not serve.
func (m *qtMember) mode() string {
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

func (m *qtMember) exitedEarly() bool {
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
func (m *qtMember) waitServing(modes ...string) string {
	m.t.Helper()
	deadline := time.Now().Add(qtWait)
	for {
		mode := m.mode()
		for _, want := range modes {
			if mode == want {
				return mode
			}
		}
		if m.exitedEarly() {
			m.t.Fatalf("%v ended by itself:\n%s", m, qtTail(m.log(), 40))
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("%v is %q after %v, want %v", m, mode, qtWait, modes)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (m *qtMember) connect() *zk.Conn {
	m.t.Helper()
	conn, events, err := zk.Connect([]string{m.addr()}, 30*time.Second, zk.WithLogger(qtQuiet{}))
	if err != nil {
		m.t.Fatal(err)
	}
	m.t.Cleanup(conn.Close)
	timeout := time.After(qtWait)
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

type qtQuiet struct{}

func (qtQuiet) Printf(string, ...interface{}) {}

// qtWriteThrough creates a node through each member.
func qtWriteThrough(t *testing.T, tag string, ms ...*qtMember) {
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

// qtIdenticalTrees dumps every member's tree after a sync and compares.
func qtIdenticalTrees(t *testing.T, ms ...*qtMember) {
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

func qtTail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// qtStores are the ssl.quorum.* lines for key store b (JKS, as a Java
// operator has them) trusting the set's CA.
func qtStores(set *certtest.Set, b certtest.Bundle) []string {
	return []string{
		"ssl.quorum.keyStore.location=" + b.JKS,
		"ssl.quorum.keyStore.password=" + set.Password,
		"ssl.quorum.trustStore.location=" + set.Trust.JKS,
		"ssl.quorum.trustStore.password=" + set.Password,
	}
}

func qtRequireLog(t *testing.T, m *qtMember, what string, patterns ...string) {
	t.Helper()
	deadline := time.Now().Add(qtWait)
	for {
		log := m.log()
		for _, s := range patterns {
			if strings.Contains(log, s) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v: no log line for %s (one of %q)", m, what, patterns)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestQuorumTLSMixedEnsemble: two Java members and one gozk with
// sslQuorum and the same JKS stores. gozk (server 3) leads first, Java
// once gozk is stopped, and gozk follows Java when back; writes go
// through every member and the trees agree.
func TestQuorumTLSMixedEnsemble(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	tlsLines := append([]string{"sslQuorum=true"}, qtStores(set, set.Server)...)
	ms := qtEnsemble(t, []qtKind{qtJava, qtJava, qtGozk}, func(int64) []string { return tlsLines })
	java1, java2, gozk3 := ms[0], ms[1], ms[2]
	gozk3.start()
	java2.start()
	gozk3.waitServing("leader")
	java2.waitServing("follower")
	java1.start()
	java1.waitServing("follower")
	qtWriteThrough(t, "gozk-leads", ms...)
	qtIdenticalTrees(t, ms...)
	qtRequireLog(t, java1, "a TLS election connection", "SSL handshake complete")
	qtRequireLog(t, gozk3, "a TLS quorum connection", "quorum connection accepted: TLS handshake complete")

	gozk3.kill()
	java2.waitServing("leader")
	java1.waitServing("follower")
	qtWriteThrough(t, "java-leads", java1, java2)
	gozk3.start()
	gozk3.waitServing("follower")
	qtRequireLog(t, gozk3, "a TLS connection to the Java leader", "connected to the leader: TLS handshake complete")
	qtWriteThrough(t, "gozk-back", ms...)
	qtIdenticalTrees(t, ms...)
}

// TestQuorumTLSRollingSwitch follows Java's documented procedure from
// plain to TLS between running members, one restart at a time: first
// portUnification=true everywhere, then sslQuorum=true, then
// portUnification=false. The ensemble serves writes after every
// restart.
func TestQuorumTLSRollingSwitch(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	stores := qtStores(set, set.Server)
	ms := qtEnsemble(t, []qtKind{qtGozk, qtJava, qtGozk}, func(int64) []string { return nil })
	for _, m := range ms {
		m.start()
	}
	for _, m := range ms {
		m.waitServing("leader", "follower")
	}
	qtWriteThrough(t, "plain", ms...)
	steps := []struct {
		name     string
		settings []string
	}{
		{"unified", append([]string{"portUnification=true"}, stores...)},
		{"tls", append([]string{"portUnification=true", "sslQuorum=true"}, stores...)},
		{"tls-only", append([]string{"sslQuorum=true"}, stores...)},
	}
	for _, step := range steps {
		for _, m := range ms {
			m.kill()
			m.configure(step.settings...)
			m.start()
			for _, o := range ms {
				o.waitServing("leader", "follower")
			}
			qtWriteThrough(t, fmt.Sprintf("%s-%d", step.name, m.id), ms...)
		}
	}
	qtIdenticalTrees(t, ms...)
	qtRequireLog(t, ms[1], "Java taking TLS", "SSL handshake complete", "Accepted TLS connection")
}

// TestQuorumTLSUntrustedMemberRefused: a member whose certificate comes
// from a CA the others do not trust is kept out alike by both kinds: two
// Java members refuse a gozk, two gozk members refuse a Java; in each
// case the other two elect and serve and the refused one never serves.
func TestQuorumTLSUntrustedMemberRefused(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	for _, c := range []struct {
		name  string
		kinds []qtKind
	}{
		{"java-refuses-gozk", []qtKind{qtJava, qtJava, qtGozk}},
		{"gozk-refuses-java", []qtKind{qtGozk, qtGozk, qtJava}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ms := qtEnsemble(t, c.kinds, func(id int64) []string {
				b := set.Server
				if id == 3 {
					b = set.Untrusted
				}
				return append([]string{"sslQuorum=true"}, qtStores(set, b)...)
			})
			for _, m := range ms {
				m.start()
			}
			ms[1].waitServing("leader")
			ms[0].waitServing("follower")
			qtWriteThrough(t, "without-3", ms[0], ms[1])
			qtIdenticalTrees(t, ms[0], ms[1])
			// The refused member tried, and each of the others said no:
			// Java logs the failed handshake as a TLS connection with no
			// cipher suite, gozk names the peer and the reason.
			for _, m := range ms[:2] {
				if m.kind == qtJava {
					qtRequireLog(t, m, "the failed handshake", "NONE - SSL_NULL_WITH_NULL_NULL")
				} else {
					qtRequireLog(t, m, "the refusal", "closing an election connection: refused by TLS")
				}
			}
			if ms[2].kind == qtGozk {
				qtRequireLog(t, ms[2], "being refused", "failed: remote error: tls: bad certificate")
			}
			if mode := ms[2].mode(); mode != "" {
				t.Fatalf("the untrusted %v serves as %s", ms[2], mode)
			}
		})
	}
}
