package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// SnapshotBenchConfig describes the snapshot and recovery benchmark: fill a
// server with Znodes znodes (a two-level tree, 1000 children per parent),
// keep writing while the server snapshots the full tree (zoo.cfg's
// snapCount decides when, as in production), then restart it.
type SnapshotBenchConfig struct {
	Gozk         string
	GozkLogLevel string
	// Java is how Apache ZooKeeper starts. Its log lines time the
	// snapshots, so SnapshotBench adds a log4j binding and configuration
	// when the classpath has none (Debian's zookeeper.jar logs nothing).
	Java     JavaServer
	Settings ServerSettings // Dir is the parent of the servers' dirs
	// Znodes to create; ValueSize bytes of data each.
	Znodes    int
	ValueSize int
	// Writes is the number of setData requests of the measured phase,
	// InFlight of them outstanding. Snapshots starting while it runs are
	// measured; SnapCount (zoo.cfg snapCount) should make at least one.
	Writes    int
	InFlight  int
	SnapCount int
	Progress  io.Writer
}

// SnapshotFigures are the results for one server.
type SnapshotFigures struct {
	Server  string `json:"server"`
	Znodes  int    `json:"znodes"`
	JVMArgs string `json:"jvm_args,omitempty"`
	// PopulateSeconds is the time the creates took.
	PopulateSeconds float64 `json:"populate_seconds"`
	// Snapshots are the snapshots of the full tree taken during the
	// measured writes, as the server's log announced their start and end.
	Snapshots []SnapshotWindow `json:"snapshots"`
	// During: writes that were outstanding while a snapshot ran;
	// Outside: the other writes of the measured phase.
	During  Summary `json:"writes_during_snapshot"`
	Outside Summary `json:"writes_outside_snapshot"`
	// DiskBytes is the space the data directory takes (allocated blocks,
	// as du counts them) after the measured phase.
	DiskBytes int64 `json:"disk_bytes"`
	// RecoveryMs is SIGTERM-restart to the first request answered;
	// RecoveryCPUSeconds the CPU time the new process had used by then
	// (user and system, all threads), which a busy machine does not
	// inflate the way it does the wall time.
	RecoveryMs         float64 `json:"recovery_ms"`
	RecoveryCPUSeconds float64 `json:"recovery_cpu_seconds"`
	// RSS right after recovery (first answer) and 5s later.
	RSSAfterRecovery        int64 `json:"rss_after_recovery_bytes"`
	RSSAfterRecoverySettled int64 `json:"rss_after_recovery_settled_bytes"`
}

// SnapshotWindow is one snapshot seen in the server's log.
type SnapshotWindow struct {
	Ms     float64 `json:"ms"`
	Writes uint64  `json:"writes"`
}

// snapshotMarkers are the log lines that start and end a snapshot.
var snapshotMarkers = map[string][2]string{
	"gozk": {"taking a snapshot", "snapshot taken"},
	"java": {"Snapshotting: 0x", "Snapshot taken in"},
}

