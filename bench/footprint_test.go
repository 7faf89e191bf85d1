package bench

import "testing"

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestFootprintPathSpreadsOverDirectories(t *testing.T) {
	for i, want := range map[int]string{
		0:       footprintRoot + "/d0/0",
		999:     footprintRoot + "/d0/999",
		1000:    footprintRoot + "/d1/1000",
		999_999: footprintRoot + "/d999/999999",
	} {
		if got := footprintPath(i); got != want {
			t.Errorf("footprintPath(%d) = %q, want %q", i, got, want)
		}
	}
}

func TestFootprintRatiosPairMatchingCounts(t *testing.T) {
	gozk := &Footprint{Server: "gozk", StartupMedianMs: 20, EmptyRSSBytes: 20 << 20,
		Memory:        []MemoryPoint{{Znodes: 100, RSSBytes: 30 << 20, PeakRSSBytes: 40 << 20}},
		RestartZnodes: 100, RestartMs: 50, RestartRSSBytes: 30 << 20}
	java := &Footprint{Server: "java", StartupMedianMs: 500, EmptyRSSBytes: 80 << 20,
		Memory:        []MemoryPoint{{Znodes: 100, RSSBytes: 300 << 20, PeakRSSBytes: 320 << 20}},
		RestartZnodes: 100, RestartMs: 1000, RestartRSSBytes: 250 << 20}
	got := map[string]float64{}
	for _, r := range footprintRatios(gozk, java) {
		got[r.What] = r.Ratio
	}
	want := map[string]float64{
		"empty start to first answer (median)":    0.04,
		"RSS empty":                               0.25,
		"RSS with 100 znodes":                     0.1,
		"peak RSS populating 100 znodes":          0.125,
		"restart to first answer with 100 znodes": 0.05,
		"RSS after restart with 100 znodes":       0.12,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: ratio %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
}
