// Command gozk is a ZooKeeper server that unmodified ZooKeeper clients use
// as they would Apache ZooKeeper 3.8.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/gozk/gozk/acl"
	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/server"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit codes scripts can rely on (also in `gozk --help` and the README).
const (
	exitOK        = 0
	exitRuntime   = 1
	exitUsage     = 2
	exitBadConfig = 3
)

func main() {
	os.Exit(run(os.Args))
}

const exitCodesHelp = `EXIT STATUS:
   0  success
   1  runtime failure (a server that stops on an error, an unreachable server, a refused 4lw)
   2  usage error (unknown command or flag, missing argument)
   3  bad configuration (zoo.cfg, myid or dynamic config file refused; the message names file, line and key)
   4  gozk data verify only: the data directory is damaged (the report names what)`

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
		Usage:     "run a standalone server (127.0.0.1:2181, data in ./data, unless --config names a zoo.cfg)",
		Description: "With --config, the zoo.cfg is read as Apache ZooKeeper 3.8 reads it (with <dataDir>/myid\n" +
			"and any dynamicConfigFile); -D flags in SERVER_JVMFLAGS and JVMFLAGS apply as system\n" +
			"properties (jute.maxbuffer, zookeeper.*). A config Java would refuse is refused (exit 3).\n\n" +
			"The log goes to stderr, or appended to --log-file; on SIGHUP the log file is reopened\n" +
			"(for logrotate). SIGINT and SIGTERM stop the server.\n\n" + exitCodesHelp,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "config", Aliases: []string{"c"}, Usage: "zoo.cfg to read (or give it as the only argument)", TakesFile: true},
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
	path := c.String("config")
	switch {
	case c.NArg() == 1 && path == "":
		path = c.Args().First() // as Java's QuorumPeerMain takes it: gozk server /etc/zookeeper/conf/zoo.cfg
	case c.NArg() > 0:
		return cli.Exit(fmt.Sprintf("server: unexpected arguments %q (give the zoo.cfg as --config PATH or as the only argument)", c.Args().Slice()), exitUsage)
	}
	cfg := conf.Defaults()
	if path != "" {
		jvmFlags := strings.TrimSpace(os.Getenv("SERVER_JVMFLAGS") + " " + os.Getenv("JVMFLAGS"))
		cfg, err = conf.Load(path, jvmFlags)
		if err != nil {
			return cli.Exit(err.Error(), exitBadConfig)
		}
	}
	if err := checkRunnable(cfg); err != nil {
		return err
	}
	logStart(logger, cfg)
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
	sc := serverConfig(cfg, logger)
	sc.EventLoops = applyProcs(sc.EventLoops)
	mon.configure(&sc)
	srv, err := server.Start(sc)
	if err != nil {
		return cli.Exit(err.Error(), exitRuntime)
	}
	startGCPolicy() // after loading, which tunes the collector itself
	if err := mon.start(srv); err != nil {
		_ = srv.Close()
		return cli.Exit("starting the metrics endpoint: "+err.Error(), exitRuntime)
	}
	defer mon.stop()
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sig)
	for {
		select {
		case s := <-sig:
			if s == syscall.SIGHUP {
				reopenLog(logger, logOut)
				continue
			}
			logger.Info().Str("signal", s.String()).Msg("shutting down")
			signal.Stop(sig)
			if err := srv.Close(); err != nil {
				logger.Error().Err(err).Msg("shutdown failed")
				return cli.Exit(err.Error(), exitRuntime)
			}
			logger.Info().Msg("shutdown complete")
			return nil
		case <-srv.Failed():
			logger.Error().Err(srv.Err()).Msg("server failed; stopping")
			_ = srv.Close()
			return cli.Exit(srv.Err().Error(), exitRuntime)
		}
	}
}

// checkRunnable refuses configurations conf accepts (as Java does) that
// this build cannot serve.
func checkRunnable(cfg *conf.Config) error {
	if cfg.Quorum.Distributed {
		return cli.Exit(fmt.Sprintf("%s: this configuration describes an ensemble (%d participants, standaloneEnabled=%v); "+
			"ensemble mode is not available yet in this build of gozk, which runs standalone servers only",
			cfg.File, len(cfg.Quorum.Ensemble.Voters()), cfg.StandaloneEnabled), exitBadConfig)
	}
	if cfg.ClientPort == 0 {
		return cli.Exit(fmt.Sprintf("%s: clientPort is not set; gozk needs a client port to serve", cfg.File), exitBadConfig)
	}
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

// serverConfig maps a parsed zoo.cfg onto the server's settings.
func serverConfig(c *conf.Config, logger zerolog.Logger) server.Config {
	sc := server.Defaults()
	sc.ClientAddr = c.ClientAddr()
	sc.DataDir = c.DataDir
	sc.DataLogDir = c.DataLogDir
	sc.TickTime = c.TickTime
	sc.MinSessionTimeout = c.MinSessionTimeout
	sc.MaxSessionTimeout = c.MaxSessionTimeout
	sc.MaxClientCnxns = c.MaxClientCnxns
	sc.MaxCnxns = c.MaxCnxns
	sc.GlobalOutstandingLimit = c.GlobalOutstandingLimit
	sc.EventLoops = c.NumSelectorThreads
	sc.SessionlessTimeout = c.SessionlessCnxnTimeout
	sc.SnapCount = c.SnapCount
	sc.SnapRetainCount = c.AutopurgeSnapRetainCount
	sc.PurgeInterval = c.AutopurgeInterval
	sc.JuteMaxBuffer = c.JuteMaxBuffer
	sc.JuteMaxBufferExtra = c.JuteMaxBufferExtra
	sc.ExtendedTypesEnabled = c.ExtendedTypesEnabled
	sc.ContainerCheckInterval = c.ContainerCheckInterval
	sc.ContainerMaxPerMinute = c.ContainerMaxPerMinute
	sc.ContainerMaxNeverUsed = c.ContainerMaxNeverUsed
	sc.EnforceQuota = c.EnforceQuota
	sc.DigestEnabled = c.DigestEnabled
	sc.ReconfigEnabled = c.ReconfigEnabled
	sc.ForceSync = c.ForceSync
	sc.FsyncWarning = c.FsyncWarning
	sc.ACL = acl.Config{
		SkipACL:        c.SkipACL,
		SuperDigest:    c.SuperDigest,
		DigestEnabled:  c.DigestAuthEnabled,
		DigestAlg:      c.DigestAlg,
		ExtraProviders: c.AuthProviders,

		EnforceAuthEnabled:           c.EnforceAuthEnabled,
		EnforceAuthSchemes:           c.EnforceAuthSchemes,
		SessionRequireClientSASLAuth: c.RequireClientSASLAuth,
	}
	sc.FourLetterWhitelist = c.FourLetterWhitelist
	sc.Logger = logger
	return sc
}
