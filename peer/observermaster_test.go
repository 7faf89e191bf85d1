package peer

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/server"
)

// TestObserverFollowsAnObserverMaster: with observerMasterPort, an
// observer syncs from a follower and follows it, not the leader (each
// member on a loopback address of its own, the port being one for all,
// as in zoo.cfg); writes through the observer and through the leader
// reach it; when its follower goes, it moves to another voter's master.
func TestObserverFollowsAnObserverMaster(t *testing.T) {
	var lines []string
	for i := 1; i <= 4; i++ {
		role := ""
		if i == 4 {
			role = ":observer"
		}
		lines = append(lines, fmt.Sprintf("server.%d=127.0.0.%d:%d:%d%s", i, i, freeLoopbackPort(t), freeLoopbackPort(t), role))
	}
	paths := writeEnsembleLines(t, t.TempDir(), lines, fmt.Sprintf("observerMasterPort=%d", freeLoopbackPort(t)))
	var members []*gozkMember
	for _, p := range paths {
		members = append(members, startMember(t, p))
	}
	observer := members[3]
	waitObserving := func(not ...int64) int64 {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			if observer.srv.Role() == server.RoleObserver && observer.srv.Serving() {
				id, _ := observer.srv.Leader()
				return id
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("the observer does not serve: %s", observer.srv.PeerState())
		return 0
	}
	leader := waitRoles(t, members[:3]...)
	master := waitObserving()
	if master == leader.id {
		t.Fatalf("the observer follows the leader %d, not an observer master", master)
	}
	t.Logf("leader %d, the observer's master %d", leader.id, master)
	// The master shows its observer as Java's follower does (mntr's
	// zk_synced_observers, the AdminServer's observers).
	for _, m := range members[:3] {
		if m.id != master {
			continue
		}
		deadline := time.Now().Add(30 * time.Second)
		for g := m.srv.LeaderFigures(); !g.ObserverMaster || g.SyncedObservers != 1 || len(g.Observers) != 1 || g.Observers[0].ID != 4; g = m.srv.LeaderFigures() {
			if time.Now().After(deadline) {
				t.Fatalf("the master's figures: %+v", g)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	oc := clientOf(t, observer)
	if _, err := oc.Create("/via-observer", []byte("o"), 0, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, err := oc.Create("/eph", nil, gozk.FlagEphemeral, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatal(err)
	}
	lc := clientOf(t, leader)
	if _, err := lc.Create("/via-leader", []byte("l"), 0, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, err := oc.Sync("/via-leader"); err != nil {
		t.Fatal(err)
	}
	if data, _, err := oc.Get("/via-leader"); err != nil || string(data) != "l" {
		t.Fatalf("/via-leader on the observer: %q, %v", data, err)
	}
	if _, st, err := lc.Exists("/eph"); err != nil || st.EphemeralOwner != oc.SessionID() {
		t.Fatalf("the observer's ephemeral on the leader: %+v, %v", st, err)
	}

	// The master goes: the observer moves on to the other follower.
	for _, m := range members[:3] {
		if m.id == master {
			m.stop()
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		id, _ := observer.srv.Leader()
		if observer.srv.Serving() && id != master {
			if id == leader.id {
				t.Fatalf("the observer now follows the leader %d", id)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the observer did not move to another master: %s", observer.srv.PeerState())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := lc.Create("/after", nil, 0, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatal(err)
	}
	oc2 := clientOf(t, observer)
	if _, err := oc2.Sync("/after"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/via-observer", "/via-leader", "/after"} {
		if ok, _, err := oc2.Exists(p); err != nil || !ok {
			t.Errorf("%s on the observer: %v, %v", p, ok, err)
		}
	}
}

// TestObserverMastersInTurn: an observer takes every voter's observer
// master once, in turn from a random place, before it says all were tried
// (where Java's observer pauses for reconnectDelayMs), and then again.
func TestObserverMastersInTurn(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "zoo.cfg")
	text := "tickTime=100\ninitLimit=5\nsyncLimit=2\ndataDir=" + dir + "\nclientPort=2181\nobserverMasterPort=2191\n" +
		"server.1=127.0.0.1:2888:3888\nserver.2=127.0.0.2:2888:3888\nserver.3=127.0.0.3:2888:3888\n" +
		"server.4=127.0.0.4:2888:3888:observer\n"
	if err := os.WriteFile(filepath.Join(dir, "myid"), []byte("4"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := conf.Load(path, "")
	if err != nil {
		t.Fatal(err)
	}
	m := &Member{cfg: c, nextMaster: -1}
	for round := 0; round < 3; round++ {
		seen := map[int64]bool{}
		for i := 0; i < 3; i++ {
			id, addrs, allTried := m.nextObserverMaster()
			if want := round > 0 && i == 0; allTried != want {
				t.Fatalf("round %d, pick %d: allTried %v, want %v", round, i, allTried, want)
			}
			if id == 4 || seen[id] {
				t.Fatalf("round %d: master %d again or an observer (seen %v)", round, id, seen)
			}
			seen[id] = true
			if want := fmt.Sprintf("127.0.0.%d:2191", id); len(addrs) != 1 || addrs[0] != want {
				t.Fatalf("master %d at %v, want %s", id, addrs, want)
			}
		}
	}
}
