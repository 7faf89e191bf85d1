// Command gozk is a ZooKeeper server that unmodified ZooKeeper clients use
// as they would Apache ZooKeeper 3.8.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/internal/failpoint"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/netio"
	"github.com/gozk/gozk/peer"
	"github.com/gozk/gozk/persistence"
	"github.com/gozk/gozk/server"
	"github.com/gozk/gozk/zab"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit codes scripts can rely on (also in `gozk --help` and the README).
const (
	exitOK        = 0
	exitRuntime   = 1
	exitUsage     = 2
	exitBadConfig = 3
	// exitAdminServer is Java's ExitCode.ERROR_STARTING_ADMIN_SERVER:
	// a standalone server whose AdminServer cannot start stops with it.
	// gozk data verify uses the same number for damaged data (exitDamaged).
	exitAdminServer = 4
)

func main() {
	os.Exit(run(os.Args))
}

const exitCodesHelp = `EXIT STATUS:
   0  success
   1  runtime failure (a server that stops on an error, an unreachable server, a refused 4lw)
   2  usage error (unknown command or flag, missing argument, a malformed GOZK_FAILPOINTS)
   3  bad configuration (zoo.cfg, myid or dynamic config file refused; the message names file, line and key)
   4  gozk server: the AdminServer could not start (as Java); gozk data verify: the data directory is damaged (the report names what)`

// newApp builds the command tree.
func newApp() *cli.App {
	app := &cli.App{
		Name:                 "gozk",
		Usage:                "a ZooKeeper 3.8 compatible server",
		Version:              version,
		EnableBashCompletion: true,
		Description: "Serves ZooKeeper clients from an unchanged zoo.cfg and data directory.\n" +
			"Shell completion: gozk completion bash|zsh|fish.\n\n" + exitCodesHelp,
		Commands: []*cli.Command{
			serverCommand(),
			benchCommand(),
			dataCommand(),
			fourLetterCommand(),
			completionCommand(),
			{
				Name:  "version",
				Usage: "print the version",
				Action: func(c *cli.Context) error {
					fmt.Fprintln(c.App.Writer, "gozk", version)
					return nil
				},
			},
		},
		// Errors are printed and mapped to exit codes by run, once.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   usageError,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cli.Exit(fmt.Sprintf("unknown command %q (see gozk --help)", c.Args().First()), exitUsage)
			}
			_ = cli.ShowAppHelp(c)
			return cli.Exit("", exitUsage)
		},
	}
	fixUsageErrors(app.Commands)
	return app
}

// run runs the app and returns the exit status.
func run(args []string) int {
	err := newApp().Run(args)
	if err == nil {
		return exitOK
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintln(os.Stderr, "gozk:", msg)
	}
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return exitRuntime
}

func usageError(c *cli.Context, err error, _ bool) error {
	where := "gozk"
	if c.Command != nil && c.Command.Name != "" {
		where = "gozk " + c.Command.FullName()
	}
	return cli.Exit(fmt.Sprintf("%v (see %s --help)", err, where), exitUsage)
}

// fixUsageErrors gives every command exit status 2 for bad flags, and
// command groups exit status 2 for a missing or unknown subcommand
// (urfave/cli would use 3, the bad-configuration status).
func fixUsageErrors(cmds []*cli.Command) {
	for _, cmd := range cmds {
		if cmd.OnUsageError == nil {
			cmd.OnUsageError = usageError
		}
		if len(cmd.Subcommands) > 0 && cmd.Action == nil {
			cmd.Action = func(c *cli.Context) error {
				if c.NArg() > 0 {
					return cli.Exit(fmt.Sprintf("unknown command %q (see gozk %s --help)", c.Args().First(), c.Command.FullName()), exitUsage)
				}
				_ = cli.ShowSubcommandHelp(c)
				return cli.Exit("", exitUsage)
			}
		}
		fixUsageErrors(cmd.Subcommands)
	}
}

