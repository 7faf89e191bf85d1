package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// FootprintConfig describes the measurements that are not a load: start-up
// time of an empty server, resident memory holding many znodes, and the
// time a server full of znodes takes to serve again after a restart.
type FootprintConfig struct {
	Gozk         string
	GozkLogLevel string
	// Java is how Apache ZooKeeper starts; its JVMArgs should give the heap
	// room for the largest count.
	Java     JavaServer
	Settings ServerSettings // Dir is the parent of the servers' dirs
	// StartupRuns is how many times each server starts empty; the median
	// is reported.
	StartupRuns int
	// Znodes are the counts at which memory is sampled, ascending; the
	// restart is timed with the last.
	Znodes []int
	// ValueSize is the data of each znode.
	ValueSize int
	// Settle is the pause between populating and sampling memory.
	Settle   time.Duration
	Keep     bool
	Progress io.Writer
}

// Footprint is the outcome for one server.
type Footprint struct {
	Server string `json:"server"`
	// StartupMs are the launch-to-first-answer times of empty starts.
	StartupMs       []float64 `json:"startup_ms"`
	StartupMedianMs float64   `json:"startup_median_ms"`
	// EmptyRSSBytes is the resident memory right after an empty start.
	EmptyRSSBytes int64         `json:"empty_rss_bytes"`
	Memory        []MemoryPoint `json:"memory"`
	// RestartZnodes were in the tree when the server was restarted;
	// RestartMs is SIGTERM-to-first-answer minus the stop, that is launch
	// to first answer.
	RestartZnodes   int     `json:"restart_znodes"`
	RestartMs       float64 `json:"restart_ms"`
	RestartRSSBytes int64   `json:"restart_rss_bytes"`
	// JVMArgs are the Java server's, when it is the Java server.
	JVMArgs string `json:"jvm_args,omitempty"`
}

// MemoryPoint is the server's memory holding Znodes znodes of ValueSize
// bytes (on top of the built-in ones and the 1,000-per-parent directories).
type MemoryPoint struct {
	Znodes          int     `json:"znodes"`
	RSSBytes        int64   `json:"rss_bytes"`
	PeakRSSBytes    int64   `json:"rss_peak_bytes"`
	PopulateSeconds float64 `json:"populate_seconds"`
	CreatesPerSec   float64 `json:"creates_per_sec"`
}

// FootprintRatio compares gozk's footprint with Java's.
type FootprintRatio struct {
	What  string  `json:"what"`
	Gozk  float64 `json:"gozk"`
	Java  float64 `json:"java"`
	Unit  string  `json:"unit"`
	Ratio float64 `json:"ratio"`
}

// footprintRoot holds the populated znodes: footprintRoot/d<i/1000>/<i>.
// populateSessions sessions of pipelineWindow outstanding creates each stay
// under the servers' globalOutstandingLimit (1000), past which both
// throttle reading.
const (
	footprintRoot    = "/gozk-footprint"
	footprintFanout  = 1000
	populateSessions = 3
)

