package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/gozk/gozk/conf"
)

// Log options of `gozk server`.
//
// Output goes to stderr, or with --log-file to that file, opened for
// appending (created 0644 when missing). On SIGHUP the server closes and
// reopens the file by name, so rotation by renaming (logrotate's default,
// followed by a postrotate `kill -HUP`) moves on to a fresh file without a
// restart; copytruncate also works, as every write appends. Without
// --log-file, SIGHUP is logged and ignored.
func logFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "log-level", Value: "info", Usage: "trace, debug, info, warn or error"},
		&cli.StringFlag{Name: "log-format", Value: "console", Usage: "console (human-readable text) or json (one object per line)"},
		&cli.BoolFlag{Name: "log-json", Usage: "same as --log-format=json"},
		&cli.StringFlag{Name: "log-file", Usage: "append the log to this file instead of stderr (reopened on SIGHUP, for rotation)"},
	}
}

// logOutput is where the log goes: stderr or a file that can be reopened.
type logOutput struct {
	mu   sync.Mutex
	path string
	f    *os.File
	w    io.Writer
}

func openLogFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
}

func (o *logOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.w.Write(p)
}

// Reopen closes the log file and opens it again by name (after a
// rotation). The old file stays in use when the new one cannot be opened.
func (o *logOutput) Reopen() error {
	if o.path == "" {
		return nil
	}
	f, err := openLogFile(o.path)
	if err != nil {
		return err
	}
	o.mu.Lock()
	old := o.f
	o.f, o.w = f, f
	o.mu.Unlock()
	return old.Close()
}

// Close closes the log file, if any.
func (o *logOutput) Close() error {
	if o.f == nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.w = io.Discard
	return o.f.Close()
}

// newLogger builds the server's logger from the log flags. Errors are
// usage errors (exit code 2), or runtime errors when the log file cannot
// be opened.
func newLogger(c *cli.Context) (zerolog.Logger, *logOutput, error) {
	level, err := zerolog.ParseLevel(c.String("log-level"))
	if err != nil || c.String("log-level") == "" {
		return zerolog.Logger{}, nil, cli.Exit(fmt.Sprintf("--log-level %q: use trace, debug, info, warn or error", c.String("log-level")), exitUsage)
	}
	format := c.String("log-format")
	if c.Bool("log-json") {
		format = "json"
	}
	if format != "console" && format != "json" {
		return zerolog.Logger{}, nil, cli.Exit(fmt.Sprintf("--log-format %q: use console or json", format), exitUsage)
	}
	out := &logOutput{w: os.Stderr}
	tty := isTerminal(os.Stderr)
	if path := c.String("log-file"); path != "" {
		f, err := openLogFile(path)
		if err != nil {
			return zerolog.Logger{}, nil, cli.Exit(fmt.Sprintf("--log-file: %v", err), exitRuntime)
		}
		out.path, out.f, out.w = path, f, f
		tty = false
	}
	return buildLogger(out, format, level, tty), out, nil
}

// buildLogger writes console text (colours only on a terminal) or JSON
// lines with RFC 3339 millisecond timestamps.
//
// Durations are logged in milliseconds (a float: 29.114316 is 29.1 ms)
// under field names that end in Ms (tookMs, thresholdMs), as settings in
// milliseconds are (tickTimeMs); TestDurationFieldsNameTheirUnit holds
// every .Dur call in the module to that.
func buildLogger(w io.Writer, format string, level zerolog.Level, color bool) zerolog.Logger {
	zerolog.TimeFieldFormat = "2006-01-02T15:04:05.000Z07:00"
	zerolog.DurationFieldUnit = time.Millisecond
	zerolog.DurationFieldInteger = false
	if format == "json" {
		return zerolog.New(w).Level(level).With().Timestamp().Logger()
	}
	cw := zerolog.ConsoleWriter{Out: w, TimeFormat: "2006-01-02T15:04:05.000Z07:00", NoColor: !color}
	return zerolog.New(cw).Level(level).With().Timestamp().Logger()
}

// isTerminal reports a character device (a terminal), where colours help.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// logStart logs the version and a summary of the configuration, then
// every warning the configuration earned. The server logs its listening
// address once it listens.
func logStart(logger zerolog.Logger, cfg *conf.Config) {
	file := cfg.File
	if file == "" {
		file = "(built-in defaults)"
	}
	ev := logger.Info().Str("version", version).Str("go", runtime.Version()).Int("pid", os.Getpid()).
		Str("config", file).Str("clientAddr", cfg.ClientAddr()).Str("dataDir", cfg.DataDir).
		Str("dataLogDir", firstNonEmpty(cfg.DataLogDir, cfg.DataDir)).Int64("tickTimeMs", cfg.TickTime.Milliseconds()).
		Int32("minSessionTimeoutMs", cfg.MinSessionTimeout).Int32("maxSessionTimeoutMs", cfg.MaxSessionTimeout).
		Int("maxClientCnxns", cfg.MaxClientCnxns).Int("maxCnxns", cfg.MaxCnxns).Int("snapCount", cfg.SnapCount).
		Bool("forceSync", cfg.ForceSync).Str("4lw.commands.whitelist", cfg.FourLetterWhitelist).
		Int("autopurge.snapRetainCount", cfg.AutopurgeSnapRetainCount).Int64("autopurge.purgeIntervalHours", int64(cfg.AutopurgeInterval/time.Hour))
	if cfg.Quorum.ServerID >= 0 {
		ev = ev.Int64("myid", cfg.Quorum.ServerID)
	}
	ev.Msg("starting gozk")
	for _, w := range cfg.Warnings {
		logger.Warn().Msg(w)
	}
}

// reopenLog handles SIGHUP: the log file is reopened for rotation.
func reopenLog(logger zerolog.Logger, out *logOutput) {
	if out == nil || out.path == "" {
		logger.Info().Msg("SIGHUP: no --log-file to reopen; ignored")
		return
	}
	if err := out.Reopen(); err != nil {
		logger.Error().Err(err).Str("file", out.path).Msg("SIGHUP: cannot reopen the log file; still writing to the old one")
		return
	}
	logger.Info().Str("file", out.path).Msg("log file reopened")
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
