//go:build interop

package ensemble

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/javaprog"
	"github.com/gozk/gozk/compat/javazk"
)

// migrationSettle is how long the load runs on each new make-up of the
// ensemble before the next server goes.
const migrationSettle = 3 * time.Second

// TestRollingMigration moves a running three-server Apache ZooKeeper
// 3.8.0 ensemble to gozk and back, one server at a time, as an operator
// does it (docs/migration.md), while clients of three libraries use it
// all along:
//
//   - Curator (testdata/MigrationLoad.java): a lock taken in turns by
//     three sessions, a leader latch with two participants, a
//     DistributedAtomicLong incremented without pause;
//   - kazoo (testdata/migration_kazoo.py): creates, an ephemeral node
//     held all along, and a data watch on a node the Go writers change;
//   - go-zookeeper: two writers creating nodes and setting one node's
//     data each, every acknowledged write recorded.
//
// Each server in turn, followers first and the leader last: SIGTERM,
// `gozk data import` on its data directory, `gozk server` with the same
// zoo.cfg and myid; it must serve and the leader must count every
// follower as synced (zk_synced_followers) before the next one goes.
// Then back to Java the same way with `gozk data export`.
//
// No session may expire or be replaced, the only errors any client sees
// are connection losses (retried, counted and logged per client), every
// acknowledged write is on every member at the end, the trees are
// identical, the lock never had two holders, the latch never two leaders,
// and the counter holds the acknowledged increments (plus at most those a
// retry made uncertain: see MigrationLoad.java).
//
// The java-restart subtest puts the same load through a rolling restart
// of the Java servers, with the same checks: what clients see of an
// ordinary restart, to compare the migration's figures with.
func TestRollingMigration(t *testing.T) {
	requireJava(t)
	requireKazoo(t)
	bin, err := gozkproc.Binary()
	if err != nil {
		t.Fatal(err)
	}
	prog := javaprog.Compile(t, "MigrationLoad", append(append([]string(nil), javaprog.CuratorJars...), javaprog.ZooKeeperJars...),
		"testdata/MigrationLoad.java")
	t.Run("java-gozk-java", func(t *testing.T) {
		rollUnderLoad(t, prog, func(e *ensemble) []migrationStep {
			return append(e.roll(bin, Gozk, false), e.roll(bin, Java, false)...)
		})
	})
	t.Run("java-restart", func(t *testing.T) {
		rollUnderLoad(t, prog, func(e *ensemble) []migrationStep {
			return e.roll(bin, Java, true)
		})
	})
}

