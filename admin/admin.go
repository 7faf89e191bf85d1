package admin

import (
	"fmt"
	"net"
	"os"
	osuser "os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gozk/gozk/server"
	"github.com/gozk/gozk/watches"
)

// ZooKeeperVersion is the Apache ZooKeeper release gozk answers as.
const ZooKeeperVersion = "3.8.0"

// FullVersion is the version string of srvr, stat, mntr, envi and the
// AdminServer: "3.8.0-gozk-<gozkVersion>, built on <date> UTC", the shape
// of Java's Version.getFullVersion().
func FullVersion(gozkVersion string, built time.Time) string {
	return fmt.Sprintf("%s-gozk-%s, built on %s UTC", ZooKeeperVersion, gozkVersion, built.UTC().Format("2006-01-02 15:04"))
}

// Options configure the monitoring commands.
type Options struct {
	// Version is the full version string (FullVersion).
	Version string
	// InitialConfig is the text of the zoo.cfg the server started with
	// (initial_configuration).
	InitialConfig string
	// SystemProperties are the system properties in effect as Java would
	// have them (-D flags and zookeeper.<key> for the zoo.cfg keys the
	// parser does not know), for system_properties.
	SystemProperties map[string]string
	// Quorum is an ensemble member's configuration; nil on a standalone
	// server.
	Quorum *QuorumView
}

// Commands answers the monitoring commands of one server.
type Commands struct {
	srv    atomic.Pointer[server.Server]
	quorum atomic.Pointer[QuorumView]
	opts   Options
}

// mask is the server's trace mask (Java's default before it runs).
func (c *Commands) mask() int64 {
	if s := c.srv.Load(); s != nil {
		return s.TraceMask()
	}
	return server.DefaultTraceMask
}

// New returns the commands for opts; Attach names the server once it
// runs. Until then every command that needs the server answers that the
// instance is not serving, as Java does during startup.
func New(opts Options) *Commands {
	c := &Commands{opts: opts}
	c.quorum.Store(opts.Quorum)
	return c
}

// Attach sets the server the commands read.
func (c *Commands) Attach(s *server.Server) { c.srv.Store(s) }

// notServing is Java's answer when the server does not serve requests.
const notServing = "This ZooKeeper instance is not currently serving requests"

// serving reports whether s answers the commands that need a running
// server: it is attached and, in an ensemble, neither looking nor
// syncing (Java's isZKServerRunning).
func serving(s *server.Server) bool { return s != nil && s.Serving() }

// FourLetterWord answers one whitelisted four-letter word (plug it into
// server.Config.FourLetterWords). nil closes the connection without
// output.
func (c *Commands) FourLetterWord(cmd string) []byte {
	s := c.srv.Load()
	var b strings.Builder
	switch cmd {
	case "ruok":
		return []byte("imok")
	case "isro":
		if !serving(s) {
			return []byte("null")
		}
		return []byte("rw")
	case "envi":
		c.envi(&b)
		return []byte(b.String())
	case "gtmk", "stmk": // the server has set stmk's mask already
		return []byte(strconv.FormatInt(c.mask(), 10))
	}
	if !serving(s) {
		if cmd == "hash" {
			return []byte(notServing)
		}
		return []byte(notServing + "\n")
	}
	switch cmd {
	case "conf":
		c.conf(&b, s)
	case "cons":
		for _, ci := range s.Connections() {
			writeConnection(&b, ci, true)
		}
		b.WriteByte('\n')
	case "crst":
		s.ResetConnectionStats()
		b.WriteString("Connection stats reset.\n")
	case "srst":
		s.ResetStats()
		if s.Role() == server.RoleLeader {
			s.ResetProposalSizes() // as Java's srst, not its stat_reset
		}
		b.WriteString("Server stats reset.\n")
	case "srvr":
		c.srvr(&b, s, false)
	case "stat":
		c.srvr(&b, s, true)
	case "dump":
		c.dump(&b, s)
	case "dirs":
		dataSize, logSize := dirSizes(s)
		fmt.Fprintf(&b, "datadir_size: %d\nlogdir_size: %d\n", dataSize, logSize)
	case "wchs":
		conns, paths, total := s.Watches().DataWatchSummary()
		fmt.Fprintf(&b, "%d connections watching %d paths\nTotal watches:%d\n", conns, paths, total)
	case "wchc":
		for _, row := range watchesBySession(s) {
			fmt.Fprintf(&b, "0x%x\n", row.session)
			for _, p := range row.paths {
				b.WriteString("\t" + p + "\n")
			}
		}
		b.WriteByte('\n')
	case "wchp":
		for _, row := range watchesByPath(s) {
			b.WriteString(row.path + "\n")
			for _, id := range row.sessions {
				fmt.Fprintf(&b, "\t0x%x\n", id)
			}
		}
		b.WriteByte('\n')
	case "mntr":
		for _, kv := range c.monitor(s) {
			b.WriteString("zk_" + kv.key + "\t" + formatValue(kv.value) + "\n")
		}
	case "hash":
		for _, d := range s.Digests() {
			fmt.Fprintf(&b, "%x: %d\n", d.Zxid, d.Digest)
		}
	default:
		return nil
	}
	return []byte(b.String())
}

