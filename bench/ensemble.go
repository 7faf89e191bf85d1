package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

// Roles a member reports in the Mode line of srvr.
const (
	ModeLeader   = "leader"
	ModeFollower = "follower"
)

// EnsembleSettings are the zoo.cfg settings every member of both
// ensembles gets.
type EnsembleSettings struct {
	// Dir is where the members' directories go; it is created.
	Dir string
	// TickTime in milliseconds; InitLimit and SyncLimit in ticks.
	TickTime  int
	InitLimit int
	SyncLimit int
	// ForceSync fsyncs the txn log before acknowledging a write.
	ForceSync bool
}

// ensembleMember is one server of an ensemble, as laid out in zoo.cfg.
type ensembleMember struct {
	ID           int
	ClientPort   int
	QuorumPort   int
	ElectionPort int
}

// zooCfg renders member id's zoo.cfg: the members on loopback, no limit on
// connections per IP, AdminServer off, every four-letter word allowed (srvr
// tells the roles apart).
func (s EnsembleSettings) zooCfg(dataDir string, id int, members []ensembleMember) string {
	forceSync := "no"
	if s.ForceSync {
		forceSync = "yes"
	}
	var port int
	for _, m := range members {
		if m.ID == id {
			port = m.ClientPort
		}
	}
	lines := []string{
		"tickTime=" + strconv.Itoa(s.TickTime),
		"initLimit=" + strconv.Itoa(s.InitLimit),
		"syncLimit=" + strconv.Itoa(s.SyncLimit),
		"dataDir=" + dataDir,
		"clientPort=" + strconv.Itoa(port),
		"clientPortAddress=127.0.0.1",
		"maxClientCnxns=0",
		"forceSync=" + forceSync,
		"admin.enableServer=false",
		"4lw.commands.whitelist=*",
	}
	for _, m := range members {
		lines = append(lines, fmt.Sprintf("server.%d=127.0.0.1:%d:%d", m.ID, m.QuorumPort, m.ElectionPort))
	}
	return strings.Join(lines, "\n") + "\n"
}

// Ensemble is a three-server ensemble this package started on loopback.
type Ensemble struct {
	Name    string // "gozk" or "java"
	Members []*ServerProcess
	// roles maps a member's index in Members to its last srvr Mode.
	roles []string
}

// StartGozkEnsemble starts three `gozk server` members. env is added to
// each member's environment (GOZK_CPUPROFILE=path is given a member
// suffix, so that every member writes its own profile).
func StartGozkEnsemble(ctx context.Context, path, logLevel string, s EnsembleSettings, env []string) (*Ensemble, error) {
	return startEnsemble(ctx, "gozk", s, func(id int, cfgPath string) *exec.Cmd {
		cmd := exec.Command(path, "server", "--config", cfgPath, "--log-level", logLevel)
		if len(env) > 0 {
			cmd.Env = append(os.Environ(), memberEnv(env, id)...)
		}
		return cmd
	})
}

// memberEnv gives the profile paths of env a member suffix.
func memberEnv(env []string, id int) []string {
	out := make([]string, len(env))
	for i, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasSuffix(k, "PROFILE") || k == "GOZK_TRACE" {
			v = fmt.Sprintf("%s.%d", v, id)
		}
		out[i] = k + "=" + v
	}
	return out
}

// StartJavaEnsemble starts three QuorumPeerMain members.
func StartJavaEnsemble(ctx context.Context, j JavaServer, s EnsembleSettings) (*Ensemble, error) {
	args := javaArgs(j)
	return startEnsemble(ctx, "java", s, func(id int, cfgPath string) *exec.Cmd {
		a := append(append([]string(nil), args...), "-cp", strings.Join(j.Classpath, string(os.PathListSeparator)),
			"org.apache.zookeeper.server.quorum.QuorumPeerMain", cfgPath)
		return exec.Command(j.Java, a...)
	})
}

// ensembleSize is the number of members: the smallest ensemble that
// survives losing its leader.
const ensembleSize = 3