func serverCommand() *cli.Command {
	return &cli.Command{
		Name:      "server",
		ArgsUsage: "[zoo.cfg]",
		Usage:     "run a server: standalone on 127.0.0.1:2181 with data in ./data, or as a zoo.cfg says (an ensemble's included)",
		Description: "With --config, the zoo.cfg is read as Apache ZooKeeper 3.8 reads it (with <dataDir>/myid\n" +
			"and any dynamicConfigFile); with server.N lines the server joins that ensemble as a voter or\n" +
			"an observer. A config Java would refuse is refused (exit 3). With or without\n" +
			"--config, -D flags in SERVER_JVMFLAGS and JVMFLAGS apply as system properties\n" +
			"(jute.maxbuffer, zookeeper.*). If the AdminServer cannot start, the server exits (exit 4).\n\n" +
			"The log goes to stderr, or appended to --log-file; on SIGHUP the log file is reopened\n" +
			"(for logrotate). SIGINT and SIGTERM stop the server.\n\n" +
			"--pid-file PATH writes the pid once the data directory is locked and removes the file on exit;\n" +
			"the server refuses to start while PATH names another running gozk. Under systemd (Type=notify)\n" +
			"the server reports READY=1 once it serves clients.\n\n" + exitCodesHelp,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "config", Aliases: []string{"c"}, Usage: "zoo.cfg to read (or give it as the only argument)", TakesFile: true},
			&cli.StringFlag{Name: "pid-file", Usage: "write the server's pid to this file once it holds its data directory; removed on exit", TakesFile: true},
		}, logFlags()...),
		Action: runServer,
	}
}