// dataDirs returns Java's snapshot and txn-log directories:
// <dataDir>/version-2 and <dataLogDir>/version-2, made absolute.
func dataDirs(s *server.Server) (string, string) {
	cfg := s.Config()
	abs := func(d string) string {
		if a, err := filepath.Abs(d); err == nil {
			d = a
		}
		return filepath.Join(d, "version-2")
	}
	logDir := cfg.DataLogDir
	if logDir == "" {
		logDir = cfg.DataDir
	}
	return abs(cfg.DataDir), abs(logDir)
}

// dirSizes are the sizes of everything gozk keeps in dataDir and
// dataLogDir (snapshots and the txn log, which do not live in
// version-2/). When both are one directory, both sizes are its size, as
// in Java.
func dirSizes(s *server.Server) (int64, int64) {
	cfg := s.Config()
	logDir := cfg.DataLogDir
	if logDir == "" {
		logDir = cfg.DataDir
	}
	return dirSize(cfg.DataDir), dirSize(logDir)
}

// dirSize returns the bytes of all files under dir.
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

func (c *Commands) conf(b *strings.Builder, s *server.Server) {
	cfg := s.Config()
	dataDir, logDir := dataDirs(s)
	dataSize, logSize := dirSizes(s)
	fmt.Fprintf(b, "clientPort=%d\n", clientPort(s))
	fmt.Fprintf(b, "secureClientPort=%d\n", portOf(s.SecureAddr()))
	fmt.Fprintf(b, "dataDir=%s\ndataDirSize=%d\n", dataDir, dataSize)
	fmt.Fprintf(b, "dataLogDir=%s\ndataLogSize=%d\n", logDir, logSize)
	fmt.Fprintf(b, "tickTime=%d\n", cfg.TickTime.Milliseconds())
	fmt.Fprintf(b, "maxClientCnxns=%d\n", cfg.MaxClientCnxns)
	fmt.Fprintf(b, "minSessionTimeout=%d\n", cfg.MinSessionTimeout)
	fmt.Fprintf(b, "maxSessionTimeout=%d\n", cfg.MaxSessionTimeout)
	b.WriteString("clientPortListenBacklog=-1\n")
	q := c.quorumOf(s)
	if q == nil {
		b.WriteString("serverId=0\n")
		return
	}
	fmt.Fprintf(b, "serverId=%d\n", q.ServerID)
	writeQuorumConf(b, q)
}

func clientPort(s *server.Server) int {
	if s.Config().ClientAddr == "" {
		return -1 // a secure client port only
	}
	return portOf(s.Addr())
}

