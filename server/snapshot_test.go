package server

import (
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/rs/zerolog"
)

// TestSnapshotsAndRecovery: snapCount-triggered and on-demand snapshots
// while writes go on, autopurge keeping three, and a restart that loads
// the newest snapshot and replays only the txns after it.
func TestSnapshotsAndRecovery(t *testing.T) {
	dir := t.TempDir()
	tweak := func(c *Config) {
		c.SnapCount = 40
		c.DataLogDir = dir + "/log"
	}
	s := startTestServer(t, dir, tweak)
	c, _ := connect(t, s)
	acl := zk.DigestACL(zk.PermAll, "u", "p")
	for i := 0; i < 300; i++ {
		path := fmt.Sprintf("/n%03d", i)
		a := zk.WorldACL(zk.PermAll)
		if i%3 == 0 {
			a = acl
		}
		if _, err := c.Create(path, []byte(path), 0, a); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			if _, err := c.Set(path, []byte("v2"), 0); err != nil && i%3 != 0 {
				t.Fatal(err)
			}
		}
	}
	if _, err := c.Create("/eph", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	info, err := s.TakeSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	if info.Zxid != s.LastZxid() || info.Sessions != 1 {
		t.Fatalf("on-demand snapshot %+v at zxid 0x%x", info, s.LastZxid())
	}
	deadline := time.Now().Add(5 * time.Second)
	var infos int
	for time.Now().Before(deadline) {
		list, err := s.store.Snapshots()
		if err != nil {
			t.Fatal(err)
		}
		if infos = len(list); infos >= 4 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if infos < 4 {
		t.Fatalf("%d snapshots after 450 txns with snapCount 40", infos)
	}
	res, err := s.store.Purge(3)
	if err != nil || len(res.Snapshots) != infos-3 || res.LogBefore == 0 {
		t.Fatalf("purge: %+v %v", res, err)
	}
	if _, err := c.Set("/n001", []byte("after"), -1); err != nil {
		t.Fatal(err)
	}
	want := s.LastZxid()
	c.Close()
	s.Close()

	s = startTestServer(t, dir, tweak)
	if s.LastZxid() < want {
		t.Fatalf("recovered to 0x%x, had 0x%x", s.LastZxid(), want)
	}
	c, _ = connect(t, s)
	for i := 0; i < 300; i++ {
		path := fmt.Sprintf("/n%03d", i)
		data, _, err := c.Get(path)
		wantData := path
		switch {
		case i == 1:
			wantData = "after"
		case i%2 == 0 && i%3 != 0:
			wantData = "v2"
		}
		if i%3 == 0 {
			if err != zk.ErrNoAuth {
				t.Fatalf("%s: ACL lost: %v", path, err)
			}
			continue
		}
		if err != nil || string(data) != wantData {
			t.Fatalf("%s after restart: %q %v, want %q", path, data, err, wantData)
		}
	}
}

// TestStartupSnapshot: a start that replayed txns snapshots the loaded
// tree before serving, as Java does, so the next start loads exactly it.
func TestStartupSnapshot(t *testing.T) {
	dir := t.TempDir()
	s := startTestServer(t, dir, nil)
	c, _ := connect(t, s)
	for i := range 5 {
		if _, err := c.Create(fmt.Sprintf("/n%d", i), nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	want := s.LastZxid()
	c.Close()
	s.Close()
	s = startTestServer(t, dir, nil)
	list, err := s.store.Snapshots()
	if err != nil || len(list) == 0 || list[0].Zxid < want {
		t.Fatalf("snapshots after a start that replayed up to 0x%x: %+v %v", want, list, err)
	}
}

// TestSnapshotRequestWhileSnapping: as in Java's SyncRequestProcessor, a
// snapshot due while one is being written is skipped, not queued to run
// right after it, and the count of logged txns starts again.
func TestSnapshotRequestWhileSnapping(t *testing.T) {
	s := &Server{cfg: Config{SnapCount: 10}, snapTrigger: make(chan struct{}, 1), snapAfter: 5, logger: zerolog.Nop()}
	s.snapping.Store(true)
	s.countLogged(6)
	if len(s.snapTrigger) != 0 {
		t.Fatal("a snapshot due while one is written was queued")
	}
	if s.sinceSnap != 0 {
		t.Fatalf("the count goes on from %d after a skipped snapshot", s.sinceSnap)
	}
	s.snapping.Store(false)
	s.countLogged(s.snapAfter)
	if len(s.snapTrigger) != 0 {
		t.Fatal("a snapshot was asked for at the threshold, not past it")
	}
	s.countLogged(1)
	if len(s.snapTrigger) != 1 {
		t.Fatal("no snapshot asked for past the threshold")
	}
}
