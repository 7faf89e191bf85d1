package suite

import (
	"reflect"
	"regexp"
	"testing"
)

func TestDiffFacts(t *testing.T) {
	if d := DiffFacts([]string{"a", "b"}, []string{"a", "b"}); d != "" {
		t.Errorf("same facts: %q", d)
	}
	want := "  fact 2: java \"b\", got \"c\"\n  fact 3: java \"(none)\", got \"d\"\n"
	if d := DiffFacts([]string{"a", "b"}, []string{"a", "c", "d"}); d != want {
		t.Errorf("DiffFacts = %q, want %q", d, want)
	}
}

// TestSettings checks that each setting reaches both servers, each in the
// form it reads.
func TestSettings(t *testing.T) {
	s := Settings{TickTime: 500, ExtendedTypes: true, ContainerCheckMs: 100}
	j := s.javaOptions()
	if j.TickTime != 500 || !reflect.DeepEqual(j.SystemProperties, map[string]string{
		"zookeeper.extendedTypesEnabled":  "true",
		"znode.container.checkIntervalMs": "100",
	}) {
		t.Errorf("java options %+v", j)
	}
	g := s.gozkOptions()
	if g.TickTime != 500 || !reflect.DeepEqual(g.Config, []string{
		"extendedTypesEnabled=true",
		"znode.container.checkIntervalMs=100",
	}) {
		t.Errorf("gozk options %+v", g)
	}
	if j := (Settings{}).javaOptions(); j.SystemProperties != nil || j.TickTime != 0 {
		t.Errorf("default java options %+v", j)
	}
	if g := (Settings{}).gozkOptions(); g.Config != nil || g.TickTime != 0 {
		t.Errorf("default gozk options %+v", g)
	}
}

func TestZxidNames(t *testing.T) {
	re := regexp.MustCompile(`^([cm]Zxid = )0x([0-9a-f]+)$`)
	got := ZxidNames([]string{"cZxid = 0x1000000a", "mZxid = 0x0", "x", "cZxid = 0x10000002", "mZxid = 0x1000000a"}, re)
	want := map[uint64]string{0x10000002: "Z1", 0x1000000a: "Z2"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ZxidNames = %v, want %v", got, want)
	}
}

func TestSessionNames(t *testing.T) {
	s := SessionNames{}
	for _, c := range []struct{ hex, want string }{
		{"0100a", "S1"}, {"0", "0"}, {"000", "0"}, {"200b", "S2"}, {"100a", "S1"},
	} {
		if got := s.Name(c.hex); got != c.want {
			t.Errorf("Name(%q) = %q, want %q", c.hex, got, c.want)
		}
	}
}