// rollUnderLoad starts an all-Java ensemble and the clients, runs steps
// on it and checks what the clients and the members hold afterwards.
func rollUnderLoad(t *testing.T, prog *javaprog.Program, steps func(*ensemble) []migrationStep) {
	// Curator's lock and latch live in containers: the leader reaps the
	// empty ones every second, so that the tree holds still soon after
	// the clients are gone.
	e := newEnsemble(t, layout{Voters: []Kind{Java, Java, Java}}, ensembleOptions{
		Props: map[string]string{"znode.container.checkIntervalMs": "1000"},
	})
	e.startLeader(leaderID, 1)
	e.startRest()
	var addrs []string
	for _, id := range e.ids() {
		addrs = append(addrs, e.m(id).addr())
	}
	connect := strings.Join(addrs, ",")

	setup := e.m(1).connect()
	for _, p := range []string{"/migration", "/migration/go", "/migration/kazoo"} {
		if _, err := setup.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatalf("create %s: %v", p, err)
		}
	}
	setup.Close()

	writers := startGoWriters(t, addrs, 2)
	kz := startKazoo(t, connect, "/migration/kazoo", writers[0].valuePath)
	cur := startCurator(t, prog, connect)
	select {
	case <-cur.ready:
	case <-cur.done:
		t.Fatalf("Curator ended before its recipes ran: %v\n%s", cur.run.Err, lastLines(cur.run.Log, 40))
	case <-time.After(waitLimit):
		t.Fatalf("Curator's recipes did not start within %v", waitLimit)
	}
	time.Sleep(migrationSettle)

	began := time.Now()
	done := steps(e)
	t.Logf("%d members replaced, one at a time, in %v", len(done), time.Since(began).Round(100*time.Millisecond))
	time.Sleep(migrationSettle)

	// The writers stop first, so that kazoo's watch has a last value to
	// see; kazoo's ephemeral must still be on every member, owned by the
	// session that created it before the first server went.
	for _, w := range writers {
		w.stop()
	}
	for _, id := range e.ids() {
		m := e.m(id)
		conn := m.connect()
		if _, err := conn.Sync("/migration/kazoo"); err != nil {
			t.Fatalf("sync on %v: %v", m, err)
		}
		_, stat, err := conn.Exists("/migration/kazoo/eph")
		if err != nil || stat == nil {
			t.Errorf("%v: kazoo's ephemeral is gone (%v)", m, err)
		} else if got := fmt.Sprintf("0x%x", stat.EphemeralOwner); got != kz.session {
			t.Errorf("%v: kazoo's ephemeral is owned by %s, want kazoo's session %s", m, got, kz.session)
		}
		conn.Close()
	}
	kres := kz.finish(t, writers[0].value)
	cres := cur.finish(t)

	e.waitSettled()
	var clients []clientReport
	for _, w := range writers {
		clients = append(clients, w.report(t))
	}
	clients = append(clients, kres.report(t, writers[0].value))
	clients = append(clients, cres.clients...)

	for _, id := range e.ids() {
		m := e.m(id)
		tree := m.dump()
		nodes := map[string]Node{}
		for _, n := range tree {
			nodes[n.Path] = n
		}
		for _, w := range writers {
			w.requireOn(t, m, nodes)
		}
		kres.requireOn(t, m, nodes)
		if n, ok := nodes["/migration/curator/counter"]; !ok || len(n.Data) != 8 {
			t.Errorf("%v: Curator's counter is missing or not 8 bytes (%v)", m, ok)
		} else if got := int64(binary.BigEndian.Uint64(n.Data)); got != cres.counter {
			t.Errorf("%v: Curator's counter is %d, Curator read %d", m, got, cres.counter)
		}
	}
	e.requireIdenticalTrees(nil)

	t.Log("member steps (stop: SIGTERM to exit; convert: gozk data import/export; serve: start to srvr's Mode line; quorum: start to zk_synced_followers=2 on the leader):")
	for _, s := range done {
		t.Log("  " + s.String())
	}
	t.Log("clients (connection-loss retries; sessions lost 0 is asserted):")
	for _, c := range clients {
		t.Logf("  %-10s retries=%-3d %s", c.name, c.retries, c.detail)
	}
}

func requireKazoo(t *testing.T) {
	t.Helper()
	py := kazooPython()
	if out, err := exec.Command(py, "-c", "import kazoo").CombinedOutput(); err != nil {
		if javazk.JavaRequired() {
			t.Fatalf("%s cannot import kazoo: %v %s", py, err, out)
		}
		t.Skipf("skipping: %s cannot import kazoo (%v; apt-get install -y python3-kazoo)", py, err)
	}
}

// --- the operator's procedure ---

// migrationStep is what one member's replacement took.
type migrationStep struct {
	id        int64
	from, to  Kind
	wasLeader bool
	// stop is SIGTERM to exit; newLeader, for the leader, SIGTERM until
	// another member leads; convert the data command; serve and quorum
	// are from the new process's start until it serves and until the
	// leader has every follower synced.
	stop, newLeader, convert, serve, quorum time.Duration
	mode, sync                              string
	// leader names the member that leads once the step is done, and
	// its kind then.
	leader string
}

func (s migrationStep) String() string {
	role := "follower"
	if s.wasLeader {
		role = "leader"
	}
	out := fmt.Sprintf("server %d %s -> %s (was %s): stop %v", s.id, s.from, s.to, role, s.stop.Round(10*time.Millisecond))
	if s.wasLeader {
		out += fmt.Sprintf(", new leader after %v", s.newLeader.Round(10*time.Millisecond))
	}
	if s.from != s.to {
		out += fmt.Sprintf(", convert %v", s.convert.Round(10*time.Millisecond))
	}
	return out + fmt.Sprintf(", serve %v (%s, sync %s), quorum %v; %s leads",
		s.serve.Round(10*time.Millisecond), s.mode, s.sync, s.quorum.Round(10*time.Millisecond), s.leader)
}

// roll replaces every member that is not of kind to (every member when
// all is set), followers first (by id) and the leader last.
func (e *ensemble) roll(bin string, to Kind, all bool) []migrationStep {
	e.t.Helper()
	leader := e.waitLeader(nil)
	var order []*member
	for _, id := range e.ids() {
		if m := e.m(id); m != leader && (all || m.kind != to) {
			order = append(order, m)
		}
	}
	if all || leader.kind != to {
		order = append(order, leader)
	}
	var steps []migrationStep
	for _, m := range order {
		steps = append(steps, e.replace(bin, m, to))
		time.Sleep(migrationSettle)
	}
	return steps
}