// SnapshotBench runs the benchmark against one server ("gozk" or "java").
func SnapshotBench(ctx context.Context, cfg SnapshotBenchConfig, server string) (*SnapshotFigures, error) {
	settings := cfg.Settings
	settings.Dir = filepath.Join(cfg.Settings.Dir, "snapshot-"+server)
	if err := os.RemoveAll(settings.Dir); err != nil {
		return nil, err
	}
	progress := func(format string, args ...any) {
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, server+": "+format+"\n", args...)
		}
	}
	fig := &SnapshotFigures{Server: server, Znodes: cfg.Znodes}
	var p *ServerProcess
	var err error
	switch server {
	case "gozk":
		p, err = StartGozk(ctx, cfg.Gozk, cfg.GozkLogLevel, settings)
	case "java":
		j := withJavaLogging(cfg.Java, settings.Dir)
		fig.JVMArgs = strings.Join(j.JVMArgs, " ")
		p, err = StartJava(ctx, j, settings)
	default:
		return nil, fmt.Errorf("unknown server %q", server)
	}
	if err != nil {
		return nil, err
	}
	defer p.Stop()
	// snapCount is not one of the shared settings: add it and restart
	// the (still empty) server on it.
	if err := appendConfig(p.cfgPath, fmt.Sprintf("snapCount=%d", cfg.SnapCount)); err != nil {
		return nil, err
	}
	if err := p.Restart(ctx); err != nil {
		return nil, err
	}

	began := time.Now()
	if err := populate(p.Addr, cfg.Znodes, cfg.ValueSize, cfg.InFlight); err != nil {
		return nil, fmt.Errorf("populating %s: %w", server, err)
	}
	fig.PopulateSeconds = time.Since(began).Seconds()
	progress("%d znodes in %.1fs", cfg.Znodes, fig.PopulateSeconds)

	markers := snapshotMarkers[server]
	tail, err := startLogTail(p.LogPath, markers[0], markers[1])
	if err != nil {
		return nil, err
	}
	lat, err := writeStorm(p.Addr, cfg.Znodes, cfg.ValueSize, cfg.Writes, cfg.InFlight)
	windows := tail.stop()
	if err != nil {
		return nil, fmt.Errorf("writing to %s: %w", server, err)
	}
	var during, outside Histogram
	for _, w := range windows {
		win := SnapshotWindow{Ms: float64(w.end.Sub(w.start).Microseconds()) / 1000}
		for _, l := range lat {
			if l.start.Before(w.end) && l.end.After(w.start) {
				win.Writes++
			}
		}
		fig.Snapshots = append(fig.Snapshots, win)
	}
	for _, l := range lat {
		in := false
		for _, w := range windows {
			if l.start.Before(w.end) && l.end.After(w.start) {
				in = true
				break
			}
		}
		if in {
			during.Record(l.end.Sub(l.start))
		} else {
			outside.Record(l.end.Sub(l.start))
		}
	}
	fig.During, fig.Outside = during.Summary(), outside.Summary()
	progress("%d writes, %d snapshots seen %v; during: p99 %dus max %dus; outside: p99 %dus max %dus",
		len(lat), len(windows), fig.Snapshots, fig.During.P99Us, fig.During.MaxUs, fig.Outside.P99Us, fig.Outside.MaxUs)

	// Let a snapshot still running finish before measuring the disk.
	time.Sleep(2 * time.Second)
	if fig.DiskBytes, err = diskUsage(filepath.Join(settings.Dir, "data")); err != nil {
		return nil, err
	}
	if err := p.Restart(ctx); err != nil {
		return nil, err
	}
	fig.RecoveryMs = float64(p.StartedIn.Microseconds()) / 1000
	if cpu, err := procCPU(p.PID); err == nil {
		fig.RecoveryCPUSeconds = cpu.Seconds()
	}
	fig.RSSAfterRecovery, _, _ = procMemory(p.PID)
	time.Sleep(5 * time.Second)
	fig.RSSAfterRecoverySettled, _, _ = procMemory(p.PID)
	progress("disk %d MiB, recovery %.0f ms (%.1f CPU s), RSS %d MiB (%d MiB after 5s)", fig.DiskBytes>>20, fig.RecoveryMs, fig.RecoveryCPUSeconds,
		fig.RSSAfterRecovery>>20, fig.RSSAfterRecoverySettled>>20)
	return fig, nil
}

// withJavaLogging makes Apache ZooKeeper log at INFO to stdout (the
// process log): log4j 1.2 through slf4j, as Debian's zkServer.sh sets it up.
func withJavaLogging(j JavaServer, dir string) JavaServer {
	const binding, log4j = "/usr/share/java/slf4j-log4j12.jar", "/usr/share/java/log4j-1.2.jar"
	if !fileExists(binding) || !fileExists(log4j) {
		return j
	}
	props := filepath.Join(dir, "log4j.properties")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(props, []byte("log4j.rootLogger=INFO, CONSOLE\n"+
		"log4j.appender.CONSOLE=org.apache.log4j.ConsoleAppender\n"+
		"log4j.appender.CONSOLE.layout=org.apache.log4j.PatternLayout\n"+
		"log4j.appender.CONSOLE.layout.ConversionPattern=%d{ISO8601} - %-5p [%t:%C{1}@%L] - %m%n\n"), 0o644)
	j.Classpath = append(append([]string(nil), j.Classpath...), binding, log4j)
	args := j.JVMArgs
	if args == nil {
		args = []string{"-Xmx1000m"}
	}
	j.JVMArgs = append(append([]string(nil), args...), "-Dlog4j.configuration=file:"+props)
	return j
}

func appendConfig(path string, lines ...string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(strings.Join(lines, "\n") + "\n")
	return errors.Join(err, f.Close())
}

// snapPath names znode i of the two-level benchmark tree.
func snapPath(i int) string {
	return fmt.Sprintf("/snapbench/d%04d/n%04d", i/1000, i%1000)
}

// populate creates /snapbench, its directories and n znodes of size bytes.
func populate(addr string, n, size, inflight int) error {
	c, err := dial(addr, dialOptions{sessionTimeout: 30 * time.Second, ioTimeout: 30 * time.Second})
	if err != nil {
		return err
	}
	defer c.close()
	pool := randomPool(size)
	rng := rand.New(rand.NewPCG(3, 4))
	var reqs []string
	reqs = append(reqs, "/snapbench")
	for i := 0; i < n; i++ {
		if i%1000 == 0 {
			reqs = append(reqs, fmt.Sprintf("/snapbench/d%04d", i/1000))
		}
		reqs = append(reqs, snapPath(i))
	}
	_, err = pipelineTimed(c, len(reqs), inflight, func(i int) (proto.OpCode, jute.Record) {
		return proto.OpCreate, &proto.CreateRequest{Path: reqs[i], Data: pool.pick(rng), Acl: proto.OpenACLUnsafe}
	})
	return err
}

