package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/server"
)

// startGozk runs a gozk server in this process on a free loopback port.
func startGozk(t *testing.T) string {
	t.Helper()
	return startGozkServer(t).Addr().String()
}

func startGozkServer(t *testing.T) *server.Server {
	t.Helper()
	cfg := server.Defaults()
	cfg.ClientAddr = "127.0.0.1:0"
	cfg.DataDir = t.TempDir()
	cfg.ForceSync = false // the tests count, they do not time
	cfg.MaxClientCnxns = 0
	cfg.Logger = zerolog.Nop()
	srv, err := server.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// assertClean checks that the run left no znodes behind.
func assertClean(t *testing.T, addr, root string) {
	t.Helper()
	c, err := dial(addr, dialOptions{sessionTimeout: 10 * time.Second, ioTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	rep, err := c.call(proto.OpExists, &proto.ExistsRequest{Path: root})
	if err != nil {
		t.Fatal(err)
	}
	if rep.err != proto.ErrNoNode {
		t.Fatalf("%s is still there after the run (exists: %s)", root, rep.err.Name())
	}
}

func TestWorkloadsAgainstGozk(t *testing.T) {
	addr := startGozk(t)
	for _, w := range Workloads {
		t.Run(w.Name, func(t *testing.T) {
			cfg := Config{
				Server: addr, Workload: w.Name, Sessions: 3, InFlight: 4,
				Ops: 200, Warmup: 0, Keys: 50, Watchers: 20, PID: 0,
				Duration: time.Minute, // a bound, not an expectation: Ops ends the run
			}
			want := uint64(200)
			switch w.Name {
			case WorkloadWatch:
				cfg.Ops, want = 5, 5
			case WorkloadConnect:
				cfg.Ops, want = 30, 30
			}
			res, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			var text bytes.Buffer
			res.WriteText(&text)
			if res.Errors != 0 || res.Ops != want || len(res.Warnings) != 0 {
				t.Fatalf("ops %d (want %d), errors %d, warnings %v\n%s", res.Ops, want, res.Errors, res.Warnings, text.String())
			}
			if res.Latency.Count != want || res.Latency.MaxUs < res.Latency.P50Us {
				t.Fatalf("latency summary %+v", res.Latency)
			}
			switch w.Name {
			case WorkloadMixed:
				if res.PerOp["get"].Count+res.PerOp["set"].Count != want {
					t.Fatalf("per-op counts %+v", res.PerOp)
				}
			case WorkloadWatch:
				if res.PerOp["notify"].Count != 5*20 {
					t.Fatalf("%d notifications, want 100", res.PerOp["notify"].Count)
				}
			case WorkloadConnect:
				if res.PerOp["close"].Count != want {
					t.Fatalf("%d closes, want %d", res.PerOp["close"].Count, want)
				}
			}
			assertClean(t, addr, "/gozk-bench")
		})
	}
}

func TestRunMeasuresServerProcess(t *testing.T) {
	addr := startGozk(t)
	// The server runs in this process, so its pid is ours.
	res, err := Run(context.Background(), Config{Server: addr, Workload: WorkloadSet, Sessions: 2, InFlight: 2, Ops: 100, PID: osGetpid()})
	if err != nil {
		t.Fatal(err)
	}
	if res.ServerProc == nil || res.ServerProc.RSSBytes <= 0 {
		t.Fatalf("server process stats: %+v", res.ServerProc)
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, res); err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Ops != res.Ops || back.ServerProc == nil || back.Latency != res.Latency {
		t.Fatalf("JSON round trip lost data:\n%s", buf.String())
	}
}

func TestRunStopsOnCancel(t *testing.T) {
	addr := startGozk(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, Config{Server: addr, Workload: WorkloadCreate, Duration: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ops != 0 {
		t.Fatalf("%d ops after cancellation", res.Ops)
	}
	assertClean(t, addr, "/gozk-bench")
}

func TestRunErrors(t *testing.T) {
	if _, err := Run(context.Background(), Config{Workload: "nope"}); err == nil || !strings.Contains(err.Error(), "unknown workload") {
		t.Fatalf("unknown workload: %v", err)
	}
	if _, err := Run(context.Background(), Config{Server: "127.0.0.1:1", IOTimeout: time.Second}); err == nil {
		t.Fatal("no error without a server")
	}
}

func TestGoZookeeperClient(t *testing.T) {
	addr := startGozk(t)
	for _, w := range []string{WorkloadGet, WorkloadSet, WorkloadCreate, WorkloadCreateSeq, WorkloadCreateEphemeral, WorkloadExists, WorkloadChildren, WorkloadMixed, WorkloadMulti} {
		t.Run(w, func(t *testing.T) {
			res, err := Run(context.Background(), Config{Server: addr, Workload: w, Client: ClientGoZookeeper,
				Sessions: 2, InFlight: 3, Ops: 120, Keys: 20, Duration: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			if res.Errors != 0 || res.Ops != 120 || len(res.Warnings) != 0 || res.Client != ClientGoZookeeper {
				t.Fatalf("%+v", res)
			}
			assertClean(t, addr, "/gozk-bench")
		})
	}
	if _, err := Run(context.Background(), Config{Server: addr, Workload: WorkloadWatch, Client: ClientGoZookeeper}); err == nil {
		t.Fatal("watch accepted with go-zookeeper")
	}
}
