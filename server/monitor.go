package server

import (
	"math"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/netio"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/watches"
)

// monitor holds what the monitoring commands read: the statistics, the
// live connections, and the digest history of hash.
type monitor struct {
	srv     *Server
	metrics *Metrics
	stats   serverStats
	// disabled turns the per-request recording off (gozk.stats.disabled,
	// to measure what recording costs).
	disabled bool

	connsMu sync.Mutex
	conns   map[*connection]struct{}

	traceMask atomic.Int64 // gtmk/stmk; informational, as nothing traces

	digestMu sync.Mutex
	digests  []ZxidDigest // oldest first, at most digestHistory
}

// ZxidDigest is one entry of the digest history (Java's ZxidDigest).
type ZxidDigest struct {
	Zxid    int64
	Digest  int64
	Version int // Java's DigestCalculator.DIGEST_VERSION
}

// Java records the tree digest after every txn whose zxid is a multiple
// of digestInterval and keeps the last digestHistory entries.
const (
	digestInterval = 128
	digestHistory  = 1024
	digestVersion  = 2
)

func newMonitor(s *Server, disabled bool) *monitor {
	startRequestClock()
	m := &monitor{srv: s, metrics: newMetrics(), conns: map[*connection]struct{}{}, disabled: disabled}
	m.stats.started.Store(time.Now().UnixMilli())
	m.traceMask.Store(DefaultTraceMask)
	m.stats.resetResponseSizes()
	if s.watches != nil {
		m.installWatchObserver()
	}
	return m
}

func (m *monitor) installWatchObserver() {
	mt := m.metrics
	m.srv.watches.SetTriggerObserver(func(typ proto.EventType, n int) {
		switch typ {
		case proto.EventNodeCreated:
			mt.NodeCreatedWatchCount.Add(0, int64(n))
		case proto.EventNodeDeleted:
			mt.NodeDeletedWatchCount.Add(0, int64(n))
		case proto.EventNodeDataChanged:
			mt.NodeChangedWatchCount.Add(0, int64(n))
		case proto.EventNodeChildrenChanged:
			mt.NodeChildrenWatchCount.Add(0, int64(n))
		}
	})
}

// Hooks on the request path. Each is a few atomic operations.

// opened registers a new connection.
func (m *monitor) opened(c *connection) {
	c.hint = c.nc.ID()
	c.stats.established = time.Now().UnixMilli()
	c.stats.reset()
	m.connsMu.Lock()
	m.conns[c] = struct{}{}
	m.connsMu.Unlock()
}

func (m *monitor) closed(c *connection) {
	m.connsMu.Lock()
	delete(m.conns, c)
	m.connsMu.Unlock()
}

// received counts one incoming frame of n payload bytes.
func (m *monitor) received(c *connection, n int) {
	if m.disabled {
		return
	}
	c.stats.recved.Add(1)
	m.stats.packetsReceived.Add(c.hint, 1)
	m.metrics.BytesReceived.Add(c.hint, int64(n)+4)
}

// fourLetterSent counts the output of a four-letter word as the packets
// Java sends for it: its writer hands the socket one buffer per 8,192
// UTF-16 units of text (and a last, shorter one), and counts each as a
// packet sent, so `srvr` and `mntr` report what Java's would.
func (m *monitor) fourLetterSent(c *connection, out []byte) {
	if m.disabled {
		return
	}
	n := int64(javaWriterBuffers(out))
	c.stats.sent.Add(n)
	m.stats.packetsSent.Add(c.hint, n)
}

// javaWriterBuffers is how many buffers Java's four-letter-word writer
// sends for text: one per 8,192 UTF-16 units, rounded up.
func javaWriterBuffers(text []byte) int {
	return (jute.UTF16Len(string(text)) + javaWriterBufferUnits - 1) / javaWriterBufferUnits
}

// javaWriterBufferUnits is the size of the BufferedWriter in front of
// Java's four-letter-word output, in chars.
const javaWriterBufferUnits = 8192

