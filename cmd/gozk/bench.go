package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/gozk/gozk/bench"
)

// benchCommand is `gozk bench`: one workload against one server, or
// `gozk bench compare`: a grid against Java ZooKeeper and gozk side by side.
func benchCommand() *cli.Command {
	d := bench.Defaults()
	workloads := ""
	for _, w := range bench.Workloads {
		workloads += fmt.Sprintf("\n   %-17s %s", w.Name, w.Op)
	}
	return &cli.Command{
		Name:      "bench",
		Usage:     "drive a ZooKeeper server (gozk or Apache) with a workload and report throughput and latency",
		UsageText: "gozk bench [options]\n   gozk bench compare [options]\n   gozk bench ensemble [options]",
		Description: "Each session is one connection; in-flight is the number of requests it keeps outstanding\n" +
			"(pipelined on that connection). Workloads:" + workloads,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "server", Value: d.Server, Usage: "client address host:port"},
			&cli.StringFlag{Name: "workload", Aliases: []string{"w"}, Value: d.Workload, Usage: "workload (see above)"},
			&cli.IntFlag{Name: "sessions", Aliases: []string{"s"}, Value: d.Sessions, Usage: "connections, each a session"},
			&cli.IntFlag{Name: "inflight", Aliases: []string{"i"}, Value: d.InFlight, Usage: "outstanding requests per session"},
			&cli.IntFlag{Name: "value-size", Value: d.ValueSize, Usage: "bytes of data per created or written node"},
			&cli.DurationFlag{Name: "duration", Aliases: []string{"d"}, Usage: "length of the measured phase (default 10s unless --ops)"},
			&cli.Int64Flag{Name: "ops", Usage: "number of measured operations (with --duration, whichever ends first)"},
			&cli.DurationFlag{Name: "warmup", Value: d.Warmup, Usage: "unmeasured load before the measured phase"},
			&cli.Float64Flag{Name: "read-ratio", Value: d.ReadRatio, Usage: "share of reads in the mixed workload"},
			&cli.IntFlag{Name: "watchers", Value: d.Watchers, Usage: "sessions watching the node in the watch workload"},
			&cli.IntFlag{Name: "keys", Value: d.Keys, Usage: "pre-created nodes read and written"},
			&cli.IntFlag{Name: "multi-ops", Value: d.MultiOps, Usage: "setData operations per multi"},
			&cli.IntFlag{Name: "pid", Usage: "server process id: report its CPU time per op and RSS (Linux)"},
			&cli.StringFlag{Name: "label", Usage: "name of the server in the report"},
			&cli.StringFlag{Name: "client", Value: bench.ClientPipelined, Usage: "pipelined (the bench's own) or go-zookeeper (cross-check; not for connect and watch)"},
			&cli.BoolFlag{Name: "json", Usage: "print the result as JSON"},
		},
		Action:      runBench,
		Subcommands: []*cli.Command{benchCompareCommand(), benchEnsembleCommand()},
	}
}

// signalContext is cancelled by SIGINT or SIGTERM, so that a run stops
// issuing requests, drains and cleans up.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func runBench(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return cli.Exit(fmt.Sprintf("unexpected argument %q", c.Args().First()), exitUsage)
	}
	cfg := bench.Config{
		Server:    c.String("server"),
		Workload:  c.String("workload"),
		Sessions:  c.Int("sessions"),
		InFlight:  c.Int("inflight"),
		ValueSize: c.Int("value-size"),
		Duration:  c.Duration("duration"),
		Ops:       c.Int64("ops"),
		Warmup:    c.Duration("warmup"),
		ReadRatio: c.Float64("read-ratio"),
		Watchers:  c.Int("watchers"),
		Keys:      c.Int("keys"),
		MultiOps:  c.Int("multi-ops"),
		PID:       c.Int("pid"),
		Label:     c.String("label"),
		Client:    c.String("client"),
	}
	if cfg.Sessions <= 0 || cfg.InFlight <= 0 || cfg.Watchers <= 0 || cfg.Keys <= 0 || cfg.MultiOps <= 0 {
		return cli.Exit("--sessions, --inflight, --watchers, --keys and --multi-ops must be positive", exitUsage)
	}
	ctx, stop := signalContext()
	defer stop()
	res, err := bench.Run(ctx, cfg)
	if err != nil {
		return cli.Exit(err.Error(), exitRuntime)
	}
	if c.Bool("json") {
		return bench.WriteJSON(os.Stdout, res)
	}
	res.WriteText(os.Stdout)
	return nil
}

