//go:build interop

package ensemble

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/compat/zkwire"
	"github.com/gozk/gozk/proto"
)

// TestObserverMastersMixed: observerMasterPort with Java 3.8.0 and gozk
// side by side. Observers sync from and follow a follower's observer
// master, never the leader (which runs none): a Java observer through
// gozk followers under a Java leader, and a gozk observer through Java
// followers under a gozk leader. Writes through the observer and through
// the other members reach every member, with identical trees; the
// observer restarted catches up from its master by DIFF, and with an
// empty data directory by SNAP; a client session moves from the leader to
// the observer, revalidated through the master.
func TestObserverMastersMixed(t *testing.T) {
	for _, c := range []struct {
		name      string
		voters    []Kind
		observer  Kind
		masterLog string // what the observer's log says of the master it follows
	}{
		{"java-observer-gozk-masters", []Kind{Gozk, Gozk, Java}, Java, "Observing new leader sid="},
		{"gozk-observer-java-masters", []Kind{Java, Java, Gozk}, Gozk, "master="},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnsemble(t, layout{Voters: c.voters, Observers: []Kind{c.observer}}, ensembleOptions{
				OwnHosts: true,
				Extra:    []string{fmt.Sprintf("observerMasterPort=%d", freePort(t))},
			})
			e.startLeader(3, 1)
			e.startRest()
			if l := e.leader(); l.id != 3 {
				t.Fatalf("server %d leads, want 3", l.id)
			}
			obs := e.m(4)
			waitFor(t, "the observer to follow a follower's observer master", func() (bool, string) {
				log := obs.log()
				i := strings.LastIndex(log, c.masterLog)
				if i < 0 {
					return false, "no line naming its master yet"
				}
				line := log[i:]
				if j := strings.IndexByte(line, '\n'); j >= 0 {
					line = line[:j]
				}
				return !strings.Contains(line, c.masterLog+"3"), line
			})
			for _, id := range e.ids() {
				cl := e.m(id).connect()
				if _, err := cl.Create(fmt.Sprintf("/om-%d", id), []byte(e.m(id).kind), 0, zk.WorldACL(zk.PermAll)); err != nil {
					t.Fatalf("create through %v: %v", e.m(id), err)
				}
				cl.Close()
			}
			oc := obs.connect()
			if _, err := oc.Create("/om-eph", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
				t.Fatal(err)
			}
			if _, err := oc.Sync("/"); err != nil {
				t.Fatal(err)
			}
			for _, id := range e.ids() {
				if ok, _, err := oc.Exists(fmt.Sprintf("/om-%d", id)); err != nil || !ok {
					t.Fatalf("/om-%d on the observer after a sync: %v, %v", id, ok, err)
				}
			}
			oc.Close()
			e.requireIdenticalTrees(nil)

			// A session moves from the leader to the observer: the
			// observer's master asks the leader, which keeps it alive; a
			// session the leader does not know is refused.
			old, err := zkwire.Connect(e.m(3).addr(), 30*time.Second, zkwire.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer old.Close()
			if f, err := old.Call(proto.OpCreate, &proto.CreateRequest{Path: "/om-moving", Acl: proto.OpenACLUnsafe, Flags: int32(zk.FlagEphemeral)}); err != nil || f.Code() != proto.ErrOK {
				t.Fatalf("create /om-moving through the leader: %v %v", f.Code(), err)
			}
			waitFor(t, fmt.Sprintf("the observer applying 0x%x", old.LastZxid()), func() (bool, string) {
				z := obs.zxid()
				return z >= old.LastZxid(), fmt.Sprintf("at 0x%x", z)
			})
			moved, err := zkwire.Connect(obs.addr(), 30*time.Second, zkwire.Options{
				SessionID: old.SessionID(), Password: old.Password(), LastZxidSeen: old.LastZxid()})
			if err != nil {
				t.Fatal(err)
			}
			defer moved.Close()
			if moved.Refused() || moved.SessionID() != old.SessionID() {
				t.Fatalf("the observer did not resume session 0x%x: %+v", old.SessionID(), moved.Handshake)
			}
			for i := 0; i < 1000; i++ {
				moved.NextXid() // not the old connection's cxids
			}
			if f, err := moved.Call(proto.OpCreate, &proto.CreateRequest{Path: "/om-moved", Acl: proto.OpenACLUnsafe, Flags: int32(zk.FlagEphemeral)}); err != nil || f.Code() != proto.ErrOK {
				t.Fatalf("create through the observer after the move: %v %v", f.Code(), err)
			}
			gone, err := zkwire.Connect(obs.addr(), 30*time.Second, zkwire.Options{SessionID: old.SessionID() + 12345, Password: make([]byte, 16)})
			if err != nil {
				t.Fatal(err)
			}
			if !gone.Refused() {
				t.Errorf("the observer resumed an unknown session: %+v", gone.Handshake)
			}
			gone.Close()
			moved.Close()
			old.Close()

			// Back after missing a few writes: a DIFF from its master;
			// with an empty data directory: a SNAP of its master's tree.
			lc := e.m(3).connect()
			defer lc.Close()
			for _, round := range []struct {
				wipe bool
				want string
			}{{false, ModeDiff}, {true, ModeSnap}} {
				obs.stop()
				writeMany(t, lc, fmt.Sprintf("/om-missed-%v", round.wipe), 5)
				if round.wipe {
					obs.wipe()
				}
				obs.restart()
				if modes := obs.syncModes(); len(modes) == 0 || modes[len(modes)-1] != round.want {
					t.Errorf("the observer synced by %v, want %s last", modes, round.want)
				}
				c := obs.connect()
				if _, err := c.Sync("/"); err != nil {
					t.Fatal(err)
				}
				c.Close()
				e.requireIdenticalTrees(nil)
			}
			// The INFORMs a gozk master relays carry the leader's
			// digests: a Java observer's checks pass.
			e.requireNoDigestMismatch()
		})
	}
}