// sent counts one outgoing frame; replies (not notifications) also
// record the response size, the cxid and the zxid, as Java's
// sendResponse and updateStatsForResponse do.
func (m *monitor) sent(c *connection, n int, xid int32, zxid int64, reply bool) {
	if m.disabled {
		return
	}
	c.stats.sent.Add(1)
	m.stats.packetsSent.Add(c.hint, 1)
	if !reply {
		if n > 0 { // a notification; the ConnectResponse passes 0
			m.metrics.WatchBytes.Add(c.hint, int64(n))
		}
		return
	}
	m.metrics.ResponseBytes.Add(c.hint, int64(n))
	m.stats.responseSize(int64(n))
	c.stats.lastCxid.Store(int64(xid))
	c.stats.lastZxid.Store(zxid)
}

// done records the latency of one answered request that arrived at start
// (monoNanos), in the read or the update summary.
func (m *monitor) done(c *connection, op proto.OpCode, start int64, update bool) {
	if m.disabled || c == nil {
		return
	}
	now := monoNanos()
	lat := (now - start) / 1e6
	hint := c.hint
	if update {
		m.metrics.UpdateLatency.Add(hint, lat)
	} else {
		m.metrics.ReadLatency.Add(hint, lat)
	}
	cs := &c.stats
	if op == proto.OpCreateSession {
		// Java's updateStatsForResponse for the createSession request:
		// cxid 0 and the zxid of its txn, the last one applied.
		cs.lastCxid.Store(0)
		cs.lastZxid.Store(m.srv.tree.LastProcessedZxid())
	}
	cs.lastOp.Store(int32(op) + opShift)
	cs.lastResp.Store(now / 1e6)
	cs.lastLat.Store(lat)
	cs.count.Add(1)
	cs.totalLat.Add(lat)
	if lat < cs.minLat.Load() {
		cs.minLat.Store(lat)
	}
	if lat > cs.maxLat.Load() {
		cs.maxLat.Store(lat)
	}
}

// applied keeps the digest history after txn zxid was applied; it runs
// under applyMu on the final stage.
func (m *monitor) applied(zxid int64) {
	if zxid%digestInterval != 0 || !m.srv.cfg.DigestEnabled {
		return
	}
	d := m.srv.tree.Digest()
	m.digestMu.Lock()
	if len(m.digests) == digestHistory {
		copy(m.digests, m.digests[1:])
		m.digests = m.digests[:digestHistory-1]
	}
	m.digests = append(m.digests, ZxidDigest{Zxid: zxid, Digest: d, Version: digestVersion})
	m.digestMu.Unlock()
}

// logged records one txn log append of n txns that took d.
func (m *monitor) logged(n int, d time.Duration) {
	m.metrics.FsyncTime.Add(0, d.Milliseconds())
	m.metrics.BatchSize.Add(0, int64(n))
	m.metrics.SyncRequestQueued.Add(int64(n))
	if w := m.srv.cfg.FsyncWarning; w > 0 && d > w {
		m.stats.fsyncExceeded.Add(1)
	}
}

// Read-only accessors for package admin.

// DefaultTraceMask is Java's initial trace mask: client requests, server
// packets, sessions and warnings.
const DefaultTraceMask = 306

// TraceMask is the trace mask of gtmk; gozk keeps it for stmk and gtmk
// but traces nothing with it.
func (s *Server) TraceMask() int64 { return s.mon.traceMask.Load() }

// SetTraceMask is stmk and set_trace_mask.
func (s *Server) SetTraceMask(v int64) { s.mon.traceMask.Store(v) }

// Metrics returns the server's metrics.
func (s *Server) Metrics() *Metrics { return s.mon.metrics }

// RecordSnapshotTime records the duration of one snapshot in the
// snapshottime summary.
func (s *Server) RecordSnapshotTime(d time.Duration) {
	s.mon.metrics.SnapshotTime.Add(0, d.Milliseconds())
}

// RecordStartup records the database load at startup: dbinittime,
// startup_txns_loaded and startup_txns_load_time.
func (s *Server) RecordStartup(total time.Duration, txns int, txnTime time.Duration) {
	mt := s.mon.metrics
	mt.DBInitTime.Add(0, total.Milliseconds())
	if txns > 0 { // as in Java, nothing is recorded for an empty log
		mt.StartupTxnsLoaded.Add(0, int64(txns))
		mt.StartupTxnsLoadTime.Add(0, txnTime.Milliseconds())
	}
}

