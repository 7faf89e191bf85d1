//go:build interop

package ensemble

import (
	"fmt"
	"testing"

	"github.com/go-zookeeper/zk"
)

// TestMultiAddressMixedEnsemble: server lines with two addresses each
// (zookeeper.multiAddress.enabled), every member's first quorum address
// refusing, Java 3.8.0 and gozk side by side with each kind leading. The
// leader binds what it can and learners of both kinds dial every address
// of their leader at once, so they reach it at the second; writes through
// every member reach every member.
func TestMultiAddressMixedEnsemble(t *testing.T) {
	for _, c := range []struct {
		name   string
		voters []Kind
	}{
		{"java-leads", []Kind{Gozk, Gozk, Java}},
		{"gozk-leads", []Kind{Java, Java, Gozk}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnsemble(t, layout{Voters: c.voters}, ensembleOptions{MultiAddress: true})
			e.startLeader(3, 1)
			e.startRest()
			if l := e.leader(); l.id != 3 {
				t.Fatalf("server %d leads, want 3", l.id)
			}
			for _, id := range e.ids() {
				cl := e.m(id).connect()
				if _, err := cl.Create(fmt.Sprintf("/multi-%d", id), []byte(e.m(id).kind), 0, zk.WorldACL(zk.PermAll)); err != nil {
					t.Fatalf("create through %v: %v", e.m(id), err)
				}
				cl.Close()
			}
			e.requireIdenticalTrees(nil)
		})
	}
}
