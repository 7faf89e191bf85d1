package server

import (
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/internal/stallfs"
)

// TestLeaderTermEndsAfterItsAppends: a leader's term ends with two
// batches on their way to the disk, the first in its fsync and the
// second queued behind it. StopServing returns only once both fsyncs are
// done: nothing of the ended term is still being written when the next
// role truncates or snapshots the log (Java's ZOOKEEPER-4712, a sync
// thread left running by a learner's shutdown).
func TestLeaderTermEndsAfterItsAppends(t *testing.T) {
	stall := stallfs.New()
	s := startTestServer(t, t.TempDir(), func(c *Config) {
		c.Ensemble = true
		c.ServerID = 3
		c.ForceSync = true
		c.FS = stall.FS(vfs.Default)
	})
	q := &quorumSink{s: s, rolled: make(chan struct{})}
	if err := s.StartLeading(Leading{Sink: q, Epoch: 4}); err != nil {
		t.Fatal(err)
	}
	c, _ := connect(t, s)
	q.mu.Lock()
	q.hold = true
	q.mu.Unlock()
	stall.Arm(true)
	defer stall.Finish() // whatever happens, nothing stays stuck
	go c.Create("/first", nil, 0, zk.WorldACL(zk.PermAll))
	<-stall.Entered
	go c.Create("/second", nil, 0, zk.WorldACL(zk.PermAll))
	deadline := time.Now().Add(20 * time.Second)
	for {
		q.mu.Lock()
		n := len(q.proposals)
		q.mu.Unlock()
		if n >= 3 { // the session's, /first's, /second's
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d proposals; the second create never reached the log", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	q.mu.Lock()
	second := q.proposals[2]
	q.mu.Unlock()

	stopped := make(chan error, 1)
	go func() { stopped <- s.StopServing() }()
	stall.Release() // /first's fsync completes
	<-stall.Entered // /second's is on the disk
	select {
	case err := <-stopped:
		t.Fatalf("StopServing returned (%v) with the term's last fsync still under way", err)
	case <-time.After(300 * time.Millisecond):
	}
	stall.Arm(false)
	stall.Release()
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	if got := s.store.Log().LastZxid(); got != second {
		t.Fatalf("the log is durable up to 0x%x once the term ended, want 0x%x (/second's batch waited for)", got, second)
	}
	// The tree kept for the next role holds every logged txn, committed
	// or not (Java's ZOOKEEPER-2845): the next election counts them.
	if got := s.LastZxid(); got != second {
		t.Fatalf("the tree is at 0x%x once the term ended, want 0x%x", got, second)
	}
	for _, p := range []string{"/first", "/second"} {
		if _, _, ok := s.tree.Exists(p); !ok {
			t.Errorf("the tree lacks the logged %s", p)
		}
	}
}
