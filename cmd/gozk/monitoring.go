package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/admin"
	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/server"
)

// buildDate is set at build time with -ldflags "-X main.buildDate=<RFC
// 3339 time>"; without it the VCS time recorded by the Go toolchain, or
// else the executable's modification time, stands in.
var buildDate = ""

func buildTime() time.Time {
	if t, err := time.Parse(time.RFC3339, buildDate); err == nil {
		return t
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.time" {
				if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
					return t
				}
			}
		}
	}
	if exe, err := os.Executable(); err == nil {
		if st, err := os.Stat(exe); err == nil {
			return st.ModTime()
		}
	}
	return time.Unix(0, 0)
}

// monitoring is the four-letter words, the AdminServer and the
// Prometheus endpoint of one server.
type monitoring struct {
	cfg    *conf.Config
	logger zerolog.Logger
	cmds   *admin.Commands
	https  []*admin.HTTPServer
}

func newMonitoring(cfg *conf.Config, logger zerolog.Logger) *monitoring {
	var initial string
	if cfg.File != "" {
		if b, err := os.ReadFile(cfg.File); err == nil {
			initial = string(b)
		}
	}
	sys := map[string]string{}
	for k, p := range cfg.System {
		sys[k] = p.Value
	}
	return &monitoring{
		cfg:    cfg,
		logger: logger,
		cmds: admin.New(admin.Options{
			Version:          admin.FullVersion(version, buildTime()),
			InitialConfig:    initial,
			SystemProperties: sys,
			Quorum:           quorumView(cfg),
		}),
	}
}

// quorumView is what the monitoring commands show of an ensemble
// member's configuration; nil for a standalone server.
func quorumView(cfg *conf.Config) *admin.QuorumView {
	q := &cfg.Quorum
	if !q.Distributed || q.Ensemble == nil {
		return nil
	}
	view := &admin.QuorumView{
		ServerID:    q.ServerID,
		InitLimit:   q.InitLimit,
		SyncLimit:   q.SyncLimit,
		ElectionAlg: q.ElectionAlg,
		Observer:    q.PeerType == conf.Observer, // conf has let the server list win, as Java does
		Membership:  q.Ensemble.QuorumConfig(),
	}
	for _, id := range q.Ensemble.IDs() {
		spec := q.Ensemble.Servers[id]
		sv := admin.QuorumServerView{ID: id, ClientAddr: spec.ClientAddr(), Observer: spec.Type == conf.Observer}
		for _, a := range spec.Addrs {
			sv.QuorumAddrs = append(sv.QuorumAddrs, a.QuorumHostPort())
			sv.ElectionAddrs = append(sv.ElectionAddrs, a.ElectionHostPort())
		}
		view.Servers = append(view.Servers, sv)
	}
	return view
}

// configure plugs the four-letter words into the server's settings.
func (m *monitoring) configure(sc *server.Config) {
	sc.FourLetterWords = m.cmds.FourLetterWord
	if p, ok := m.cfg.System["gozk.stats.disabled"]; ok {
		sc.StatsDisabled = strings.EqualFold(p.Value, "true")
	}
}

// adminFailure is what a server does when its AdminServer cannot start.
type adminFailure int

const (
	// adminFailureExits stops the server, as Java's standalone
	// ZooKeeperServerMain does (exit status 4, exitAdminServer).
	adminFailureExits adminFailure = iota
	// adminFailureWarns logs a warning and goes on without the
	// AdminServer, as Java's QuorumPeer does for an ensemble member.
	adminFailureWarns
)

// adminStartError is Java's first line when the AdminServer cannot
// start (its stderr line and log message).
const adminStartError = "Unable to start AdminServer, exiting abnormally"

// startAdmin starts the AdminServer when admin.enableServer is on. Its
// commands answer that the server is not serving until attach. With
// adminFailureExits a failure is returned (and logged); with
// adminFailureWarns it is logged as a warning and nil is returned.
func (m *monitoring) startAdmin(onFailure adminFailure) error {
	if !m.cfg.AdminEnableServer {
		return nil
	}
	tlsCfg, err := m.adminTLS()
	if err != nil {
		// Java's factory then logs a warning and runs without an
		// AdminServer, standalone or not.
		m.logger.Warn().Err(err).Msg("unable to start the AdminServer: its HTTPS stores cannot be loaded; going on without it")
		return nil
	}
	h, err := m.cmds.StartAdminServer(admin.AdminServerConfig{
		Address:     m.cfg.AdminServerAddress,
		Port:        m.cfg.AdminServerPort,
		CommandURL:  m.cfg.AdminCommandURL,
		IdleTimeout: m.cfg.AdminIdleTimeout,
		TLS:         tlsCfg,
		ForceHTTPS:  m.cfg.AdminForceHTTPS,
	})
	if err != nil {
		// Java's AdminServerException names the address, port and URL.
		err = fmt.Errorf("problem starting AdminServer on address %s, port %d and command URL %s: %w",
			m.cfg.AdminServerAddress, m.cfg.AdminServerPort, m.cfg.AdminCommandURL, err)
		if onFailure == adminFailureWarns {
			m.logger.Warn().Err(err).Msg("problem starting the AdminServer; going on without it")
			return nil
		}
		m.logger.Error().Err(err).Msg(adminStartError)
		return fmt.Errorf("%s: %w", adminStartError, err)
	}
	m.https = append(m.https, h)
	m.logger.Info().Str("address", h.Addr().String()).Str("commandURL", m.cfg.AdminCommandURL).Str("scheme", adminScheme(m.cfg)).Msg("AdminServer started")
	return nil
}

// start attaches the running server to the four-letter words and the
// AdminServer, and starts the Prometheus endpoint; a metrics endpoint
// that cannot start stops the server.
func (m *monitoring) start(srv *server.Server) error {
	m.cmds.Attach(srv)
	if m.cfg.PrometheusEnabled() {
		h, err := m.cmds.StartMetrics(admin.MetricsConfig{
			Host:          m.cfg.MetricsHTTPHost,
			Port:          m.cfg.MetricsHTTPPort,
			ExportRuntime: m.cfg.MetricsExportJVMInfo,
		})
		if err != nil {
			m.stop()
			return err
		}
		m.https = append(m.https, h)
		m.logger.Info().Str("address", h.Addr().String()).Msg("Prometheus /metrics endpoint started")
	}
	return nil
}

func (m *monitoring) stop() {
	for _, h := range m.https {
		_ = h.Close()
	}
	m.https = nil
}
