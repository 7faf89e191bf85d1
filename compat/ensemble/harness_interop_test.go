//go:build interop

package ensemble

import (
	"errors"
	"fmt"
	"log"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/javazk"
	"github.com/gozk/gozk/compat/zkwire"
	"github.com/gozk/gozk/internal/testport"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/persistence/zkfiles"
	"github.com/gozk/gozk/proto"
)

func TestMain(m *testing.M) { os.Exit(gozkproc.RunTests(m)) }

// waitLimit bounds every wait in the data-path tests: for a member to
// serve, for a write to show up, for a session to expire. It guards
// against what never happens, it is not a measure of speed.
const waitLimit = 2 * time.Minute

// Kind is what runs an ensemble member.
type Kind string

const (
	Java Kind = "java"
	Gozk Kind = "gozk"
	// Absent is a member that is in every zoo.cfg but never started:
	// it keeps an ensemble's quorum at 2 of 3 while fewer JVMs run.
	Absent Kind = "absent"
)

// layout is an ensemble's make-up: Voters[i] is server i+1, then
// Observers follow with the next ids.
type layout struct {
	Voters    []Kind
	Observers []Kind
}

func (l layout) String() string {
	var parts []string
	for i, k := range l.Voters {
		parts = append(parts, fmt.Sprintf("%d=%s", i+1, k))
	}
	for i, k := range l.Observers {
		parts = append(parts, fmt.Sprintf("%d=%s-observer", len(l.Voters)+i+1, k))
	}
	return strings.Join(parts, ",")
}

// ensembleOptions tune an ensemble; the zero value is the default.
type ensembleOptions struct {
	// SyncLimit in ticks (tickTime is 200 ms); 0 means 25.
	SyncLimit int
	// Props are system properties for every member (-D for a JVM,
	// SERVER_JVMFLAGS for gozk), and PropsOf those of one member.
	Props   map[string]string
	PropsOf map[int64]map[string]string
	// Proxied lists [from, to] member pairs: from's zoo.cfg names a
	// proxy (quorumProxy) as to's quorum address, so that the test sees
	// and can hold back what from sends to to as its leader.
	Proxied [][2]int64
	// Extra are lines added to every member's zoo.cfg (group.N,
	// weight.N, ...).
	Extra []string
	// MultiAddress gives every server line a second address,
	// 127.0.0.2 with ports of its own, and holds each member's first
	// quorum port bound but not listening: no member can bind it and a
	// dial there is refused, so learners reach their leader only at its
	// second address. The members run with
	// zookeeper.multiAddress.enabled=true.
	MultiAddress bool
	// OwnHosts puts each member's quorum and election ports on a
	// loopback address of its own, 127.0.0.<id>, so that a port one
	// zoo.cfg key names for every member (observerMasterPort) can be
	// bound by each. Clients still connect on 127.0.0.1.
	OwnHosts bool
}

// tickTime keeps elections, pings and session timeouts short.
const tickTime = 200

// ensemble is a ZooKeeper ensemble on loopback whose members are Java
// QuorumPeerMain processes or gozk servers, each in its own directory.
type ensemble struct {
	t       *testing.T
	dir     string
	layout  layout
	opts    ensembleOptions
	members map[int64]*member
	proxies map[[2]int64]*quorumProxy
}

// member is one server of the ensemble and its process, when running.
type member struct {
	e            *ensemble
	id           int64
	kind         Kind
	observer     bool
	quorumPort   int
	electionPort int
	clientPort   int
	// The second address's ports (ensembleOptions.MultiAddress).
	quorumPort2, electionPort2 int
	dir                        string
	dataDir                    string
	cfgPath                    string
	logPath                    string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	// expectExit is set while the test ends the process on purpose.
	expectExit bool
	// crashed records an exit nobody asked for.
	crashed error
}