// timed is one request's issue and reply time.
type timed struct{ start, end time.Time }

// writeStorm sets the data of random znodes of the tree, inflight at a
// time, and returns every write's timing.
func writeStorm(addr string, n, size, writes, inflight int) ([]timed, error) {
	c, err := dial(addr, dialOptions{sessionTimeout: 30 * time.Second, ioTimeout: 30 * time.Second})
	if err != nil {
		return nil, err
	}
	defer c.close()
	pool := randomPool(size)
	rng := rand.New(rand.NewPCG(1, 2))
	return pipelineTimed(c, writes, inflight, func(int) (proto.OpCode, jute.Record) {
		return proto.OpSetData, &proto.SetDataRequest{Path: snapPath(rng.IntN(n)), Data: pool.pick(rng), Version: -1}
	})
}

// dataPool hands out values of one size cut from random bytes, so that
// neither server's storage gains from compressing repeated data.
type dataPool struct {
	buf  []byte
	size int
}

func randomPool(size int) dataPool {
	rng := rand.New(rand.NewPCG(5, 6))
	buf := make([]byte, 1<<20+size)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	return dataPool{buf, size}
}

func (p dataPool) pick(rng *rand.Rand) []byte {
	at := rng.IntN(len(p.buf) - p.size + 1)
	return p.buf[at : at+p.size : at+p.size]
}

// pipelineTimed issues total requests keeping inflight outstanding and
// times each; any error reply fails it.
func pipelineTimed(c *conn, total, inflight int, build func(i int) (proto.OpCode, jute.Record)) ([]timed, error) {
	out := make([]timed, 0, total)
	var sent []time.Time
	issued := 0
	for len(out) < total {
		for issued < total && issued-len(out) < inflight {
			op, rec := build(issued)
			c.queue(op, rec)
			sent = append(sent, time.Now())
			issued++
		}
		if err := c.flush(); err != nil {
			return out, err
		}
		for {
			r, err := c.readReply()
			if err != nil {
				return out, err
			}
			if r.xid == xidNotification || r.xid == xidPing {
				continue
			}
			if r.err != proto.ErrOK {
				return out, fmt.Errorf("request %d: %s", len(out), r.err.Name())
			}
			out = append(out, timed{sent[len(out)], time.Now()})
			if !c.frameBuffered() {
				break
			}
		}
	}
	return out, nil
}

// logTail watches a server log for snapshot start and end lines, stamping
// each with the time it appeared (polled every millisecond).
type logTail struct {
	path, startMark, endMark string
	off                      int64
	done                     chan struct{}
	wg                       sync.WaitGroup
	mu                       sync.Mutex // guards windows and open
	windows                  []window
	open                     *time.Time
}

type window struct{ start, end time.Time }

func startLogTail(path, startMark, endMark string) (*logTail, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	t := &logTail{path: path, startMark: startMark, endMark: endMark, off: st.Size(), done: make(chan struct{})}
	t.wg.Add(1)
	go t.run()
	return t, nil
}

func (t *logTail) run() {
	defer t.wg.Done()
	var partial []byte
	for {
		select {
		case <-t.done:
			return
		case <-time.After(time.Millisecond):
		}
		f, err := os.Open(t.path)
		if err != nil {
			continue
		}
		f.Seek(t.off, io.SeekStart)
		b, _ := io.ReadAll(f)
		f.Close()
		if len(b) == 0 {
			continue
		}
		now := time.Now()
		t.off += int64(len(b))
		partial = append(partial, b...)
		for {
			i := bytes.IndexByte(partial, '\n')
			if i < 0 {
				break
			}
			line := string(partial[:i])
			partial = partial[i+1:]
			t.mu.Lock()
			switch {
			case strings.Contains(line, t.startMark):
				t.open = &now
			case strings.Contains(line, t.endMark) && t.open != nil:
				t.windows = append(t.windows, window{*t.open, now})
				t.open = nil
			}
			t.mu.Unlock()
		}
	}
}

// stop ends the tail, waiting for a snapshot that is still running.
func (t *logTail) stop() []window {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		time.Sleep(50 * time.Millisecond)
		t.mu.Lock()
		running := t.open != nil
		t.mu.Unlock()
		if !running || time.Now().After(deadline) {
			break
		}
	}
	close(t.done)
	t.wg.Wait()
	return t.windows
}

// diskUsage sums the blocks allocated to the files under dir.
func diskUsage(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			total += st.Blocks * 512
		} else {
			total += info.Size()
		}
		return nil
	})
	return total, err
}
