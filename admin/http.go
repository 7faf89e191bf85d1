package admin

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gozk/gozk/server"
)

// command is one AdminServer command of 3.8.0.
type command struct {
	name    string
	aliases []string
	// serving: the command needs a serving server (otherwise it answers
	// the not-serving error).
	serving bool
	run     func(c *Commands, s *server.Server, args map[string]string) obj
}

var commands = []command{
	{"configuration", []string{"conf", "config"}, true, (*Commands).cmdConfiguration},
	{"connection_stat_reset", []string{"crst"}, true, func(c *Commands, s *server.Server, _ map[string]string) obj {
		s.ResetConnectionStats()
		return nil
	}},
	{"connections", []string{"cons"}, true, func(c *Commands, s *server.Server, _ map[string]string) obj {
		return obj{{"connections", connectionObjects(s, true, false)}, {"secure_connections", connectionObjects(s, true, true)}}
	}},
	{"dirs", nil, true, func(c *Commands, s *server.Server, _ map[string]string) obj {
		d, l := dirSizes(s)
		return obj{{"datadir_size", d}, {"logdir_size", l}}
	}},
	{"dump", nil, true, (*Commands).cmdDump},
	{"environment", []string{"env", "envi"}, false, func(c *Commands, _ *server.Server, _ map[string]string) obj {
		return obj(c.environment())
	}},
	{"get_trace_mask", []string{"gtmk"}, false, func(c *Commands, _ *server.Server, _ map[string]string) obj {
		return obj{{"tracemask", c.mask()}}
	}},
	{"hash", nil, true, func(c *Commands, s *server.Server, _ map[string]string) obj {
		ds := []any{}
		for _, d := range s.Digests() {
			ds = append(ds, obj{{"zxid", d.Zxid}, {"digest", d.Digest}, {"digest_version", d.Version}})
		}
		return obj{{"digests", ds}}
	}},
	{"initial_configuration", []string{"icfg"}, true, func(c *Commands, _ *server.Server, _ map[string]string) obj {
		return obj{{"initial_configuration", c.opts.InitialConfig}}
	}},
	{"is_read_only", []string{"isro"}, true, func(c *Commands, _ *server.Server, _ map[string]string) obj {
		return obj{{"read_only", false}}
	}},
	{"last_snapshot", []string{"lsnp"}, true, func(c *Commands, s *server.Server, _ map[string]string) obj {
		zxid, ts := s.LastSnapshot()
		return obj{{"zxid", strconv.FormatUint(uint64(zxid), 16)}, {"timestamp", ts}}
	}},
	{"leader", []string{"lead"}, true, func(c *Commands, s *server.Server, _ map[string]string) obj {
		return c.leaderInfo(s)
	}},
	{"monitor", []string{"mntr"}, false, func(c *Commands, s *server.Server, _ map[string]string) obj {
		return obj(c.monitor(s))
	}},
	{"observer_connection_stat_reset", []string{"orst"}, true, func(*Commands, *server.Server, map[string]string) obj { return nil }},
	{"observers", []string{"obsr"}, true, func(c *Commands, s *server.Server, _ map[string]string) obj {
		return c.observers(s)
	}},
	{"ruok", nil, true, func(*Commands, *server.Server, map[string]string) obj { return nil }},
	{"server_stats", []string{"srvr"}, true, func(c *Commands, s *server.Server, _ map[string]string) obj {
		return c.serverStats(s)
	}},
	{"set_trace_mask", []string{"stmk"}, false, func(c *Commands, s *server.Server, args map[string]string) obj {
		v, err := strconv.ParseInt(args["traceMask"], 10, 64)
		if err != nil {
			return obj{{"error", "setTraceMask requires long traceMask argument"}}
		}
		if s != nil {
			s.SetTraceMask(v)
		}
		return obj{{"tracemask", v}}
	}},
	{"stat_reset", []string{"srst"}, true, func(c *Commands, s *server.Server, _ map[string]string) obj {
		s.ResetStats()
		return nil
	}},
	{"stats", []string{"stat"}, true, func(c *Commands, s *server.Server, _ map[string]string) obj {
		return append(c.serverStats(s), kv{"connections", connectionObjects(s, false, false)}, kv{"secure_connections", connectionObjects(s, false, true)})
	}},
	{"system_properties", []string{"sysp"}, false, func(c *Commands, _ *server.Server, _ map[string]string) obj {
		keys := make([]string, 0, len(c.opts.SystemProperties))
		for k := range c.opts.SystemProperties {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := obj{}
		for _, k := range keys {
			out = append(out, kv{k, c.opts.SystemProperties[k]})
		}
		return out
	}},
	{"voting_view", nil, true, func(c *Commands, s *server.Server, _ map[string]string) obj {
		return c.votingView(s)
	}},
	{"watch_summary", []string{"wchs"}, true, func(c *Commands, s *server.Server, _ map[string]string) obj {
		conns, paths, total := s.Watches().DataWatchSummary()
		return obj{{"num_connections", conns}, {"num_paths", paths}, {"num_total_watches", total}}
	}},
	{"watches", []string{"wchc"}, true, func(c *Commands, s *server.Server, _ map[string]string) obj {
		m := obj{}
		for _, row := range watchesBySession(s) {
			m = append(m, kv{strconv.FormatInt(row.session, 10), stringsToAny(row.paths)})
		}
		return obj{{"session_id_to_watched_paths", m}}
	}},
	{"watches_by_path", []string{"wchp"}, true, func(c *Commands, s *server.Server, _ map[string]string) obj {
		m := obj{}
		for _, row := range watchesByPath(s) {
			ids := make([]any, 0, len(row.sessions))
			for _, id := range row.sessions {
				ids = append(ids, id)
			}
			m = append(m, kv{row.path, ids})
		}
		return obj{{"path_to_session_ids", m}}
	}},
	{"zabstate", nil, false, func(c *Commands, s *server.Server, _ map[string]string) obj {
		return c.zabState(s)
	}},
}

var commandByName = func() map[string]*command {
	m := map[string]*command{}
	for i := range commands {
		c := &commands[i]
		m[c.name] = c
		for _, a := range c.aliases {
			m[a] = c
		}
	}
	return m
}()

func stringsToAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func (c *Commands) cmdConfiguration(s *server.Server, _ map[string]string) obj {
	cfg := s.Config()
	dataDir, logDir := dataDirs(s)
	var serverID int64
	if q := c.quorumOf(s); q != nil {
		serverID = q.ServerID
	}
	return obj{
		{"client_port", clientPort(s)},
		{"data_dir", dataDir},
		{"data_log_dir", logDir},
		{"tick_time", cfg.TickTime.Milliseconds()},
		{"max_client_cnxns", cfg.MaxClientCnxns},
		{"min_session_timeout", int64(cfg.MinSessionTimeout)},
		{"max_session_timeout", int64(cfg.MaxSessionTimeout)},
		{"server_id", serverID},
		{"client_port_listen_backlog", -1},
	}
}

func (c *Commands) cmdDump(s *server.Server, _ map[string]string) obj {
	exp := obj{}
	// Java keys the buckets by its monotonic millisecond clock, the one
	// cons's lresp uses; gozk's buckets are in wall time.
	toMono := server.MonoMillis() - time.Now().UnixMilli()
	for _, b := range s.SessionBuckets() {
		ids := make([]any, 0, len(b.Sessions))
		for _, id := range b.Sessions {
			ids = append(ids, id)
		}
		exp = append(exp, kv{strconv.FormatInt(b.At+toMono, 10), ids})
	}
	eph := s.Ephemerals()
	paths := obj{}
	for _, id := range javaLongOrder(keysOf(eph)) {
		paths = append(paths, kv{strconv.FormatInt(id, 10), stringsToAny(javaStringOrder(eph[id]))})
	}
	return obj{{"expiry_time_to_session_ids", exp}, {"session_id_to_ephemeral_paths", paths}}
}

func connectionObjects(s *server.Server, full, securePort bool) []any {
	out := []any{}
	for _, ci := range s.Connections() {
		if ci.FourLetterWord || ci.SecurePort != securePort {
			continue
		}
		o := obj{
			{"remote_socket_address", ci.RemoteAddr},
			{"interest_ops", ci.InterestOps},
			{"outstanding_requests", ci.Queued},
			{"packets_received", ci.Received},
			{"packets_sent", ci.Sent},
		}
		if full {
			o = append(o,
				kv{"session_id", ci.SessionID},
				kv{"last_operation", ci.LastOp},
				kv{"established", ci.Established},
				kv{"session_timeout", int64(ci.SessionTimeout)},
				kv{"last_cxid", ci.LastCxid},
				kv{"last_zxid", ci.LastZxid},
				kv{"last_response_time", ci.LastResponse},
				kv{"last_latency", ci.LastLatency},
				kv{"min_latency", ci.MinLatency},
				kv{"avg_latency", ci.AvgLatency},
				kv{"max_latency", ci.MaxLatency},
			)
		}
		out = append(out, o)
	}
	return out
}

func (c *Commands) serverStats(s *server.Server) obj {
	st := s.Stats()
	d, l := dirSizes(s)
	resp := func() obj {
		return obj{{"last_buffer_size", st.LastResponseSize}, {"min_buffer_size", st.MinResponseSize}, {"max_buffer_size", st.MaxResponseSize}}
	}
	out := obj{
		{"version", c.opts.Version},
		{"read_only", false},
		{"server_stats", obj{
			{"packets_sent", st.PacketsSent},
			{"packets_received", st.PacketsReceived},
			{"fsync_threshold_exceed_count", st.FsyncExceeded},
			{"client_response_stats", resp()},
			{"data_dir_size", d},
			{"log_dir_size", l},
			{"provider_null", false},
			{"server_state", s.Role().String()},
			{"last_processed_zxid", st.LastZxid},
			{"outstanding_requests", st.Outstanding},
			{"avg_latency", summaryAvg(st.Latency)},
			{"max_latency", st.Latency.Max},
			{"min_latency", st.Latency.Min},
			{"num_alive_client_connections", int64(st.Connections)},
			{"uptime", st.UptimeMillis},
			{"auth_failed_count", st.AuthFailed},
			{"non_mtlsremote_conn_count", st.NonMTLSRemote},
			{"non_mtlslocal_conn_count", st.NonMTLSLocal},
		}},
		{"client_response", resp()},
	}
	if s.Role() == server.RoleLeader {
		last, lo, hi := s.ProposalSizes()
		out = append(out, kv{"proposal_stats", obj{{"last_buffer_size", last}, {"min_buffer_size", lo}, {"max_buffer_size", hi}}})
	}
	return append(out, kv{"node_count", int64(st.NodeCount)})
}

// Run runs an AdminServer command by name or alias with its query
// arguments and returns the JSON text Java's AdminServer would answer.
func (c *Commands) Run(name string, args map[string]string) string {
	cmd := commandByName[name]
	var out obj
	switch {
	case cmd == nil:
		out = obj{{"command", name}, {"error", "Unknown command: " + name}}
	default:
		s := c.srv.Load()
		// Java names the command as it was asked for in this answer.
		if cmd.serving && !serving(s) {
			out = obj{{"command", name}, {"error", notServing}}
			break
		}
		// Java's monitor command fails (HTTP 500) without a server;
		// gozk answers it as the other commands.
		if !serving(s) && cmd.name == "monitor" {
			out = obj{{"command", name}, {"error", notServing}}
			break
		}
		out = cmd.run(c, s, args)
		// "command" and "error" close the object; a command's own error
		// stays where it put it.
		hasErr := false
		for _, e := range out {
			if e.key == "error" {
				hasErr = true
			}
		}
		out = append(out, kv{"command", cmd.name})
		if !hasErr {
			out = append(out, kv{"error", nil})
		}
	}
	var b strings.Builder
	writeJSON(&b, out, 0)
	return b.String()
}

// commandList is the page GET <commandURL> answers: a link per primary
// name, sorted.
func commandList(url string) string {
	names := make([]string, 0, len(commands))
	for _, c := range commands {
		names = append(names, c.name)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "<a href=\"%s/%s\">%s</a>\n<br/>\n", url, n, n)
	}
	return b.String()
}

