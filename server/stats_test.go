package server

import (
	"math/rand"
	"reflect"
	"slices"
	"sync"
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
	s := NewSummary("x")
	if snap := s.Snapshot(); snap.Min != 0 || snap.Max != 0 || snap.Count != 0 || len(snap.Buckets) != 0 {
		t.Fatalf("empty summary %+v", snap)
	}
	for v := int64(1); v <= 100; v++ {
		s.Add(uint64(v), v)
	}
	s.Add(3, 1000)
	snap := s.Snapshot()
	if snap.Count != 101 || snap.Sum != 6050 || snap.Min != 1 || snap.Max != 1000 {
		t.Fatalf("snapshot %+v", snap)
	}
	if len(snap.Buckets) != 101 || snap.Buckets[0] != (HistogramBucket{1, 1}) || snap.Buckets[99] != (HistogramBucket{100, 1}) ||
		snap.Buckets[100] != (HistogramBucket{histLower(histIndex(1000)), 1}) {
		t.Fatalf("buckets %v", snap.Buckets)
	}
	s.Reset()
	if snap := s.Snapshot(); snap.Count != 0 || snap.Max != 0 || len(snap.Buckets) != 0 {
		t.Fatalf("after reset %+v", snap)
	}
}

// TestSummarySetMatchesSummary checks that a namespace's compact summary
// reads exactly as a full Summary fed the same values, so that mntr and
// Prometheus show what they showed when every namespace had one.
func TestSummarySetMatchesSummary(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	set := NewSummarySet("write_per_namespace")
	full := NewSummary("full")
	if _, ok := set.Snapshot("app"); ok {
		t.Fatal("a key nothing was recorded under has a snapshot")
	}
	for i := 0; i < 5000; i++ {
		v := rng.Int63n(1 << uint(rng.Intn(40)))
		set.Add("app", v)
		full.Add(uint64(i), v)
	}
	got, ok := set.Snapshot("app")
	if want := full.Snapshot(); !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("set's snapshot\n%+v\nwant\n%+v", got, want)
	}
	set.Add("other", 7)
	if keys := set.Keys(); !slices.Equal(keys, []string{"app", "other"}) {
		t.Fatalf("keys %v", keys)
	}
	set.Reset()
	if got, ok := set.Snapshot("app"); !ok || got.Count != 0 || got.Min != 0 || len(got.Buckets) != 0 {
		t.Fatalf("after reset %+v %v", got, ok)
	}
	set.Drop("app")
	if _, ok := set.Snapshot("app"); ok || len(set.Keys()) != 1 {
		t.Fatalf("app still there after Drop: %v", set.Keys())
	}
}

// TestSummarySetConcurrentNewBuckets adds values in new buckets of one key
// from several goroutines: none may be lost while the histogram grows.
func TestSummarySetConcurrentNewBuckets(t *testing.T) {
	set := NewSummarySet("x")
	var wg sync.WaitGroup
	const workers, each = 8, 2000
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				set.Add("k", int64(i%300)<<uint(i%20))
			}
		}()
	}
	wg.Wait()
	snap, _ := set.Snapshot("k")
	var n int64
	for _, b := range snap.Buckets {
		n += b.Count
	}
	if snap.Count != workers*each || n != workers*each {
		t.Fatalf("count %d, in buckets %d, want %d", snap.Count, n, workers*each)
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
			m.readStat("/app/node-17", 100)
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