// ServerStats are the numbers of srvr, stat and the AdminServer's
// server_stats.
type ServerStats struct {
	Latency         SummarySnapshot // all requests: reads and updates
	PacketsReceived int64
	PacketsSent     int64
	Outstanding     int64
	Connections     int
	LastZxid        int64
	NodeCount       int
	UptimeMillis    int64
	FsyncExceeded   int64
	AuthFailed      int64
	// NonMTLSRemote and NonMTLSLocal count the connections to the plain
	// client port, from elsewhere and from loopback, when TLS is
	// configured; OutstandingTLSHandshakes is the number of TLS
	// handshakes under way (see tls.go).
	NonMTLSRemote            int64
	NonMTLSLocal             int64
	OutstandingTLSHandshakes int64
	LastResponseSize         int64
	MinResponseSize          int64
	MaxResponseSize          int64
	ApproximateData          int64
	EphemeralsCount          int
	WatchCount               int
	GlobalSessions           int
	OpenFileDescCount        int64
	MaxFileDescCount         int64
}

// Stats reads the server-wide statistics.
func (s *Server) Stats() ServerStats {
	m := s.mon
	st := ServerStats{
		Latency:          m.metrics.ReadLatency.Snapshot().Merge(m.metrics.UpdateLatency.Snapshot()),
		PacketsReceived:  m.stats.packetsReceived.Load(),
		PacketsSent:      m.stats.packetsSent.Load(),
		Outstanding:      s.outstanding.Load(),
		Connections:      s.ConnectionCount(),
		LastZxid:         s.tree.LastProcessedZxid(),
		NodeCount:        s.tree.NodeCount(),
		UptimeMillis:     time.Now().UnixMilli() - m.stats.started.Load(),
		FsyncExceeded:    m.stats.fsyncExceeded.Load(),
		AuthFailed:       m.stats.authFailed.Load(),
		NonMTLSRemote:    m.stats.nonMTLSRemote.Load(),
		NonMTLSLocal:     m.stats.nonMTLSLocal.Load(),
		LastResponseSize: m.stats.lastRespSize.Load(),
		MinResponseSize:  m.stats.minRespSize.Load(),
		MaxResponseSize:  m.stats.maxRespSize.Load(),
		ApproximateData:  s.tree.ApproximateDataSize(),
		EphemeralsCount:  s.tree.EphemeralCount(),
		WatchCount:       s.watches.WatchCount(),
		GlobalSessions:   s.tracker.count(),
	}
	if s.net != nil {
		st.OutstandingTLSHandshakes = s.net.TLSHandshakesInProgress()
	}
	st.OpenFileDescCount, st.MaxFileDescCount = fileDescriptors()
	return st
}

// ResetStats is srst: latencies, packet counters, response sizes and
// every metric.
func (s *Server) ResetStats() {
	m := s.mon
	m.stats.packetsReceived.Reset()
	m.stats.packetsSent.Reset()
	m.stats.resetResponseSizes()
	m.metrics.reset()
}

// ResetConnectionStats is crst: every connection's statistics.
func (s *Server) ResetConnectionStats() {
	for _, c := range s.mon.connections() {
		c.stats.reset()
	}
}

// ConnectionCount is the number of open client connections, the one
// asking included.
func (s *Server) ConnectionCount() int {
	s.mon.connsMu.Lock()
	defer s.mon.connsMu.Unlock()
	return len(s.mon.conns)
}

func (m *monitor) connections() []*connection {
	m.connsMu.Lock()
	out := make([]*connection, 0, len(m.conns))
	for c := range m.conns {
		out = append(out, c)
	}
	m.connsMu.Unlock()
	slices.SortFunc(out, func(a, b *connection) int {
		switch {
		case a.nc.ID() < b.nc.ID():
			return -1
		case a.nc.ID() > b.nc.ID():
			return 1
		}
		return 0
	})
	return out
}

