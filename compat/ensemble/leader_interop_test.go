//go:build interop

package ensemble

import (
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/compat/zkwire"
	"github.com/gozk/gozk/proto"
)

// The tests of this file have gozk lead: server 3, the largest id, is a
// gozk server in each of their layouts, and it is started first with
// server 1, so both vote for it. The scenario bodies are those of
// datapath_interop_test.go, run on these layouts, and a few that only
// a gozk leader needs (which sync mode it picks, its failover).

// gozkLeadMixes are the layouts in which a gozk server 3 leads Java and
// gozk followers and observers.
var gozkLeadMixes = []mix{
	{"java-followers", layout{Voters: []Kind{Java, Java, Gozk}}},
	{"all-gozk", layout{Voters: []Kind{Gozk, Gozk, Gozk}}},
	{"java-and-gozk-followers-java-observer", layout{Voters: []Kind{Java, Gozk, Gozk}, Observers: []Kind{Java}}},
	{"gozk-observer", layout{Voters: []Kind{Gozk, Java, Gozk}, Observers: []Kind{Gozk}}},
}

// TestGozkLeaderWrites: writes of every kind through every member of
// each gozk-led layout reach every member (TestWritesReachEveryMember's
// body): the trees are identical, no Java member saw a txn digest from
// the gozk leader disagree with its tree, and the leader's srvr says
// leader and its mntr counts its learners as Java's leader does.
func TestGozkLeaderWrites(t *testing.T) {
	runMixes(t, gozkLeadMixes, writesReachEveryMember)
}

