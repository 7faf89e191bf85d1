package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/gozk/gozk/bench"
)

// benchEnsembleCommand is `gozk bench ensemble`.
func benchEnsembleCommand() *cli.Command {
	d := bench.Defaults()
	return &cli.Command{
		Name:  "ensemble",
		Usage: "start a 3-server gozk ensemble, then a 3-server Apache ZooKeeper one, run a grid and leader failovers against each and print gozk/Java ratios",
		Description: "One ensemble runs at a time, its members on loopback ports with the same zoo.cfg (tickTime,\n" +
			"initLimit, syncLimit, forceSync, maxClientCnxns=0) and data directories under --dir. Once srvr\n" +
			"shows a leader and two followers, each cell of the grid runs with its sessions spread over the\n" +
			"followers, then with all of them on the leader (--placements). Then the leader is killed with\n" +
			"SIGKILL --failovers times while one session per member writes in a loop, timing the first\n" +
			"acknowledged write on an existing session and on a new one (connect + create); the killed\n" +
			"member is restarted before the next. Results are saved as JSON under --out.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "gozk", Usage: "gozk binary to benchmark (default: this one)"},
			&cli.StringFlag{Name: "gozk-log-level", Value: "warn", Usage: "--log-level of the gozk members (Java logs nothing)"},
			&cli.StringFlag{Name: "gozk-cpuprofile", Usage: "write each gozk member's CPU profile, start to shutdown, to this path with the member id appended (a killed leader writes none)"},
			&cli.StringFlag{Name: "java", Usage: "java binary (default: $JAVA_HOME/bin/java, else java on PATH)"},
			&cli.StringFlag{Name: "zk-lib", Value: "/usr/share/java", EnvVars: []string{"GOZK_ZOOKEEPER_LIB"}, Usage: "directory of the ZooKeeper 3.8.0 jars"},
			&cli.StringFlag{Name: "zk-classpath", EnvVars: []string{"GOZK_ZOOKEEPER_CLASSPATH"}, Usage: "complete ZooKeeper class path (overrides --zk-lib)"},
			&cli.StringFlag{Name: "jvm-args", Value: "-Xmx256m", Usage: "JVM arguments of each Java member"},
			&cli.StringFlag{Name: "servers", Value: "gozk,java", Usage: "ensembles to run, in order (ratios need both)"},
			&cli.IntFlag{Name: "tick-time", Value: 2000, Usage: "tickTime of every member (ms)"},
			&cli.IntFlag{Name: "init-limit", Value: 10, Usage: "initLimit of every member (ticks)"},
			&cli.IntFlag{Name: "sync-limit", Value: 5, Usage: "syncLimit of every member (ticks)"},
			&cli.BoolFlag{Name: "force-sync", Value: true, Usage: "forceSync of every member"},
			&cli.StringFlag{Name: "dir", Value: ".bench", Usage: "where the members' directories go (removed afterwards unless --keep)"},
			&cli.StringFlag{Name: "out", Value: ".bench", Usage: "directory for the JSON results"},
			&cli.BoolFlag{Name: "keep", Usage: "keep the members' directories and logs"},
			&cli.StringFlag{Name: "workloads", Value: "create,set,get,mixed", Usage: "comma-separated request workloads"},
			&cli.StringFlag{Name: "shapes", Value: "16x1,64x4", Usage: "comma-separated sessions x in-flight"},
			&cli.StringFlag{Name: "placements", Value: "followers,leader", Usage: "where each cell's sessions connect: followers (spread over both), leader"},
			&cli.IntFlag{Name: "value-size", Value: d.ValueSize, Usage: "bytes of data per node"},
			&cli.Float64Flag{Name: "read-ratio", Value: d.ReadRatio, Usage: "share of reads in the mixed workload"},
			&cli.DurationFlag{Name: "duration", Value: 5 * time.Second, Usage: "measured phase of each run"},
			&cli.DurationFlag{Name: "warmup", Value: time.Second, Usage: "unmeasured load before each run"},
			&cli.DurationFlag{Name: "server-warmup", Value: 5 * time.Second, Usage: "mixed load given to each ensemble before the grid"},
			&cli.IntFlag{Name: "failovers", Value: 3, Usage: "leader kills per ensemble (the median is reported; 0 skips them)"},
			&cli.DurationFlag{Name: "failover-limit", Value: time.Minute, Usage: "longest wait for the writes after a kill"},
			&cli.BoolFlag{Name: "json", Usage: "print the comparison as JSON instead of tables"},
		},
		Action: runBenchEnsemble,
	}
}

