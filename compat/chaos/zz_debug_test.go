//go:build chaos

package chaos

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"
)

func TestDebugCounterNoFault(t *testing.T) {
	ctx := context.Background()
	c, err := StartCluster(ctx, t.TempDir(), Layouts[0], t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := 0; i < 3; i++ {
		n := Nemesis{Name: "none", Run: func(ctx context.Context, c *Cluster, _ *rand.Rand) (int, error) { return 0, sleep(ctx, 4*time.Second) }}
		row, err := RunCell(ctx, c, n, []Workload{NewCounter(), NewRegister()}, int64(100+i), DefaultTiming, t.Logf)
		if err != nil {
			t.Fatal(err)
		}
		t.Log(Table([]Row{row}))
	}
}
