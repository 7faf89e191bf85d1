package peer

import (
	"fmt"
	"testing"

	gozk "github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/internal/testport"
)

// TestMultiAddressLearnersReachTheLeaderAtAnyAddress: with two addresses
// per server (zookeeper.multiAddress.enabled) and every member's first
// quorum address unusable (taken, so it cannot bind it, and refusing
// dials), the leader takes learners on its second address and they reach
// it there, as Java's LeaderConnectors do; the ensemble forms and
// replicates.
func TestMultiAddressLearnersReachTheLeaderAtAnyAddress(t *testing.T) {
	var lines []string
	for i := 1; i <= 3; i++ {
		lines = append(lines, fmt.Sprintf("server.%d=127.0.0.1:%d:%d|127.0.0.2:%d:%d", i,
			testport.Refusing(t), freeLoopbackPort(t), freeLoopbackPort(t), freeLoopbackPort(t)))
	}
	paths := writeEnsembleLines(t, t.TempDir(), lines)
	const flags = "-Dzookeeper.multiAddress.enabled=true"
	members := []*gozkMember{
		startMemberWith(t, paths[0], flags, nil),
		startMemberWith(t, paths[1], flags, nil),
		startMemberWith(t, paths[2], flags, nil),
	}
	leader := waitRoles(t, members...)
	lc := clientOf(t, leader)
	if _, err := lc.Create("/multi", []byte("a"), 0, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatal(err)
	}
	for _, m := range members {
		c := clientOf(t, m)
		if _, err := c.Sync("/multi"); err != nil {
			t.Fatal(err)
		}
		if data, _, err := c.Get("/multi"); err != nil || string(data) != "a" {
			t.Fatalf("member %d: /multi = %q, %v", m.id, data, err)
		}
	}
}