// splitList reads a comma-separated flag, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func runBenchEnsemble(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return cli.Exit(fmt.Sprintf("unexpected argument %q", c.Args().First()), exitUsage)
	}
	shapes, err := bench.ParseShapes(c.String("shapes"))
	if err != nil {
		return cli.Exit(err.Error(), exitUsage)
	}
	workloads, placements, servers := splitList(c.String("workloads")), splitList(c.String("placements")), splitList(c.String("servers"))
	if err := bench.CheckEnsembleGrid(workloads, placements); err != nil {
		return cli.Exit(err.Error(), exitUsage)
	}
	needJava := false
	for _, s := range servers {
		switch s {
		case "gozk":
		case "java":
			needJava = true
		default:
			return cli.Exit(fmt.Sprintf("--servers: unknown server %q (gozk or java)", s), exitUsage)
		}
	}
	if c.Int("failovers") < 0 {
		return cli.Exit("--failovers must not be negative", exitUsage)
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
	} else if classpath, err = bench.JavaClasspath(c.String("zk-lib")); err != nil && needJava {
		return cli.Exit(err.Error()+" (set --zk-lib or --zk-classpath; Debian: apt-get install zookeeper)", exitUsage)
	}
	var env []string
	if p := c.String("gozk-cpuprofile"); p != "" {
		if p, err = filepath.Abs(p); err != nil {
			return cli.Exit(err.Error(), exitUsage)
		}
		env = append(env, "GOZK_CPUPROFILE="+p)
	}
	ec := bench.EnsembleConfig{
		Gozk:         gozkBin,
		GozkLogLevel: c.String("gozk-log-level"),
		GozkEnv:      env,
		Java:         bench.JavaServer{Java: java, Classpath: classpath, JVMArgs: strings.Fields(c.String("jvm-args"))},
		Settings: bench.EnsembleSettings{Dir: c.String("dir"), TickTime: c.Int("tick-time"), InitLimit: c.Int("init-limit"),
			SyncLimit: c.Int("sync-limit"), ForceSync: c.Bool("force-sync")},
		Servers: servers,
		Cells:   bench.EnsembleGrid(workloads, shapes, placements),
		Base: bench.Config{
			ValueSize: c.Int("value-size"),
			ReadRatio: c.Float64("read-ratio"),
			Duration:  c.Duration("duration"),
			Warmup:    c.Duration("warmup"),
		},
		ServerWarmup: c.Duration("server-warmup"),
		FailoverRuns: c.Int("failovers"),
		Failover:     bench.FailoverConfig{Limit: c.Duration("failover-limit")},
		Keep:         c.Bool("keep"),
		Progress:     os.Stderr,
	}
	ctx, stop := signalContext()
	defer stop()
	cmp, err := bench.RunEnsembles(ctx, ec)
	if cmp != nil && (len(cmp.Results) > 0 || len(cmp.Failovers) > 0) {
		if cmp.Ratios == nil && cmp.FailoverSummary == nil {
			// Stopped part-way: keep what was measured.
			cmp.FailoverSummary = bench.SummarizeFailovers(cmp.Failovers)
		}
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
			if len(cmp.Ratios) > 0 {
				fmt.Println()
				bench.WriteEnsembleRatios(os.Stdout, cmp.Ratios)
			}
			if len(cmp.Failovers) > 0 {
				fmt.Println()
				bench.WriteFailovers(os.Stdout, cmp.Failovers, cmp.FailoverSummary)
			}
		}
	}
	if err != nil {
		return cli.Exit(err.Error(), exitRuntime)
	}
	return nil
}