func runServer(c *cli.Context) error {
	logger, logOut, err := newLogger(c)
	if err != nil {
		return err
	}
	defer logOut.Close()
	// Fault points for tests: refused before anything starts, and loud
	// when armed.
	armed, err := failpoint.ArmFromEnv()
	if err != nil {
		return cli.Exit("server: "+err.Error(), exitUsage)
	}
	if len(armed) > 0 {
		names := make([]string, len(armed))
		for i, a := range armed {
			names[i] = a.String()
		}
		logger.Warn().Strs("failpoints", names).Msg("fault injection armed from " + failpoint.EnvVar + "; this server will fail on purpose")
	}
	path := c.String("config")
	switch {
	case c.NArg() == 1 && path == "":
		path = c.Args().First() // as Java's QuorumPeerMain takes it: gozk server /etc/zookeeper/conf/zoo.cfg
	case c.NArg() > 0:
		return cli.Exit(fmt.Sprintf("server: unexpected arguments %q (give the zoo.cfg as --config PATH or as the only argument)", c.Args().Slice()), exitUsage)
	}
	cfg, err := loadConfig(path)
	if err != nil {
		return cli.Exit(err.Error(), exitBadConfig)
	}
	if err := checkRunnable(cfg); err != nil {
		return err
	}
	pidFile := c.String("pid-file")
	if pidFile != "" {
		if err := checkPIDFile(pidFile); err != nil {
			return cli.Exit(err.Error(), exitRuntime)
		}
	}
	logStart(logger, cfg)
	tlsSource, err := clientTLS(cfg, logger)
	if err != nil {
		return cli.Exit(fmt.Sprintf("%s: %v", cfg.File, err), exitBadConfig)
	}
	stopTrace, err := startTrace()
	if err != nil {
		return cli.Exit(err.Error(), exitRuntime)
	}
	defer stopTrace()
	stopProfiles, err := startProfiles()
	if err != nil {
		return cli.Exit(err.Error(), exitRuntime)
	}
	defer func() {
		if err := stopProfiles(); err != nil {
			logger.Error().Err(err).Msg("writing the profiles failed")
		}
	}()
	mon := newMonitoring(cfg, logger)
	// As Java's ZooKeeperServerMain: the AdminServer starts before the
	// data is loaded and the client port opens, and a standalone server
	// whose AdminServer cannot start exits (status 4) without serving.
	ensemble := cfg.Quorum.Distributed
	adminFailure := adminFailureExits
	if ensemble {
		adminFailure = adminFailureWarns
	}
	if err := mon.startAdmin(adminFailure); err != nil {
		return cli.Exit(err.Error(), exitAdminServer)
	}
	defer mon.stop()
	sc := server.FromConf(cfg, logger)
	sc.EventLoops = applyProcs(sc.EventLoops)
	if tlsSource != nil {
		sc.ClientTLS = tlsSource.ServerConfig()
		if cfg.ClientCertReload {
			stopWatch := make(chan struct{})
			defer close(stopWatch)
			tlsSource.WatchFiles(stopWatch)
		}
	}
	if ensemble {
		sc.Ensemble = true
		sc.ServerID = cfg.Quorum.ServerID
		sc.QuorumConfig = cfg.Quorum.Ensemble.QuorumConfig()
		sc.QuorumConfigVersion = cfg.Quorum.Ensemble.Version
		if self, ok := cfg.Quorum.Self(); ok && cfg.ClientPort == 0 && self.ClientPort != 0 {
			sc.ClientAddr = self.ClientAddr()
		}
		if w := cfg.ReconfigWarning(); w != "" {
			logger.Warn().Msg(w)
		}
	}
	mon.configure(&sc)
	if failpoint.NeedsFS() {
		sc.FS = failpoint.FS(vfs.Default)
	}
	// A store that fails while running in a way Pebble cannot go on from
	// (a WAL or MANIFEST it cannot write) stops the process with one clear
	// line, as the txn log's own failures do: every acknowledged write is
	// durable, so nothing acknowledged is lost.
	persistence.SetFatalHandler(func(msg string) {
		logger.Error().Str("error", msg).Msg("the data store failed; the server stops")
		fmt.Fprintln(os.Stderr, "gozk: server stopped: the data store failed: "+msg)
		os.Exit(exitRuntime)
	})
	srv, err := server.Open(sc)
	if err != nil {
		return cli.Exit(err.Error(), exitRuntime)
	}
	// Disk faults count from here, the data loaded: hit N is then the
	// same fsync or write from one run to the next.
	failpoint.StartDiskFaults()
	// The ensemble member comes before the client port: what it cannot
	// start with (its quorum stores, its JAAS sections, its ports) stops
	// the process before any client is served, as Java's start-up does.
	var member *peer.Member
	if ensemble {
		member, err = peer.NewMember(cfg, srv, jute.FieldLimit(sc.JuteMaxBuffer, sc.JuteMaxBufferExtra), logger)
		if err != nil {
			_ = srv.Close()
			return cli.Exit(fmt.Sprintf("%s: starting the ensemble member: %v", cfg.File, err), exitRuntime)
		}
	}
	// The client port reaches the server through netio's Handler
	// interface, which the server implements.
	clientPort, err := netio.Listen(srv.ClientPortConfig(), srv)
	if err != nil {
		if member != nil {
			member.Close()
		}
		_ = srv.Close()
		return cli.Exit(fmt.Sprintf("listening on %s: %v", sc.ClientAddr, err), exitRuntime)
	}
	srv.Serve(clientPort)
	startGCPolicy() // after loading, which tunes the collector itself
	if err := mon.start(srv); err != nil {
		_ = srv.Close()
		return cli.Exit("starting the metrics endpoint: "+err.Error(), exitRuntime)
	}
	// Signals are taken from here on, before the pid file and systemd
	// announce the server.
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sig)
	// The store's lock is held from here: a second server on the same
	// data has failed above, before touching the pid file.
	if pidFile != "" {
		if err := writePIDFile(pidFile); err != nil {
			_ = srv.Close()
			return cli.Exit(err.Error(), exitRuntime)
		}
		defer func() {
			if err := removePIDFile(pidFile); err != nil {
				logger.Warn().Err(err).Str("file", pidFile).Msg("cannot remove the pid file")
			}
		}()
	}
	if err := sdNotify("READY=1"); err != nil {
		logger.Warn().Err(err).Msg("cannot tell systemd the server is ready ($NOTIFY_SOCKET)")
	}
	if member == nil {
		return serveUntilStopped(srv, sig, logger, logOut, nil)
	}
	ctx, cancel := context.WithCancel(context.Background())
	memberDone := make(chan error, 1)
	go func() { memberDone <- member.Run(ctx) }()
	err = serveUntilStopped(srv, sig, logger, logOut, memberDone)
	cancel()
	member.Close()
	return err
}