// replace is one step of the procedure: stop m, convert its data
// directory when the kind changes, start kind to on the same zoo.cfg,
// wait until it serves and the leader has all its followers again.
func (e *ensemble) replace(bin string, m *member, to Kind) migrationStep {
	e.t.Helper()
	s := migrationStep{id: m.id, from: m.kind, to: to, wasLeader: m.mode() == "leader"}
	begin := time.Now()
	m.stop()
	s.stop = time.Since(begin)
	if s.wasLeader {
		e.waitLeader(m)
		s.newLeader = time.Since(begin)
	}

	if m.kind != to {
		begin = time.Now()
		command := "import"
		if to == Java {
			command = "export"
		}
		cmd := exec.Command(bin, "data", command, "--config", m.cfgPath)
		cmd.Env = gozkproc.WithoutEnv(os.Environ(), "JVMFLAGS", "SERVER_JVMFLAGS")
		out, err := cmd.CombinedOutput()
		if err != nil {
			e.t.Fatalf("gozk data %s for %v: %v\n%s", command, m, err, out)
		}
		s.convert = time.Since(begin)
		e.t.Logf("server %d: gozk data %s: %s", m.id, command, strings.TrimSpace(lastLines(string(out), 1)))
	}

	logOffset := len(m.log())
	m.kind = to
	begin = time.Now()
	m.start()
	s.mode = m.waitServing("follower", "leader")
	s.serve = time.Since(begin)
	e.waitFullQuorum()
	s.quorum = time.Since(begin)
	s.leader = e.waitLeader(nil).String()

	fresh := m.log()[logOffset:]
	modes := JavaLearnerSyncModes(fresh)
	if to == Gozk {
		modes = GozkSyncModes(fresh)
	}
	s.sync = "?"
	if len(modes) > 0 {
		s.sync = modes[len(modes)-1]
	}
	return s
}

// waitLeader waits until one running member other than except leads,
// and returns it.
func (e *ensemble) waitLeader(except *member) *member {
	e.t.Helper()
	var leader *member
	waitFor(e.t, "a leader", func() (bool, string) {
		var modes []string
		leader = nil
		for _, id := range e.ids() {
			m := e.m(id)
			if m == except || !m.running() {
				continue
			}
			mode := m.mode()
			modes = append(modes, fmt.Sprintf("%d:%q", id, mode))
			if mode == "leader" {
				leader = m
			}
		}
		return leader != nil, strings.Join(modes, " ")
	})
	return leader
}

// waitFullQuorum waits until the leader counts every other member as a
// synced follower, as an operator checks with mntr before the next step.
func (e *ensemble) waitFullQuorum() {
	e.t.Helper()
	want := strconv.Itoa(len(e.present()) - 1)
	waitFor(e.t, "every follower synced with the leader", func() (bool, string) {
		for _, id := range e.ids() {
			values := e.m(id).mntr()
			if values["zk_server_state"] == "leader" {
				got := values["zk_synced_followers"]
				return got == want, fmt.Sprintf("server %d leads with zk_synced_followers=%q", id, got)
			}
		}
		return false, "no leader"
	})
}

// waitSettled waits until every running member has stayed at one zxid
// for three seconds (the leader reaps emptied containers every second).
func (e *ensemble) waitSettled() {
	e.t.Helper()
	zxids := func() (int64, string) {
		first := int64(-2)
		var all []string
		for _, id := range e.ids() {
			z := e.m(id).zxid()
			all = append(all, fmt.Sprintf("%d:0x%x", id, z))
			if first == -2 {
				first = z
			} else if z != first {
				return -1, strings.Join(all, " ")
			}
		}
		return first, strings.Join(all, " ")
	}
	waitFor(e.t, "the ensemble to settle", func() (bool, string) {
		before, state := zxids()
		if before == -1 {
			return false, state
		}
		time.Sleep(3 * time.Second)
		after, state := zxids()
		return after == before, state
	})
}

// --- clients ---

// clientReport is one client's line in the test's summary.
type clientReport struct {
	name    string
	retries int
	detail  string
}

// isConnectionLoss says whether go-zookeeper's err is a connection loss:
// the request was flushed when the connection went (ErrConnectionClosed),
// or queued while no server would take the session (ErrNoServer).
func isConnectionLoss(err error) bool {
	return errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrNoServer)
}