// ConnectionInfo is one connection as cons and the AdminServer show it.
type ConnectionInfo struct {
	RemoteAddr     string // "ip:port"
	InterestOps    int    // Java's NIO interest set: 0, 1 (read), 4 (write), 5
	Queued         int64  // outstanding requests
	Received, Sent int64  // packets
	SessionID      int64  // 0 before a session is established
	LastOp         string // NA, PING, SESS, CREA, ...
	Established    int64  // wall ms
	SessionTimeout int32
	LastCxid       int64 // -1 after a reset
	LastZxid       int64 // -1 after a reset
	LastResponse   int64 // MonoMillis
	LastLatency    int64
	MinLatency     int64
	AvgLatency     int64
	MaxLatency     int64
	FourLetterWord bool // the connection is asking a four-letter word
	// SecurePort: the connection came in on the secure client port
	// (Java lists those as secure_connections); TLS clients of a unified
	// plain port are not.
	SecurePort bool
}

// Connections lists the open client connections in the order they were
// accepted.
func (s *Server) Connections() []ConnectionInfo {
	conns := s.mon.connections()
	out := make([]ConnectionInfo, 0, len(conns))
	for _, c := range conns {
		cs := &c.stats
		info := ConnectionInfo{
			RemoteAddr:     c.nc.RemoteAddr().String(),
			Queued:         c.outstanding.Load(),
			Received:       cs.recved.Load(),
			Sent:           cs.sent.Load(),
			LastOp:         OpName(proto.OpCode(cs.lastOp.Load() - opShift)),
			Established:    cs.established,
			LastCxid:       cs.lastCxid.Load(),
			LastZxid:       cs.lastZxid.Load(),
			LastResponse:   cs.lastResp.Load(),
			LastLatency:    cs.lastLat.Load(),
			MinLatency:     cs.minLat.Load(),
			MaxLatency:     cs.maxLat.Load(),
			FourLetterWord: c.fourLetter.Load(),
			SecurePort:     c.nc.OnSecurePort(),
		}
		if cs.lastOp.Load() == 0 {
			info.LastOp = "NA"
		}
		if info.MinLatency == math.MaxInt64 {
			info.MinLatency = 0
		}
		if n := cs.count.Load(); n > 0 {
			info.AvgLatency = cs.totalLat.Load() / n
		}
		if !info.FourLetterWord && !c.closed.Load() {
			if !c.nc.ReadingPaused() {
				info.InterestOps |= 1
			}
			if c.nc.QueuedBytes() > 0 {
				info.InterestOps |= 4
			}
		}
		if sess := c.currentSession(); sess != nil {
			info.SessionID = sess.id
			info.SessionTimeout = s.tracker.timeoutOf(sess)
		}
		out = append(out, info)
	}
	return out
}

// OpName is the lop code Java's cons prints for an operation.
func OpName(op proto.OpCode) string {
	switch op {
	case proto.OpPing:
		return "PING"
	case proto.OpCreateSession:
		return "SESS"
	case proto.OpMulti:
		return "MULT"
	case proto.OpMultiRead:
		return "MLTR"
	case proto.OpCreate, proto.OpCreate2, proto.OpCreateTTL, proto.OpCreateContainer:
		return "CREA"
	case proto.OpDelete, proto.OpDeleteContainer:
		return "DELE"
	case proto.OpSetData:
		return "SETD"
	case proto.OpReconfig:
		return "RECO"
	case proto.OpSetACL:
		return "SETA"
	case proto.OpCloseSession:
		return "CLOS"
	case proto.OpSync:
		return "SYNC"
	case proto.OpCheck:
		return "CHEC"
	case proto.OpExists:
		return "EXIS"
	case proto.OpGetData:
		return "GETD"
	case proto.OpSetWatches:
		return "SETW"
	case proto.OpSetWatches2:
		return "STW2"
	case proto.OpAddWatch:
		return "ADDW"
	case proto.OpGetACL:
		return "GETA"
	case proto.OpGetChildren, proto.OpGetChildren2:
		return "GETC"
	case proto.OpGetAllChildrenNumber:
		return "GETACN"
	case proto.OpCheckWatches:
		return "CHKW"
	case proto.OpRemoveWatches:
		return "REMW"
	case proto.OpWhoAmI:
		return "HOMI"
	case proto.OpGetEphemerals:
		return "GETE"
	}
	return "NA"
}

// ExpiryBucket is one bucket of the session tracker: the sessions that
// expire at At (wall ms) unless they are touched.
type ExpiryBucket struct {
	At       int64
	Sessions []int64
}

