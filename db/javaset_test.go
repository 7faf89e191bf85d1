package db

import (
	"slices"
	"testing"
)

// TestJavaStringSetOrder replays what a zkCli session did against Apache
// ZooKeeper 3.8.0 and checks that getEphemerals' order (a clone of the
// session's HashSet, iterated) comes out as Java printed it.
func TestJavaStringSetOrder(t *testing.T) {
	s := newJavaStringSet(javaDefaultCapacity)
	add := func(ps ...string) {
		for _, p := range ps {
			s.Add(p)
		}
	}
	check := func(want ...string) {
		t.Helper()
		if got := s.Clone().Paths(); !slices.Equal(got, want) {
			t.Errorf("order\n got %q\nwant %q", got, want)
		}
	}
	add("/e/alpha", "/e/beta", "/e/gamma", "/e/delta")
	check("/e/beta", "/e/delta", "/e/gamma", "/e/alpha")
	add("/e/n01", "/e/n02", "/e/n03", "/e/n04", "/e/n05", "/e/n06", "/e/n07", "/e/n08", "/e/n09")
	check("/e/n05", "/e/n06", "/e/n03", "/e/n04", "/e/n09", "/e/n07", "/e/n08", "/e/beta", "/e/n01", "/e/n02", "/e/delta", "/e/alpha", "/e/gamma")
	s.Remove("/e/beta")
	s.Remove("/e/n03")
	add("/e/beta", "/e/zzz")
	check("/e/n05", "/e/n06", "/e/n04", "/e/n09", "/e/n07", "/e/n08", "/e/beta", "/e/n01", "/e/n02", "/e/delta", "/e/alpha", "/e/gamma", "/e/zzz")
	for _, p := range []string{"/e/n01", "/e/n02", "/e/n04", "/e/n05", "/e/n06", "/e/n07", "/e/n08", "/e/n09", "/e/alpha"} {
		s.Remove(p)
	}
	check("/e/beta", "/e/zzz", "/e/delta", "/e/gamma")
}

func TestJavaSpreadHash(t *testing.T) {
	// "/e/alpha".hashCode() in Java is 1189745701 (0x46ea1425).
	h := uint32(0x46ea1425)
	if got, want := javaSpreadHash("/e/alpha"), h^(h>>16); got != want {
		t.Errorf("javaSpreadHash = %#x, want %#x", got, want)
	}
	if javaTableSizeFor(17) != 32 || javaTableSizeFor(1) != 1 || javaTableSizeFor(16) != 16 {
		t.Error("javaTableSizeFor")
	}
}
