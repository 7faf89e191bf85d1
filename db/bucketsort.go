package db

import (
	"math/bits"
	"slices"
)

// Above sortBucketsMinKeys, sortBuckets sorts by radix: a getChildren or
// snapshot of a node with hundreds of thousands of children spent most of
// its ordering time in a comparison sort. Below it, slices.Sort is faster.
const (
	sortBucketsMinKeys = 512
	radixDigitBits     = 11
)

// sortBuckets sorts javaOrder's keys, bucket<<32 | position, where every
// bucket is at most mask and keys come in ascending order of position.
// Sorting them by bucket alone, stably, then sorts them wholly; a
// least-significant-digit radix sort is stable and takes one pass per 11
// bits of mask (two up to 4,194,304 buckets) instead of log(n) compares
// per key. It works in the spare capacity of keys when there is room for
// a copy, else in a new slice.
func sortBuckets(keys []uint64, mask uint32) {
	if len(keys) < sortBucketsMinKeys {
		slices.Sort(keys)
		return
	}
	src, dst := keys, keys[len(keys):cap(keys)]
	if len(dst) >= len(keys) {
		dst = dst[:len(keys)]
	} else {
		dst = make([]uint64, len(keys))
	}
	for shift := 32; shift < 32+bits.Len32(mask); shift += radixDigitBits {
		var start [1 << radixDigitBits]int
		for _, k := range src {
			start[(k>>shift)&(1<<radixDigitBits-1)]++
		}
		sum := 0
		for d, c := range start {
			start[d] = sum
			sum += c
		}
		for _, k := range src {
			d := (k >> shift) & (1<<radixDigitBits - 1)
			dst[start[d]] = k
			start[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}
