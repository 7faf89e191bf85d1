package db

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// bucketKeys returns n keys as javaOrder builds them: random buckets up to
// mask, ascending positions with gaps (removed children).
func bucketKeys(rng *rand.Rand, n int, mask uint32) []uint64 {
	keys := make([]uint64, n)
	pos := uint64(0)
	for i := range keys {
		pos += 1 + uint64(rng.IntN(3))
		keys[i] = uint64(rng.Uint32()&mask)<<32 | pos
	}
	return keys
}

func TestSortBucketsMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 5, sortBucketsMinKeys - 1, sortBucketsMinKeys, 1000, 5000, 70000} {
		for _, mask := range []uint32{0, 7, 1<<10 - 1, 1<<11 - 1, 1<<12 - 1, 1<<17 - 1, 1<<22 - 1, 1<<23 - 1, 1<<30 - 1} {
			keys := bucketKeys(rng, n, mask)
			want := slices.Sorted(slices.Values(keys))
			// With room for the scratch copy in keys' capacity
			// and without.
			spare := append(make([]uint64, 0, 2*n), keys...)
			sortBuckets(keys, mask)
			sortBuckets(spare, mask)
			if !slices.Equal(keys, want) || !slices.Equal(spare, want) {
				t.Fatalf("%d keys, mask %#x: order differs from slices.Sort", n, mask)
			}
		}
	}
}

func BenchmarkSortBuckets(b *testing.B) {
	for _, n := range []int{1000, 200_000} {
		mask := uint32(1)<<bits.Len(uint(n*4/3)) - 1
		keys := bucketKeys(rand.New(rand.NewPCG(1, 2)), n, mask)
		work := make([]uint64, n)
		b.Run("radix/n="+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				copy(work, keys)
				sortBuckets(work, mask)
			}
		})
		b.Run("pdqsort/n="+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				copy(work, keys)
				slices.Sort(work)
			}
		})
	}
}
