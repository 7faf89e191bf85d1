package bench

import (
	"math"
	"math/bits"
	"time"
)

// Histogram geometry: values below subBuckets are exact; above, each power
// of two is split into halfBuckets linear buckets, so a recorded value is
// within 1/halfBuckets of the truth. Values are microseconds.
const (
	subBucketBits = 7
	subBuckets    = 1 << subBucketBits // 128
	halfBuckets   = subBuckets / 2     // 64
	// maxMagnitude bounds the largest recordable value to
	// 2^(maxMagnitude+subBucketBits) µs, about 36 hours; larger values are
	// clamped into the last bucket (Max stays exact).
	maxMagnitude = 40
	numBuckets   = (maxMagnitude+1)*halfBuckets + halfBuckets
)

// Histogram counts latencies in microsecond buckets, HDR style. The zero
// value is empty and ready to use. It is not safe for concurrent use: give
// each goroutine its own and Merge them.
type Histogram struct {
	counts [numBuckets]uint64
	total  uint64
	sum    float64 // µs, for the mean
	min    int64   // µs
	max    int64   // µs
}

// bucketOf returns the index of the bucket holding v (v >= 0).
func bucketOf(v int64) int {
	mag := bits.Len64(uint64(v)) - subBucketBits
	if mag <= 0 {
		return int(v)
	}
	if mag > maxMagnitude {
		return numBuckets - 1
	}
	return mag*halfBuckets + int(v>>uint(mag))
}

// bucketHigh is the largest value that falls in bucket i.
func bucketHigh(i int) int64 {
	if i < subBuckets {
		return int64(i)
	}
	mag := i/halfBuckets - 1
	sub := int64(i - mag*halfBuckets)
	return (sub+1)<<uint(mag) - 1
}

// Record adds one latency.
func (h *Histogram) Record(d time.Duration) {
	h.RecordMicros(d.Microseconds())
}

// RecordMicros adds one value in microseconds; negative values count as 0.
func (h *Histogram) RecordMicros(us int64) {
	if us < 0 {
		us = 0
	}
	h.counts[bucketOf(us)]++
	if h.total == 0 || us < h.min {
		h.min = us
	}
	if us > h.max {
		h.max = us
	}
	h.total++
	h.sum += float64(us)
}

// Merge adds o's counts to h.
func (h *Histogram) Merge(o *Histogram) {
	if o.total == 0 {
		return
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	if h.total == 0 || o.min < h.min {
		h.min = o.min
	}
	if o.max > h.max {
		h.max = o.max
	}
	h.total += o.total
	h.sum += o.sum
}

// Count is the number of recorded values.
func (h *Histogram) Count() uint64 { return h.total }

// Max is the largest recorded value in microseconds (exact).
func (h *Histogram) Max() int64 { return h.max }

// Min is the smallest recorded value in microseconds (exact).
func (h *Histogram) Min() int64 { return h.min }

// Mean is the average in microseconds.
func (h *Histogram) Mean() float64 {
	if h.total == 0 {
		return 0
	}
	return h.sum / float64(h.total)
}

// Quantile returns the value at quantile q (0..1) in microseconds: the
// highest value of the bucket holding the ceil(q*count)-th smallest value,
// never more than Max. It is 0 for an empty histogram.
func (h *Histogram) Quantile(q float64) int64 {
	if h.total == 0 {
		return 0
	}
	if q <= 0 {
		return h.min
	}
	rank := uint64(math.Ceil(q * float64(h.total)))
	if rank < 1 {
		rank = 1
	}
	if rank >= h.total {
		return h.max
	}
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			v := bucketHigh(i)
			if v > h.max {
				v = h.max
			}
			if v < h.min {
				v = h.min
			}
			return v
		}
	}
	return h.max
}

// Summary is a histogram's digest as reported.
type Summary struct {
	Count  uint64  `json:"count"`
	MeanUs float64 `json:"mean_us"`
	MinUs  int64   `json:"min_us"`
	P50Us  int64   `json:"p50_us"`
	P90Us  int64   `json:"p90_us"`
	P99Us  int64   `json:"p99_us"`
	P999Us int64   `json:"p999_us"`
	MaxUs  int64   `json:"max_us"`
}

// Summary digests h.
func (h *Histogram) Summary() Summary {
	return Summary{
		Count:  h.total,
		MeanUs: math.Round(h.Mean()*10) / 10,
		MinUs:  h.Min(),
		P50Us:  h.Quantile(0.50),
		P90Us:  h.Quantile(0.90),
		P99Us:  h.Quantile(0.99),
		P999Us: h.Quantile(0.999),
		MaxUs:  h.Max(),
	}
}