// benchCompareCommand is `gozk bench compare`.
func benchCompareCommand() *cli.Command {
	d := bench.Defaults()
	return &cli.Command{
		Name:  "compare",
		Usage: "start Apache ZooKeeper and gozk side by side, run a grid of workloads against each and print gozk/Java ratios",
		Description: "Both servers run standalone on loopback ports with the same zoo.cfg (tickTime, forceSync,\n" +
			"maxClientCnxns=0) and data directories under --dir, on the same disk. Each grid cell runs\n" +
			"against both, alternating which goes first. Results are saved as JSON under --out.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "gozk", Usage: "gozk binary to benchmark (default: this one)"},
			&cli.StringFlag{Name: "gozk-log-level", Value: "warn", Usage: "--log-level of the gozk server (Java logs nothing)"},
			&cli.StringFlag{Name: "java", Usage: "java binary (default: $JAVA_HOME/bin/java, else java on PATH)"},
			&cli.StringFlag{Name: "zk-lib", Value: "/usr/share/java", EnvVars: []string{"GOZK_ZOOKEEPER_LIB"}, Usage: "directory of the ZooKeeper 3.8.0 jars"},
			&cli.StringFlag{Name: "zk-classpath", EnvVars: []string{"GOZK_ZOOKEEPER_CLASSPATH"}, Usage: "complete ZooKeeper class path (overrides --zk-lib)"},
			&cli.StringFlag{Name: "jvm-args", Value: "-Xmx1000m", Usage: "JVM arguments of the Java server"},
			&cli.IntFlag{Name: "tick-time", Value: 2000, Usage: "tickTime of both servers (ms)"},
			&cli.BoolFlag{Name: "force-sync", Value: true, Usage: "forceSync of both servers"},
			&cli.StringFlag{Name: "dir", Value: ".bench", Usage: "where the servers' data directories go (removed afterwards unless --keep)"},
			&cli.StringFlag{Name: "out", Value: ".bench", Usage: "directory for the JSON results"},
			&cli.BoolFlag{Name: "keep", Usage: "keep the servers' directories and logs"},
			&cli.StringFlag{Name: "workloads", Value: "get,set,create,mixed,connect,watch", Usage: "comma-separated workloads"},
			&cli.StringFlag{Name: "shapes", Value: "1x1,16x1,64x4", Usage: "comma-separated sessions x in-flight"},
			&cli.IntFlag{Name: "watchers", Value: d.Watchers, Usage: "fan-out of the watch workload"},
			&cli.IntFlag{Name: "value-size", Value: d.ValueSize, Usage: "bytes of data per node"},
			&cli.Float64Flag{Name: "read-ratio", Value: d.ReadRatio, Usage: "share of reads in the mixed workload"},
			&cli.DurationFlag{Name: "duration", Value: 5 * time.Second, Usage: "measured phase of each run"},
			&cli.DurationFlag{Name: "warmup", Value: time.Second, Usage: "unmeasured load before each run"},
			&cli.DurationFlag{Name: "server-warmup", Value: 5 * time.Second, Usage: "mixed load given to each server before the grid"},
			&cli.StringFlag{Name: "client", Value: bench.ClientPipelined, Usage: "pipelined or go-zookeeper (connect and watch always use pipelined)"},
			&cli.BoolFlag{Name: "json", Usage: "print the comparison as JSON instead of tables"},
			&cli.BoolFlag{Name: "footprint", Usage: "also time empty start-ups, sample memory holding --znodes znodes and time a restart with the most"},
			&cli.StringFlag{Name: "znodes", Value: "100000,1000000", Usage: "znode counts of the footprint's memory samples, ascending"},
			&cli.IntFlag{Name: "startup-runs", Value: 5, Usage: "empty start-ups per server in the footprint (the median is reported)"},
			&cli.StringFlag{Name: "footprint-jvm-args", Value: "-Xmx3g", Usage: "JVM arguments of the Java server in the footprint (room for the largest count)"},
		},
		Action: runBenchCompare,
	}
}