func startEnsemble(ctx context.Context, name string, s EnsembleSettings, command func(id int, cfgPath string) *exec.Cmd) (*Ensemble, error) {
	dir, err := filepath.Abs(s.Dir)
	if err != nil {
		return nil, err
	}
	var members []ensembleMember
	for id := 1; id <= ensembleSize; id++ {
		var ports [3]int
		for i := range ports {
			if ports[i], err = freePort(); err != nil {
				return nil, err
			}
		}
		members = append(members, ensembleMember{ID: id, ClientPort: ports[0], QuorumPort: ports[1], ElectionPort: ports[2]})
	}
	e := &Ensemble{Name: name}
	for _, m := range members {
		mdir := filepath.Join(dir, fmt.Sprintf("%s%d", name, m.ID))
		dataDir := filepath.Join(mdir, "data")
		if err := os.MkdirAll(dataDir, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dataDir, "myid"), []byte(strconv.Itoa(m.ID)+"\n"), 0o644); err != nil {
			return nil, err
		}
		cfgPath := filepath.Join(mdir, "zoo.cfg")
		if err := os.WriteFile(cfgPath, []byte(s.zooCfg(dataDir, m.ID, members)), 0o644); err != nil {
			return nil, err
		}
		id := m.ID
		e.Members = append(e.Members, &ServerProcess{
			Name: fmt.Sprintf("%s%d", name, id), Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(m.ClientPort)),
			Dir: mdir, LogPath: filepath.Join(mdir, "server.log"), cfgPath: cfgPath,
			command: func(cfgPath string) *exec.Cmd { return command(id, cfgPath) },
		})
	}
	for _, p := range e.Members {
		if err := p.start(); err != nil {
			e.Stop()
			return nil, fmt.Errorf("starting %s: %w", p.Name, err)
		}
	}
	if err := e.WaitRoles(ctx); err != nil {
		e.Stop()
		return nil, err
	}
	return e, nil
}

// Stop ends every member with SIGTERM (so that profiles are written),
// killing those that take longer than terminateGrace.
func (e *Ensemble) Stop() {
	var wg sync.WaitGroup
	for _, p := range e.Members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Terminate()
		}()
	}
	wg.Wait()
}

// PIDs are the members' process ids.
func (e *Ensemble) PIDs() []int {
	pids := make([]int, len(e.Members))
	for i, p := range e.Members {
		pids[i] = p.PID
	}
	return pids
}

// rolePoll is the interval between srvr rounds while waiting for roles.
const rolePoll = 50 * time.Millisecond

// WaitRoles waits until every member serves, one as the leader and the
// others as followers, and records the roles.
func (e *Ensemble) WaitRoles(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, startupLimit)
	defer cancel()
	var last string
	for {
		for _, p := range e.Members {
			if !p.Alive() {
				return fmt.Errorf("%s exited; the end of its log:\n%s", p.Name, p.logTail())
			}
		}
		roles := make([]string, len(e.Members))
		var notes []string
		for i, p := range e.Members {
			out, err := fourLetterWord(p.Addr, "srvr", time.Second)
			if err == nil {
				roles[i], err = ParseSrvrMode(out)
			}
			if err != nil {
				notes = append(notes, fmt.Sprintf("%s: %v", p.Name, err))
			}
		}
		err := checkRoles(roles)
		if err == nil {
			e.roles = roles
			// A member answers srvr before its client port serves
			// requests; wait for that too.
			for _, p := range e.Members {
				if err := p.waitServing(ctx); err != nil {
					return fmt.Errorf("%s: %w", p.Name, err)
				}
			}
			return nil
		}
		last = strings.Join(append(notes, err.Error()), "; ")
		select {
		case <-ctx.Done():
			return fmt.Errorf("the %s ensemble has no leader and two followers: %w (last: %s)", e.Name, ctx.Err(), last)
		case <-time.After(rolePoll):
		}
	}
}

// checkRoles accepts one leader, the rest followers.
func checkRoles(roles []string) error {
	leaders, followers := 0, 0
	for _, r := range roles {
		switch r {
		case ModeLeader:
			leaders++
		case ModeFollower:
			followers++
		}
	}
	if leaders != 1 || followers != len(roles)-1 {
		return fmt.Errorf("roles %s", strings.Join(roles, ","))
	}
	return nil
}

// Leader is the index in Members of the leader found by the last
// WaitRoles.
func (e *Ensemble) Leader() int {
	for i, r := range e.roles {
		if r == ModeLeader {
			return i
		}
	}
	return -1
}

