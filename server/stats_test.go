package server

import (
	"math/rand"
	"testing"
	"time"
)

func TestHistogramBuckets(t *testing.T) {
	prev := -1
	for _, v := range []int64{0, 1, 127, 128, 129, 143, 144, 255, 256, 1000, 1 << 20, 1<<62 + 5} {
		i := histIndex(v)
		if i < prev || i >= histBuckets {
			t.Fatalf("histIndex(%d) = %d after %d", v, i, prev)
		}
		prev = i
		if lo := histLower(i); lo > v || (v < histExact && lo != v) || float64(v-lo) > float64(v)/8 {
			t.Errorf("value %d in bucket %d with lower bound %d", v, i, lo)
		}
	}
}

func TestSummary(t *testing.T) {
	s := NewSummary("x", true)
	if snap := s.Snapshot(); snap.Min != 0 || snap.Max != 0 || snap.Avg() != 0 || snap.Quantile(0.5) != 0 {
		t.Fatalf("empty summary %+v", snap)
	}
	for v := int64(1); v <= 100; v++ {
		s.Add(uint64(v), v)
	}
	snap := s.Snapshot()
	if snap.Count != 100 || snap.Sum != 5050 || snap.Min != 1 || snap.Max != 100 || snap.Avg() != 50.5 {
		t.Fatalf("snapshot %+v avg %v", snap, snap.Avg())
	}
	if q := snap.Quantile(0.5); q != 50 {
		t.Errorf("p50 = %d", q)
	}
	if q := snap.Quantile(0.99); q != 99 {
		t.Errorf("p99 = %d", q)
	}
	s.Reset()
	if snap := s.Snapshot(); snap.Count != 0 || snap.Max != 0 {
		t.Fatalf("after reset %+v", snap)
	}
	a := SummarySnapshot{Count: 3, Sum: 4}
	if a.Avg() != 1.3333 {
		t.Errorf("avg %v, want Java's 4-decimal rounding 1.3333", a.Avg())
	}
}

// BenchmarkRecordRequest is the statistics work of one answered read:
// a frame in, a reply out, the per-namespace read size, the latency in
// the read summary and the connection's stats (monitor.received, sent,
// readStat and done).
func BenchmarkRecordRequest(b *testing.B) {
	startRequestClock()
	m := &monitor{metrics: newMetrics()}
	b.ReportAllocs()
	m.stats.resetResponseSizes()
	b.RunParallel(func(pb *testing.PB) {
		c := &connection{hint: uint64(rand.Int63())}
		c.stats.reset()
		start := monoNanos()
		for pb.Next() {
			m.received(c, 40)
			m.sent(c, 100, 1, 2, true)
			m.readStat(c.hint, "/app/node-17", 100)
			m.done(c, 4, start, false)
		}
	})
}

func TestRequestClock(t *testing.T) {
	startRequestClock()
	a := MonoMillis()
	time.Sleep(20 * time.Millisecond)
	b := MonoMillis()
	if d := b - a; d < 10 || d > 1000 {
		t.Errorf("the request clock advanced %d ms in 20 ms", d)
	}
	if d := realMillis() - b; d < -1 || d > 100 {
		t.Errorf("the request clock is %d ms behind", d)
	}
}
