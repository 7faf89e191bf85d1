package bench

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseSrvrMode(t *testing.T) {
	for _, tc := range []struct {
		name, out, mode string
	}{
		{"java follower", "Zookeeper version: 3.8.0-5a02a05eddb59aee6ac762f7ea82e92a68eb9c0f, built on 2022-02-25 08:49 UTC\n" +
			"Latency min/avg/max: 0/0.0/0\nReceived: 3\nSent: 2\nConnections: 1\nOutstanding: 0\nZxid: 0x100000000\nMode: follower\nNode count: 5\n", ModeFollower},
		{"gozk leader", "Zookeeper version: 3.8.0-gozk\nZxid: 0x200000003\nMode: leader\nNode count: 7\nProposal sizes last/min/max: -1/-1/-1\n", ModeLeader},
		{"spaces and CRLF", "Mode:   observer \r\n", "observer"},
		{"standalone", "Mode: standalone\n", "standalone"},
	} {
		got, err := ParseSrvrMode(tc.out)
		if err != nil || got != tc.mode {
			t.Errorf("%s: got %q, %v; want %q", tc.name, got, err, tc.mode)
		}
	}
	for _, out := range []string{"", "This ZooKeeper instance is not currently serving requests\n", "Node count: 5\n"} {
		if got, err := ParseSrvrMode(out); err == nil {
			t.Errorf("%q: got mode %q, want an error", out, got)
		}
	}
	_, err := ParseSrvrMode("This ZooKeeper instance is not currently serving requests\n")
	if err == nil || !strings.Contains(err.Error(), "not currently serving") {
		t.Errorf("the error should quote what the member said: %v", err)
	}
}

func TestCheckRoles(t *testing.T) {
	for _, tc := range []struct {
		roles []string
		ok    bool
	}{
		{[]string{ModeFollower, ModeLeader, ModeFollower}, true},
		{[]string{ModeLeader, ModeFollower, ModeFollower}, true},
		{[]string{ModeLeader, ModeLeader, ModeFollower}, false},
		{[]string{ModeFollower, ModeFollower, ModeFollower}, false},
		{[]string{ModeLeader, ModeFollower, ""}, false}, // one still electing
		{[]string{ModeLeader, ModeFollower, "observer"}, false},
	} {
		if err := checkRoles(tc.roles); (err == nil) != tc.ok {
			t.Errorf("%v: %v, want ok %v", tc.roles, err, tc.ok)
		}
	}
}

func TestEnsemblePlacements(t *testing.T) {
	e := &Ensemble{
		Members: []*ServerProcess{{Addr: "a:1"}, {Addr: "b:2"}, {Addr: "c:3"}},
		roles:   []string{ModeFollower, ModeLeader, ModeFollower},
	}
	if l := e.Leader(); l != 1 {
		t.Errorf("leader %d, want 1", l)
	}
	if got := e.addrs(PlacementLeader); !reflect.DeepEqual(got, []string{"b:2"}) {
		t.Errorf("leader placement %v", got)
	}
	if got := e.addrs(PlacementFollowers); !reflect.DeepEqual(got, []string{"a:1", "c:3"}) {
		t.Errorf("followers placement %v", got)
	}
}

func TestSessionServerRoundRobin(t *testing.T) {
	c := Config{Server: "s:0"}
	if got := c.sessionServer(5); got != "s:0" {
		t.Errorf("without Servers: %q", got)
	}
	c.Servers = []string{"a:1", "b:2"}
	var got []string
	for i := range 5 {
		got = append(got, c.sessionServer(i))
	}
	if want := []string{"a:1", "b:2", "a:1", "b:2", "a:1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("sessions went to %v, want %v", got, want)
	}
	c.PID = 0
	c.PIDs = []int{7}
	if p := c.pids(); p != nil {
		t.Errorf("no PID: pids %v", p)
	}
	c.PID = 3
	if p := c.pids(); !reflect.DeepEqual(p, []int{3, 7}) {
		t.Errorf("pids %v", p)
	}
}

func TestEnsembleGrid(t *testing.T) {
	shapes := [][2]int{{16, 1}, {64, 4}}
	cells := EnsembleGrid([]string{WorkloadCreate, WorkloadGet}, shapes, []string{PlacementFollowers, PlacementLeader})
	var got []string
	for _, c := range cells {
		got = append(got, c.String())
	}
	want := []string{
		"create 16x1 on followers", "create 16x1 on leader", "create 64x4 on followers", "create 64x4 on leader",
		"get 16x1 on followers", "get 16x1 on leader", "get 64x4 on followers", "get 64x4 on leader",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("grid\n%v\nwant\n%v", got, want)
	}
}

func TestCheckEnsembleGrid(t *testing.T) {
	if err := CheckEnsembleGrid([]string{WorkloadCreate, WorkloadSet, WorkloadGet, WorkloadMixed}, []string{PlacementFollowers, PlacementLeader}); err != nil {
		t.Errorf("the default grid: %v", err)
	}
	for _, tc := range []struct {
		workloads, placements []string
		want                  string
	}{
		{[]string{WorkloadConnect}, []string{PlacementLeader}, "does not spread"},
		{[]string{WorkloadWatch}, []string{PlacementLeader}, "does not spread"},
		{[]string{"sett"}, []string{PlacementLeader}, "unknown workload"},
		{[]string{WorkloadSet}, []string{"observers"}, "unknown placement"},
	} {
		err := CheckEnsembleGrid(tc.workloads, tc.placements)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: %v, want %q", tc.workloads, tc.placements, err, tc.want)
		}
	}
}

