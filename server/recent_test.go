package server

import (
	"testing"

	"github.com/go-zookeeper/zk"
)

// TestRecentTxnsAreTheNewestSinceTheSnapshot: a new leader's committed
// window holds the newest txns replayed over the snapshot, as Java's.
func TestRecentTxnsAreTheNewestSinceTheSnapshot(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	c, _ := connect(t, s)
	for i := 0; i < 10; i++ {
		if _, err := c.Create("/n", nil, zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.RecentTxns(4)
	if err != nil {
		t.Fatal(err)
	}
	last := s.LastZxid()
	if len(got) != 4 || got[3].Zxid != last || got[0].Zxid != last-3 || binaryZxid(got[0].Data) != got[0].Zxid {
		t.Fatalf("recent txns %+v, want the four up to 0x%x", got, last)
	}
	if _, err := s.TakeSnapshot(); err != nil {
		t.Fatal(err)
	}
	if got, err := s.RecentTxns(4); err != nil || len(got) != 0 {
		t.Fatalf("after a snapshot at the last zxid: %d txns, %v; want none", len(got), err)
	}
}
