package bench

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestBucketBounds(t *testing.T) {
	prev := -1
	for v := int64(0); v < 1<<20; v++ {
		i := bucketOf(v)
		if i < prev {
			t.Fatalf("bucketOf(%d) = %d is below bucketOf(%d) = %d", v, i, v-1, prev)
		}
		prev = i
		if high := bucketHigh(i); v > high {
			t.Fatalf("value %d above the high end %d of its bucket %d", v, high, i)
		}
		if i > 0 && v <= bucketHigh(i-1) {
			t.Fatalf("value %d also fits bucket %d (high %d)", v, i-1, bucketHigh(i-1))
		}
	}
	// Large values: relative width stays within 1/halfBuckets.
	for _, v := range []int64{1 << 30, 1<<35 + 12345, 1 << 46, math.MaxInt64} {
		i := bucketOf(v)
		if i >= numBuckets {
			t.Fatalf("bucketOf(%d) = %d out of range", v, i)
		}
	}
	if got := bucketOf(math.MaxInt64); got != numBuckets-1 {
		t.Fatalf("MaxInt64 lands in bucket %d, want the last (%d)", got, numBuckets-1)
	}
}

func TestQuantilesMatchExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h Histogram
	var vals []int64
	for i := 0; i < 100000; i++ {
		// log-normal-ish latencies from 1 µs to about a second
		v := int64(math.Exp(rng.NormFloat64()*2 + 5))
		vals = append(vals, v)
		h.RecordMicros(v)
	}
	slices.Sort(vals)
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		exact := vals[int(math.Ceil(q*float64(len(vals))))-1]
		got := h.Quantile(q)
		if got < exact {
			t.Errorf("q%v = %d, below the exact %d", q, got, exact)
		}
		if limit := exact + exact/halfBuckets + 1; got > limit {
			t.Errorf("q%v = %d, above %d (exact %d plus the bucket width)", q, got, limit, exact)
		}
	}
	if h.Max() != vals[len(vals)-1] || h.Min() != vals[0] {
		t.Errorf("min/max %d/%d, want %d/%d", h.Min(), h.Max(), vals[0], vals[len(vals)-1])
	}
	if h.Quantile(1) != h.Max() {
		t.Errorf("q1 = %d, want max %d", h.Quantile(1), h.Max())
	}
	if h.Count() != uint64(len(vals)) {
		t.Errorf("count %d", h.Count())
	}
}

func TestHistogramSmallExact(t *testing.T) {
	var h Histogram
	for v := 1; v <= 100; v++ {
		h.Record(time.Duration(v) * time.Microsecond)
	}
	s := h.Summary()
	want := Summary{Count: 100, MeanUs: 50.5, MinUs: 1, P50Us: 50, P90Us: 90, P99Us: 99, P999Us: 100, MaxUs: 100}
	if s != want {
		t.Fatalf("summary %+v, want %+v", s, want)
	}
}

func TestHistogramMergeAndEmpty(t *testing.T) {
	var a, b, empty Histogram
	if s := empty.Summary(); s != (Summary{}) {
		t.Fatalf("empty summary %+v", s)
	}
	a.RecordMicros(10)
	b.RecordMicros(1000)
	b.RecordMicros(-5) // counts as 0
	a.Merge(&b)
	a.Merge(&empty)
	if a.Count() != 3 || a.Min() != 0 || a.Max() != 1000 {
		t.Fatalf("merged count %d min %d max %d", a.Count(), a.Min(), a.Max())
	}
	empty.Merge(&a)
	if empty.Min() != 0 || empty.Max() != 1000 || empty.Count() != 3 {
		t.Fatalf("merge into empty: count %d min %d max %d", empty.Count(), empty.Min(), empty.Max())
	}
}
