package admin

import (
	"math"

	"github.com/gozk/gozk/server"
)

// How the summaries the server records are shown: Java's average, the
// quantiles of mntr and Prometheus, and the recent window Prometheus
// quantiles cover.

// summaryAvg is Java's average: sum/count rounded half-up to four
// decimals, 0 when empty.
func summaryAvg(a server.SummarySnapshot) float64 {
	if a.Count == 0 {
		return 0
	}
	return math.Floor(float64(a.Sum)/float64(a.Count)*10000+0.5) / 10000
}

// summaryQuantile returns the value at quantile q (0..1) from the
// histogram: the lower bound of the bucket holding it, clamped to [Min,
// Max]; 0 when empty.
func summaryQuantile(a server.SummarySnapshot, q float64) int64 {
	var total int64
	for _, b := range a.Buckets {
		total += b.Count
	}
	if total == 0 {
		return 0
	}
	rank := max(int64(math.Ceil(q*float64(total))), 1)
	var seen int64
	for _, b := range a.Buckets {
		seen += b.Count
		if seen >= rank {
			return min(max(b.Lower, a.Min), a.Max)
		}
	}
	return a.Max
}

// summarySince returns the values recorded after older was taken, for
// quantiles over a recent window; Min and Max stay those of a (the
// buckets are clamped to them). If the summary was reset in between, a is
// returned as it is.
func summarySince(a, older server.SummarySnapshot) server.SummarySnapshot {
	if older.Count > a.Count {
		return a
	}
	out := server.SummarySnapshot{Count: a.Count - older.Count, Sum: a.Sum - older.Sum, Min: a.Min, Max: a.Max}
	j := 0
	for _, b := range a.Buckets {
		n := b.Count
		if j < len(older.Buckets) && older.Buckets[j].Lower == b.Lower {
			n -= older.Buckets[j].Count
			j++
		}
		if n < 0 {
			return a
		}
		if n > 0 {
			out.Buckets = append(out.Buckets, server.HistogramBucket{Lower: b.Lower, Count: n})
		}
	}
	if j < len(older.Buckets) { // a bucket emptied: a reset
		return a
	}
	return out
}