// Followers are the indexes in Members of the followers found by the last
// WaitRoles.
func (e *Ensemble) Followers() []int {
	var f []int
	for i, r := range e.roles {
		if r == ModeFollower {
			f = append(f, i)
		}
	}
	return f
}

// ParseSrvrMode reads the role out of a srvr (or stat) answer: the value
// of its "Mode:" line. A member that is not serving (electing a leader)
// answers with a sentence instead, an error here.
func ParseSrvrMode(out string) (string, error) {
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "Mode" {
			return strings.TrimSpace(v), nil
		}
	}
	if out = strings.TrimSpace(out); out == "" {
		return "", errors.New("empty srvr answer")
	}
	line, _, _ := strings.Cut(out, "\n")
	return "", fmt.Errorf("no Mode in srvr answer %q", line)
}

// fourLetterWord sends cmd to addr and returns everything the server
// writes before closing the connection.
func fourLetterWord(addr, cmd string, timeout time.Duration) (string, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(timeout))
	if _, err := io.WriteString(c, cmd); err != nil {
		return "", err
	}
	b, err := io.ReadAll(c)
	if err != nil && len(b) == 0 {
		return "", err
	}
	return string(b), nil
}

// Placement says which members an ensemble cell's sessions connect to.
const (
	PlacementFollowers = "followers"
	PlacementLeader    = "leader"
)

// EnsembleCell is one point of the ensemble grid.
type EnsembleCell struct {
	Cell
	Placement string `json:"placement"`
}

func (c EnsembleCell) String() string { return c.Cell.String() + " on " + c.Placement }

// EnsembleGrid returns workloads x shapes x placements, placements
// innermost, so that a cell's two placements run one after the other.
func EnsembleGrid(workloads []string, shapes [][2]int, placements []string) []EnsembleCell {
	var cells []EnsembleCell
	for _, c := range Grid(workloads, shapes, 0) {
		for _, p := range placements {
			cells = append(cells, EnsembleCell{Cell: c, Placement: p})
		}
	}
	return cells
}

// CheckEnsembleGrid refuses what the ensemble grid cannot run: the connect
// and watch workloads (they take one server) and unknown placements.
func CheckEnsembleGrid(workloads, placements []string) error {
	for _, w := range workloads {
		if err := CheckWorkload(w); err != nil {
			return err
		}
		if w == WorkloadConnect || w == WorkloadWatch {
			return fmt.Errorf("the %s workload does not spread over members; the ensemble grid runs request workloads", w)
		}
	}
	for _, p := range placements {
		if p != PlacementFollowers && p != PlacementLeader {
			return fmt.Errorf("unknown placement %q (%s or %s)", p, PlacementFollowers, PlacementLeader)
		}
	}
	return nil
}

// addrs are the client addresses of the members a placement names.
func (e *Ensemble) addrs(placement string) []string {
	idx := e.Followers()
	if placement == PlacementLeader {
		idx = []int{e.Leader()}
	}
	var a []string
	for _, i := range idx {
		a = append(a, e.Members[i].Addr)
	}
	return a
}

// EnsembleConfig describes an ensemble comparison.
type EnsembleConfig struct {
	Gozk         string
	GozkLogLevel string
	// GozkEnv is added to every gozk member's environment (profiles).
	GozkEnv  []string
	Java     JavaServer
	Settings EnsembleSettings // Dir is the parent of the members' dirs
	// Servers are the ensembles to run, in order: "gozk", "java" or both.
	Servers []string
	Cells   []EnsembleCell
	// Base holds the settings every run shares; the cell sets workload,
	// shape and servers.
	Base Config
	// ServerWarmup is a mixed 16x4 load spread over the followers before
	// the grid, so that the JVMs have compiled their hot paths.
	ServerWarmup time.Duration
	// FailoverRuns is how many times the leader is killed; 0 skips it.
	FailoverRuns int
	Failover     FailoverConfig
	Keep         bool
	Progress     io.Writer
}

// EnsembleComparison is the outcome, as saved in JSON.
type EnsembleComparison struct {
	Started  time.Time         `json:"started"`
	Machine  map[string]string `json:"machine"`
	Settings map[string]string `json:"settings"`
	Base     Config            `json:"base"`
	// Results are labelled "<server> <placement>".
	Results   []*Result       `json:"results"`
	Ratios    []EnsembleRatio `json:"ratios"`
	Failovers []*Failover     `json:"failovers,omitempty"`
	// FailoverSummary holds the medians of each server's failovers and
	// their ratios.
	FailoverSummary *FailoverSummary `json:"failover_summary,omitempty"`
}

