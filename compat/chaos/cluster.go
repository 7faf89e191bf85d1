package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/javazk"
	"github.com/gozk/gozk/compat/zkwire"
	"github.com/gozk/gozk/internal/testport"
)

// Kind is the server implementation a member runs.
type Kind string

const (
	Gozk Kind = "gozk"
	Java Kind = "java"
)

// Layout names the kind of each member; member i+1 runs Kinds[i].
type Layout struct {
	Name  string
	Kinds []Kind
}

// Timing of every ensemble the harness starts. Short ticks keep faults
// and recoveries quick; maxSessionTimeout is raised so that the
// workloads' sessions outlive every fault a nemesis injects (the default
// would be 20 ticks, 4 s).
const (
	tickTime          = 200
	initLimit         = 25 // ticks: 5 s to connect and sync
	syncLimit         = 10 // ticks: a learner silent for 2 s is dropped
	maxSessionTimeout = 60000
)

// jvmFlags are the -D flags of every member, Java's on its command line,
// gozk's in SERVER_JVMFLAGS. A committed log of 5000 txns (Java's default
// is 500) lets a leader cut off for a few seconds under the workloads'
// load come back within the new leader's committed log, where the new
// leader truncates what it logged alone (TRUNC) instead of sending a
// SNAP: the TRUNC crash point needs that.
var jvmFlags = []string{"-Dzookeeper.commitLogCount=5000"}

// syncLimitDuration is how long a leader waits for a silent learner, and
// a learner for a silent leader.
const syncLimitDuration = syncLimit * tickTime * time.Millisecond

// Cluster is a running ensemble of real server processes on loopback,
// with every peer connection crossing a link the harness can cut.
type Cluster struct {
	Layout  Layout
	Dir     string
	Members []*Member
	logf    func(string, ...any)

	// links[from][to] are the election and quorum links from member
	// from to member to.
	links map[int64]map[int64][2]*link
}

// Member is one server of a Cluster.
type Member struct {
	ID   int64
	Kind Kind
	c    *Cluster

	Dir, DataDir, CfgPath, LogPath   string
	ClientPort, QuorumPort, ElecPort int
	// clients carries every workload connection to the member, so a
	// nemesis can cut clients off as it cuts peers.
	clients *link

	mu       sync.Mutex
	cmd      *exec.Cmd
	exited   chan struct{}
	expected bool // the harness stopped or killed it
	crash    error
	lastExit error // how the last process ended (nil: status 0)
	paused   bool
	// env is the extra environment of the member's next start (armed
	// fail points); armedRun says the running process has fail points,
	// so that its exit is the harness's doing, not a crash.
	env      []string
	armedRun bool
}

