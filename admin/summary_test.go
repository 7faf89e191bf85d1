package admin

import (
	"math"
	"testing"

	"github.com/gozk/gozk/server"
)

func TestSummaryAvgAndQuantiles(t *testing.T) {
	s := server.NewSummary("x")
	if snap := s.Snapshot(); summaryAvg(snap) != 0 || summaryQuantile(snap, 0.5) != 0 {
		t.Fatalf("empty summary %+v", snap)
	}
	for v := int64(1); v <= 100; v++ {
		s.Add(uint64(v), v)
	}
	snap := s.Snapshot()
	if avg := summaryAvg(snap); avg != 50.5 {
		t.Errorf("avg %v", avg)
	}
	for q, want := range map[float64]int64{0: 1, 0.5: 50, 0.99: 99, 1: 100} {
		if got := summaryQuantile(snap, q); got != want {
			t.Errorf("quantile %v = %d, want %d", q, got, want)
		}
	}
	if avg := summaryAvg(server.SummarySnapshot{Count: 3, Sum: 4}); avg != 1.3333 {
		t.Errorf("avg %v, want Java's 4-decimal rounding 1.3333", avg)
	}
	// Above 128 a quantile is its bucket's lower bound, never below Min.
	big := server.NewSummary("y")
	big.Add(0, 1000)
	big.Add(0, 1001)
	if got := summaryQuantile(big.Snapshot(), 0.5); got != 1000 {
		t.Errorf("median of 1000 and 1001 = %d", got)
	}
}

func TestSummarySince(t *testing.T) {
	s := server.NewSummary("x")
	for v := int64(1); v <= 10; v++ {
		s.Add(0, v)
	}
	older := s.Snapshot()
	for v := int64(500); v < 510; v++ {
		s.Add(0, v)
	}
	w := summarySince(s.Snapshot(), older)
	if w.Count != 10 || w.Sum != 5045 || summaryQuantile(w, 0.1) != 480 { // 500..509 share the bucket from 480
		t.Errorf("window %+v", w)
	}
	// After a reset the whole summary is the window.
	s.Reset()
	s.Add(0, 3)
	now := s.Snapshot()
	if w := summarySince(now, older); w.Count != 1 || len(w.Buckets) != 1 {
		t.Errorf("window across a reset %+v", w)
	}
	// As many values as before, in other buckets: a reset too.
	s.Reset()
	for v := int64(20); v < 30; v++ {
		s.Add(0, v)
	}
	if w := summarySince(s.Snapshot(), older); w.Count != 10 || summaryQuantile(w, 0.5) != 24 {
		t.Errorf("window across a reset with as many values %+v", w)
	}
	if w := summarySince(older, older); w.Count != 0 || !math.IsNaN(nanIfEmpty(w)) {
		t.Errorf("empty window %+v", w)
	}
}

func nanIfEmpty(w server.SummarySnapshot) float64 {
	if w.Count == 0 {
		return math.NaN()
	}
	return float64(summaryQuantile(w, 0.5))
}