func TestEnsembleZooCfg(t *testing.T) {
	s := EnsembleSettings{TickTime: 2000, InitLimit: 10, SyncLimit: 5, ForceSync: true}
	members := []ensembleMember{{1, 4001, 5001, 6001}, {2, 4002, 5002, 6002}, {3, 4003, 5003, 6003}}
	cfg := s.zooCfg("/d/2", 2, members)
	for _, line := range []string{
		"tickTime=2000", "initLimit=10", "syncLimit=5", "forceSync=yes", "dataDir=/d/2", "clientPort=4002",
		"clientPortAddress=127.0.0.1", "maxClientCnxns=0", "4lw.commands.whitelist=*",
		"server.1=127.0.0.1:5001:6001", "server.2=127.0.0.1:5002:6002", "server.3=127.0.0.1:5003:6003",
	} {
		if !strings.Contains("\n"+cfg, "\n"+line+"\n") {
			t.Errorf("zoo.cfg lacks %q:\n%s", line, cfg)
		}
	}
	s.ForceSync = false
	if cfg := s.zooCfg("/d/1", 1, members); !strings.Contains(cfg, "forceSync=no\n") || !strings.Contains(cfg, "clientPort=4001\n") {
		t.Errorf("member 1 without forceSync:\n%s", cfg)
	}
}

func TestMemberEnv(t *testing.T) {
	got := memberEnv([]string{"GOZK_CPUPROFILE=/p/cpu.prof", "GOZK_MEMPROFILE=/p/mem", "GOGC=200"}, 2)
	want := []string{"GOZK_CPUPROFILE=/p/cpu.prof.2", "GOZK_MEMPROFILE=/p/mem.2", "GOGC=200"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func result(label, workload string, sessions, inflight int, ops float64, p50, p99 int64, cpu float64) *Result {
	return &Result{Label: label, Workload: workload, Sessions: sessions, InFlight: inflight, OpsPerSec: ops,
		Latency: Summary{P50Us: p50, P99Us: p99}, ServerProc: &ProcStats{CPUPerOpUs: cpu, RSSBytes: 1 << 20}}
}

func TestEnsembleRatios(t *testing.T) {
	results := []*Result{
		result("gozk followers", WorkloadSet, 16, 1, 9000, 1000, 3000, 30),
		result("gozk leader", WorkloadSet, 16, 1, 6000, 1500, 4000, 20),
		result("gozk leader", WorkloadGet, 64, 4, 50000, 100, 900, 10),
		result("java followers", WorkloadSet, 16, 1, 3000, 2000, 6000, 60),
		result("java leader", WorkloadSet, 16, 1, 4000, 3000, 2000, 40),
		// java's get 64x4 on the leader is missing: no ratio for it.
	}
	got := ensembleRatios(results)
	if len(got) != 2 {
		t.Fatalf("%d ratios, want 2: %+v", len(got), got)
	}
	f, l := got[0], got[1]
	if f.Placement != PlacementFollowers || f.Workload != WorkloadSet || f.Shape != "16x1" {
		t.Errorf("first ratio is %s %s %s", f.Placement, f.Workload, f.Shape)
	}
	if f.OpsRatio != 3 || f.P50Ratio != 0.5 || f.P99Ratio != 0.5 || f.CPURatio != 0.5 {
		t.Errorf("followers: ops %v p50 %v p99 %v cpu %v, want 3 0.5 0.5 0.5", f.OpsRatio, f.P50Ratio, f.P99Ratio, f.CPURatio)
	}
	if l.Placement != PlacementLeader || l.OpsRatio != 1.5 || l.P50Ratio != 0.5 || l.P99Ratio != 2 || l.CPURatio != 0.5 {
		t.Errorf("leader: %+v", l)
	}
}

func TestSummarizeFailovers(t *testing.T) {
	if SummarizeFailovers(nil) != nil {
		t.Error("a summary of no failovers")
	}
	fs := []*Failover{
		{Server: "gozk", ExistingMs: 300, ExistingAllMs: 400, NewSessionMs: 200},
		{Server: "gozk", ExistingMs: 100, ExistingAllMs: 900, NewSessionMs: 350},
		{Server: "gozk", ExistingMs: 200, ExistingAllMs: 500, NewSessionMs: 250},
		{Server: "java", ExistingMs: 1000, ExistingAllMs: 1200, NewSessionMs: 700},
		{Server: "java", ExistingMs: 1100, ExistingAllMs: 1300, NewSessionMs: 800},
	}
	s := SummarizeFailovers(fs)
	want := FailoverSummary{
		GozkRuns: 3, JavaRuns: 2,
		GozkExistingMs: 200, JavaExistingMs: 1050, ExistingRatio: 0.19,
		GozkExistingAllMs: 500, JavaExistingAllMs: 1250, ExistingAllRatio: 0.4,
		GozkNewSessionMs: 250, JavaNewSessionMs: 750, NewSessionRatio: 0.33,
	}
	if *s != want {
		t.Errorf("summary\n%+v\nwant\n%+v", *s, want)
	}
}

func TestSampleMissingProcess(t *testing.T) {
	// A pid that cannot be read spoils the sample rather than being
	// counted as zero CPU.
	if s := takeSample([]int{1 << 30}); s.procOK {
		t.Errorf("sample of a missing process: %+v", s)
	}
	if s := takeSample(nil); s.procOK || s.clientCPU < 0 {
		t.Errorf("sample of no process: %+v", s)
	}
}