// MeasureFootprints runs the footprint measurements on Java and gozk, one
// server at a time so that neither's memory or start-up competes with the
// other's, alternating for the empty starts.
func MeasureFootprints(ctx context.Context, fc FootprintConfig) ([]*Footprint, []FootprintRatio, error) {
	progress := fc.Progress
	if progress == nil {
		progress = io.Discard
	}
	if fc.StartupRuns <= 0 {
		fc.StartupRuns = 5
	}
	if err := os.MkdirAll(fc.Settings.Dir, 0o755); err != nil {
		return nil, nil, err
	}
	runDir, err := os.MkdirTemp(fc.Settings.Dir, "footprint-")
	if err != nil {
		return nil, nil, err
	}
	if !fc.Keep {
		defer os.RemoveAll(runDir)
	}
	java := &Footprint{Server: "java", JVMArgs: strings.Join(javaArgs(fc.Java), " ")}
	gozk := &Footprint{Server: "gozk"}
	start := func(name string, run int) (*ServerProcess, error) {
		s := fc.Settings
		s.Dir = filepath.Join(runDir, name+"-"+strconv.Itoa(run))
		if name == "java" {
			return StartJava(ctx, fc.Java, s)
		}
		return StartGozk(ctx, fc.Gozk, fc.GozkLogLevel, s)
	}

	// Empty starts, alternating; each on a fresh directory.
	for run := 0; run < fc.StartupRuns; run++ {
		order := []*Footprint{gozk, java}
		if run%2 == 1 {
			order = []*Footprint{java, gozk}
		}
		for _, fp := range order {
			p, err := start(fp.Server, run)
			if err != nil {
				return nil, nil, err
			}
			fp.StartupMs = append(fp.StartupMs, ms(p.StartedIn))
			if rss, _, err := procMemory(p.PID); err == nil && fp.EmptyRSSBytes == 0 {
				fp.EmptyRSSBytes = rss
			}
			p.Stop()
			os.RemoveAll(p.Dir)
			fmt.Fprintf(progress, "%-5s empty start %d: %.1f ms\n", fp.Server, run+1, ms(p.StartedIn))
		}
	}
	for _, fp := range []*Footprint{gozk, java} {
		fp.StartupMedianMs = median(fp.StartupMs)
	}

	// Memory and restart, one server at a time.
	for _, fp := range []*Footprint{gozk, java} {
		if err := measureMemory(ctx, fc, fp, start, progress); err != nil {
			return []*Footprint{gozk, java}, nil, fmt.Errorf("%s: %w", fp.Server, err)
		}
	}
	return []*Footprint{gozk, java}, footprintRatios(gozk, java), nil
}

func measureMemory(ctx context.Context, fc FootprintConfig, fp *Footprint,
	start func(string, int) (*ServerProcess, error), progress io.Writer) error {
	if len(fc.Znodes) == 0 {
		return nil
	}
	p, err := start(fp.Server, -1)
	if err != nil {
		return err
	}
	defer func() {
		p.Stop()
		if !fc.Keep {
			os.RemoveAll(p.Dir)
		}
	}()
	value := make([]byte, fc.ValueSize)
	for i := range value {
		value[i] = byte('a' + i%26)
	}
	c, err := dial(p.Addr, dialOptions{sessionTimeout: 30 * time.Second, ioTimeout: 30 * time.Second})
	if err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Minute)
	err = createAll(c, []string{footprintRoot}, nil, deadline)
	c.close()
	if err != nil {
		return err
	}
	done := 0
	for _, n := range fc.Znodes {
		began := time.Now()
		if err := populateRange(ctx, p.Addr, done, n, value, deadline); err != nil {
			return fmt.Errorf("populating %d znodes: %w", n, err)
		}
		took := time.Since(began)
		time.Sleep(fc.Settle)
		rss, hwm, err := procMemory(p.PID)
		if err != nil {
			return err
		}
		fp.Memory = append(fp.Memory, MemoryPoint{Znodes: n, RSSBytes: rss, PeakRSSBytes: hwm,
			PopulateSeconds: round3(took.Seconds()), CreatesPerSec: round1(float64(n-done) / took.Seconds())})
		fmt.Fprintf(progress, "%-5s %d znodes: RSS %s (peak %s), populated at %.0f creates/s\n",
			fp.Server, n, mib(rss), mib(hwm), float64(n-done)/took.Seconds())
		done = n
	}
	if err := p.Restart(ctx); err != nil {
		return err
	}
	fp.RestartZnodes, fp.RestartMs = done, ms(p.StartedIn)
	if err := checkPopulated(p.Addr, done); err != nil {
		return fmt.Errorf("after the restart: %w", err)
	}
	time.Sleep(fc.Settle)
	if rss, _, err := procMemory(p.PID); err == nil {
		fp.RestartRSSBytes = rss
	}
	fmt.Fprintf(progress, "%-5s restart with %d znodes: serving after %.0f ms, RSS %s\n",
		fp.Server, done, fp.RestartMs, mib(fp.RestartRSSBytes))
	return nil
}

func footprintPath(i int) string {
	return footprintRoot + "/d" + strconv.Itoa(i/footprintFanout) + "/" + strconv.Itoa(i)
}

