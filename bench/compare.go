package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Cell is one point of a comparison grid.
type Cell struct {
	Workload string `json:"workload"`
	Sessions int    `json:"sessions"`
	InFlight int    `json:"inflight"`
	Watchers int    `json:"watchers,omitempty"`
}

func (c Cell) String() string {
	if c.Workload == WorkloadWatch {
		return fmt.Sprintf("%s w%d", c.Workload, c.Watchers)
	}
	return fmt.Sprintf("%s %dx%d", c.Workload, c.Sessions, c.InFlight)
}

// Shapes are the default sessions x in-flight points.
var Shapes = [][2]int{{1, 1}, {16, 1}, {64, 4}}

// Grid returns the cells of workloads x shapes; the watch workload takes
// one cell with the given fan-out instead of the shapes.
func Grid(workloads []string, shapes [][2]int, watchers int) []Cell {
	var cells []Cell
	for _, w := range workloads {
		if w == WorkloadWatch {
			cells = append(cells, Cell{Workload: w, Sessions: watchers, InFlight: 1, Watchers: watchers})
			continue
		}
		for _, s := range shapes {
			cells = append(cells, Cell{Workload: w, Sessions: s[0], InFlight: s[1]})
		}
	}
	return cells
}

// DefaultGridWorkloads are the workloads of `make bench-compare`.
var DefaultGridWorkloads = []string{WorkloadGet, WorkloadSet, WorkloadCreate, WorkloadMixed, WorkloadConnect, WorkloadWatch}

// ParseShapes reads "1x1,16x1,64x4".
func ParseShapes(s string) ([][2]int, error) {
	var shapes [][2]int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		a, b, ok := strings.Cut(f, "x")
		n, err1 := strconv.Atoi(a)
		m, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || n <= 0 || m <= 0 {
			return nil, fmt.Errorf("shape %q is not sessions x in-flight like 16x1", f)
		}
		shapes = append(shapes, [2]int{n, m})
	}
	return shapes, nil
}

// CompareConfig describes a comparison.
type CompareConfig struct {
	// Gozk is the gozk binary to start; GozkLogLevel its --log-level.
	Gozk         string
	GozkLogLevel string
	Java         JavaServer
	Settings     ServerSettings // Dir is the parent of the servers' dirs
	Cells        []Cell
	// Base holds the settings every run shares (value size, duration,
	// warmup, read ratio...); the cell sets workload and shape.
	Base Config
	// ServerWarmup is a mixed 16x4 load given to each server before the
	// grid, so that the JVM has compiled its hot paths (gozk gets the
	// same).
	ServerWarmup time.Duration
	// Keep leaves the servers' directories in place.
	Keep bool
	// Progress receives a line per run; may be nil.
	Progress io.Writer
}

// Comparison is the outcome, as saved in JSON.
type Comparison struct {
	Started  time.Time         `json:"started"`
	Machine  map[string]string `json:"machine"`
	Settings map[string]string `json:"settings"`
	Base     Config            `json:"base"`
	Results  []*Result         `json:"results"`
	Ratios   []Ratio           `json:"ratios"`
	// Footprints and FootprintRatios hold start-up, memory and restart
	// measurements when they were taken.
	Footprints      []*Footprint     `json:"footprints,omitempty"`
	FootprintRatios []FootprintRatio `json:"footprint_ratios,omitempty"`
}