// bigNodes creates n nodes of size bytes each under parent: they make
// the leader's snapshots large, which allows a DIFF from its txn log
// (a DIFF may carry up to zookeeper.snapshotSizeFactor of the newest
// snapshot's size).
func bigNodes(t *testing.T, conn *zk.Conn, parent string, n, size int) {
	t.Helper()
	if _, err := conn.Create(parent, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	data := []byte(strings.Repeat("x", size))
	for i := 0; i < n; i++ {
		if _, err := conn.Create(fmt.Sprintf("%s/b%03d", parent, i), data, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGozkLeaderSyncModes: the gozk leader (3) syncs a Java follower (1)
// and a gozk follower (2) each way Java's leader would.
//
// With the defaults but a large snapshot: stopped for 5 writes, a
// follower gets a DIFF from the leader's committed log; stopped for 600
// writes, more than that log holds (zookeeper.commitLogCount is at least
// 500) but less than the snapshot's size, it gets a DIFF from the txn
// log. With -Dzookeeper.snapshotSizeFactor=-1 (no DIFF from the txn
// log), 600 missed writes make a SNAP. Then the leader is killed and
// server 2, run with -Dzookeeper.forceSnapshotSync=true, leads: it
// syncs server 3 (gozk) and server 1 (Java) by SNAP, each having missed
// one write. The trees are compared after each sync.
func TestGozkLeaderSyncModes(t *testing.T) {
	l := layout{Voters: []Kind{Java, Gozk, Gozk}}
	t.Run("diff", func(t *testing.T) {
		e := newEnsemble(t, l, ensembleOptions{Props: map[string]string{"zookeeper.snapCount": "100"}})
		e.startLeader(leaderID, 1)
		e.startRest()
		leader := e.m(leaderID)
		conn := leader.connect()
		// 48 nodes of 8 KB: a snapshot of about 400 KB, a third of
		// which (the default factor) is more than 600 small creates.
		bigNodes(t, conn, "/big", 48, 8<<10)
		for _, id := range []int64{1, 2} {
			f := e.m(id)
			t.Logf("%v stopped for 5 writes: DIFF from the committed log", f)
			f.settle()
			f.stop()
			writeMany(t, conn, fmt.Sprintf("/few%d", id), 5)
			f.restart()
			e.requireSync(f, leader, ModeDiff)
			e.requireIdenticalTrees(nil)

			t.Logf("%v stopped for 600 writes: DIFF from the txn log", f)
			f.settle()
			f.stop()
			writeMany(t, conn, fmt.Sprintf("/many%d", id), 600)
			f.restart()
			e.requireSync(f, leader, ModeDiff)
			e.requireIdenticalTrees(nil)
		}
		e.requireNoDigestMismatch()
	})
	t.Run("snap", func(t *testing.T) {
		e := newEnsemble(t, l, ensembleOptions{
			Props:   map[string]string{"zookeeper.snapCount": "100", "zookeeper.snapshotSizeFactor": "-1"},
			PropsOf: map[int64]map[string]string{2: {"zookeeper.forceSnapshotSync": "true"}},
		})
		e.startLeader(leaderID, 1)
		e.startRest()
		leader := e.m(leaderID)
		conn := leader.connect()
		bigNodes(t, conn, "/big", 48, 8<<10)
		for _, id := range []int64{1, 2} {
			f := e.m(id)
			t.Logf("%v stopped for 600 writes, snapshotSizeFactor=-1: SNAP", f)
			f.settle()
			f.stop()
			writeMany(t, conn, fmt.Sprintf("/many%d", id), 600)
			f.restart()
			e.requireSync(f, leader, ModeSnap)
			e.requireIdenticalTrees(nil)
		}
		conn.Close()

		t.Log("server 2 leads with forceSnapshotSync=true")
		leader.kill()
		newLeader := e.m(2)
		newLeader.waitServing("leader")
		conn = e.m(1).connect()
		writeMany(t, conn, "/missed3", 1)
		leader.restart()
		e.requireSync(leader, newLeader, ModeSnap)
		e.requireIdenticalTrees(nil)
		conn.Close()

		conn = leader.connect()
		f := e.m(1)
		f.settle()
		f.stop()
		writeMany(t, conn, "/missed1", 1)
		f.restart()
		e.requireSync(f, newLeader, ModeSnap)
		e.requireIdenticalTrees(nil)
		e.requireNoDigestMismatch()
	})
}

// TestDiffAfterLeaderRestart: a leader's committed log holds the txns
// it committed before it led, not only since: Java's leader fills it
// from its txn log when it starts (and with every txn it commits as a
// follower). Server 1 is stopped for 100 writes; the leader (3) is
// restarted and elected again; server 1 then gets a DIFF from the
// committed log, where a DIFF from the txn log is not allowed (100
// txns are more than a third of the small snapshot).
func TestDiffAfterLeaderRestart(t *testing.T) {
	runMixes(t, []mix{
		{"gozk-leader", layout{Voters: []Kind{Java, Gozk, Gozk}}},
		{"all-java", layout{Voters: []Kind{Java, Java, Java}}},
	}, func(t *testing.T, l layout) {
		e := newEnsemble(t, l, ensembleOptions{})
		e.startLeader(leaderID, 1)
		e.startRest()
		leader, f := e.m(leaderID), e.m(1)
		conn := leader.connect()
		writeMany(t, conn, "/base", 5)
		f.settle()
		f.stop()
		writeMany(t, conn, "/missed", 100)
		conn.Close()
		leader.stop()
		leader.start()
		leader.waitServing("leader")
		f.restart()
		e.requireSync(f, leader, ModeDiff)
		e.requireIdenticalTrees(nil)
	})
}

// settle waits until m has applied every write acknowledged so far (a
// sync through it), before the test stops it: a Java follower stopped
// between creating a txn log file and writing its header cannot start
// again (EOFException reading the header), whoever leads.
func (m *member) settle() {
	m.e.t.Helper()
	c := m.connect()
	defer c.Close()
	if _, err := c.Sync("/"); err != nil {
		m.e.t.Fatalf("sync through %v: %v", m, err)
	}
}

// TestGozkLeaderTruncates: TestUncommittedTxnTruncated's body with gozk
// leaders: a gozk server 3 leads while server 1's ACKs are dropped, and
// a gozk server 2, elected next, makes server 1 (Java, then gozk)
// truncate the proposal the ensemble never committed.
func TestGozkLeaderTruncates(t *testing.T) {
	runMixes(t, []mix{
		{"java-follower", layout{Voters: []Kind{Java, Gozk, Gozk}}},
		{"all-gozk", layout{Voters: []Kind{Gozk, Gozk, Gozk}}},
	}, uncommittedTxnTruncated)
}

// TestLeaderFailover: the leader is killed with SIGKILL in the middle
// of writes, twenty times in the all-gozk layout and five in the mixed
// one (a JVM takes seconds to start again). A client on a session of its own writes all
// along (through whichever member it reaches) and records each write
// acknowledged; after each kill the others elect a new leader, the old
// one rejoins as a follower, and every acknowledged write is on every
// member. In the mixed layout the leaders alternate between gozk and
// Java (the two survivors elect the larger id). The time from the kill
// to the first acknowledged write sent after it, on the existing session
// and on a new one, is logged, for information.
func TestLeaderFailover(t *testing.T) {
	runMixes(t, []mix{
		{"all-gozk", layout{Voters: []Kind{Gozk, Gozk, Gozk}}},
		{"gozk-and-java-leaders", layout{Voters: []Kind{Gozk, Java, Gozk}}},
	}, leaderFailover)
}

// ackedWrite is a write the failover test's writer saw acknowledged.
type ackedWrite struct {
	name     string
	sent, at time.Time
}

func leaderFailover(t *testing.T, l layout) {
	rounds := 20
	for _, k := range l.Voters {
		if k == Java {
			rounds = 5
		}
	}
	e := newEnsemble(t, l, ensembleOptions{Props: map[string]string{"zookeeper.snapCount": "100"}})
	e.startLeader(leaderID, 1)
	e.startRest()
	var addrs []string
	for _, id := range e.present() {
		addrs = append(addrs, e.m(id).addr())
	}
	writer, events, err := zk.Connect(addrs, 30*time.Second, zk.WithLogger(zkLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	waitSession(t, events, zk.StateHasSession)
	if _, err := writer.Create("/failover", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var acked []ackedWrite
	var writeErr error
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// Each attempt has a name of its own: a write whose answer was
		// lost with its connection may have been applied all the same.
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			name := fmt.Sprintf("n%06d", i)
			sent := time.Now()
			_, err := writer.Create("/failover/"+name, nil, 0, zk.WorldACL(zk.PermAll))
			switch {
			case err == nil:
				mu.Lock()
				acked = append(acked, ackedWrite{name, sent, time.Now()})
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			case errors.Is(err, zk.ErrSessionExpired) || errors.Is(err, zk.ErrNodeExists):
				mu.Lock()
				writeErr = fmt.Errorf("create /failover/%s: %w", name, err)
				mu.Unlock()
				return
			default:
				time.Sleep(20 * time.Millisecond)
			}
		}
	}()
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		wg.Wait()
	}()

	rng := rand.New(rand.NewSource(1))
	for round := 1; round <= rounds; round++ {
		time.Sleep(time.Duration(300+rng.Intn(400)) * time.Millisecond)
		old := e.leader()
		killedAt := time.Now()
		old.kill()
		fresh := make(chan time.Duration, 1)
		go func() { fresh <- firstWriteOnNewSession(e, old, killedAt) }()

		next := e.leader()
		old.start()
		old.waitServing("follower")
		var onExisting time.Duration
		waitFor(t, "a write sent after the kill acknowledged on the writer's session", func() (bool, string) {
			mu.Lock()
			defer mu.Unlock()
			if writeErr != nil {
				t.Fatalf("round %d: the writer failed: %v", round, writeErr)
			}
			for _, w := range acked {
				if w.sent.After(killedAt) {
					onExisting = w.at.Sub(killedAt)
					return true, ""
				}
			}
			return false, fmt.Sprintf("%d acknowledged, none since the kill", len(acked))
		})
		onNew := <-fresh
		mu.Lock()
		want := append([]ackedWrite(nil), acked...)
		mu.Unlock()
		for _, id := range e.present() {
			e.requireWrites(e.m(id), "/failover", want)
		}
		t.Logf("round %d: killed leader %v; %v leads; %v rejoined (synced by %v); all %d acknowledged writes on every member; "+
			"first write acknowledged %v after the kill on the existing session, %v on a new one",
			round, old, next, old, lastOf(old.syncModes()), len(want), onExisting.Round(time.Millisecond), onNew.Round(time.Millisecond))
	}
	close(stop)
	wg.Wait()
	e.requireIdenticalTrees(nil)
	e.requireNoDigestMismatch()
}

// leader waits until exactly one running member says it leads and
// returns it.
func (e *ensemble) leader() *member {
	e.t.Helper()
	var leader *member
	waitFor(e.t, "one leader", func() (bool, string) {
		leader = nil
		var modes []string
		for _, id := range e.ids() {
			m := e.members[id]
			if !m.running() {
				continue
			}
			mode := m.mode()
			modes = append(modes, fmt.Sprintf("%d:%q", id, mode))
			if mode == "leader" {
				if leader != nil {
					return false, strings.Join(modes, " ")
				}
				leader = m
			}
		}
		return leader != nil, strings.Join(modes, " ")
	})
	return leader
}

// firstWriteOnNewSession opens sessions to the members other than down,
// one after another, until one has a write acknowledged, and returns
// how long after since that was (-1 after waitLimit).
func firstWriteOnNewSession(e *ensemble, down *member, since time.Time) time.Duration {
	var addrs []string
	for _, id := range e.present() {
		if id != down.id {
			addrs = append(addrs, e.m(id).addr())
		}
	}
	for time.Since(since) < waitLimit {
		conn, _, err := zk.Connect(addrs, 30*time.Second, zk.WithLogger(zkLogger()))
		if err != nil {
			return -1
		}
		done := make(chan error, 1)
		go func() {
			_, err := conn.Create("/failover/fresh-", nil, zk.FlagSequence, zk.WorldACL(zk.PermAll))
			done <- err
		}()
		select {
		case err = <-done:
		case <-time.After(3 * time.Second):
			err = errors.New("no answer")
		}
		conn.Close()
		if err == nil {
			return time.Since(since)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return -1
}

// requireWrites checks, after a sync, that m has every write in want
// under parent.
func (e *ensemble) requireWrites(m *member, parent string, want []ackedWrite) {
	e.t.Helper()
	c := m.connect()
	defer c.Close()
	if _, err := c.Sync(parent); err != nil {
		e.t.Fatalf("sync on %v: %v", m, err)
	}
	children, _, err := c.Children(parent)
	if err != nil {
		e.t.Fatalf("children of %s on %v: %v", parent, m, err)
	}
	have := make(map[string]bool, len(children))
	for _, ch := range children {
		have[ch] = true
	}
	for _, w := range want {
		if !have[w.name] {
			e.t.Fatalf("%v lacks acknowledged write %s/%s (acknowledged at %s; %d acknowledged, %d there); %s",
				m, parent, w.name, w.at.Format("15:04:05.000"), len(want), len(children), e.whereIs(parent+"/"+w.name))
		}
	}
}

// TestGozkLeaderSessionMoves: TestSessionMovesBetweenKinds's body with
// a gozk leader: a session created on a Java follower (2) moves to a
// gozk follower (1) and then to the gozk leader (3), keeping its
// ephemerals and watches; the gozk leader expires it, and its ephemerals
// leave every member.
func TestGozkLeaderSessionMoves(t *testing.T) {
	sessionMoves(t, layout{Voters: []Kind{Gozk, Java, Gozk}}, []int64{2, 1, 3})
}

// TestSessionMovedAwayFromLeader: a client connected to the leader whose
// session then moves to a follower (another client resumes it there,
// with its id and password) has its connection closed by the leader when
// it sends a write again, as the session's owner is now the follower;
// the write is applied nowhere. Done with a gozk follower and with a
// Java one, under a gozk leader, and all-Java as the oracle.
func TestSessionMovedAwayFromLeader(t *testing.T) {
	runMixes(t, []mix{
		{"gozk-leader", layout{Voters: []Kind{Gozk, Java, Gozk}}},
		{"all-java", layout{Voters: []Kind{Java, Java, Java}}},
	}, func(t *testing.T, l layout) {
		e := newEnsemble(t, l, ensembleOptions{})
		e.startLeader(leaderID, 1)
		e.startRest()
		leader := e.m(leaderID)
		create := func(c *zkwire.Client, path string) (zkwire.Frame, error) {
			return c.Call(proto.OpCreate, &proto.CreateRequest{Path: path, Acl: proto.OpenACLUnsafe})
		}
		for _, to := range []int64{1, 2} {
			follower := e.m(to)
			old, err := zkwire.Connect(leader.addr(), 30*time.Second, zkwire.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer old.Close()
			base := fmt.Sprintf("/moved-to-%d", to)
			if f, err := create(old, base); err != nil || f.Code() != proto.ErrOK {
				t.Fatalf("create %s through %v: %v %v", base, leader, f.Code(), err)
			}
			// A server refuses a client that has seen a newer zxid than
			// its own: the follower first catches up.
			waitFor(t, fmt.Sprintf("%v applying 0x%x", follower, old.LastZxid()), func() (bool, string) {
				z := follower.zxid()
				return z >= old.LastZxid(), fmt.Sprintf("at 0x%x", z)
			})
			moved, err := zkwire.Connect(follower.addr(), 30*time.Second, zkwire.Options{
				SessionID: old.SessionID(), Password: old.Password(), LastZxidSeen: old.LastZxid()})
			if err != nil {
				t.Fatal(err)
			}
			defer moved.Close()
			// The old connection's refused write is committed as an error
			// txn with its cxid; a follower matches a commit to the request
			// it waits for by session and cxid, so the two connections must
			// not share cxids (a client resuming a session goes on from its
			// last xid).
			for i := 0; i < 1000; i++ {
				moved.NextXid()
			}
			if moved.Refused() || moved.SessionID() != old.SessionID() {
				t.Fatalf("%v did not resume session 0x%x: %+v", follower, old.SessionID(), moved.Handshake)
			}
			if f, err := create(moved, base+"/after-move"); err != nil || f.Code() != proto.ErrOK {
				t.Fatalf("create through %v after the move: %v %v", follower, f.Code(), err)
			}

			f, err := create(old, base+"/from-old-connection")
			switch {
			case err != nil && errors.Is(err, zkwire.ErrConnectionClosed):
				t.Logf("%v closed the old connection of session 0x%x without an answer", leader, old.SessionID())
			case err != nil:
				t.Fatalf("write on the old connection to %v: %v", leader, err)
			default:
				t.Errorf("write on the old connection to %v answered %v (xid %d), want the connection closed", leader, f.Code(), f.Header.Xid)
				if _, err := old.Next(); !errors.Is(err, zkwire.ErrConnectionClosed) {
					t.Errorf("the old connection to %v is still open after that answer (%v)", leader, err)
				}
			}
			// The session itself lives on, at the follower.
			if f, err := create(moved, base+"/still-mine"); err != nil || f.Code() != proto.ErrOK {
				t.Fatalf("create through %v after the old connection's write: %v %v", follower, f.Code(), err)
			}
			for _, id := range e.present() {
				c := e.m(id).connect()
				if _, err := c.Sync("/"); err != nil {
					t.Fatal(err)
				}
				children, _, err := c.Children(base)
				c.Close()
				if err != nil {
					t.Fatal(err)
				}
				sort.Strings(children)
				if got := strings.Join(children, " "); got != "after-move still-mine" {
					t.Errorf("%v: children of %s are %q, want \"after-move still-mine\"", e.m(id), base, got)
				}
			}
		}
		e.requireIdenticalTrees(nil)
	})
}