// newEnsemble lays out an ensemble (ports, directories, zoo.cfg files)
// without starting anything. It skips the test when Java is needed and
// missing, unless GOZK_REQUIRE_JAVA=1.
func newEnsemble(t *testing.T, l layout, opts ensembleOptions) *ensemble {
	t.Helper()
	for _, k := range append(append([]Kind(nil), l.Voters...), l.Observers...) {
		if k == Java {
			requireJava(t)
			break
		}
	}
	e := &ensemble{t: t, dir: t.TempDir(), layout: l, opts: opts, members: map[int64]*member{}, proxies: map[[2]int64]*quorumProxy{}}
	// The kernel may hand a port it just gave out again: each member's
	// three ports differ from every other's.
	used := map[int]bool{}
	port := func() int {
		for {
			if p := freePort(t); !used[p] {
				used[p] = true
				return p
			}
		}
	}
	add := func(k Kind, observer bool) {
		id := int64(len(e.members) + 1)
		m := &member{e: e, id: id, kind: k, observer: observer}
		m.quorumPort, m.electionPort, m.clientPort = port(), port(), port()
		if opts.MultiAddress {
			m.quorumPort = testport.Refusing(t)
			used[m.quorumPort] = true
			m.quorumPort2, m.electionPort2 = port(), port()
		}
		m.dir = filepath.Join(e.dir, fmt.Sprintf("%s%d", k, id))
		m.dataDir = filepath.Join(m.dir, "data")
		m.cfgPath = filepath.Join(m.dir, "zoo.cfg")
		m.logPath = filepath.Join(m.dir, "server.log")
		e.members[id] = m
	}
	for _, k := range l.Voters {
		add(k, false)
	}
	for _, k := range l.Observers {
		add(k, true)
	}
	for _, pair := range opts.Proxied {
		to := e.members[pair[1]]
		p, err := startQuorumProxy(fmt.Sprintf("127.0.0.1:%d", to.quorumPort))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.close)
		e.proxies[pair] = p
	}
	for _, m := range e.members {
		if err := os.MkdirAll(m.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := m.writeDataDir(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(m.cfgPath, []byte(e.config(m)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, id := range e.ids() {
			m := e.members[id]
			m.mu.Lock()
			crashed := m.crashed
			m.mu.Unlock()
			if crashed != nil {
				t.Errorf("server %d (%s) ended by itself during the test: %v", id, m.kind, crashed)
			}
			m.kill()
			if t.Failed() && m.kind != Absent {
				t.Logf("log of server %d (%s), last lines:\n%s", id, m.kind, lastLines(m.log(), 60))
			}
		}
	})
	return e
}

func requireJava(t *testing.T) {
	t.Helper()
	if _, err := javazk.Lookup(); err != nil {
		if javazk.JavaRequired() {
			t.Fatal(err)
		}
		t.Skipf("skipping: %v", err)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	p, err := zkwire.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// config is m's zoo.cfg. Java and gozk read the same text; only dataDir
// and clientPort differ between members, and a proxied member's line for
// its leader.
func (e *ensemble) config(m *member) string {
	syncLimit := e.opts.SyncLimit
	if syncLimit == 0 {
		syncLimit = 25
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tickTime=%d\ninitLimit=100\nsyncLimit=%d\n", tickTime, syncLimit)
	fmt.Fprintf(&b, "dataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n", m.dataDir, m.clientPort)
	// Sessions may outlive the 20 ticks Java allows by default: a loaded
	// machine must not expire the tests' own sessions.
	b.WriteString("maxSessionTimeout=60000\n")
	b.WriteString("4lw.commands.whitelist=*\nadmin.enableServer=false\n")
	if m.observer {
		b.WriteString("peerType=observer\n")
	}
	for _, id := range e.ids() {
		o := e.members[id]
		qport := o.quorumPort
		if p, ok := e.proxies[[2]int64{m.id, o.id}]; ok {
			qport = p.port
		}
		role := ""
		if o.observer {
			role = ":observer"
		}
		second := ""
		if e.opts.MultiAddress {
			second = fmt.Sprintf("|127.0.0.2:%d:%d", o.quorumPort2, o.electionPort2)
		}
		host := "127.0.0.1"
		if e.opts.OwnHosts {
			host = fmt.Sprintf("127.0.0.%d", id)
		}
		fmt.Fprintf(&b, "server.%d=%s:%d:%d%s%s\n", id, host, qport, o.electionPort, second, role)
	}
	for _, line := range e.opts.Extra {
		b.WriteString(line + "\n")
	}
	return b.String()
}

func (e *ensemble) ids() []int64 {
	ids := make([]int64, 0, len(e.members))
	for id := range e.members {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// present lists the members that are not Absent.
func (e *ensemble) present() []int64 {
	var ids []int64
	for _, id := range e.ids() {
		if e.members[id].kind != Absent {
			ids = append(ids, id)
		}
	}
	return ids
}

func (e *ensemble) m(id int64) *member {
	m, ok := e.members[id]
	if !ok {
		e.t.Fatalf("no server %d in the ensemble %v", id, e.layout)
	}
	return m
}

func (m *member) String() string { return fmt.Sprintf("server %d (%s)", m.id, m.kind) }

func (m *member) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(m.clientPort)) }

func (m *member) writeDataDir() error {
	if err := os.MkdirAll(m.dataDir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(m.dataDir, "myid"), []byte(strconv.FormatInt(m.id, 10)+"\n"), 0o644)
}

func (m *member) props() map[string]string {
	props := map[string]string{}
	if m.e.opts.MultiAddress {
		props["zookeeper.multiAddress.enabled"] = "true"
	}
	for k, v := range m.e.opts.Props {
		props[k] = v
	}
	for k, v := range m.e.opts.PropsOf[m.id] {
		props[k] = v
	}
	return props
}

func sortedFlags(props map[string]string) []string {
	var flags []string
	for k, v := range props {
		flags = append(flags, "-D"+k+"="+v)
	}
	sort.Strings(flags)
	return flags
}

// command is the process that runs m.
func (m *member) command() (*exec.Cmd, error) {
	switch m.kind {
	case Java:
		inst, err := javazk.Lookup()
		if err != nil {
			return nil, err
		}
		classpath := append([]string(nil), inst.Classpath...)
		if inst.LogBinding != "" {
			classpath = append(classpath, inst.LogBinding)
		}
		args := []string{"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xms32m", "-Xmx256m",
			"-Dzookeeper.jmx.log4j.disable=true",
			"-Dorg.slf4j.simpleLogger.defaultLogLevel=info", "-Dorg.slf4j.simpleLogger.showDateTime=true",
			// The leader logs one of its sync decisions (TRUNC past its
			// committed log) only at debug.
			"-Dorg.slf4j.simpleLogger.log.org.apache.zookeeper.server.quorum.LearnerHandler=debug"}
		args = append(args, sortedFlags(m.props())...)
		args = append(args, "-cp", strings.Join(classpath, string(os.PathListSeparator)), javazk.QuorumMainClass, m.cfgPath)
		return exec.Command(inst.Java, args...), nil
	case Gozk:
		bin, err := gozkproc.Binary()
		if err != nil {
			return nil, err
		}
		cmd := exec.Command(bin, "server", "--config", m.cfgPath)
		cmd.Env = append(gozkproc.WithoutEnv(os.Environ(), "JVMFLAGS", "SERVER_JVMFLAGS"),
			"SERVER_JVMFLAGS="+strings.Join(sortedFlags(m.props()), " "))
		return cmd, nil
	}
	return nil, fmt.Errorf("%v is never started", m)
}

// start launches m's process, appending to its log, and returns at once:
// a member serves only once it has a leader (waitServing).
func (m *member) start() {
	m.e.t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cmd != nil && !closed(m.exited) {
		m.e.t.Fatalf("%v is already running", m)
	}
	cmd, err := m.command()
	if err != nil {
		m.e.t.Fatal(err)
	}
	logFile, err := os.OpenFile(m.logPath, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		m.e.t.Fatal(err)
	}
	defer logFile.Close() // the child has its own descriptor
	fmt.Fprintf(logFile, "--- ensemble test: start at %s ---\n", time.Now().Format(time.RFC3339Nano))
	cmd.Dir = m.dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		m.e.t.Fatalf("starting %v: %v", m, err)
	}
	exited := make(chan struct{})
	m.cmd, m.exited, m.expectExit = cmd, exited, false
	go func() {
		err := cmd.Wait()
		m.mu.Lock()
		if !m.expectExit {
			if err == nil {
				err = errors.New("exit status 0")
			}
			m.crashed = err
		}
		m.mu.Unlock()
		close(exited)
	}()
}

func closed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// signal sends sig to m's process, if it runs, and waits up to grace for
// it to end (then kills it); grace 0 waits as long as it takes.
func (m *member) signal(sig syscall.Signal, grace time.Duration) {
	m.mu.Lock()
	cmd, exited := m.cmd, m.exited
	if cmd == nil || closed(exited) {
		m.mu.Unlock()
		return
	}
	m.expectExit = true
	m.mu.Unlock()
	cmd.Process.Signal(sig)
	if grace == 0 {
		<-exited
		return
	}
	select {
	case <-exited:
	case <-time.After(grace):
		cmd.Process.Kill()
		<-exited
	}
}

// kill is kill -9.
func (m *member) kill() { m.signal(syscall.SIGKILL, 0) }

// stop is a clean shutdown (SIGTERM), kill -9 after 20 s.
func (m *member) stop() { m.signal(syscall.SIGTERM, 20*time.Second) }

func (m *member) running() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cmd != nil && !closed(m.exited)
}

// wipe empties m's data directory (it must be stopped), keeping myid.
func (m *member) wipe() {
	m.e.t.Helper()
	if m.running() {
		m.e.t.Fatalf("wiping %v while it runs", m)
	}
	if err := os.RemoveAll(m.dataDir); err != nil {
		m.e.t.Fatal(err)
	}
	if err := m.writeDataDir(); err != nil {
		m.e.t.Fatal(err)
	}
}

func (m *member) log() string {
	b, _ := os.ReadFile(m.logPath)
	return string(b)
}

// mode is the Mode line of m's srvr answer, "" while it does not serve.
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

// zxid is the Zxid line of m's srvr answer (its last processed zxid),
// -1 while it does not serve.
func (m *member) zxid() int64 {
	out, err := zkwire.FourLetterWord(m.addr(), "srvr", 5*time.Second)
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, "Zxid: "); ok {
			if z, err := strconv.ParseInt(strings.TrimSpace(v), 0, 64); err == nil {
				return z
			}
		}
	}
	return -1
}

// waitServing waits until m serves clients in one of modes (leader,
// follower, observer; any of them when none is given) and returns it.
func (m *member) waitServing(modes ...string) string {
	m.e.t.Helper()
	if len(modes) == 0 {
		modes = []string{"leader", "follower", "observer"}
	}
	deadline := time.Now().Add(waitLimit)
	for {
		mode := m.mode()
		for _, want := range modes {
			if mode == want {
				return mode
			}
		}
		m.e.failOnCrash(fmt.Sprintf("while waiting for %v to serve as %v", m, modes))
		if time.Now().After(deadline) {
			m.e.t.Fatalf("%v is %q after %v, want one of %v:\n%s", m, mode, waitLimit, modes, lastLines(m.log(), 40))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// failOnCrash fails the test when a member ended by itself.
func (e *ensemble) failOnCrash(when string) {
	e.t.Helper()
	for _, id := range e.ids() {
		m := e.members[id]
		m.mu.Lock()
		crashed := m.crashed
		m.mu.Unlock()
		if crashed == nil {
			continue
		}
		e.t.Fatalf("%v ended by itself (%v) %s:\n%s", m, crashed, when, lastLines(m.log(), 40))
	}
}

// startLeader starts leader and one voter beside it, which is enough for
// a quorum of three, and waits until leader leads: with the larger id
// (or the longer history) it is the one both vote for.
func (e *ensemble) startLeader(leader, other int64) {
	e.t.Helper()
	e.m(leader).start()
	e.m(other).start()
	e.m(leader).waitServing("leader")
	e.m(other).waitServing("follower")
}

// startRest starts every member that is not running and not Absent and
// waits until all serve.
func (e *ensemble) startRest() {
	e.t.Helper()
	var started []*member
	for _, id := range e.present() {
		if m := e.members[id]; !m.running() {
			m.start()
			started = append(started, m)
		}
	}
	for _, m := range started {
		if m.observer {
			m.waitServing("observer")
		} else {
			m.waitServing("follower", "leader")
		}
	}
}

// restart starts a stopped member again and waits until it serves.
func (m *member) restart() {
	m.e.t.Helper()
	m.start()
	if m.observer {
		m.waitServing("observer")
	} else {
		m.waitServing("follower", "leader")
	}
}

// --- clients ---

type quietLogger struct{}

func (quietLogger) Printf(string, ...interface{}) {}

func zkLogger() zk.Logger {
	if os.Getenv("GOZK_ZK_LOG") == "1" {
		return log.New(os.Stderr, "zk: ", log.Lmicroseconds)
	}
	return quietLogger{}
}

// connect opens a go-zookeeper session to m alone and waits until it is
// established; it is closed when the test ends.
func (m *member) connect() *zk.Conn {
	m.e.t.Helper()
	conn, events, err := zk.Connect([]string{m.addr()}, 30*time.Second, zk.WithLogger(zkLogger()))
	if err != nil {
		m.e.t.Fatalf("connect to %v: %v", m, err)
	}
	m.e.t.Cleanup(conn.Close)
	waitSession(m.e.t, events, zk.StateHasSession)
	return conn
}

// waitSession waits for a session event in state.
func waitSession(t *testing.T, events <-chan zk.Event, state zk.State) {
	t.Helper()
	timeout := time.After(waitLimit)
	for {
		select {
		case ev := <-events:
			if ev.Type == zk.EventSession && ev.State == state {
				return
			}
		case <-timeout:
			t.Fatalf("no session event %v within %v", state, waitLimit)
		}
	}
}

// dump reads m's whole tree after a sync, through a session of its own.
func (m *member) dump() Tree {
	m.e.t.Helper()
	conn := m.connect()
	defer conn.Close()
	if _, err := conn.Sync("/"); err != nil {
		m.e.t.Fatalf("sync on %v: %v", m, err)
	}
	tree, err := Dump(conn)
	if err != nil {
		m.e.t.Fatalf("dumping %v: %v", m, err)
	}
	return tree
}

// requireIdenticalTrees dumps every running member's tree and fails
// with the first difference from the first member's. skip, if not nil,
// leaves paths out (a proxied member's /zookeeper/config names its
// proxy).
func (e *ensemble) requireIdenticalTrees(skip func(path string) bool) {
	e.t.Helper()
	var first *member
	var want Tree
	for _, id := range e.ids() {
		m := e.members[id]
		if !m.running() {
			continue
		}
		tree := m.dump()
		if skip != nil {
			tree = tree.Without(skip)
		}
		if first == nil {
			first, want = m, tree
			continue
		}
		if d := DiffTrees(want, tree); d != "" {
			e.t.Fatalf("the trees of %v and %v differ: %s", first, m, d)
		}
	}
	if first == nil {
		e.t.Fatal("no member runs")
	}
	e.t.Logf("%d nodes, identical on every running member", len(want))
}

// waitFor polls cond until it holds, failing the test after waitLimit
// with what describes the last state.
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not after %v (%s)", what, waitLimit, state)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// mntr is m's mntr answer as key -> value, nil while it does not answer.
func (m *member) mntr() map[string]string {
	out, err := zkwire.FourLetterWord(m.addr(), "mntr", 5*time.Second)
	if err != nil {
		return nil
	}
	values := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, "\t"); ok {
			values[k] = strings.TrimSpace(v)
		}
	}
	return values
}

// requireLeaderMntr checks the figures a leader's mntr has and a
// follower's has not, as Java's leader prints them: its learners, the
// synced followers (voters) and observers among them, each counted once
// every running member has synced.
func (e *ensemble) requireLeaderMntr(leader *member) {
	e.t.Helper()
	var followers, observers int
	for _, id := range e.ids() {
		m := e.members[id]
		if m == leader || !m.running() {
			continue
		}
		if m.observer {
			observers++
		} else {
			followers++
		}
	}
	want := map[string]string{
		"zk_server_state":                "leader",
		"zk_learners":                    strconv.Itoa(followers + observers),
		"zk_synced_followers":            strconv.Itoa(followers),
		"zk_synced_non_voting_followers": "0",
		"zk_synced_observers":            strconv.Itoa(observers),
		"zk_pending_syncs":               "0",
	}
	waitFor(e.t, fmt.Sprintf("the mntr of %v", leader), func() (bool, string) {
		got := leader.mntr()
		var wrong []string
		for k, v := range want {
			if got[k] != v {
				wrong = append(wrong, fmt.Sprintf("%s=%q want %q", k, got[k], v))
			}
		}
		for _, k := range []string{"zk_leader_uptime", "zk_proposal_count", "zk_last_proposal_size", "zk_min_proposal_size", "zk_max_proposal_size"} {
			if _, ok := got[k]; !ok {
				wrong = append(wrong, k+" missing")
			}
		}
		sort.Strings(wrong)
		return len(wrong) == 0, strings.Join(wrong, ", ")
	})
}

// requireNoDigestMismatch checks that no running Java member found a
// txn whose digest (sent by its leader with each proposal) disagreed
// with its own tree's.
func (e *ensemble) requireNoDigestMismatch() {
	e.t.Helper()
	for _, id := range e.ids() {
		m := e.members[id]
		if m.kind != Java || !m.running() {
			continue
		}
		if got := m.mntr()["zk_digest_mismatches_count"]; got != "0" {
			e.t.Errorf("%v: zk_digest_mismatches_count %q, want 0", m, got)
		}
	}
}

// requireTxnDigests checks that every txn in the txn logs of the Java
// learners carries the tree digest its leader computed: a learner logs
// each proposal as it came, and compares a digest only when the
// proposal has one, so zk_digest_mismatches_count 0 means something only
// when the digests are there.
func (e *ensemble) requireTxnDigests(leader *member) {
	e.t.Helper()
	for _, id := range e.ids() {
		m := e.members[id]
		if m == leader || m.kind != Java {
			continue
		}
		with, without, first := 0, 0, ""
		err := zkfiles.ReadLogs(filepath.Join(m.dataDir, "version-2"), 0, 16<<20, func(_ string, rec zkfiles.Record) error {
			var txn proto.TxnEntry
			r := jute.NewReader(rec.Data)
			txn.Decode(r)
			if r.Err() != nil {
				return fmt.Errorf("txn 0x%x: %w", rec.Zxid(), r.Err())
			}
			if txn.Digest != nil {
				with++
			} else {
				if first == "" {
					first = fmt.Sprintf("0x%x (%v)", txn.Header.Zxid, proto.OpCode(txn.Header.Type))
				}
				without++
			}
			return nil
		})
		if err != nil {
			e.t.Errorf("reading the txn logs of %v: %v", m, err)
			continue
		}
		if without > 0 || with == 0 {
			e.t.Errorf("%v logged %d txns from %v with a digest and %d without (the first: %s), want every one with",
				m, with, leader, without, first)
		}
	}
}