// StartCluster writes the configuration of every member and starts them
// all; it returns once every member serves.
func StartCluster(ctx context.Context, dir string, layout Layout, logf func(string, ...any)) (*Cluster, error) {
	c := &Cluster{Layout: layout, Dir: dir, logf: logf, links: map[int64]map[int64][2]*link{}}
	for i, k := range layout.Kinds {
		id := int64(i + 1)
		md := filepath.Join(dir, fmt.Sprintf("server%d", id))
		m := &Member{ID: id, Kind: k, c: c, Dir: md, DataDir: filepath.Join(md, "data"),
			CfgPath: filepath.Join(md, "zoo.cfg"), LogPath: filepath.Join(md, "server.log")}
		var err error
		for _, p := range []*int{&m.ClientPort, &m.QuorumPort, &m.ElecPort} {
			if *p, err = testport.Free(); err != nil {
				return nil, err
			}
		}
		c.Members = append(c.Members, m)
	}
	for _, from := range c.Members {
		c.links[from.ID] = map[int64][2]*link{}
		for _, to := range c.Members {
			if from == to {
				continue
			}
			el, err := newLink(from.ID, to.ID, true, net.JoinHostPort("127.0.0.1", strconv.Itoa(to.ElecPort)))
			if err != nil {
				c.Close()
				return nil, err
			}
			ql, err := newLink(from.ID, to.ID, false, net.JoinHostPort("127.0.0.1", strconv.Itoa(to.QuorumPort)))
			if err != nil {
				el.Close()
				c.Close()
				return nil, err
			}
			c.links[from.ID][to.ID] = [2]*link{el, ql}
		}
	}
	for _, m := range c.Members {
		cl, err := newLink(0, m.ID, false, net.JoinHostPort("127.0.0.1", strconv.Itoa(m.ClientPort)))
		if err != nil {
			c.Close()
			return nil, err
		}
		m.clients = cl
	}
	// An initial message from -> to names from's election address; to
	// dials it back on the link to -> from.
	for from, tos := range c.links {
		for to, pair := range tos {
			pair[0].backAddr = c.links[to][from][0].Addr()
		}
	}
	for _, m := range c.Members {
		if err := os.MkdirAll(m.DataDir, 0o755); err != nil {
			c.Close()
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(m.DataDir, "myid"), []byte(strconv.FormatInt(m.ID, 10)+"\n"), 0o644); err != nil {
			c.Close()
			return nil, err
		}
		if err := os.WriteFile(m.CfgPath, []byte(c.config(m)), 0o644); err != nil {
			c.Close()
			return nil, err
		}
	}
	for _, m := range c.Members {
		if err := m.Start(); err != nil {
			c.Close()
			return nil, err
		}
	}
	if err := c.WaitServing(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// config is m's zoo.cfg: its own line has its real ports, every other
// member's line the links from m to it.
func (c *Cluster) config(m *Member) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tickTime=%d\ninitLimit=%d\nsyncLimit=%d\n", tickTime, initLimit, syncLimit)
	fmt.Fprintf(&b, "maxSessionTimeout=%d\n", maxSessionTimeout)
	fmt.Fprintf(&b, "dataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n", m.DataDir, m.ClientPort)
	b.WriteString("4lw.commands.whitelist=*\nadmin.enableServer=false\n")
	b.WriteString("autopurge.purgeInterval=0\n")
	for _, o := range c.Members {
		q, e := o.QuorumPort, o.ElecPort
		if o != m {
			pair := c.links[m.ID][o.ID]
			e, q = pair[0].Port(), pair[1].Port()
		}
		fmt.Fprintf(&b, "server.%d=127.0.0.1:%d:%d\n", o.ID, q, e)
	}
	return b.String()
}

// Close kills every member and stops every link.
func (c *Cluster) Close() {
	for _, m := range c.Members {
		m.Kill()
	}
	for _, tos := range c.links {
		for _, pair := range tos {
			pair[0].Close()
			pair[1].Close()
		}
	}
	for _, m := range c.Members {
		if m.clients != nil {
			m.clients.Close()
		}
	}
}

// Servers are the addresses clients reach the members at, in myid
// order: each member's client link.
func (c *Cluster) Servers() []string {
	out := make([]string, len(c.Members))
	for i, m := range c.Members {
		out[i] = m.clients.Addr()
	}
	return out
}

// CutClients cuts the client links of the given members: their clients
// hear nothing until HealClients.
func (c *Cluster) CutClients(ids ...int64) {
	for _, id := range ids {
		c.Member(id).clients.Cut()
	}
}

// HealClients restores every client link.
func (c *Cluster) HealClients() {
	for _, m := range c.Members {
		m.clients.Heal()
	}
}

// Member returns the member with myid id.
func (c *Cluster) Member(id int64) *Member { return c.Members[id-1] }

// Isolate cuts every link between the members of group and the rest:
// a partition with group on one side.
func (c *Cluster) Isolate(group ...int64) {
	in := map[int64]bool{}
	for _, id := range group {
		in[id] = true
	}
	for from, tos := range c.links {
		for to, pair := range tos {
			if in[from] != in[to] {
				pair[0].Cut()
				pair[1].Cut()
			}
		}
	}
}

// Heal restores every link.
func (c *Cluster) Heal() {
	for _, tos := range c.links {
		for _, pair := range tos {
			pair[0].Heal()
			pair[1].Heal()
		}
	}
}

// Leader returns the member whose srvr says it leads, or nil.
func (c *Cluster) Leader() *Member {
	for _, m := range c.Members {
		if m.Running() && !m.Paused() && m.Mode() == "leader" {
			return m
		}
	}
	return nil
}

// LeaderAddr is Env.Leader: the leader's address in Servers.
func (c *Cluster) LeaderAddr() string {
	if l := c.Leader(); l != nil {
		return l.clients.Addr()
	}
	return ""
}

// WaitServing restarts nothing: it waits until every member runs and
// serves with exactly one leader among them, and returns the first
// member that exited on its own while waiting as an error.
func (c *Cluster) WaitServing(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	for {
		leaders, serving := 0, 0
		var why []string
		for _, m := range c.Members {
			if err := m.Crashed(); err != nil {
				return fmt.Errorf("%v exited: %v\n%s", m, err, m.LogTail(30))
			}
			switch mode := m.Mode(); mode {
			case "leader":
				leaders++
				serving++
			case "follower", "observer":
				serving++
			default:
				why = append(why, fmt.Sprintf("%v: %q", m, mode))
			}
		}
		if leaders == 1 && serving == len(c.Members) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the ensemble does not serve (%d leaders, %d serving; %s)", leaders, serving, strings.Join(why, ", "))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (m *Member) String() string { return fmt.Sprintf("server %d (%s)", m.ID, m.Kind) }

// Addr is the member's own client address, which the harness's probes
// of its state use; workloads use Servers.
func (m *Member) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(m.ClientPort)) }

// Mode is the Mode line of the member's srvr answer ("" when it does not
// answer or does not serve).
func (m *Member) Mode() string {
	if !m.Running() || m.Paused() {
		return ""
	}
	out, err := zkwire.FourLetterWord(m.Addr(), "srvr", 2*time.Second)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, "Mode: "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Arm sets fail points (GOZK_FAILPOINTS entries) for the member's next
// start; none clears them.
func (m *Member) Arm(points ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.env = nil
	if len(points) > 0 {
		m.env = []string{"GOZK_FAILPOINTS=" + strings.Join(points, ";")}
	}
}

func (m *Member) command() (*exec.Cmd, error) {
	switch m.Kind {
	case Java:
		inst, err := javazk.Lookup()
		if err != nil {
			return nil, err
		}
		cp := append([]string(nil), inst.Classpath...)
		if inst.LogBinding != "" {
			cp = append(cp, inst.LogBinding)
		}
		args := []string{"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xms32m", "-Xmx256m",
			"-Dzookeeper.jmx.log4j.disable=true",
			"-Dorg.slf4j.simpleLogger.defaultLogLevel=info", "-Dorg.slf4j.simpleLogger.showDateTime=true"}
		args = append(args, jvmFlags...)
		args = append(args, "-cp", strings.Join(cp, string(os.PathListSeparator)), javazk.QuorumMainClass, m.CfgPath)
		return exec.Command(inst.Java, args...), nil
	case Gozk:
		bin, err := gozkproc.Binary()
		if err != nil {
			return nil, err
		}
		cmd := exec.Command(bin, "server", "--config", m.CfgPath)
		env := append(gozkproc.WithoutEnv(os.Environ(), "GOZK_FAILPOINTS", "JVMFLAGS", "SERVER_JVMFLAGS"),
			"SERVER_JVMFLAGS="+strings.Join(jvmFlags, " "))
		cmd.Env = append(env, m.env...)
		return cmd, nil
	}
	return nil, fmt.Errorf("%v: unknown kind", m)
}

// Start launches the member's process and returns at once.
func (m *Member) Start() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cmd != nil && !isClosed(m.exited) {
		return fmt.Errorf("%v is already running", m)
	}
	cmd, err := m.command()
	if err != nil {
		return err
	}
	logFile, err := os.OpenFile(m.LogPath, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close()
	fmt.Fprintf(logFile, "--- chaos: start at %s %s ---\n", time.Now().Format(time.RFC3339Nano), strings.Join(m.env, " "))
	cmd.Dir = m.Dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %v: %w", m, err)
	}
	exited := make(chan struct{})
	m.cmd, m.exited, m.expected, m.crash, m.paused = cmd, exited, false, nil, false
	m.armedRun = len(m.env) > 0
	go func() {
		err := cmd.Wait()
		m.mu.Lock()
		m.lastExit = err
		if !m.expected && !m.armedRun {
			if err == nil {
				err = errors.New("exit status 0")
			}
			m.crash = err
		}
		m.mu.Unlock()
		close(exited)
	}()
	return nil
}

func isClosed(ch chan struct{}) bool {
	if ch == nil {
		return true
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// Running reports whether the member's process is alive.
func (m *Member) Running() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cmd != nil && !isClosed(m.exited)
}

// Paused reports whether the member is stopped with SIGSTOP.
func (m *Member) Paused() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.paused
}

// Crashed is how the member's process ended when the harness did not end
// it, or nil.
func (m *Member) Crashed() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.crash
}

