package server

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// TestConnThrottleBucket: the token bucket as Java's BlueThrottle runs
// it, step by step on a fake clock: whole refills only once more than a
// fill time has passed, the remainder of the interval dropped, the
// bucket capped at its size, a request that costs more than is left
// refused without taking anything.
func TestConnThrottleBucket(t *testing.T) {
	th := newConnThrottle(ConnThrottle{Tokens: 3, FillTimeMs: 1000, FillCount: 2, FreezeTimeMs: -1}, 0, nil)
	steps := []struct {
		at      int64
		need    int
		ok      bool
		deficit int
	}{
		{0, 1, true, 1},
		{0, 2, true, 3},
		{10, 1, false, 3},
		{1000, 1, false, 3}, // exactly one fill time: no refill yet
		{1001, 3, false, 1}, // 2 back; 3 is more than is left
		{1001, 2, true, 3},
		{1500, 1, false, 3}, // the clock restarted at 1001
		{3600, 1, true, 1},  // 2599 ms: 5 refills of 2, capped at 3
		{3600, 2, true, 3},
	}
	for i, s := range steps {
		ok, deficit := th.allow(s.need, s.at)
		if ok != s.ok || deficit != s.deficit {
			t.Fatalf("step %d (%+v): allowed %v with deficit %d", i, s, ok, deficit)
		}
	}
	if th.dropChance() != 0 {
		t.Fatalf("drop chance %v with BLUE off", th.dropChance())
	}
	off := newConnThrottle(ConnThrottle{}, 0, nil)
	for range 1000 {
		if ok, d := off.allow(3, 0); !ok || d != 0 {
			t.Fatal("a throttle without tokens refused a connection")
		}
	}
}

// TestConnThrottleBlue: with a freeze time, the drop chance rises by the
// increase once per freeze time while the bucket is empty, falls by the
// decrease while its deficit is at most the decrease ratio of its size,
// and a request is dropped when the random draw falls below it, before
// the bucket is asked.
func TestConnThrottleBlue(t *testing.T) {
	draws := []float64{}
	random := func() float64 {
		v := draws[0]
		draws = draws[1:]
		return v
	}
	th := newConnThrottle(ConnThrottle{Tokens: 2, FillTimeMs: 100000, FillCount: 2, FreezeTimeMs: 100,
		DropIncrease: 0.5, DropDecrease: 0.25, DecreaseRatio: 0.5}, 0, random)
	steps := []struct {
		at   int64
		draw float64
		ok   bool
		drop float64
	}{
		{0, 0.9, true, 0},     // within the first freeze time: no change
		{50, 0.9, true, 0},    // bucket now empty
		{101, 0.4, false, .5}, // empty after a freeze time: up to 0.5, and 0.4 drops it
		{150, 0.6, false, .5}, // survives the draw; the bucket is empty
		{202, 0.99, false, 1}, // up again, capped at 1: nothing survives
		// The bucket is refilled first (100101 ms: 2 tokens back, full),
		// so the deficit 0 is below the decrease point and the chance
		// falls; 0.99 survives it.
		{100101, 0.99, true, .75},
		{100150, 0.1, false, .75}, // within the freeze time: a low draw drops it
		{100250, 0.9, true, .5},   // deficit 1, at the decrease point (round(2 x 0.5)): falls again
		{100400, 0.9, false, 1},   // empty: up by 0.5 to 1
	}
	for i, s := range steps {
		draws = append(draws, s.draw)
		ok, _ := th.allow(1, s.at)
		if ok != s.ok || th.dropChance() != s.drop {
			t.Fatalf("step %d (%+v): allowed %v, drop chance %v", i, s, ok, th.dropChance())
		}
	}
}

// TestConnThrottleRefusesConnectRequests: a server whose bucket holds
// two connections and refills once an hour serves two sessions and
// closes the third ConnectRequest unanswered, counting it in
// connection_rejected; connection_request_count and
// connection_token_deficit count what was let through.
func TestConnThrottleRefusesConnectRequests(t *testing.T) {
	s := startTestServer(t, t.TempDir(), func(c *Config) {
		c.ConnThrottle = ConnThrottle{Tokens: 2, FillTimeMs: 3600000, FillCount: 1, FreezeTimeMs: -1, NewSessionTokens: 1, RenewTokens: 1}
	})
	connect(t, s)
	connect(t, s)
	c, ev, err := zk.Connect([]string{s.Addr().String()}, 4*time.Second, zk.WithLogInfo(false), zk.WithMaxConnBufferSize(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	deadline := time.After(3 * time.Second)
wait:
	for {
		select {
		case e := <-ev:
			if e.State == zk.StateHasSession {
				t.Fatal("a third session got through a bucket of two")
			}
		case <-deadline:
			break wait
		}
	}
	m := s.Metrics()
	if m.ConnectionRejected.Load() == 0 {
		t.Fatal("no refusal counted in connection_rejected")
	}
	if n := m.ConnectionRequestCount.Load(); n != 2 {
		t.Fatalf("connection_request_count %d, want 2", n)
	}
	if snap := m.ConnectionTokenDeficit.Snapshot(); snap.Count != 2 || snap.Max != 2 {
		t.Fatalf("connection_token_deficit %+v, want 2 samples up to 2", snap)
	}
}