// EnsembleRatio is a Ratio for one placement.
type EnsembleRatio struct {
	Placement string `json:"placement"`
	Ratio
}

// RunEnsembles starts each ensemble in turn (never two at once), runs the
// grid and the failovers against it and stops it, then pairs the results
// into ratios.
func RunEnsembles(ctx context.Context, ec EnsembleConfig) (*EnsembleComparison, error) {
	progress := ec.Progress
	if progress == nil {
		progress = io.Discard
	}
	ec.Failover.Progress = progress
	cmp := &EnsembleComparison{
		Started: time.Now().UTC().Truncate(time.Second),
		Machine: map[string]string{
			"goos": runtime.GOOS, "goarch": runtime.GOARCH, "cpus": strconv.Itoa(runtime.NumCPU()), "go": runtime.Version(), "java": javaVersion(ec.Java.Java),
		},
		Settings: map[string]string{
			"members":        strconv.Itoa(ensembleSize),
			"tickTime":       strconv.Itoa(ec.Settings.TickTime),
			"initLimit":      strconv.Itoa(ec.Settings.InitLimit),
			"syncLimit":      strconv.Itoa(ec.Settings.SyncLimit),
			"forceSync":      strconv.FormatBool(ec.Settings.ForceSync),
			"java_jvm_args":  strings.Join(javaArgs(ec.Java), " "),
			"gozk_log_level": ec.GozkLogLevel,
			"server_warmup":  ec.ServerWarmup.String(),
			"failover_runs":  strconv.Itoa(ec.FailoverRuns),
		},
		Base: ec.Base,
	}
	if err := os.MkdirAll(ec.Settings.Dir, 0o755); err != nil {
		return nil, err
	}
	runDir, err := os.MkdirTemp(ec.Settings.Dir, "ensembles-")
	if err != nil {
		return nil, err
	}
	if !ec.Keep {
		defer os.RemoveAll(runDir)
	}
	for _, name := range ec.Servers {
		if err := ctx.Err(); err != nil {
			return cmp, err
		}
		s := ec.Settings
		s.Dir = runDir
		fmt.Fprintf(progress, "starting the %s ensemble\n", name)
		var e *Ensemble
		switch name {
		case "gozk":
			e, err = StartGozkEnsemble(ctx, ec.Gozk, ec.GozkLogLevel, s, ec.GozkEnv)
		case "java":
			e, err = StartJavaEnsemble(ctx, ec.Java, s)
		default:
			err = fmt.Errorf("unknown server %q (gozk or java)", name)
		}
		if err != nil {
			return cmp, err
		}
		err = runOnEnsemble(ctx, ec, e, cmp, progress)
		fmt.Fprintf(progress, "stopping the %s ensemble\n", name)
		e.Stop()
		if err != nil {
			return cmp, err
		}
	}
	cmp.Ratios = ensembleRatios(cmp.Results)
	cmp.FailoverSummary = SummarizeFailovers(cmp.Failovers)
	return cmp, nil
}

