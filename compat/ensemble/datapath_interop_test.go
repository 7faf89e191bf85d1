//go:build interop

package ensemble

import (
	"errors"
	"fmt"
	"math/rand"
	"net"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// In every layout below server 3 is a Java voter and the leader: it is
// started first with one other voter, and both vote for the larger id.
const leaderID = 3

// mixes returns the test's layouts by name: the mixed one, and the
// all-Java one that checks the test itself against the oracle.
type mix struct {
	name   string
	layout layout
}

func runMixes(t *testing.T, mixes []mix, body func(t *testing.T, l layout)) {
	for _, m := range mixes {
		t.Run(m.name, func(t *testing.T) { body(t, m.layout) })
	}
}

// syncModes returns the sync modes m's own log reports.
func (m *member) syncModes() []string {
	if m.kind == Gozk {
		return GozkSyncModes(m.log())
	}
	return JavaLearnerSyncModes(m.log())
}

// requireSync checks how m last synced with the leader: from m's log
// and from the leader's.
func (e *ensemble) requireSync(m *member, leader *member, want string) {
	e.t.Helper()
	own := m.syncModes()
	if len(own) == 0 || own[len(own)-1] != want {
		e.t.Errorf("%v synced by %v according to its log, want %s last", m, own, want)
	}
	seen := JavaLeaderSyncModes(leader.log(), m.id)
	if leader.kind == Gozk {
		seen = GozkLeaderSyncModes(leader.log(), m.id)
	}
	if len(seen) == 0 || seen[len(seen)-1] != want {
		e.t.Errorf("the leader synced %v by %v according to its log, want %s last", m, seen, want)
	}
}

// writeMany creates n nodes under parent through conn, several at a
// time, and fails the test on any error.
func writeMany(t *testing.T, conn *zk.Conn, parent string, n int) {
	t.Helper()
	if _, err := conn.Create(parent, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		t.Fatalf("create %s: %v", parent, err)
	}
	const writers = 8
	errs := make(chan error, writers)
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += writers {
				if _, err := conn.Create(fmt.Sprintf("%s/n%05d", parent, i), []byte(fmt.Sprintf("value %d", i)), 0, zk.WorldACL(zk.PermAll)); err != nil {
					errs <- fmt.Errorf("create %s/n%05d: %w", parent, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// writeVariety writes through conn a bit of everything a txn can be:
// creates in each mode, setData, setACL, delete and a multi, under base.
// The ephemeral stays for as long as conn's session lives.
func writeVariety(t *testing.T, conn *zk.Conn, base string) {
	t.Helper()
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	all := zk.WorldACL(zk.PermAll)
	_, err := conn.Create(base, []byte("v1"), 0, all)
	must("create "+base, err)
	for i := 0; i < 3; i++ {
		_, err = conn.Create(base+"/seq-", []byte{byte(i)}, zk.FlagSequence, all)
		must("create sequential", err)
	}
	_, err = conn.Create(base+"/eph", []byte("mine"), zk.FlagEphemeral, all)
	must("create ephemeral", err)
	_, err = conn.Create(base+"/eseq-", nil, zk.FlagEphemeral|zk.FlagSequence, all)
	must("create ephemeral sequential", err)
	_, err = conn.Set(base, []byte("v2"), 0)
	must("setData", err)
	acl := append(zk.DigestACL(zk.PermAll, "user", "pw"), zk.ACL{Perms: zk.PermRead, Scheme: "world", ID: "anyone"})
	_, err = conn.Create(base+"/acl", []byte("guarded"), 0, all)
	must("create", err)
	_, err = conn.SetACL(base+"/acl", acl, 0)
	must("setACL", err)
	must("delete", conn.Delete(base+"/seq-0000000001", 0))
	_, err = conn.Multi(
		&zk.CreateRequest{Path: base + "/m", Data: []byte("m0"), Acl: all},
		&zk.SetDataRequest{Path: base + "/m", Data: []byte("m1"), Version: 0},
		&zk.CheckVersionRequest{Path: base, Version: 1},
		&zk.DeleteRequest{Path: base + "/seq-0000000002", Version: 0},
	)
	must("multi", err)
	// A failing multi changes nothing, everywhere.
	if _, err := conn.Multi(
		&zk.CreateRequest{Path: base + "/never", Acl: all},
		&zk.DeleteRequest{Path: base + "/absent", Version: -1},
	); err == nil {
		t.Fatal("a multi deleting an absent node succeeded")
	}
}

// TestWritesReachEveryMember: writes of every kind through every member,
// leader, followers and observer, from go-zookeeper, zkCli and kazoo,
// reach every member, whose trees are then identical, Stat and ACL
// included.
func TestWritesReachEveryMember(t *testing.T) {
	runMixes(t, []mix{
		{"gozk-followers", layout{Voters: []Kind{Gozk, Gozk, Java}}},
		{"gozk-follower-and-observer", layout{Voters: []Kind{Java, Gozk, Java}, Observers: []Kind{Gozk}}},
		{"all-java", layout{Voters: []Kind{Java, Java, Java}}},
		// Three JVMs at most: the second voter stays down, the quorum is
		// the leader and server 1.
		{"all-java-observer", layout{Voters: []Kind{Java, Absent, Java}, Observers: []Kind{Java}}},
	}, writesReachEveryMember)
}

// writesReachEveryMember is the body of TestWritesReachEveryMember, for
// any layout whose server 3 leads.
func writesReachEveryMember(t *testing.T, l layout) {
	e := newEnsemble(t, l, ensembleOptions{})
	e.startLeader(leaderID, 1)
	e.startRest()
	var others []*member
	for _, id := range e.present() {
		m := e.members[id]
		writeVariety(t, m.connect(), fmt.Sprintf("/w%d", id))
		if id != leaderID {
			others = append(others, m)
		}
	}
	// One write each through Java's command line client and kazoo,
	// through members other than the leader (gozk ones when there
	// are).
	sort.SliceStable(others, func(i, j int) bool { return others[i].kind == Gozk && others[j].kind != Gozk })
	createWithZkCli(t, others[0], "/zkcli", "from zkCli")
	createWithKazoo(t, others[len(others)-1], "/kazoo", "from kazoo")
	e.requireIdenticalTrees(nil)
	e.requireNoDigestMismatch()
	e.requireTxnDigests(e.m(leaderID))
	e.requireLeaderMntr(e.m(leaderID))
}

// followMixes are the layouts of the tests that stop and restart server
// 1, a follower of the Java leader 3.
var followMixes = []mix{
	{"gozk-followers", layout{Voters: []Kind{Gozk, Gozk, Java}}},
	{"all-java", layout{Voters: []Kind{Java, Java, Java}}},
}

// TestFollowerCatchesUp: server 1 misses writes and catches up, each way
// the Java leader chooses. Stopped for a few writes it gets a DIFF from
// the leader's committed log; killed for more writes than that log holds
// (zookeeper.commitLogCount is at least 500) it gets a SNAP (the txn
// logs are larger than the leader's snapshot, so Java does not read
// them for a DIFF either); with its data directory wiped it gets a SNAP.
// Snapshots are taken every 100 txns (zookeeper.snapCount) on every
// member meanwhile. Each time, the trees end identical.
func TestFollowerCatchesUp(t *testing.T) {
	runMixes(t, followMixes, func(t *testing.T, l layout) {
		e := newEnsemble(t, l, ensembleOptions{Props: map[string]string{"zookeeper.snapCount": "100"}})
		e.startLeader(leaderID, 1)
		e.startRest()
		leader, f := e.m(leaderID), e.m(1)
		conn := leader.connect()
		writeMany(t, conn, "/base", 20)

		t.Log("stopped for 10 writes: DIFF")
		f.stop()
		writeMany(t, conn, "/diff", 10)
		f.restart()
		e.requireSync(f, leader, ModeDiff)
		e.requireIdenticalTrees(nil)

		t.Log("killed for 600 writes: SNAP")
		f.kill()
		writeMany(t, conn, "/snap", 600)
		f.restart()
		e.requireSync(f, leader, ModeSnap)
		e.requireIdenticalTrees(nil)

		t.Log("wiped: SNAP")
		f.stop()
		f.wipe()
		writeMany(t, conn, "/wiped", 5)
		f.restart()
		e.requireSync(f, leader, ModeSnap)
		e.requireIdenticalTrees(nil)
	})
}

// TestForcedSnapshotSync: a Java leader run with
// -Dzookeeper.forceSnapshotSync=true syncs every learner by SNAP, even
// one that missed a single write.
func TestForcedSnapshotSync(t *testing.T) {
	runMixes(t, followMixes, func(t *testing.T, l layout) {
		e := newEnsemble(t, l, ensembleOptions{PropsOf: map[int64]map[string]string{
			leaderID: {"zookeeper.forceSnapshotSync": "true"}}})
		e.startLeader(leaderID, 1)
		e.startRest()
		leader, f := e.m(leaderID), e.m(1)
		conn := leader.connect()
		writeMany(t, conn, "/base", 10)
		f.stop()
		writeMany(t, conn, "/missed", 1)
		f.restart()
		e.requireSync(f, leader, ModeSnap)
		e.requireIdenticalTrees(nil)
	})
}

// TestUncommittedTxnTruncated: server 1 logs a proposal the ensemble
// never commits, and the next leader makes it truncate it.
//
// How it is made, deterministically: server 1 reaches the leader (3)
// through a quorumProxy. With all three up and every write so far on
// server 2, server 2 is killed, so that the leader needs server 1's ACK
// for any commit; the proxy then drops server 1's ACKs, and a create
// goes to the leader. The leader logs and proposes it, server 1 logs it
// and ACKs (the proxy sees that ACK: the txn is in server 1's log), and
// the leader, with its own ACK alone, cannot commit it. The leader and
// server 1 are then killed. The leader comes back with an empty data
// directory (as after a disk replacement), so that server 2, which never
// saw the proposal, is the one with the longest history: servers 2 and
// 3 elect 2, which has committed everything committed so far. Server 1
// joins last with the proposal in its log, past the new leader's
// committed log: TRUNC. The create must then be gone everywhere.
func TestUncommittedTxnTruncated(t *testing.T) {
	runMixes(t, []mix{
		{"gozk-follower", layout{Voters: []Kind{Gozk, Java, Java}}},
		{"all-java", layout{Voters: []Kind{Java, Java, Java}}},
	}, uncommittedTxnTruncated)
}

// uncommittedTxnTruncated is the body of TestUncommittedTxnTruncated:
// server 3 leads first, then server 2, which truncates server 1.
func uncommittedTxnTruncated(t *testing.T, l layout) {
	e := newEnsemble(t, l, ensembleOptions{Proxied: [][2]int64{{1, leaderID}}})
	proxy := e.proxies[[2]int64{1, leaderID}]
	oldLeader, f, survivor := e.m(leaderID), e.m(1), e.m(2)
	e.startLeader(leaderID, 1)
	e.startRest()

	writer := oldLeader.connect()
	writeMany(t, writer, "/committed", 20)
	// Server 2 has every committed txn: the writer's session and its
	// creates (a sync and a read through server 2 show it).
	check := survivor.connect()
	if _, err := check.Sync("/"); err != nil {
		t.Fatal(err)
	}
	if children, _, err := check.Children("/committed"); err != nil || len(children) != 20 {
		t.Fatalf("server 2 has %d of 20 nodes (%v)", len(children), err)
	}
	check.Close()
	// Nothing is left in flight (the check session's closeSession
	// included): server 2 has applied the leader's last txn and server 1
	// has acknowledged it, so that the first ACK the proxy holds is the
	// one of the proposal below.
	waitFor(t, "servers 1 and 2 up to date with the leader", func() (bool, string) {
		last, applied, acked := oldLeader.zxid(), survivor.zxid(), proxy.forwardedAck()
		return last > 0 && applied == last && acked >= last,
			fmt.Sprintf("leader at 0x%x, server 2 at 0x%x, server 1 acknowledged 0x%x", last, applied, acked)
	})
	survivor.kill()

	proxy.holdAcks()
	go writer.Create("/uncommitted", []byte("never committed"), 0, zk.WorldACL(zk.PermAll))
	held, next := proxy.heldAcks()
	select {
	case <-next:
		held, _ = proxy.heldAcks()
	case <-time.After(waitLimit):
		t.Fatalf("server 1 never acknowledged the proposal (held ACKs %x)", held)
	}
	oldLeader.kill()
	f.kill()
	writer.Close()
	t.Logf("server 1 logged and acknowledged 0x%x, which the leader could not commit", held[0])

	oldLeader.wipe()
	survivor.start()
	oldLeader.start()
	survivor.waitServing("leader")
	oldLeader.waitServing("follower")
	f.restart()
	e.requireSync(f, survivor, ModeTrunc)

	for _, id := range e.ids() {
		conn := e.m(id).connect()
		if _, err := conn.Sync("/"); err != nil {
			t.Fatal(err)
		}
		if ok, _, err := conn.Exists("/uncommitted"); err != nil || ok {
			t.Errorf("%v: /uncommitted exists=%v (%v), want it gone", e.m(id), ok, err)
		}
		conn.Close()
	}
	// Server 1's /zookeeper/config names the proxy as server 3.
	e.requireIdenticalTrees(func(p string) bool { return p == "/zookeeper/config" })
}

// switchingDialer connects a go-zookeeper client to whichever member the
// test points it at, whatever address the client asks for, and can drop
// the live connection or refuse new ones.
type switchingDialer struct {
	mu      sync.Mutex
	target  string
	refuse  bool
	current net.Conn
}

func (d *switchingDialer) dial(_, _ string, timeout time.Duration) (net.Conn, error) {
	d.mu.Lock()
	target, refuse := d.target, d.refuse
	d.mu.Unlock()
	if refuse {
		return nil, errors.New("refused by the test")
	}
	c, err := net.DialTimeout("tcp", target, timeout)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.current = c
	d.mu.Unlock()
	return c, nil
}

// moveTo points the client at addr and drops its connection, so that it
// reconnects there with its session.
func (d *switchingDialer) moveTo(addr string) {
	d.mu.Lock()
	d.target = addr
	c := d.current
	d.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

// cutOff drops the connection and refuses new ones.
func (d *switchingDialer) cutOff() {
	d.mu.Lock()
	d.refuse = true
	c := d.current
	d.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

// TestSessionMovesBetweenKinds: a session created on a Java follower
// moves to a gozk follower and back (its client reconnects with the
// session's id and password), keeping its ephemerals and watches; writes
// through it land from both; when it expires, its ephemerals go from
// every member.
func TestSessionMovesBetweenKinds(t *testing.T) {
	runMixes(t, []mix{
		{"java-and-gozk-followers", layout{Voters: []Kind{Gozk, Java, Java}}},
		{"all-java", layout{Voters: []Kind{Java, Java, Java}}},
	}, func(t *testing.T, l layout) { sessionMoves(t, l, []int64{2, 1, 2}) })
}

// sessionMoves is the body of TestSessionMovesBetweenKinds for any
// layout whose server 3 leads: a session is created on route[0] and
// moved to each next member of route in turn. At each stop it creates an
// ephemeral (/s/ephN) and sets a data, an exists and a child watch,
// which must fire through the next stop; at the end every member holds
// every ephemeral, owned by the session, and once the session is cut off
// until it expires they leave every member.
func sessionMoves(t *testing.T, l layout, route []int64) {
	e := newEnsemble(t, l, ensembleOptions{})
	e.startLeader(leaderID, 1)
	e.startRest()
	admin := e.m(leaderID).connect()
	if _, err := admin.Create("/s", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Create("/s/watched", []byte("0"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}

	d := &switchingDialer{target: e.m(route[0]).addr()}
	// A 4 s session (the shortest the 200 ms tick allows is 400 ms)
	// so that its expiry comes soon.
	conn, events, err := zk.Connect([]string{"127.0.0.1:1"}, 4*time.Second,
		zk.WithDialer(d.dial), zk.WithLogger(zkLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	waitSession(t, events, zk.StateHasSession)
	session := conn.SessionID()
	var ephemerals []string
	var dataWatch, existWatch, childWatch <-chan zk.Event
	for stop, id := range route {
		at := e.m(id)
		if stop > 0 {
			t.Logf("moving session 0x%x from %v to %v", session, e.m(route[stop-1]), at)
			d.moveTo(at.addr())
			waitSession(t, events, zk.StateHasSession)
			if got := conn.SessionID(); got != session {
				t.Fatalf("the client has session 0x%x after the move to %v, want 0x%x", got, at, session)
			}
			// The watches set through the previous member fire through
			// this one.
			if _, err := admin.Set("/s/watched", []byte(fmt.Sprint(stop)), -1); err != nil {
				t.Fatal(err)
			}
			later := fmt.Sprintf("/s/later%d", stop-1)
			if _, err := admin.Create(later, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
				t.Fatal(err)
			}
			requireEvent(t, dataWatch, zk.EventNodeDataChanged, "/s/watched")
			requireEvent(t, existWatch, zk.EventNodeCreated, later)
			requireEvent(t, childWatch, zk.EventNodeChildrenChanged, "/s")
		}
		eph := fmt.Sprintf("/s/eph%d", stop+1)
		if _, err := conn.Create(eph, []byte(fmt.Sprintf("through %v", at)), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatalf("create %s through %v: %v", eph, at, err)
		}
		ephemerals = append(ephemerals, eph)
		if _, _, dataWatch, err = conn.GetW("/s/watched"); err != nil {
			t.Fatal(err)
		}
		if _, _, existWatch, err = conn.ExistsW(fmt.Sprintf("/s/later%d", stop)); err != nil {
			t.Fatal(err)
		}
		if _, _, childWatch, err = conn.ChildrenW("/s"); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range e.present() {
		tree := e.m(id).dump()
		for _, p := range ephemerals {
			n, ok := tree.Get(p)
			if !ok || n.Stat.EphemeralOwner != session {
				t.Errorf("%v: %s present=%v owner 0x%x, want owned by 0x%x", e.m(id), p, ok, n.Stat.EphemeralOwner, session)
			}
		}
	}
	e.requireIdenticalTrees(nil)

	t.Logf("cutting session 0x%x off until it expires", session)
	d.cutOff()
	for _, id := range e.present() {
		m := e.m(id)
		c := m.connect()
		waitFor(t, fmt.Sprintf("the ephemerals of the expired session gone from %v", m), func() (bool, string) {
			if _, err := c.Sync("/s"); err != nil {
				return false, err.Error()
			}
			children, _, err := c.Children("/s")
			if err != nil {
				return false, err.Error()
			}
			return !strings.Contains(strings.Join(children, " "), "eph"), fmt.Sprint(children)
		})
		c.Close()
	}
	e.requireIdenticalTrees(nil)
}

func requireEvent(t *testing.T, ch <-chan zk.Event, typ zk.EventType, path string) {
	t.Helper()
	select {
	case ev := <-ch:
		if ev.Type != typ || ev.Path != path {
			t.Fatalf("watch event %v on %s, want %v on %s", ev.Type, ev.Path, typ, path)
		}
	case <-time.After(waitLimit):
		t.Fatalf("no %v event on %s within %v", typ, path, waitLimit)
	}
}

// TestFollowerKilledDuringWrites: server 1 is killed with SIGKILL while
// a client writes through the leader, and started again, over and over.
// Each time it rejoins, serves, and holds every write the leader had
// acknowledged before it was asked; at the end the trees are identical.
func TestFollowerKilledDuringWrites(t *testing.T) {
	runMixes(t, followMixes, func(t *testing.T, l layout) {
		rounds := 20
		if l.Voters[0] == Java {
			rounds = 5 // a JVM takes seconds to start: the oracle run is shorter
		}
		e := newEnsemble(t, l, ensembleOptions{Props: map[string]string{"zookeeper.snapCount": "100"}})
		e.startLeader(leaderID, 1)
		e.startRest()
		f := e.m(1)
		writer := e.m(leaderID).connect()
		if _, err := writer.Create("/storm", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}

		var mu sync.Mutex
		var acked []string
		var writeErr error
		stop := make(chan struct{})
		var wg sync.WaitGroup
		// Two writers, each pausing between writes: enough to be killed in
		// the middle of, few enough to keep the trees quick to compare.
		for w := 0; w < 2; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					p := fmt.Sprintf("/storm/w%d-%06d", w, i)
					if _, err := writer.Create(p, []byte(p), 0, zk.WorldACL(zk.PermAll)); err != nil {
						mu.Lock()
						writeErr = fmt.Errorf("create %s: %w", p, err)
						mu.Unlock()
						return
					}
					mu.Lock()
					acked = append(acked, p[len("/storm/"):])
					mu.Unlock()
					time.Sleep(5 * time.Millisecond)
				}
			}()
		}
		defer func() { close(stop); wg.Wait() }()

		rng := rand.New(rand.NewSource(1))
		for round := 1; round <= rounds; round++ {
			time.Sleep(time.Duration(100+rng.Intn(400)) * time.Millisecond)
			f.kill()
			time.Sleep(time.Duration(rng.Intn(300)) * time.Millisecond)
			f.restart()
			mu.Lock()
			want := append([]string(nil), acked...)
			err := writeErr
			mu.Unlock()
			if err != nil {
				t.Fatalf("the writer through the leader failed: %v", err)
			}
			c := f.connect()
			if _, err := c.Sync("/storm"); err != nil {
				t.Fatal(err)
			}
			children, _, err := c.Children("/storm")
			c.Close()
			if err != nil {
				t.Fatal(err)
			}
			have := make(map[string]bool, len(children))
			for _, ch := range children {
				have[ch] = true
			}
			for _, p := range want {
				if !have[p] {
					if f.kind == Java && javaOutOfOrderLog.MatchString(f.log()) {
						t.Skipf("round %d: %v lost acknowledged write /storm/%s after logging txns out of order (%q): "+
							"Java 3.8.0's learner can log a DIFF's txns after newer ones and lose them when killed "+
							"(ZOOKEEPER-4785, fixed in 3.8.5 and 3.9.2), so the oracle cannot pass this check; %s",
							round, f, p, javaOutOfOrderLog, e.whereIs("/storm/"+p))
					}
					t.Fatalf("round %d: %v lacks acknowledged write /storm/%s (%d acknowledged, %d there); %s",
						round, f, p, len(want), len(children), e.whereIs("/storm/"+p))
				}
			}
			t.Logf("round %d: %v rejoined (synced by %v) with all %d acknowledged writes", round, f, lastOf(f.syncModes()), len(want))
		}
		close(stop)
		wg.Wait()
		stop = make(chan struct{})
		e.requireIdenticalTrees(nil)
	})
}

// javaOutOfOrderLog is Java's warning when a txn reaches its log after
// a newer one ("Current zxid N is <= M for create").
var javaOutOfOrderLog = regexp.MustCompile(`Current zxid \d+ is <= \d+ for `)

func lastOf(s []string) string {
	if len(s) == 0 {
		return "?"
	}
	return s[len(s)-1]
}

// whereIs says which members have path, and its czxid, for a failure
// message.
func (e *ensemble) whereIs(path string) string {
	var parts []string
	for _, id := range e.present() {
		m := e.m(id)
		conn, _, err := zk.Connect([]string{m.addr()}, 30*time.Second, zk.WithLogger(zkLogger()))
		if err != nil {
			parts = append(parts, fmt.Sprintf("%v: %v", m, err))
			continue
		}
		conn.Sync(path)
		_, stat, err := conn.Get(path)
		conn.Close()
		if err != nil {
			parts = append(parts, fmt.Sprintf("%v: %v", m, err))
		} else {
			parts = append(parts, fmt.Sprintf("%v: czxid 0x%x", m, stat.Czxid))
		}
	}
	return path + " on " + strings.Join(parts, ", ")
}