// goWriter creates /migration/go/w<id>-<n> and sets valuePath to n, in
// turn, retrying each write after a connection loss until it is
// acknowledged.
type goWriter struct {
	id        int
	valuePath string
	conn      *zk.Conn
	session   int64
	halt      chan struct{}
	done      chan struct{}

	mu      sync.Mutex
	states  map[zk.State]int
	retries map[string]int
	errs    []string
	acked   []string // created paths
	value   string   // the last acknowledged setData
}

func startGoWriters(t *testing.T, addrs []string, n int) []*goWriter {
	t.Helper()
	var writers []*goWriter
	for i := 0; i < n; i++ {
		w := &goWriter{id: i, valuePath: fmt.Sprintf("/migration/go/value-%d", i),
			halt: make(chan struct{}), done: make(chan struct{}),
			states: map[zk.State]int{}, retries: map[string]int{}}
		conn, events, err := zk.Connect(addrs, 30*time.Second, zk.WithLogger(zkLogger()),
			zk.WithEventCallback(func(ev zk.Event) {
				if ev.Type == zk.EventSession {
					w.mu.Lock()
					w.states[ev.State]++
					w.mu.Unlock()
				}
			}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(conn.Close)
		waitSession(t, events, zk.StateHasSession)
		go func() {
			for range events {
			}
		}()
		w.conn, w.session = conn, conn.SessionID()
		if _, err := conn.Create(w.valuePath, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatalf("create %s: %v", w.valuePath, err)
		}
		go w.run()
		t.Cleanup(w.stop)
		writers = append(writers, w)
	}
	return writers
}

func (w *goWriter) run() {
	defer close(w.done)
	for n := 0; ; n++ {
		select {
		case <-w.halt:
			return
		default:
		}
		path := fmt.Sprintf("/migration/go/w%d-%06d", w.id, n)
		data := []byte(strconv.Itoa(n))
		created := w.retry("create "+path, func(attempt int) error {
			_, err := w.conn.Create(path, data, 0, zk.WorldACL(zk.PermAll))
			if errors.Is(err, zk.ErrNodeExists) && attempt > 1 {
				return nil // the first attempt's reply was lost
			}
			return err
		})
		set := w.retry("set "+w.valuePath, func(int) error {
			_, err := w.conn.Set(w.valuePath, data, -1)
			return err
		})
		w.mu.Lock()
		if created {
			w.acked = append(w.acked, path)
		}
		if set {
			w.value = string(data)
		}
		w.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
}

// retry runs op until it succeeds, retrying connection losses; it
// records any other error and returns false.
func (w *goWriter) retry(what string, op func(attempt int) error) bool {
	deadline := time.Now().Add(waitLimit)
	for attempt := 1; ; attempt++ {
		err := op(attempt)
		if err == nil {
			return true
		}
		w.mu.Lock()
		if !isConnectionLoss(err) || time.Now().After(deadline) {
			w.errs = append(w.errs, fmt.Sprintf("%s (attempt %d): %v", what, attempt, err))
			w.mu.Unlock()
			return false
		}
		w.retries[err.Error()]++
		w.mu.Unlock()
		time.Sleep(50 * time.Millisecond)
	}
}

func (w *goWriter) stop() {
	select {
	case <-w.halt:
	default:
		close(w.halt)
	}
	<-w.done
}

// report fails the test on any error other than a connection loss, on
// an expired or replaced session, and sums up the writer.
func (w *goWriter) report(t *testing.T) clientReport {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	name := fmt.Sprintf("go-%d", w.id)
	for _, e := range w.errs {
		t.Errorf("%s: %s", name, e)
	}
	if w.states[zk.StateExpired] != 0 {
		t.Errorf("%s: the session expired %d times", name, w.states[zk.StateExpired])
	}
	if got := w.conn.SessionID(); got != w.session {
		t.Errorf("%s: session 0x%x became 0x%x", name, w.session, got)
	}
	retries := 0
	for _, n := range w.retries {
		retries += n
	}
	return clientReport{name: name, retries: retries, detail: fmt.Sprintf("creates=%d last-set=%s by=%v disconnects=%d expired=%d",
		len(w.acked), w.value, w.retries, w.states[zk.StateDisconnected], w.states[zk.StateExpired])}
}

// requireOn checks that m holds exactly the writer's acknowledged
// creates and its last acknowledged value.
func (w *goWriter) requireOn(t *testing.T, m *member, nodes map[string]Node) {
	t.Helper()
	prefix := fmt.Sprintf("/migration/go/w%d-", w.id)
	want := map[string]bool{}
	for _, p := range w.acked {
		want[p] = true
		if _, ok := nodes[p]; !ok {
			t.Errorf("%v: the acknowledged create %s is missing", m, p)
		}
	}
	for p := range nodes {
		if strings.HasPrefix(p, prefix) && !want[p] {
			t.Errorf("%v: %s exists, but no create of it was acknowledged", m, p)
		}
	}
	if got := string(nodes[w.valuePath].Data); got != w.value {
		t.Errorf("%v: %s holds %q, the last acknowledged set was %q", m, w.valuePath, got, w.value)
	}
}

// kazooLoad is testdata/migration_kazoo.py running.
type kazooLoad struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan map[string]any
	stderr  *lockedBuffer
	session string
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func startKazoo(t *testing.T, hosts, root, watched string) *kazooLoad {
	t.Helper()
	k := &kazooLoad{lines: make(chan map[string]any, 4), stderr: &lockedBuffer{}}
	k.cmd = exec.Command(kazooPython(), "testdata/migration_kazoo.py", hosts, root, watched)
	k.cmd.Stderr = k.stderr
	var err error
	if k.stdin, err = k.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := k.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := k.cmd.Start(); err != nil {
		t.Fatalf("kazoo: %v", err)
	}
	t.Cleanup(func() {
		k.cmd.Process.Kill()
		k.cmd.Wait()
	})
	go func() {
		defer close(k.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64*1024), 64<<20)
		for sc.Scan() {
			var v map[string]any
			if json.Unmarshal(sc.Bytes(), &v) == nil {
				k.lines <- v
			}
		}
	}()
	ready := k.next(t, "ready")
	k.session, _ = ready["session"].(string)
	return k
}

// next waits for kazoo's JSON line with the event name.
func (k *kazooLoad) next(t *testing.T, event string) map[string]any {
	t.Helper()
	timeout := time.After(waitLimit)
	for {
		select {
		case v, ok := <-k.lines:
			if !ok {
				t.Fatalf("kazoo ended before %q:\n%s", event, lastLines(k.stderr.String(), 40))
			}
			if v["event"] == event {
				return v
			}
		case <-timeout:
			t.Fatalf("no %q from kazoo within %v:\n%s", event, waitLimit, lastLines(k.stderr.String(), 40))
		}
	}
}

// kazooResult is kazoo's summary.
type kazooResult struct {
	Session    string         `json:"session"`
	SessionEnd string         `json:"session_end"`
	States     []string       `json:"states"`
	Lost       int            `json:"lost"`
	Retries    map[string]int `json:"retries"`
	Errors     []string       `json:"errors"`
	Acked      []string       `json:"acked"`
	WatchEvts  int            `json:"watch_events"`
	WatchValue *string        `json:"watch_value"`
	EphOwner   *string        `json:"eph_owner"`
	log        string
}

// finish stops kazoo's writes, tells it the watched node's last value,
// and reads its summary.
func (k *kazooLoad) finish(t *testing.T, lastValue string) kazooResult {
	t.Helper()
	if _, err := fmt.Fprintf(k.stdin, "stop %s\n", lastValue); err != nil {
		t.Fatalf("kazoo: %v", err)
	}
	done := k.next(t, "done")
	raw, _ := json.Marshal(done)
	var r kazooResult
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("kazoo's summary: %v", err)
	}
	k.stdin.Close()
	k.cmd.Wait()
	r.log = k.stderr.String()
	return r
}

func (r kazooResult) report(t *testing.T, lastValue string) clientReport {
	t.Helper()
	for _, e := range r.Errors {
		t.Errorf("kazoo: %s", e)
	}
	if r.Lost != 0 || r.Session != r.SessionEnd {
		t.Errorf("kazoo: session %s ended as %s, LOST %d times (states %v)", r.Session, r.SessionEnd, r.Lost, r.States)
	}
	retries := 0
	for kind, n := range r.Retries {
		if kind != "ConnectionLoss" {
			t.Errorf("kazoo retried %d times after %s, want connection losses only", n, kind)
		}
		retries += n
	}
	if r.WatchValue == nil || *r.WatchValue != lastValue {
		t.Errorf("kazoo's data watch last saw %s, want the last value set, %q", orNone(r.WatchValue), lastValue)
	}
	if r.EphOwner == nil || *r.EphOwner != r.Session {
		t.Errorf("kazoo's ephemeral is owned by %s, want its session %s", orNone(r.EphOwner), r.Session)
	}
	if t.Failed() {
		t.Logf("kazoo's log:\n%s", lastLines(r.log, 60))
	}
	suspended := 0
	for _, s := range r.States {
		if s == "SUSPENDED" {
			suspended++
		}
	}
	return clientReport{name: "kazoo", retries: retries, detail: fmt.Sprintf("creates=%d watch-events=%d by=%v suspended=%d lost=%d",
		len(r.Acked), r.WatchEvts, r.Retries, suspended, r.Lost)}
}

// orNone shows a JSON string that may be null.
func orNone(s *string) string {
	if s == nil {
		return "nothing"
	}
	return strconv.Quote(*s)
}

func (r kazooResult) requireOn(t *testing.T, m *member, nodes map[string]Node) {
	t.Helper()
	want := map[string]bool{}
	for _, p := range r.Acked {
		want[p] = true
		if _, ok := nodes[p]; !ok {
			t.Errorf("%v: kazoo's acknowledged create %s is missing", m, p)
		}
	}
	for p := range nodes {
		if strings.HasPrefix(p, "/migration/kazoo/k-") && !want[p] {
			t.Errorf("%v: %s exists, but kazoo's create of it was not acknowledged", m, p)
		}
	}
}

// curatorLoad is testdata/MigrationLoad.java running: ready closes when
// it asks for the migration, and it goes on once proceed is closed.
type curatorLoad struct {
	ready, proceed, done chan struct{}
	once                 sync.Once
	run                  javaprog.Run
}

func startCurator(t *testing.T, prog *javaprog.Program, connect string) *curatorLoad {
	c := &curatorLoad{ready: make(chan struct{}), proceed: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		c.run = prog.Run(t, 8*time.Minute, func(word string) error {
			if word != "migrate" {
				return javaprog.ErrNoSignal
			}
			close(c.ready)
			<-c.proceed
			return nil
		}, connect)
	}()
	t.Cleanup(func() {
		c.once.Do(func() { close(c.proceed) })
		<-c.done
	})
	return c
}

// curatorResult is what the Curator program reported.
type curatorResult struct {
	clients []clientReport
	counter int64
}

var (
	curatorStat    = regexp.MustCompile(`(?m)^STAT (\S+) retries=(\d+) by=\{([^}]*)\} (.*)$`)
	curatorCounter = regexp.MustCompile(`value=(\d+)`)
)

// finish lets the Curator program stop its recipes and check them, and
// fails the test on any failed check or any retry for another reason
// than a connection loss.
func (c *curatorLoad) finish(t *testing.T) curatorResult {
	t.Helper()
	c.once.Do(func() { close(c.proceed) })
	<-c.done
	run := c.run
	var res curatorResult
	for _, m := range curatorStat.FindAllStringSubmatch(run.Log, -1) {
		n, _ := strconv.Atoi(m[2])
		for _, kv := range strings.Split(m[3], ", ") {
			if kind, _, ok := strings.Cut(kv, "="); ok && kind != "CONNECTIONLOSS" {
				t.Errorf("Curator client %s retried after %s, want connection losses only", m[1], kv)
			}
		}
		res.clients = append(res.clients, clientReport{name: "curator-" + m[1], retries: n, detail: "by={" + m[3] + "} " + m[4]})
	}
	sort.Slice(res.clients, func(i, j int) bool { return res.clients[i].name < res.clients[j].name })
	checks := map[string]bool{}
	for _, r := range run.Results {
		checks[r.Name] = true
		if !r.Pass {
			t.Errorf("Curator check %s failed: %s", r.Name, r.Detail)
		} else {
			t.Logf("Curator %s: %s", r.Name, r.Detail)
		}
		if r.Name == "counter" {
			if m := curatorCounter.FindStringSubmatch(r.Detail); m != nil {
				res.counter, _ = strconv.ParseInt(m[1], 10, 64)
			}
		}
	}
	for _, name := range run.Plan {
		if !checks[name] {
			t.Errorf("Curator did not report %s", name)
		}
	}
	if run.Err != nil || len(run.Plan) == 0 {
		t.Errorf("Curator ended badly: %v", run.Err)
	}
	if t.Failed() {
		t.Logf("Curator's log:\n%s", lastLines(run.Log, 80))
	}
	return res
}
