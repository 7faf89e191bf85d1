package main

import "testing"

func TestGCPercentForKeepsHeadroom(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, 1601},       // the runtime's 4 MiB floor, 64 MiB of headroom
		{1 << 10, 1601}, // likewise
		{16 << 20, 401}, // 64 MiB of headroom over 16 MiB
		{256 << 20, 26}, // 64 MiB is still more than a fifth
		{1 << 30, 20},   // a fifth of a large heap
		{gcMinHeadroom * gcHeadroomDivisor, 21},
	} {
		if got := gcPercentFor(tc.live); got != tc.want {
			t.Errorf("gcPercentFor(%d) = %d, want %d", tc.live, got, tc.want)
		}
	}
}
