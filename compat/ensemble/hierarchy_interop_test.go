//go:build interop

package ensemble

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// TestHierarchicalEnsemble: five members in two groups, {1,2,3} and
// {4,5}, with member 5 weighing nothing; Java 1 and 2 beside gozk 3, 4
// and 5. A quorum needs a majority of the groups, each with a majority
// of its weight, as Java's QuorumHierarchical decides: the zero-weight
// member never leads; with member 4 down, group 2 has no weight left and
// nobody may serve, Java's members included; with 4 back they serve
// again.
func TestHierarchicalEnsemble(t *testing.T) {
	e := newEnsemble(t, layout{Voters: []Kind{Java, Java, Gozk, Gozk, Gozk}}, ensembleOptions{
		Extra: []string{"group.1=1:2:3", "group.2=4:5", "weight.1=1", "weight.2=1", "weight.3=1", "weight.4=1", "weight.5=0"},
	})
	e.startRest()
	leader := e.leader()
	if leader.id == 5 {
		t.Fatal("the zero-weight member leads")
	}
	t.Logf("server %d (%s) leads", leader.id, leader.kind)
	c := e.m(1).connect()
	if _, err := c.Create("/groups", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	c.Close()

	e.m(4).stop()
	serving := func() string {
		var out []string
		for _, id := range []int64{1, 2, 3, 5} {
			if mode := e.m(id).mode(); mode != "" {
				out = append(out, fmt.Sprintf("%d:%s", id, mode))
			}
		}
		return strings.Join(out, " ")
	}
	deadline := time.Now().Add(2 * time.Minute)
	for serving() != "" {
		if time.Now().After(deadline) {
			t.Fatalf("with group 2 weightless, still serving: %s", serving())
		}
		time.Sleep(200 * time.Millisecond)
	}
	// Four of five members are up, a majority by count: they go on
	// electing (many rounds at this tickTime) and none may serve.
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); {
		if s := serving(); s != "" {
			t.Fatalf("with group 2 weightless, a leader was elected: %s", s)
		}
		time.Sleep(200 * time.Millisecond)
	}

	e.m(4).start()
	e.startRest()
	if l := e.leader(); l.id == 5 {
		t.Fatal("the zero-weight member leads")
	}
	e.requireIdenticalTrees(nil)
}
