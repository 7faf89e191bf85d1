package bench

import (
	"testing"
	"time"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

func TestIsDataChanged(t *testing.T) {
	event := func(typ proto.EventType, path string) []byte {
		return jute.Marshal(&proto.WatcherEvent{Type: int32(typ), State: int32(proto.StateSyncConnected), Path: path})
	}
	for _, c := range []struct {
		body []byte
		want bool
	}{
		{event(proto.EventNodeDataChanged, "/n"), true},
		{event(proto.EventNodeDataChanged, "/m"), false},
		{event(proto.EventNodeDataChanged, "/n2"), false},
		{event(proto.EventNodeDeleted, "/n"), false},
		{event(proto.EventNodeDataChanged, "/n")[:13], false},
		{nil, false},
	} {
		if got := isDataChanged(c.body, "/n"); got != c.want {
			t.Errorf("isDataChanged(%x) = %v, want %v", c.body, got, c.want)
		}
	}
}

// TestWatchFleets runs rounds with each kind of fleet the platform has:
// every watcher is notified once per round, a lost watcher drops out of
// the following rounds, and close ends the sessions.
func TestWatchFleets(t *testing.T) {
	fleets := map[string]func([]*conn, string) (watchFleet, error){
		"goroutines": func(cs []*conn, node string) (watchFleet, error) { return newGoFleet(cs, node), nil },
		"platform":   func(cs []*conn, node string) (watchFleet, error) { return newWatchFleet(cs, node, 10*time.Second) },
	}
	for name, newFleet := range fleets {
		t.Run(name, func(t *testing.T) {
			srv := startGozkServer(t)
			addr := srv.Addr().String()
			opts := dialOptions{sessionTimeout: 10 * time.Second, ioTimeout: 10 * time.Second}
			admin, err := dial(addr, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer admin.close()
			const node, watchers = "/fleet", 8
			if rep, err := admin.call(proto.OpCreate, &proto.CreateRequest{Path: node, Acl: proto.OpenACLUnsafe}); err != nil || rep.err != proto.ErrOK {
				t.Fatalf("create: %v %v", err, rep.err)
			}
			conns := make([]*conn, watchers)
			for i := range conns {
				if conns[i], err = dial(addr, opts); err != nil {
					t.Fatal(err)
				}
			}
			f, err := newFleet(conns, node)
			if err != nil {
				t.Fatal(err)
			}
			round := func() (time.Time, bool) {
				t.Helper()
				f.arm(true)
				fired := time.Now()
				f.firing(fired)
				if rep, err := admin.call(proto.OpSetData, &proto.SetDataRequest{Path: node, Version: -1}); err != nil || rep.err != proto.ErrOK {
					t.Fatalf("setData: %v %v", err, rep.err)
				}
				last, all := f.await()
				if all && last.Before(fired) {
					t.Errorf("last notification %v before the setData %v", last, fired)
				}
				return last, all
			}
			for range 3 {
				if _, all := round(); !all {
					t.Fatal("a watcher was lost")
				}
			}
			if f.live() != watchers {
				t.Fatalf("%d live, want %d", f.live(), watchers)
			}
			breakWatcher(t, f)
			round() // loses the broken watcher, while arming or before
			if f.live() != watchers-1 {
				t.Fatalf("%d live after losing one, want %d", f.live(), watchers-1)
			}
			if _, all := round(); !all {
				t.Fatal("a round without the lost watcher was not complete")
			}
			notified, failed := uint64(0), uint64(0)
			for _, tl := range f.close() {
				notified += tl.hist[kindNotify].Count()
				for _, n := range tl.errs {
					failed += n
				}
			}
			if want := uint64(3*watchers + 2*(watchers-1)); notified != want {
				t.Errorf("%d notifications recorded, want %d", notified, want)
			}
			if failed > 1 {
				t.Errorf("%d failures recorded for one lost watcher", failed)
			}
			// Every session but the cut one (which expires later) was
			// closed before close returned.
			if n := srv.SessionCount(); n != 2 {
				t.Errorf("%d sessions after close, want 2 (admin and the lost watcher)", n)
			}
		})
	}
}

// breakWatcher cuts one watcher's connection between rounds.
func breakWatcher(t *testing.T, f watchFleet) {
	t.Helper()
	switch f := f.(type) {
	case *goFleet:
		f.ws[0].c.nc.Close()
	default:
		breakPlatformWatcher(t, f)
	}
}