// SessionBuckets lists the session tracker's buckets by time, as dump
// shows them.
func (s *Server) SessionBuckets() []ExpiryBucket { return s.tracker.expiryBuckets() }

// ConnectionBuckets groups the open connections by the time they expire,
// as Java's connection expiry queue does: a connection with a session
// expires with it, one without after nio.sessionlessCnxnTimeout (10 s,
// rounded up to a tick) from its establishment.
func (s *Server) ConnectionBuckets() []ConnectionBucket {
	tick := s.cfg.TickTime.Milliseconds()
	// A connection without a session expires after the sessionless
	// timeout (Java's cnxnExpiryQueue), the configured one.
	sessionless := s.ClientPortConfig().SessionlessTimeout.Milliseconds()
	if sessionless <= 0 {
		sessionless = netio.DefaultSessionlessTimeout.Milliseconds()
	}
	byTime := map[int64][]ConnectionInfo{}
	for _, ci := range s.Connections() {
		var at int64
		if ci.SessionID != 0 {
			if sess := s.tracker.get(ci.SessionID); sess != nil {
				at = s.tracker.expiryOf(sess)
			}
		}
		if at == 0 {
			at = (ci.Established+sessionless)/tick*tick + tick
		}
		byTime[at] = append(byTime[at], ci)
	}
	out := make([]ConnectionBucket, 0, len(byTime))
	for at, cs := range byTime {
		out = append(out, ConnectionBucket{At: at, Connections: cs})
	}
	slices.SortFunc(out, func(a, b ConnectionBucket) int { return int(a.At - b.At) })
	return out
}

// ConnectionBucket is one bucket of ConnectionBuckets.
type ConnectionBucket struct {
	At          int64
	Connections []ConnectionInfo
}

// Ephemerals returns, for every live session with ephemeral nodes, their
// paths.
func (s *Server) Ephemerals() map[int64][]string {
	out := map[int64][]string{}
	for _, b := range s.tracker.expiryBuckets() {
		for _, id := range b.Sessions {
			if paths := s.tree.Ephemerals(id); len(paths) > 0 {
				out[id] = paths
			}
		}
	}
	return out
}

// Digests returns the digest history, oldest first (hash).
func (s *Server) Digests() []ZxidDigest {
	s.mon.digestMu.Lock()
	defer s.mon.digestMu.Unlock()
	return slices.Clone(s.mon.digests)
}

// WatcherSession returns the session id of a watcher of Watches(), 0 if
// it has none.
func WatcherSession(w watches.Watcher) int64 {
	if c, ok := w.(*connection); ok {
		if sess := c.currentSession(); sess != nil {
			return sess.id
		}
	}
	return 0
}

// LastSnapshot returns the zxid and the time (Unix seconds) of the newest
// snapshot, or -1 and -1 when there is none (last_snapshot).
func (s *Server) LastSnapshot() (zxid int64, unixSeconds int64) {
	infos, err := s.store.Snapshots()
	if err != nil {
		return -1, -1
	}
	for _, info := range infos {
		if info.Err == nil {
			return info.Zxid, info.Created.Unix()
		}
	}
	return -1, -1
}

// Config returns the configuration the server runs with, defaults
// applied.
func (s *Server) Config() Config { return s.cfg }

// expiryBuckets lists the expiry buckets by time.
func (t *sessionTracker) expiryBuckets() []ExpiryBucket {
	t.mu.Lock()
	out := make([]ExpiryBucket, 0, len(t.buckets))
	for at, b := range t.buckets {
		ids := make([]int64, 0, len(b))
		for id := range b {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		out = append(out, ExpiryBucket{At: at, Sessions: ids})
	}
	t.mu.Unlock()
	slices.SortFunc(out, func(a, b ExpiryBucket) int { return int(a.At - b.At) })
	return out
}

func (t *sessionTracker) timeoutOf(s *session) int32 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return s.timeout
}

func (t *sessionTracker) expiryOf(s *session) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return s.expireAt
}

// fileDescriptors returns the open and the maximum number of file
// descriptors of the process (Unix), or 0s.
func fileDescriptors() (open, limit int64) {
	if entries, err := os.ReadDir("/proc/self/fd"); err == nil {
		open = int64(len(entries))
	}
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) == nil {
		limit = int64(rl.Cur)
	}
	return open, limit
}