// portOf is a listener's port, -1 without a listener (as Java prints a
// port it does not serve).
func portOf(a net.Addr) int {
	if a != nil {
		if _, p, err := splitHostPort(a.String()); err == nil {
			return p
		}
	}
	return -1
}

func splitHostPort(a string) (string, int, error) {
	i := strings.LastIndexByte(a, ':')
	if i < 0 {
		return "", 0, fmt.Errorf("no port in %q", a)
	}
	p, err := strconv.Atoi(a[i+1:])
	return a[:i], p, err
}

// writeConnection writes one cons (full) or stat (brief) line.
func writeConnection(b *strings.Builder, ci server.ConnectionInfo, full bool) {
	fmt.Fprintf(b, " /%s[%x](queued=%d,recved=%d,sent=%d", ci.RemoteAddr, ci.InterestOps, ci.Queued, ci.Received, ci.Sent)
	if full && ci.SessionID != 0 {
		fmt.Fprintf(b, ",sid=0x%x,lop=%s,est=%d,to=%d", ci.SessionID, ci.LastOp, ci.Established, ci.SessionTimeout)
		if ci.LastCxid >= 0 {
			fmt.Fprintf(b, ",lcxid=0x%x", ci.LastCxid)
		}
		fmt.Fprintf(b, ",lzxid=0x%x,lresp=%d,llat=%d,minlat=%d,avglat=%d,maxlat=%d",
			uint64(ci.LastZxid), ci.LastResponse, ci.LastLatency, ci.MinLatency, ci.AvgLatency, ci.MaxLatency)
	}
	b.WriteString(")\n")
}

