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

func TestIdleReleaserReleasesGarbageWhenQuiet(t *testing.T) {
	const mib = 1 << 20
	var r idleReleaser
	r.start(0)
	steps := []struct {
		allocs, live, resident uint64
		want                   bool
		why                    string
	}{
		{500 * mib, 100 * mib, 180 * mib, false, "busy: 500 MiB allocated since the last tick"},
		{500 * mib, 100 * mib, 180 * mib, true, "quiet, 80 MiB over the live heap"},
		{501 * mib, 170 * mib, 178 * mib, false, "only fragmentation left"},
		{501 * mib, 170 * mib, 200 * mib, false, "30 MiB over the live heap, 1 MiB allocated since the release"},
		{560 * mib, 170 * mib, 200 * mib, false, "busy again"},
		{560 * mib, 170 * mib, 200 * mib, true, "quiet, 59 MiB allocated since the release"},
		{561 * mib, 800 * mib, 880 * mib, false, "within an eighth of a large heap"},
		{900 * mib, 800 * mib, 920 * mib, false, "busy"},
		{900 * mib, 800 * mib, 920 * mib, true, "quiet, more than an eighth"},
		{900 * mib, 10 * mib, 20 * mib, false, "less than 16 MiB over a small live heap"},
	}
	for i, s := range steps {
		got := r.tick(s.allocs, s.live, s.resident)
		if got != s.want {
			t.Fatalf("step %d (%s): release %v, want %v", i, s.why, got, s.want)
		}
		if got {
			r.released(s.allocs + mib) // the release's own collection allocates a little
		}
	}
}
