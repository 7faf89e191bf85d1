package peer

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/server"
)

// TestSnapUnderLoadFromGozkLeader: a member joins by SNAP while clients
// keep writing, so the gozk leader's stream holds effects of txns after
// its zxid (how many depends on timing; the tests in fuzzysnap_test.go
// make sure). The member reports no divergence, ends with the leader's
// tree, and its data directory recovers.
func TestSnapUnderLoadFromGozkLeader(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 20000 nodes")
	}
	// 16 writers under the race detector on a loaded machine: with the
	// ensemble's tickTime of 100 ms the session would be held to 2 s,
	// and go-zookeeper drops a connection silent for two thirds of it;
	// the follower gets 5 s to acknowledge, so the leader does not step
	// down under the load either.
	paths := writeEnsemble(t, t.TempDir(), 3, "forceSnapshotSync=true", "syncLimit=50", "maxSessionTimeout=20000")
	leader := waitRoles(t, startMember(t, paths[0]), startMember(t, paths[1]))
	c := clientOf(t, leader)
	acl := gozk.WorldACL(gozk.PermAll)
	const nodes, writers = 20000, 16
	data := make([]byte, 512)
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < nodes; i += writers {
				if _, err := c.Create(fmt.Sprintf("/n%d", i), data, 0, acl); err != nil {
					t.Errorf("create: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	var stop atomic.Bool
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				c.Set(fmt.Sprintf("/n%d", (i*7919+g*131)%nodes), []byte(fmt.Sprint(i)), -1)
				c.Create(fmt.Sprintf("/t%d-%d", g, i%50), nil, 0, acl)
				c.Delete(fmt.Sprintf("/t%d-%d", g, (i+25)%50), -1)
			}
		}()
	}
	joined := startMember(t, paths[2])
	deadline := time.Now().Add(60 * time.Second)
	for joined.srv.Role() != server.RoleFollower || !joined.srv.Serving() {
		if time.Now().After(deadline) {
			stop.Store(true)
			t.Fatal("the third member never followed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // writes go on in the broadcast too
	stop.Store(true)
	wg.Wait()
	if _, err := clientOf(t, joined).Sync("/"); err != nil {
		t.Fatal(err)
	}
	if lz, jz := leader.srv.LastZxid(), joined.srv.LastZxid(); lz != jz || leader.srv.Tree().Digest() != joined.srv.Tree().Digest() {
		t.Errorf("after a sync the member is at 0x%x with digest %d, the leader at 0x%x with %d",
			jz, joined.srv.Tree().Digest(), lz, leader.srv.Tree().Digest())
	}
	if n := joined.srv.Metrics().DigestMismatches.Load(); n != 0 {
		t.Errorf("digest_mismatches_count %d on the member synced by SNAP", n)
	}
	joined.stop()
	recoverDir(t, joined.dir)
}
