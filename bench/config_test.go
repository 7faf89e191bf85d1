package bench

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

var osGetpid = os.Getpid

func TestNormalize(t *testing.T) {
	c := Config{Workload: WorkloadMixed}
	if err := c.normalize(); err != nil {
		t.Fatal(err)
	}
	if c.Duration != 10*time.Second || c.Ops != maxOpsWithoutLimit || c.ReadRatio != 0.9 || c.Sessions != 16 || c.InFlight != 1 {
		t.Fatalf("defaults: %+v", c)
	}
	c = Config{Ops: 5}
	if err := c.normalize(); err != nil {
		t.Fatal(err)
	}
	if c.Duration != c.MaxDuration || c.Ops != 5 {
		t.Fatalf("ops only: duration %v ops %d", c.Duration, c.Ops)
	}
	for _, bad := range []Config{{ReadRatio: 2}, {Sessions: -1}, {ValueSize: 2 << 20}, {Workload: "x"}} {
		if err := bad.normalize(); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
}

func TestShapesAndGrid(t *testing.T) {
	shapes, err := ParseShapes("1x1, 16x1,64x4")
	if err != nil {
		t.Fatal(err)
	}
	if len(shapes) != 3 || shapes[2] != [2]int{64, 4} {
		t.Fatalf("shapes %v", shapes)
	}
	for _, bad := range []string{"16", "0x1", "ax1", "1x-1"} {
		if _, err := ParseShapes(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	cells := Grid(DefaultGridWorkloads, shapes, 1000)
	if len(cells) != 5*3+1 {
		t.Fatalf("%d cells", len(cells))
	}
	last := cells[len(cells)-1]
	if last.Workload != WorkloadWatch || last.Watchers != 1000 || last.String() != "watch w1000" {
		t.Fatalf("watch cell %+v", last)
	}
}

func TestRatiosAndTables(t *testing.T) {
	g := &Result{Label: "gozk", Workload: WorkloadGet, Sessions: 16, InFlight: 1, OpsPerSec: 3000,
		Latency:    Summary{P50Us: 50, P99Us: 200},
		ServerProc: &ProcStats{CPUPerOpUs: 10, RSSBytes: 50 << 20}}
	j := &Result{Label: "java", Workload: WorkloadGet, Sessions: 16, InFlight: 1, OpsPerSec: 1000,
		Latency:    Summary{P50Us: 100, P99Us: 800},
		ServerProc: &ProcStats{CPUPerOpUs: 40, RSSBytes: 200 << 20}}
	r := NewRatio(g, j)
	if r.OpsRatio != 3 || r.P50Ratio != 0.5 || r.P99Ratio != 0.25 || r.CPURatio != 0.25 || r.RSSRatio != 0.25 || r.Shape != "16x1" {
		t.Fatalf("ratio %+v", r)
	}
	var out bytes.Buffer
	WriteTable(&out, []*Result{g, j})
	WriteRatios(&out, []Ratio{r})
	for _, want := range []string{"gozk", "java", "16x1", "3.00", "0.25", "200.0 MiB"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("tables lack %q:\n%s", want, out.String())
		}
	}
}
