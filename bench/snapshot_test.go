package bench

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/gozk/gozk/compat/gozkproc"
)

var (
	snapBench = flag.Bool("snapbench", false,
		"run the snapshot and recovery benchmark (gozk and Apache ZooKeeper 3.8.0 on this machine)")
	snapServers   = flag.String("snapbench.servers", "gozk,java", "servers to measure")
	snapZnodes    = flag.Int("snapbench.znodes", 1_000_000, "znodes in the tree")
	snapValueSize = flag.Int("snapbench.value-size", 100, "bytes of data per znode")
	snapWrites    = flag.Int("snapbench.writes", 300_000, "setData requests while snapshots run")
	snapInFlight  = flag.Int("snapbench.inflight", 32, "requests outstanding")
	snapCount     = flag.Int("snapbench.snapcount", 100_000, "zoo.cfg snapCount")
	snapForceSync = flag.Bool("snapbench.force-sync", true, "forceSync")
	snapJVMArgs   = flag.String("snapbench.jvm-args", "-Xmx4g", "JVM arguments of Apache ZooKeeper")
	snapZKLib     = flag.String("snapbench.zk-lib", "/usr/share/java", "directory of ZooKeeper's jars")
	snapDir       = flag.String("snapbench.dir", "", "where the servers' data goes (default: a temporary directory)")
	snapJSON      = flag.String("snapbench.json", "", "also write the figures as JSON to this file")
)

// TestSnapshotBench is the snapshot and recovery benchmark (see
// SnapshotBench); it runs only with -snapbench, for example
//
//	go test ./bench -run TestSnapshotBench -snapbench -timeout 60m -v
//
// and prints, per server: time to snapshot the full tree, write latency
// (p99, max) while a snapshot runs and outside, disk usage, restart time
// to the first answer and RSS after it.
func TestSnapshotBench(t *testing.T) {
	if !*snapBench {
		t.Skip("the snapshot benchmark runs only with -snapbench")
	}
	bin, err := gozkproc.Binary()
	if err != nil {
		t.Fatal(err)
	}
	classpath, err := JavaClasspath(*snapZKLib)
	if err != nil && strings.Contains(*snapServers, "java") {
		t.Fatal(err)
	}
	dir := *snapDir
	if dir == "" {
		dir = t.TempDir()
	}
	cfg := SnapshotBenchConfig{
		Gozk: bin, GozkLogLevel: "info",
		Java:     JavaServer{Java: "java", Classpath: classpath, JVMArgs: strings.Fields(*snapJVMArgs)},
		Settings: ServerSettings{Dir: dir, TickTime: 2000, ForceSync: *snapForceSync},
		Znodes:   *snapZnodes, ValueSize: *snapValueSize,
		Writes: *snapWrites, InFlight: *snapInFlight, SnapCount: *snapCount,
		Progress: os.Stderr,
	}
	var figs []*SnapshotFigures
	for _, server := range strings.Split(*snapServers, ",") {
		ctx, cancel := context.WithTimeout(context.Background(), 45*time.Minute)
		fig, err := SnapshotBench(ctx, cfg, strings.TrimSpace(server))
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", server, err)
		}
		figs = append(figs, fig)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "server\tznodes\tsnapshots\tsnapshot ms\twrite p99 during\tmax during\tp99 outside\tmax outside\tdisk MiB\trecovery ms\trecovery CPU s\tRSS MiB\tRSS +5s MiB\t\n")
	for _, f := range figs {
		var ms []string
		for _, w := range f.Snapshots {
			ms = append(ms, fmt.Sprintf("%.0f", w.Ms))
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%.1fms\t%.1fms\t%.1fms\t%.1fms\t%d\t%.0f\t%.1f\t%d\t%d\t\n", f.Server, f.Znodes, len(f.Snapshots),
			strings.Join(ms, ","), float64(f.During.P99Us)/1000, float64(f.During.MaxUs)/1000,
			float64(f.Outside.P99Us)/1000, float64(f.Outside.MaxUs)/1000,
			f.DiskBytes>>20, f.RecoveryMs, f.RecoveryCPUSeconds, f.RSSAfterRecovery>>20, f.RSSAfterRecoverySettled>>20)
	}
	tw.Flush()
	if *snapJSON != "" {
		b, _ := json.MarshalIndent(figs, "", "  ")
		if err := os.WriteFile(*snapJSON, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
