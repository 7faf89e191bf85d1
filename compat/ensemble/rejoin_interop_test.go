//go:build interop

package ensemble

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// TestGozkObserverCatchesUp: a gozk observer (server 4) stopped for a
// few writes catches up by DIFF, and with its data directory wiped by
// SNAP, from a Java leader and from a gozk one; each time the trees end
// identical. (An observer is never sent a proposal before it commits, so
// it has nothing to TRUNC.)
func TestGozkObserverCatchesUp(t *testing.T) {
	runMixes(t, []mix{
		{"java-leader", layout{Voters: []Kind{Gozk, Absent, Java}, Observers: []Kind{Gozk}}},
		{"gozk-leader", layout{Voters: []Kind{Java, Absent, Gozk}, Observers: []Kind{Gozk}}},
	}, func(t *testing.T, l layout) {
		e := newEnsemble(t, l, ensembleOptions{})
		e.startLeader(leaderID, 1)
		e.startRest()
		leader, o := e.m(leaderID), e.m(4)
		conn := leader.connect()
		writeMany(t, conn, "/base", 20)

		t.Log("stopped for 10 writes: DIFF")
		o.stop()
		writeMany(t, conn, "/diff", 10)
		o.restart()
		e.requireSync(o, leader, ModeDiff)
		e.requireIdenticalTrees(nil)

		t.Log("wiped: SNAP")
		o.stop()
		o.wipe()
		writeMany(t, conn, "/wiped", 5)
		o.restart()
		e.requireSync(o, leader, ModeSnap)
		e.requireIdenticalTrees(nil)
	})
}

// TestZxidRolloverThroughAnEnsemble: with
// -Dzookeeper.testingonly.initialZxid=4294967280 the leader's counter
// starts 15 short of its end; it gives up leading when it runs out, the
// two voters elect again into a new epoch, and every write acknowledged
// before and after is on both, their trees identical. A gozk leader with
// a Java follower, then a Java leader with a gozk follower; the client
// writes through the follower.
func TestZxidRolloverThroughAnEnsemble(t *testing.T) {
	runMixes(t, []mix{
		{"gozk-leader", layout{Voters: []Kind{Java, Absent, Gozk}}},
		{"java-leader", layout{Voters: []Kind{Gozk, Absent, Java}}},
	}, func(t *testing.T, l layout) {
		e := newEnsemble(t, l, ensembleOptions{Props: map[string]string{"zookeeper.testingonly.initialZxid": "4294967280"}})
		e.startLeader(leaderID, 1)
		conn := e.m(1).connect()
		var written []string
		epochs := map[int64]bool{}
		deadline := time.Now().Add(waitLimit)
		for len(written) < 40 {
			if time.Now().After(deadline) {
				t.Fatalf("only %d writes acknowledged in %v", len(written), waitLimit)
			}
			p := fmt.Sprintf("/roll-%03d", len(written))
			_, err := conn.Create(p, nil, 0, zk.WorldACL(zk.PermAll))
			if err != nil && !errors.Is(err, zk.ErrNodeExists) {
				// The write in flight when the leader gave up may or may
				// not have committed; the client reconnects.
				time.Sleep(100 * time.Millisecond)
				continue
			}
			written = append(written, p)
			if _, st, err := conn.Exists(p); err == nil {
				epochs[st.Czxid>>32] = true
			}
		}
		if len(epochs) < 2 {
			t.Fatalf("every write in epochs %v: the counter never rolled over", epochs)
		}
		t.Logf("writes in epochs %v", epochs)
		for _, id := range e.present() {
			e.m(id).waitServing()
		}
		e.requireIdenticalTrees(nil)
		tree := e.m(1).dump()
		for _, p := range written {
			if _, ok := tree.Get(p); !ok {
				t.Errorf("%s acknowledged and lost", p)
			}
		}
	})
}