// serveUntilStopped waits for SIGINT or SIGTERM (a clean stop, status 0)
// or for the server to fail on its own, as when its txn log can no longer
// be written: then the command fails (status 1) with the server's error,
// which names what failed. SIGHUP reopens the log file.
func serveUntilStopped(srv *server.Server, sig chan os.Signal, logger zerolog.Logger, logOut *logOutput, member <-chan error) error {
	for {
		select {
		case err := <-member:
			// An ensemble member stops on its own only when it must not
			// go on (Java's QuorumPeer exits the JVM there).
			if err == nil {
				err = errors.New("the ensemble member stopped")
			}
			logger.Error().Err(err).Msg("the ensemble member failed; stopping")
			_ = srv.Close()
			var fatal *zab.FatalError
			if errors.As(err, &fatal) {
				return cli.Exit("server stopped: "+err.Error(), fatal.Code)
			}
			return cli.Exit("server stopped: "+err.Error(), exitRuntime)
		case s := <-sig:
			if s == syscall.SIGHUP {
				reopenLog(logger, logOut)
				continue
			}
			logger.Info().Str("signal", s.String()).Msg("shutting down")
			signal.Stop(sig)
			_ = sdNotify("STOPPING=1")
			if err := srv.Close(); err != nil {
				logger.Error().Err(err).Msg("shutdown failed")
				return cli.Exit(err.Error(), exitRuntime)
			}
			logger.Info().Msg("shutdown complete")
			return nil
		case <-srv.Failed():
			logger.Error().Err(srv.Err()).Msg("server failed; stopping")
			_ = srv.Close()
			return cli.Exit("server stopped: "+srv.Err().Error(), exitRuntime)
		}
	}
}

// loadConfig reads the zoo.cfg at path, or takes the built-in defaults
// when path is "". Either way the -D flags of SERVER_JVMFLAGS and
// JVMFLAGS apply, as system properties do for Java.
func loadConfig(path string) (*conf.Config, error) {
	jvmFlags := strings.TrimSpace(os.Getenv("SERVER_JVMFLAGS") + " " + os.Getenv("JVMFLAGS"))
	if path == "" {
		return conf.LoadDefaults(jvmFlags)
	}
	return conf.Load(path, jvmFlags)
}

// checkRunnable refuses configurations conf accepts (as Java does) that
// this build cannot serve.
func checkRunnable(cfg *conf.Config) error {
	if cfg.Quorum.Distributed {
		if _, ok := cfg.Quorum.Self(); !ok {
			return cli.Exit(fmt.Sprintf("%s: my id %d is not in the peer list (the server.N lines)", cfg.File, cfg.Quorum.ServerID), exitBadConfig)
		}
		if self, _ := cfg.Quorum.Self(); cfg.ClientPort == 0 && self.ClientPort == 0 {
			return cli.Exit(fmt.Sprintf("%s: no client port for server.%d: set clientPort, or a client address on its server line", cfg.File, self.ID), exitBadConfig)
		}
		return checkDataDirs(cfg)
	}
	if cfg.ClientPort == 0 && cfg.SecureClientPort == 0 {
		return cli.Exit(fmt.Sprintf("%s: neither clientPort nor secureClientPort is set; gozk needs a client port to serve", cfg.File), exitBadConfig)
	}
	return checkDataDirs(cfg)
}

// checkDataDirs refuses missing data directories when
// zookeeper.datadir.autocreate is false.
func checkDataDirs(cfg *conf.Config) error {
	if !cfg.DataDirAutocreate {
		for _, dir := range []string{cfg.DataDir, cfg.DataLogDir} {
			if _, err := os.Stat(dir); dir != "" && err != nil {
				return cli.Exit(fmt.Sprintf("missing data directory %s, automatic data directory creation is disabled "+
					"(zookeeper.datadir.autocreate is false); create it first", dir), exitBadConfig)
			}
		}
	}
	return nil
}