// runOnEnsemble runs the warm-up, the grid and the failovers against e.
func runOnEnsemble(ctx context.Context, ec EnsembleConfig, e *Ensemble, cmp *EnsembleComparison, progress io.Writer) error {
	fmt.Fprintf(progress, "%s: leader %s, followers %s\n", e.Name, e.Members[e.Leader()].Name, strings.Join(e.addrs(PlacementFollowers), ","))
	pids := e.PIDs()
	if ec.ServerWarmup > 0 {
		fmt.Fprintf(progress, "warming up %s for %v\n", e.Name, ec.ServerWarmup)
		cfg := ec.Base
		cfg.Servers = e.addrs(PlacementFollowers)
		cfg.Server, cfg.Workload, cfg.Sessions, cfg.InFlight = cfg.Servers[0], WorkloadMixed, 16, 4
		cfg.Warmup, cfg.Duration, cfg.Ops = 0, ec.ServerWarmup, 0
		if _, err := Run(ctx, cfg); err != nil {
			return fmt.Errorf("warming up %s: %w", e.Name, err)
		}
	}
	for _, cell := range ec.Cells {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, p := range e.Members {
			if !p.Alive() {
				return fmt.Errorf("%s exited; its log is %s", p.Name, p.LogPath)
			}
		}
		cfg := ec.Base
		cfg.Servers = e.addrs(cell.Placement)
		cfg.Server, cfg.PID, cfg.PIDs = cfg.Servers[0], pids[0], pids[1:]
		cfg.Label = e.Name + " " + cell.Placement
		cfg.Workload, cfg.Sessions, cfg.InFlight = cell.Workload, cell.Sessions, cell.InFlight
		res, err := Run(ctx, cfg)
		if err != nil {
			return fmt.Errorf("%s against %s: %w", cell, e.Name, err)
		}
		fmt.Fprintf(progress, "%-5s %-26s %10.1f ops/s  p50 %6d µs  p99 %7d µs  errors %d\n",
			e.Name, cell, res.OpsPerSec, res.Latency.P50Us, res.Latency.P99Us, res.Errors)
		cmp.Results = append(cmp.Results, res)
	}
	for run := 1; run <= ec.FailoverRuns; run++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		f, err := MeasureFailover(ctx, e, ec.Failover)
		if err != nil {
			return fmt.Errorf("%s failover %d: %w", e.Name, run, err)
		}
		f.Run = run
		fmt.Fprintf(progress, "%-5s failover %d: killed %s; existing session %.0f ms (all %.0f ms), new session %.0f ms; new leader %s\n",
			e.Name, run, f.Killed, f.ExistingMs, f.ExistingAllMs, f.NewSessionMs, f.NewLeader)
		cmp.Failovers = append(cmp.Failovers, f)
	}
	return nil
}

// ensembleRatios pairs each gozk result with Java's of the same cell and
// placement, in the order of gozk's results.
func ensembleRatios(results []*Result) []EnsembleRatio {
	type key struct{ placement, workload, shape string }
	byKey := map[string]map[key]*Result{}
	var order []key
	for _, r := range results {
		server, placement, _ := strings.Cut(r.Label, " ")
		k := key{placement, r.Workload, r.Shape()}
		if byKey[server] == nil {
			byKey[server] = map[key]*Result{}
		}
		byKey[server][k] = r
		if server == "gozk" {
			order = append(order, k)
		}
	}
	var ratios []EnsembleRatio
	for _, k := range order {
		j, ok := byKey["java"][k]
		if !ok {
			continue
		}
		ratios = append(ratios, EnsembleRatio{Placement: k.placement, Ratio: NewRatio(byKey["gozk"][k], j)})
	}
	return ratios
}

// WriteEnsembleRatios writes the grid's comparison table.
func WriteEnsembleRatios(w io.Writer, ratios []EnsembleRatio) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "placement\tworkload\tshape\tgozk ops/s\tjava ops/s\tratio\tgozk p50\tjava p50\tratio\tgozk p99\tjava p99\tratio\tgozk cpu/op\tjava cpu/op\tratio\terrors g/j\t")
	for _, r := range ratios {
		cpuG, cpuJ, cpuR := "-", "-", "-"
		if r.JavaCPU > 0 {
			cpuG, cpuJ, cpuR = fmt.Sprintf("%.1f", r.GozkCPU), fmt.Sprintf("%.1f", r.JavaCPU), fmt.Sprintf("%.2f", r.CPURatio)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f\t%.0f\t%.2f\t%d\t%d\t%.2f\t%d\t%d\t%.2f\t%s\t%s\t%s\t%d/%d\t\n",
			r.Placement, r.Workload, r.Shape, r.GozkOps, r.JavaOps, r.OpsRatio, r.GozkP50, r.JavaP50, r.P50Ratio,
			r.GozkP99, r.JavaP99, r.P99Ratio, cpuG, cpuJ, cpuR, r.GozkErrors, r.JavaErrors)
	}
	tw.Flush()
	fmt.Fprintln(w, strings.TrimSpace(`
ratios are gozk / Java: ops/s above 1 is faster; latency and CPU per op below 1 are better.
latency in µs; cpu/op is the CPU µs per op of the three members together.`))
}

// SaveJSON writes the comparison to dir/ensemble-<time>.json and returns
// the path.
func (c *EnsembleComparison) SaveJSON(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "ensemble-"+c.Started.Format("20060102-150405")+".json")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if err := WriteJSON(f, c); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}
