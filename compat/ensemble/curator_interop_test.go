//go:build interop

package ensemble

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/javaprog"
)

// curatorChecks are the recipes of compat/curator run through gozk
// followers of a Java leader: locks, elections, caches, queues, counters
// and transactions, each of which needs writes forwarded, watches fired
// by commits and sessions kept alive through the leader.
var curatorChecks = []string{"mutex", "leader-latch", "curator-cache", "queue", "shared-count", "group-member", "transaction"}

// TestCuratorThroughGozk runs Curator's recipes with a connection string
// naming only gozk servers: the followers of a Java leader, and a gozk
// leader with Java followers.
func TestCuratorThroughGozk(t *testing.T) {
	requireJava(t)
	prog := javaprog.Compile(t, "CuratorCheck", append(javaprog.CuratorJars, javaprog.ZooKeeperJars...),
		"../curator/testdata/CuratorCheck.java", "../javaprog/java/Checks.java")
	for _, c := range []struct {
		name  string
		l     layout
		hosts []int64
	}{
		{"gozk-followers", layout{Voters: []Kind{Gozk, Gozk, Java}}, []int64{1, 2}},
		{"gozk-leader", layout{Voters: []Kind{Java, Java, Gozk}}, []int64{3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The leader reaps containers (the mutex check waits for its
			// lock's parent to go): every second, as compat/curator's
			// servers do.
			e := newEnsemble(t, c.l, ensembleOptions{
				Props: map[string]string{"znode.container.checkIntervalMs": "1000"},
			})
			e.startLeader(leaderID, 1)
			e.startRest()
			var addrs []string
			for _, id := range c.hosts {
				addrs = append(addrs, e.m(id).addr())
			}
			run := prog.Run(t, 4*time.Minute, nil, append([]string{strings.Join(addrs, ",")}, curatorChecks...)...)
			if run.Err != nil {
				t.Fatalf("Curator: %v\n%s", run.Err, lastLines(run.Log, 40))
			}
			ran := map[string]bool{}
			for _, r := range run.Results {
				if !r.Pass {
					t.Errorf("%s: %s", r.Name, r.Detail)
				}
				ran[r.Name] = true
			}
			for _, name := range curatorChecks {
				if !ran[name] {
					t.Errorf("%s did not run (plan %s)", name, strings.Join(run.Plan, ", "))
				}
			}
			// The leader goes on reaping the recipes' containers after
			// Curator is done: compare once every member has been at
			// one zxid for two seconds (two reaper passes).
			waitFor(t, "the ensemble to settle", func() (bool, string) {
				first := int64(-2)
				var zxids []string
				for _, id := range e.present() {
					z := e.m(id).zxid()
					zxids = append(zxids, fmt.Sprintf("%d:0x%x", id, z))
					if first == -2 {
						first = z
					} else if z != first {
						return false, strings.Join(zxids, " ")
					}
				}
				time.Sleep(2 * time.Second)
				for _, id := range e.present() {
					if z := e.m(id).zxid(); z != first {
						return false, strings.Join(zxids, " ")
					}
				}
				return true, ""
			})
			e.requireIdenticalTrees(nil)
		})
	}
}
