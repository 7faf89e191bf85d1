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
	"time"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/gozk/gozk/acl"
	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/server"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit codes scripts can rely on.
const (
	exitOK        = 0
	exitRuntime   = 1
	exitUsage     = 2
	exitBadConfig = 3
)

func main() {
	app := &cli.App{
		Name:                 "gozk",
		Usage:                "a ZooKeeper 3.8 compatible server",
		Version:              version,
		EnableBashCompletion: true,
		Commands: []*cli.Command{
			serverCommand(),
			benchCommand(),
			dataCommand(),
			{
				Name:  "version",
				Usage: "print the version",
				Action: func(*cli.Context) error {
					fmt.Println("gozk", version)
					return nil
				},
			},
		},
	}
	if err := app.Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "gozk:", err)
		var ec cli.ExitCoder
		if errors.As(err, &ec) {
			os.Exit(ec.ExitCode())
		}
		os.Exit(exitRuntime)
	}
}

func serverCommand() *cli.Command {
	return &cli.Command{
		Name:  "server",
		Usage: "run a standalone server (127.0.0.1:2181, data in ./data, unless --config names a zoo.cfg)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "config", Aliases: []string{"c"}, Usage: "zoo.cfg to read"},
			&cli.StringFlag{Name: "log-level", Value: "info", Usage: "debug, info, warn or error"},
			&cli.BoolFlag{Name: "log-json", Usage: "log JSON lines instead of console text"},
		},
		Action: runServer,
	}
}

func newLogger(c *cli.Context) (zerolog.Logger, error) {
	level, err := zerolog.ParseLevel(c.String("log-level"))
	if err != nil {
		return zerolog.Logger{}, cli.Exit(fmt.Sprintf("--log-level: %v", err), exitUsage)
	}
	var logger zerolog.Logger
	if c.Bool("log-json") {
		logger = zerolog.New(os.Stderr)
	} else {
		logger = zerolog.New(zerolog.ConsoleWriter{Out: os.Stderr, TimeFormat: time.RFC3339})
	}
	return logger.Level(level).With().Timestamp().Logger(), nil
}

func runServer(c *cli.Context) error {
	logger, err := newLogger(c)
	if err != nil {
		return err
	}
	cfg := conf.Defaults()
	if path := c.String("config"); path != "" {
		jvmFlags := strings.TrimSpace(os.Getenv("SERVER_JVMFLAGS") + " " + os.Getenv("JVMFLAGS"))
		cfg, err = conf.Load(path, jvmFlags)
		if err != nil {
			return cli.Exit(err.Error(), exitBadConfig)
		}
	}
	if err := checkRunnable(cfg); err != nil {
		return err
	}
	srv, err := server.Start(serverConfig(cfg, logger))
	if err != nil {
		return cli.Exit(err.Error(), exitRuntime)
	}
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	select {
	case s := <-sig:
		logger.Info().Str("signal", s.String()).Msg("shutting down")
		signal.Stop(sig)
		return srv.Close()
	case <-srv.Failed():
		_ = srv.Close()
		return cli.Exit(srv.Err().Error(), exitRuntime)
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
	sc.SnapCount = c.SnapCount
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
