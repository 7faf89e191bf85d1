//go:build interop

package datadir

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/javazk"
	"github.com/gozk/gozk/compat/zkwire"
)

// TestChildOrderAcrossRestarts: the same writes and restarts on Java 3.8.0
// and on gozk, and getChildren's order compared after each step. A
// restart rebuilds every parent's children set from the newest snapshot
// (the one taken at the previous start, when it replayed txns), so the
// order after the second and third restarts depends on that snapshot
// being where Java's is.
func TestChildOrderAcrossRestarts(t *testing.T) {
	parents := []string{"/", "/p", "/q", "/r"}
	phases := []func(t *testing.T, c *zkwire.Client){
		func(t *testing.T, c *zkwire.Client) {
			for _, p := range parents[1:] {
				must[string](t, "create")(c.Create(p, nil, open, 0))
			}
			for i := range 30 {
				must[string](t, "create")(c.Create(fmt.Sprintf("/p/n%02d", i), nil, open, 0))
			}
			for _, i := range []int{3, 7, 11, 20} {
				mustErr(t, "delete", c.Delete(fmt.Sprintf("/p/n%02d", i), -1))
			}
			must[string](t, "create")(c.Create("/p/n07", nil, open, 0))
			for i := range 13 {
				must[string](t, "create")(c.Create(fmt.Sprintf("/q/c%d", i), nil, open, 0))
			}
			for i := 3; i < 13; i++ {
				mustErr(t, "delete", c.Delete(fmt.Sprintf("/q/c%d", i), -1))
			}
		},
		func(t *testing.T, c *zkwire.Client) {
			for _, name := range []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"} {
				must[string](t, "create")(c.Create("/r/"+name, nil, open, 0))
			}
			mustErr(t, "delete", c.Delete("/p/n00", -1))
			must[string](t, "create")(c.Create("/p/n00", nil, open, 0))
			must[string](t, "create")(c.Create("/q/c12", nil, open, 0))
		},
		func(*testing.T, *zkwire.Client) {},
	}
	type run struct {
		addr    string
		restart func()
	}
	record := func(t *testing.T, r run) []string {
		var out []string
		for i, phase := range phases {
			c := connect(t, r.addr, zkwire.Options{})
			phase(t, c)
			mustErr(t, "closeSession", c.CloseSession())
			c.Close()
			r.restart()
			c = connect(t, r.addr, zkwire.Options{})
			for _, p := range parents {
				kids, err := c.GetChildren2(p, false)
				if err != nil {
					t.Fatalf("getChildren2 %s: %v", p, err)
				}
				// The sessions of the steps add nothing to the tree.
				out = append(out, fmt.Sprintf("after restart %d: %s %q", i+1, p, kids.Children))
			}
			mustErr(t, "closeSession", c.CloseSession())
			c.Close()
		}
		return out
	}

	srv := javazk.Start(t, javazk.Options{Config: serverConfig})
	want := record(t, run{srv.Addr, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := srv.Restart(ctx); err != nil {
			t.Fatal(err)
		}
	}})
	srv.Stop()
	p := gozkproc.Start(t, gozkproc.Options{Config: gozkConfig})
	got := record(t, run{p.Addr(), p.Restart})
	if len(got) != len(want) {
		t.Fatalf("%d lists from gozk, %d from Java", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("children listed in another order than Java's:\n gozk %s\n java %s", got[i], want[i])
		}
	}
}