func runBenchCompare(c *cli.Context) error {
	shapes, err := bench.ParseShapes(c.String("shapes"))
	if err != nil {
		return cli.Exit(err.Error(), exitUsage)
	}
	var workloads []string
	for _, w := range strings.Split(c.String("workloads"), ",") {
		if w = strings.TrimSpace(w); w != "" {
			workloads = append(workloads, w)
		}
	}
	gozkBin := c.String("gozk")
	if gozkBin == "" {
		if gozkBin, err = os.Executable(); err != nil {
			return cli.Exit(err.Error(), exitRuntime)
		}
	}
	java := javaBinary(c.String("java"))
	var classpath []string
	if cp := c.String("zk-classpath"); cp != "" {
		classpath = filepath.SplitList(cp)
	} else if classpath, err = bench.JavaClasspath(c.String("zk-lib")); err != nil {
		return cli.Exit(err.Error()+" (set --zk-lib or --zk-classpath; Debian: apt-get install zookeeper)", exitUsage)
	}
	base := bench.Config{
		ValueSize: c.Int("value-size"),
		ReadRatio: c.Float64("read-ratio"),
		Duration:  c.Duration("duration"),
		Warmup:    c.Duration("warmup"),
		Client:    c.String("client"),
	}
	cc := bench.CompareConfig{
		Gozk:         gozkBin,
		GozkLogLevel: c.String("gozk-log-level"),
		Java:         bench.JavaServer{Java: java, Classpath: classpath, JVMArgs: strings.Fields(c.String("jvm-args"))},
		Settings:     bench.ServerSettings{Dir: c.String("dir"), TickTime: c.Int("tick-time"), ForceSync: c.Bool("force-sync")},
		Cells:        bench.Grid(workloads, shapes, c.Int("watchers")),
		Base:         base,
		ServerWarmup: c.Duration("server-warmup"),
		Keep:         c.Bool("keep"),
		Progress:     os.Stderr,
	}
	for _, w := range workloads {
		if err := bench.CheckWorkload(w); err != nil {
			return cli.Exit(err.Error(), exitUsage)
		}
	}
	var znodes []int
	for _, f := range strings.Split(c.String("znodes"), ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 || (len(znodes) > 0 && n <= znodes[len(znodes)-1]) {
			return cli.Exit(fmt.Sprintf("--znodes: %q is not an ascending list of positive counts", c.String("znodes")), exitUsage)
		}
		znodes = append(znodes, n)
	}
	ctx, stop := signalContext()
	defer stop()
	cmp, err := bench.Compare(ctx, cc)
	if err == nil && c.Bool("footprint") {
		fc := bench.FootprintConfig{
			Gozk:         gozkBin,
			GozkLogLevel: cc.GozkLogLevel,
			Java:         bench.JavaServer{Java: java, Classpath: classpath, JVMArgs: strings.Fields(c.String("footprint-jvm-args"))},
			Settings:     cc.Settings,
			StartupRuns:  c.Int("startup-runs"),
			Znodes:       znodes,
			ValueSize:    base.ValueSize,
			Settle:       2 * time.Second,
			Keep:         cc.Keep,
			Progress:     os.Stderr,
		}
		cmp.Footprints, cmp.FootprintRatios, err = bench.MeasureFootprints(ctx, fc)
	}
	if cmp != nil && (len(cmp.Results) > 0 || len(cmp.Footprints) > 0) {
		path, serr := cmp.SaveJSON(c.String("out"))
		if serr != nil {
			fmt.Fprintln(os.Stderr, "gozk: saving the results:", serr)
		} else {
			fmt.Fprintln(os.Stderr, "results saved in", path)
		}
		if c.Bool("json") {
			bench.WriteJSON(os.Stdout, cmp)
		} else {
			fmt.Println()
			bench.WriteTable(os.Stdout, cmp.Results)
			fmt.Println()
			bench.WriteRatios(os.Stdout, cmp.Ratios)
			if len(cmp.FootprintRatios) > 0 {
				fmt.Println()
				bench.WriteFootprintRatios(os.Stdout, cmp.FootprintRatios)
			}
		}
	}
	if err != nil {
		return cli.Exit(err.Error(), exitRuntime)
	}
	return nil
}

// javaBinary picks java: the flag, else $JAVA_HOME/bin/java, else PATH.
func javaBinary(flag string) string {
	if flag != "" {
		return flag
	}
	if home := os.Getenv("JAVA_HOME"); home != "" {
		return filepath.Join(home, "bin", "java")
	}
	return "java"
}