// AdminServerConfig is the admin.* part of zoo.cfg.
type AdminServerConfig struct {
	Address     string        // admin.serverAddress (default 0.0.0.0)
	Port        int           // admin.serverPort (default 8080; 0 picks a free port)
	CommandURL  string        // admin.commandURL (default /commands)
	IdleTimeout time.Duration // admin.idleTimeout (default 30 s)
	// TLS, when set, serves HTTPS with it: only HTTPS with ForceHTTPS
	// (admin.forceHttps), else HTTPS and HTTP on the same port
	// (admin.portUnification).
	TLS        *tls.Config
	ForceHTTPS bool
}

// HTTPServer is a running AdminServer or metrics endpoint.
type HTTPServer struct {
	srv     *http.Server
	addr    net.Addr
	done    chan struct{}
	onClose func()
}

// Addr is the bound address.
func (h *HTTPServer) Addr() net.Addr { return h.addr }

// Close stops the server, letting requests in progress finish for a
// moment.
func (h *HTTPServer) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := h.srv.Shutdown(ctx)
	<-h.done
	if h.onClose != nil {
		h.onClose()
	}
	return err
}

func serveHTTP(addr string, handler http.Handler, idle time.Duration) (*HTTPServer, error) {
	return serveHTTPS(addr, handler, idle, nil, false)
}