// KilledBySignal reports whether the last process ended by SIGKILL: a
// crash point fires that way.
func (m *Member) KilledBySignal() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ee *exec.ExitError
	if !errors.As(m.lastExit, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// Armed reports whether the running (or last) process was started with
// fail points.
func (m *Member) Armed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.armedRun
}

// Exited is closed when the current process ends.
func (m *Member) Exited() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.exited
}

// Expect marks the running process's coming exit as the harness's doing
// (a fail point it armed), and forgets an exit already recorded.
func (m *Member) Expect() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.expected, m.crash = true, nil
}

// Kill sends SIGKILL and waits for the process to end.
func (m *Member) Kill() { m.signal(syscall.SIGKILL) }

func (m *Member) signal(sig syscall.Signal) {
	m.mu.Lock()
	cmd, exited := m.cmd, m.exited
	if cmd == nil || isClosed(exited) {
		m.mu.Unlock()
		return
	}
	m.expected = true
	m.mu.Unlock()
	cmd.Process.Signal(sig)
	if sig == syscall.SIGKILL {
		<-exited
		m.mu.Lock()
		m.paused = false
		m.mu.Unlock()
	}
}

// Pause stops the process with SIGSTOP; Resume continues it.
func (m *Member) Pause() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cmd != nil && !isClosed(m.exited) {
		m.cmd.Process.Signal(syscall.SIGSTOP)
		m.paused = true
	}
}

// Resume continues a paused process.
func (m *Member) Resume() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cmd != nil && !isClosed(m.exited) && m.paused {
		m.cmd.Process.Signal(syscall.SIGCONT)
	}
	m.paused = false
}

// Wipe empties the member's data directory but keeps its myid; the
// member must be down.
func (m *Member) Wipe() error {
	if m.Running() {
		return fmt.Errorf("%v: wiping a running member", m)
	}
	if err := os.RemoveAll(m.DataDir); err != nil {
		return err
	}
	if err := os.MkdirAll(m.DataDir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(m.DataDir, "myid"), []byte(strconv.FormatInt(m.ID, 10)+"\n"), 0o644)
}

// LogTail is the last n lines of the member's log.
func (m *Member) LogTail(n int) string {
	b, _ := os.ReadFile(m.LogPath)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Log is the member's whole log.
func (m *Member) Log() string {
	b, _ := os.ReadFile(m.LogPath)
	return string(b)
}

// pick returns one of ms at random (nil for none).
func pick(rng *rand.Rand, ms []*Member) *Member {
	if len(ms) == 0 {
		return nil
	}
	return ms[rng.IntN(len(ms))]
}