func (c *Commands) srvr(b *strings.Builder, s *server.Server, withClients bool) {
	st := s.Stats()
	b.WriteString("Zookeeper version: " + c.opts.Version + "\n")
	if withClients {
		b.WriteString("Clients:\n")
		for _, ci := range s.Connections() {
			writeConnection(b, ci, false)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(b, "Latency min/avg/max: %d/%s/%d\n", st.Latency.Min, javaDouble(summaryAvg(st.Latency)), st.Latency.Max)
	fmt.Fprintf(b, "Received: %d\nSent: %d\nConnections: %d\nOutstanding: %d\n",
		st.PacketsReceived, st.PacketsSent, st.Connections, st.Outstanding)
	fmt.Fprintf(b, "Zxid: 0x%x\nMode: %s\nNode count: %d\n", st.LastZxid, s.Role(), st.NodeCount)
	if s.Role() == server.RoleLeader {
		last, lo, hi := s.ProposalSizes()
		fmt.Fprintf(b, "Proposal sizes last/min/max: %d/%d/%d\n", last, lo, hi)
	}
}

// javaDate formats wall ms as Java's Date.toString().
func javaDate(ms int64) string {
	return time.UnixMilli(ms).Format("Mon Jan 02 15:04:05 MST 2006")
}

func (c *Commands) dump(b *strings.Builder, s *server.Server) {
	buckets := s.SessionBuckets()
	n := 0
	for _, bk := range buckets {
		n += len(bk.Sessions)
	}
	b.WriteString("SessionTracker dump:\n")
	fmt.Fprintf(b, "Session Sets (%d)/(%d):\n", len(buckets), n)
	for _, bk := range buckets {
		fmt.Fprintf(b, "%d expire at %s:\n", len(bk.Sessions), javaDate(bk.At))
		for _, id := range bk.Sessions {
			fmt.Fprintf(b, "\t0x%x\n", id)
		}
	}
	eph := s.Ephemerals()
	b.WriteString("ephemeral nodes dump:\n")
	fmt.Fprintf(b, "Sessions with Ephemerals (%d):\n", len(eph))
	for _, id := range javaLongOrder(keysOf(eph)) {
		fmt.Fprintf(b, "0x%x:\n", id)
		for _, p := range javaStringOrder(eph[id]) {
			b.WriteString("\t" + p + "\n")
		}
	}
	cb := s.ConnectionBuckets()
	n = 0
	for _, bk := range cb {
		n += len(bk.Connections)
	}
	b.WriteString("Connections dump:\n")
	fmt.Fprintf(b, "Connections Sets (%d)/(%d):\n", len(cb), n)
	for _, bk := range cb {
		fmt.Fprintf(b, "%d expire at %s:\n", len(bk.Connections), javaDate(bk.At))
		for _, ci := range bk.Connections {
			fmt.Fprintf(b, "\tip: /%s sessionId: 0x%x\n", ci.RemoteAddr, ci.SessionID)
		}
	}
}

func keysOf[V any](m map[int64]V) []int64 {
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// envi's keys, in Java's order, with what gozk has in place of the JVM.
func (c *Commands) environment() []kv {
	host, err := os.Hostname()
	if err != nil {
		host = "<NA>"
	}
	exe, _ := os.Executable()
	wd, _ := os.Getwd()
	home, _ := os.UserHomeDir()
	user := "<NA>"
	if u, err := osuser.Current(); err == nil {
		user = u.Username
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	mb := func(n uint64) string { return strconv.FormatUint(n>>20, 10) + "MB" }
	max := ms.Sys
	return []kv{
		{"zookeeper.version", c.opts.Version},
		{"host.name", host},
		{"java.version", runtime.Version()},
		{"java.vendor", "<NA>"},
		{"java.home", "<NA>"},
		{"java.class.path", naIfEmpty(exe)},
		{"java.library.path", "<NA>"},
		{"java.io.tmpdir", os.TempDir()},
		{"java.compiler", "<NA>"},
		{"os.name", javaOSName()},
		{"os.arch", runtime.GOARCH},
		{"os.version", osRelease()},
		{"user.name", user},
		{"user.home", naIfEmpty(home)},
		{"user.dir", naIfEmpty(wd)},
		{"os.memory.free", mb(ms.HeapIdle)},
		{"os.memory.max", mb(max)},
		{"os.memory.total", mb(ms.Sys)},
	}
}

func naIfEmpty(s string) string {
	if s == "" {
		return "<NA>"
	}
	return s
}

func javaOSName() string {
	switch runtime.GOOS {
	case "linux":
		return "Linux"
	case "darwin":
		return "Mac OS X"
	case "windows":
		return "Windows"
	case "freebsd":
		return "FreeBSD"
	}
	return runtime.GOOS
}

func osRelease() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return "<NA>"
	}
	return strings.TrimSpace(string(b))
}

func (c *Commands) envi(b *strings.Builder) {
	b.WriteString("Environment:\n")
	for _, e := range c.environment() {
		b.WriteString(e.key + "=" + e.value.(string) + "\n")
	}
}

type sessionPaths struct {
	session int64
	paths   []string
}

// watchesBySession is wchc: the data-table watches by session.
func watchesBySession(s *server.Server) []sessionPaths {
	var out []sessionPaths
	s.Watches().ByWatcher(func(w watches.Watcher, paths []string) {
		out = append(out, sessionPaths{server.WatcherSession(w), javaStringOrder(paths)})
	})
	return out
}

type pathSessions struct {
	path     string
	sessions []int64
}

// watchesByPath is wchp: the data-table watches by path, paths in the
// order of Java's HashMap.
func watchesByPath(s *server.Server) []pathSessions {
	byPath := map[string][]int64{}
	var paths []string
	s.Watches().ByPath(func(path string, ws []watches.Watcher) {
		ids := make([]int64, 0, len(ws))
		for _, w := range ws {
			ids = append(ids, server.WatcherSession(w))
		}
		byPath[path] = ids
		paths = append(paths, path)
	})
	out := make([]pathSessions, 0, len(paths))
	for _, p := range javaStringOrder(paths) {
		out = append(out, pathSessions{p, byPath[p]})
	}
	return out
}
