package chaos

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gozk/gozk/server"
)

// startStandalone runs a gozk server in-process on a free loopback port.
func startStandalone(t *testing.T) string {
	t.Helper()
	cfg := server.Defaults()
	cfg.ClientAddr = "127.0.0.1:0"
	cfg.DataDir = t.TempDir()
	cfg.ForceSync = false
	cfg.TickTime = 200 * time.Millisecond
	s, err := server.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.Addr().String()
}

// TestWorkloadsStandalone runs every workload at once for a few seconds
// against a fault-free standalone server: each must record acknowledged
// operations and pass its check.
func TestWorkloadsStandalone(t *testing.T) {
	if testing.Short() {
		t.Skip("runs clients for seconds")
	}
	addr := startStandalone(t)
	env := &Env{
		Servers:        []string{addr},
		Leader:         func() string { return addr },
		Seed:           1,
		Clients:        3,
		SessionTimeout: 4 * time.Second, // the most a 200 ms tick allows: a loaded machine keeps its sessions
		Logf:           t.Logf,
	}
	workloads := AllWorkloads()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, len(workloads))
	for i, w := range workloads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = w.Run(ctx, env)
		}()
	}
	wg.Wait()
	checkCtx, cancelCheck := context.WithTimeout(context.Background(), time.Minute)
	defer cancelCheck()
	var results []Result
	for i, w := range workloads {
		if errs[i] != nil {
			t.Fatalf("%s: run: %v", w.Name(), errs[i])
		}
		r := w.Check(checkCtx, env)
		results = append(results, r)
		if r.Workload != w.Name() {
			t.Errorf("result names %q for workload %q", r.Workload, w.Name())
		}
		if !r.Passed() {
			t.Errorf("%s failed: lost %d duplicated %d anomalies %q", w.Name(), r.Lost, r.Duplicated, r.Anomalies)
		}
		if r.OK < 20 {
			t.Errorf("%s: %d ok, %d failed, %d indeterminate: expected a working run", w.Name(), r.OK, r.Failed, r.Indeterminate)
		}
	}
	// The register's linearizability check has leader reads to judge,
	// and the ephemeral check had ended sessions whose nodes it saw go.
	linReads := 0
	for _, op := range workloads[0].(*registerWorkload).hist.Ops() {
		if op.Kind == KindLinRead && op.Outcome == OK {
			linReads++
		}
	}
	if linReads < 10 {
		t.Errorf("register: %d leader reads", linReads)
	}
	eph := workloads[len(workloads)-1].(*ephemeralWorkload)
	ended, alive := 0, 0
	for _, s := range eph.sessions {
		if s.ended {
			ended++
		}
		if s.alive && !s.ended {
			alive++
		}
	}
	if ended < 3 || alive != 1 {
		t.Errorf("ephemeral: %d sessions ended, %d alive at the check: want several and one", ended, alive)
	}
	t.Logf("\n%s", Table([]Row{{Layout: "standalone", Nemesis: "none", Results: results}}))
}