// serveHTTPS is serveHTTP with TLS as httpsListener sets it up.
func serveHTTPS(addr string, handler http.Handler, idle time.Duration, cfg *tls.Config, force bool) (*HTTPServer, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: handler, IdleTimeout: idle, ReadHeaderTimeout: 30 * time.Second}
	if cfg != nil {
		srv.Handler = secureHandler(handler)
		srv.ConnContext = withConn
	}
	h := &HTTPServer{
		srv:  srv,
		addr: l.Addr(),
		done: make(chan struct{}),
	}
	l = httpsListener(l, cfg, force)
	go func() {
		defer close(h.done)
		if err := h.srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err
		}
	}()
	return h, nil
}

// StartAdminServer serves the commands over HTTP as Java's
// JettyAdminServer does.
func (c *Commands) StartAdminServer(cfg AdminServerConfig) (*HTTPServer, error) {
	if cfg.Address == "" {
		cfg.Address = "0.0.0.0"
	}
	if cfg.CommandURL == "" {
		cfg.CommandURL = "/commands"
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 30 * time.Second
	}
	url := strings.TrimSuffix(cfg.CommandURL, "/")
	mux := http.NewServeMux()
	handler := func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			// Java's CommandServlet only implements GET.
			http.Error(w, "HTTP method "+r.Method+" is not supported by this URL", http.StatusMethodNotAllowed)
			return
		}
		rest, ok := strings.CutPrefix(r.URL.Path, url)
		if !ok || (rest != "" && !strings.HasPrefix(rest, "/")) {
			http.NotFound(w, r)
			return
		}
		name := strings.TrimPrefix(rest, "/")
		if name == "" {
			_, _ = w.Write([]byte(commandList(url)))
			return
		}
		args := map[string]string{}
		for k, v := range r.URL.Query() {
			if len(v) > 0 {
				args[k] = v[0]
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(c.Run(name, args)))
	}
	mux.HandleFunc("/", handler)
	return serveHTTPS(net.JoinHostPort(cfg.Address, strconv.Itoa(cfg.Port)), mux, cfg.IdleTimeout, cfg.TLS, cfg.ForceHTTPS)
}