// Compare starts Java ZooKeeper and gozk side by side and runs every cell
// against each, alternating which goes first from cell to cell so that
// drift in the machine's load falls on both alike.
func Compare(ctx context.Context, cc CompareConfig) (*Comparison, error) {
	progress := cc.Progress
	if progress == nil {
		progress = io.Discard
	}
	cmp := &Comparison{
		Started: time.Now().UTC().Truncate(time.Second),
		Machine: map[string]string{
			"goos": runtime.GOOS, "goarch": runtime.GOARCH, "cpus": strconv.Itoa(runtime.NumCPU()),
			"go": runtime.Version(), "java": javaVersion(cc.Java.Java),
		},
		Settings: map[string]string{
			"tickTime":       strconv.Itoa(cc.Settings.TickTime),
			"forceSync":      strconv.FormatBool(cc.Settings.ForceSync),
			"maxClientCnxns": "0",
			"java_jvm_args":  strings.Join(javaArgs(cc.Java), " "),
			"gozk_log_level": cc.GozkLogLevel,
			"java_logging":   "none (no SLF4J binding on the class path)",
			"server_warmup":  cc.ServerWarmup.String(),
		},
		Base: cc.Base,
	}
	if len(cc.Cells) == 0 {
		return cmp, nil
	}
	if err := os.MkdirAll(cc.Settings.Dir, 0o755); err != nil {
		return nil, err
	}
	runDir, err := os.MkdirTemp(cc.Settings.Dir, "servers-")
	if err != nil {
		return nil, err
	}
	if !cc.Keep {
		defer os.RemoveAll(runDir)
	}
	javaSettings, gozkSettings := cc.Settings, cc.Settings
	javaSettings.Dir, gozkSettings.Dir = filepath.Join(runDir, "java"), filepath.Join(runDir, "gozk")

	fmt.Fprintln(progress, "starting Java ZooKeeper")
	java, err := StartJava(ctx, cc.Java, javaSettings)
	if err != nil {
		return nil, err
	}
	defer java.Stop()
	fmt.Fprintln(progress, "starting gozk")
	gozk, err := StartGozk(ctx, cc.Gozk, cc.GozkLogLevel, gozkSettings)
	if err != nil {
		return nil, err
	}
	defer gozk.Stop()
	fmt.Fprintf(progress, "java pid %d on %s, gozk pid %d on %s\n", java.PID, java.Addr, gozk.PID, gozk.Addr)

	servers := []*ServerProcess{gozk, java}
	if cc.ServerWarmup > 0 {
		for _, s := range servers {
			fmt.Fprintf(progress, "warming up %s for %v\n", s.Name, cc.ServerWarmup)
			cfg := cc.Base
			cfg.Server, cfg.Workload, cfg.Sessions, cfg.InFlight = s.Addr, WorkloadMixed, 16, 4
			cfg.Warmup, cfg.Duration, cfg.Ops = 0, cc.ServerWarmup, 0
			if _, err := Run(ctx, cfg); err != nil {
				return nil, fmt.Errorf("warming up %s: %w", s.Name, err)
			}
		}
	}
	for i, cell := range cc.Cells {
		order := servers
		if i%2 == 1 {
			order = []*ServerProcess{java, gozk}
		}
		byName := map[string]*Result{}
		for _, s := range order {
			if ctx.Err() != nil {
				return cmp, ctx.Err()
			}
			if !s.Alive() {
				return cmp, fmt.Errorf("%s exited; its log is %s", s.Name, s.LogPath)
			}
			cfg := cc.Base
			cfg.Server, cfg.PID, cfg.Label = s.Addr, s.PID, s.Name
			cfg.Workload, cfg.Sessions, cfg.InFlight = cell.Workload, cell.Sessions, cell.InFlight
			if cell.Watchers > 0 {
				cfg.Watchers = cell.Watchers
			}
			if cell.Workload == WorkloadConnect || cell.Workload == WorkloadWatch {
				cfg.Client = ClientPipelined // the only client that runs them
			}
			res, err := Run(ctx, cfg)
			if err != nil {
				return cmp, fmt.Errorf("%s against %s: %w", cell, s.Name, err)
			}
			fmt.Fprintf(progress, "%-5s %-18s %10.1f ops/s  p50 %6d µs  p99 %7d µs  errors %d\n",
				s.Name, cell, res.OpsPerSec, res.Latency.P50Us, res.Latency.P99Us, res.Errors)
			cmp.Results = append(cmp.Results, res)
			byName[s.Name] = res
		}
		cmp.Ratios = append(cmp.Ratios, NewRatio(byName["gozk"], byName["java"]))
	}
	return cmp, nil
}

func javaArgs(j JavaServer) []string {
	if j.JVMArgs == nil {
		return []string{"-Xmx1000m"}
	}
	return j.JVMArgs
}

// javaVersion is the first line of `java -version`.
func javaVersion(java string) string {
	out, err := exec.Command(java, "-version").CombinedOutput()
	if err != nil {
		return "unknown"
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

// SaveJSON writes the comparison to dir/compare-<time>.json and returns the
// path.
func (c *Comparison) SaveJSON(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "compare-"+c.Started.Format("20060102-150405")+".json")
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
