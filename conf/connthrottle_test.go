package conf

import (
	"strings"
	"testing"
)

// TestConnectionThrottle: the zookeeper.connection_throttle_* properties
// as BlueThrottle reads them: off by default; from -D or zoo.cfg; with
// weights on, the bucket and refill count global sessions; weights out
// of range warned about and replaced as Java replaces them; a real
// number that does not parse, or a fill time below 1 ms with tokens, is
// refused.
func TestConnectionThrottle(t *testing.T) {
	c, err := Load(write(t, "dataDir=/d\nclientPort=2181\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.ConnectionThrottle, defaultConnectionThrottle(); got != want || got.Tokens != 0 || got.FreezeTimeMs != -1 {
		t.Fatalf("defaults %+v, want %+v", got, want)
	}
	c, err = Load(write(t, "dataDir=/d\nclientPort=2181\nconnection_throttle_tokens=10\nconnection_throttle_fill_time=500\n"+
		"connection_throttle_freeze_time=1000\nconnection_throttle_drop_increase=0.1\n"),
		"-Dzookeeper.connection_throttle_fill_count=4 -Dzookeeper.connection_throttle_decrease_ratio=0.25")
	if err != nil {
		t.Fatal(err)
	}
	want := ConnectionThrottle{Tokens: 10, FillTimeMs: 500, FillCount: 4, FreezeTimeMs: 1000, DropIncrease: 0.1,
		DropDecrease: 0.002, DecreaseRatio: 0.25, GlobalWeight: 3, LocalWeight: 1, RenewWeight: 2}
	if c.ConnectionThrottle != want {
		t.Fatalf("set: %+v, want %+v", c.ConnectionThrottle, want)
	}
	c, err = Load(write(t, "dataDir=/d\nclientPort=2181\nconnection_throttle_tokens=10\nconnection_throttle_fill_count=2\n"+
		"connection_throttle_weight_enabled=true\nconnection_throttle_global_session_weight=0\nconnection_throttle_renew_session_weight=1\n"+
		"connection_throttle_local_session_weight=2\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	// global 0 -> 3 (Java's fallback); renew 1 below local 2 -> 2.
	want = ConnectionThrottle{Tokens: 30, FillTimeMs: 1, FillCount: 6, FreezeTimeMs: -1, DropIncrease: 0.02,
		DropDecrease: 0.002, Weighted: true, GlobalWeight: 3, LocalWeight: 2, RenewWeight: 2}
	if c.ConnectionThrottle != want {
		t.Fatalf("weighted: %+v, want %+v", c.ConnectionThrottle, want)
	}
	warnings := strings.Join(c.Warnings, "\n")
	if !strings.Contains(warnings, "global session weight 0") || !strings.Contains(warnings, "renew session weight 1") {
		t.Fatalf("warnings %q", warnings)
	}
	// A local weight above the defaults raises the other two, with the
	// warnings naming the key that was set.
	c, err = Load(write(t, "dataDir=/d\nclientPort=2181\nconnection_throttle_local_session_weight=5\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if th := c.ConnectionThrottle; th.GlobalWeight != 5 || th.LocalWeight != 5 || th.RenewWeight != 5 {
		t.Fatalf("local weight 5: %+v, want every weight 5", th)
	}
	if w := strings.Join(c.Warnings, "\n"); strings.Count(w, "connection_throttle_local_session_weight: the") != 2 {
		t.Fatalf("warnings %q, want two naming the local weight's key", w)
	}
	for _, bad := range []string{
		"connection_throttle_drop_decrease=lots\n",
		"connection_throttle_tokens=5\nconnection_throttle_fill_time=0\n",
	} {
		if _, err := Load(write(t, "dataDir=/d\nclientPort=2181\n"+bad), ""); err == nil {
			t.Errorf("%q accepted", bad)
		} else if !strings.Contains(err.Error(), "connection_throttle_") {
			t.Errorf("%q: %v does not name the key", bad, err)
		}
	}
	// The fill time does not matter while the throttle is off.
	if _, err := Load(write(t, "dataDir=/d\nclientPort=2181\nconnection_throttle_fill_time=0\n"), ""); err != nil {
		t.Errorf("fill time 0 without tokens: %v", err)
	}
}