// populateRange creates znodes from (inclusive) to to (exclusive), with their
// directories, on populateSessions pipelined sessions.
func populateRange(ctx context.Context, addr string, from, to int, value []byte, deadline time.Time) error {
	var dirs []string
	for d := (from + footprintFanout - 1) / footprintFanout; d*footprintFanout < to; d++ {
		dirs = append(dirs, footprintRoot+"/d"+strconv.Itoa(d))
	}
	opts := dialOptions{sessionTimeout: 30 * time.Second, ioTimeout: 30 * time.Second}
	c, err := dial(addr, opts)
	if err != nil {
		return err
	}
	err = createAll(c, dirs, nil, deadline)
	c.close()
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	errs := make([]error, populateSessions)
	for s := 0; s < populateSessions; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := dial(addr, opts)
			if err != nil {
				errs[s] = err
				return
			}
			defer c.close()
			var paths []string
			for i := from + s; i < to; i += populateSessions {
				paths = append(paths, footprintPath(i))
			}
			for len(paths) > 0 && ctx.Err() == nil {
				chunk := paths[:min(len(paths), 10_000)]
				paths = paths[len(chunk):]
				if errs[s] = createAll(c, chunk, value, deadline); errs[s] != nil {
					return
				}
			}
			if errs[s] == nil {
				errs[s] = ctx.Err()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkPopulated reads the last znode back, so a restart that lost data
// does not pass for a fast one.
func checkPopulated(addr string, n int) error {
	c, err := dial(addr, dialOptions{sessionTimeout: 30 * time.Second, ioTimeout: 30 * time.Second})
	if err != nil {
		return err
	}
	defer c.close()
	path := footprintPath(n - 1)
	rep, err := c.call(proto.OpExists, &proto.ExistsRequest{Path: path})
	if err != nil {
		return err
	}
	if rep.err != proto.ErrOK {
		return fmt.Errorf("exists %s: %s", path, rep.err.Name())
	}
	var st proto.ExistsResponse
	return jute.Unmarshal(rep.body, &st)
}

func ms(d time.Duration) float64 { return round1(float64(d) / float64(time.Millisecond)) }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return round1((s[len(s)/2-1] + s[len(s)/2]) / 2)
}

func footprintRatios(gozk, java *Footprint) []FootprintRatio {
	var out []FootprintRatio
	add := func(what, unit string, g, j float64) {
		if g > 0 && j > 0 {
			out = append(out, FootprintRatio{What: what, Unit: unit, Gozk: g, Java: j, Ratio: float64(int64(g/j*1000+0.5)) / 1000})
		}
	}
	add("empty start to first answer (median)", "ms", gozk.StartupMedianMs, java.StartupMedianMs)
	add("RSS empty", "MiB", mibf(gozk.EmptyRSSBytes), mibf(java.EmptyRSSBytes))
	for i, g := range gozk.Memory {
		if i < len(java.Memory) && java.Memory[i].Znodes == g.Znodes {
			j := java.Memory[i]
			add(fmt.Sprintf("RSS with %d znodes", g.Znodes), "MiB", mibf(g.RSSBytes), mibf(j.RSSBytes))
			add(fmt.Sprintf("peak RSS populating %d znodes", g.Znodes), "MiB", mibf(g.PeakRSSBytes), mibf(j.PeakRSSBytes))
		}
	}
	if gozk.RestartZnodes == java.RestartZnodes {
		add(fmt.Sprintf("restart to first answer with %d znodes", gozk.RestartZnodes), "ms", gozk.RestartMs, java.RestartMs)
		add(fmt.Sprintf("RSS after restart with %d znodes", gozk.RestartZnodes), "MiB", mibf(gozk.RestartRSSBytes), mibf(java.RestartRSSBytes))
	}
	return out
}

func mibf(b int64) float64 { return round1(float64(b) / (1 << 20)) }

// WriteFootprintRatios writes the footprint comparison table.
func WriteFootprintRatios(w io.Writer, ratios []FootprintRatio) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "measure\tunit\tgozk\tjava\tratio\t")
	for _, r := range ratios {
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f\t%.3f\t\n", r.What, r.Unit, r.Gozk, r.Java, r.Ratio)
	}
	tw.Flush()
}
