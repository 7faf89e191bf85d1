package server

import (
	"math"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
)

// Statistics the server records for the four-letter words, the
// AdminServer and Prometheus. Everything on the request path is a handful
// of uncontended atomic operations on counters spread over statShards
// cache lines, picked by connection id so that event loops on different
// cores rarely touch the same line; nothing is allocated and no lock is
// taken. Readers add the shards up.

// statShards is the number of cache lines a hot counter is spread over.
const statShards = 16

// clockBase is the origin of the monotonic clocks below.
var clockBase = time.Now()

// realMillis reads the monotonic clock in ms.
func realMillis() int64 { return int64(time.Since(clockBase) / time.Millisecond) }

// The request clock. Reading the monotonic clock costs 20 to 100 ns
// (more on some virtual machines), twice per request, while Java measures
// latencies in whole milliseconds anyway. So requests read a millisecond
// clock that a goroutine advances every millisecond while requests read
// it; after a second without readers it parks, and the first reader after
// that reads the real clock and wakes it. A reading is at most about a
// millisecond old (more if the clock goroutine cannot run in time).
var reqClock struct {
	ms     atomic.Int64
	used   atomic.Bool
	parked atomic.Bool
	wake   chan struct{}
	once   sync.Once
}

func startRequestClock() {
	reqClock.once.Do(func() {
		reqClock.wake = make(chan struct{}, 1)
		reqClock.ms.Store(realMillis())
		reqClock.parked.Store(true)
		go runRequestClock()
	})
}

func runRequestClock() {
	c := &reqClock
	for {
		<-c.wake
		t := time.NewTicker(time.Millisecond)
		for idle := 0; idle < 1000; {
			<-t.C
			c.ms.Store(realMillis())
			if c.used.Swap(false) {
				idle = 0
			} else {
				idle++
			}
		}
		t.Stop()
		c.parked.Store(true)
	}
}

// requestMillis reads the request clock.
func requestMillis() int64 {
	c := &reqClock
	if c.parked.Load() && c.parked.CompareAndSwap(true, false) {
		c.ms.Store(realMillis())
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
	if !c.used.Load() {
		c.used.Store(true)
	}
	return c.ms.Load()
}

// monoNanos is the request clock in ns (whole ms): request arrival times.
func monoNanos() int64 { return requestMillis() * 1e6 }

// MonoMillis is the server's monotonic millisecond clock, the clock of
// cons's lresp (Java prints its own monotonic clock there).
func MonoMillis() int64 { return requestMillis() }

type paddedInt64 struct {
	v atomic.Int64
	_ [56]byte
}

// ShardedCounter is a counter spread over cache lines.
type ShardedCounter struct {
	shards [statShards]paddedInt64
}

// Add adds d to the shard of hint.
func (c *ShardedCounter) Add(hint uint64, d int64) { c.shards[hint%statShards].v.Add(d) }

// Load returns the sum of the shards.
func (c *ShardedCounter) Load() int64 {
	var n int64
	for i := range c.shards {
		n += c.shards[i].v.Load()
	}
	return n
}

// Reset sets the counter to zero.
func (c *ShardedCounter) Reset() {
	for i := range c.shards {
		c.shards[i].v.Store(0)
	}
}

// Counter is a plain counter for events off the hot path.
type Counter struct{ v atomic.Int64 }

// Add adds d.
func (c *Counter) Add(d int64) { c.v.Add(d) }

// Load returns the count.
func (c *Counter) Load() int64 { return c.v.Load() }

// Reset sets the counter to zero.
func (c *Counter) Reset() { c.v.Store(0) }

// histogram buckets: values 0..127 exactly, larger ones in eight buckets
// per power of two (12.5% wide at most), up to 2^63.
const (
	histExact   = 128
	histSub     = 8
	histBuckets = histExact + (64-7)*histSub
)

func histIndex(v int64) int {
	if v < histExact {
		if v < 0 {
			return 0
		}
		return int(v)
	}
	n := bits.Len64(uint64(v)) // >= 8
	sub := int(uint64(v)>>(n-4)) & (histSub - 1)
	return histExact + (n-8)*histSub + sub
}

// histLower is the smallest value of bucket i.
func histLower(i int) int64 {
	if i < histExact {
		return int64(i)
	}
	i -= histExact
	n := i/histSub + 8
	sub := i % histSub
	return int64(histSub+sub) << (n - 4)
}

type summaryShard struct {
	count atomic.Int64
	sum   atomic.Int64
	_     [48]byte
}

// Summary is Java's AvgMinMaxCounter (basic) or, with percentiles,
// AvgMinMaxPercentileCounter (advanced): count, sum, min, max and a
// histogram from which percentiles are read (mntr shows them for advanced
// summaries; Prometheus exports quantiles of both kinds, as Java's
// provider does).
type Summary struct {
	Name     string
	Advanced bool
	shards   [statShards]summaryShard
	min, max atomic.Int64
	hist     *[statShards][histBuckets]atomic.Int64
}

// NewSummary returns an empty summary.
func NewSummary(name string, advanced bool) *Summary {
	s := &Summary{Name: name, Advanced: advanced, hist: new([statShards][histBuckets]atomic.Int64)}
	s.min.Store(math.MaxInt64)
	s.max.Store(math.MinInt64)
	return s
}

// Add records one value in the shard of hint.
func (s *Summary) Add(hint uint64, v int64) {
	sh := &s.shards[hint%statShards]
	sh.count.Add(1)
	sh.sum.Add(v)
	for {
		m := s.min.Load()
		if v >= m || s.min.CompareAndSwap(m, v) {
			break
		}
	}
	for {
		m := s.max.Load()
		if v <= m || s.max.CompareAndSwap(m, v) {
			break
		}
	}
	if s.hist != nil {
		s.hist[hint%statShards][histIndex(v)].Add(1)
	}
}

// Reset empties the summary.
func (s *Summary) Reset() {
	for i := range s.shards {
		s.shards[i].count.Store(0)
		s.shards[i].sum.Store(0)
	}
	s.min.Store(math.MaxInt64)
	s.max.Store(math.MinInt64)
	if s.hist != nil {
		for i := range s.hist {
			for j := range s.hist[i] {
				s.hist[i][j].Store(0)
			}
		}
	}
}

// SummarySnapshot is a summary's values at one moment.
type SummarySnapshot struct {
	Count, Sum, Min, Max int64
	counts               []int64 // histogram
}

// Since returns the values recorded after older was taken, for quantiles
// over a recent window; Min and Max stay those of a (the histogram's
// buckets are clamped to them). If the summary was reset in between, a
// is returned as it is.
func (a SummarySnapshot) Since(older SummarySnapshot) SummarySnapshot {
	if older.Count > a.Count || len(older.counts) != len(a.counts) {
		return a
	}
	out := SummarySnapshot{Count: a.Count - older.Count, Sum: a.Sum - older.Sum, Min: a.Min, Max: a.Max, counts: make([]int64, len(a.counts))}
	for i := range a.counts {
		out.counts[i] = a.counts[i] - older.counts[i]
		if out.counts[i] < 0 {
			return a
		}
	}
	return out
}

// Snapshot reads the summary. Min and Max are 0 while it is empty, as in
// Java.
func (s *Summary) Snapshot() SummarySnapshot {
	var out SummarySnapshot
	for i := range s.shards {
		out.Count += s.shards[i].count.Load()
		out.Sum += s.shards[i].sum.Load()
	}
	out.Min, out.Max = s.min.Load(), s.max.Load()
	if out.Min == math.MaxInt64 {
		out.Min = 0
	}
	if out.Max == math.MinInt64 {
		out.Max = 0
	}
	if s.hist != nil {
		out.counts = make([]int64, histBuckets)
		for i := range s.hist {
			for j := range s.hist[i] {
				out.counts[j] += s.hist[i][j].Load()
			}
		}
	}
	return out
}

// Merge combines two snapshots (counts, sums, extremes; not percentiles).
func (a SummarySnapshot) Merge(b SummarySnapshot) SummarySnapshot {
	switch {
	case a.Count == 0:
		return SummarySnapshot{Count: b.Count, Sum: b.Sum, Min: b.Min, Max: b.Max}
	case b.Count == 0:
		return SummarySnapshot{Count: a.Count, Sum: a.Sum, Min: a.Min, Max: a.Max}
	}
	return SummarySnapshot{Count: a.Count + b.Count, Sum: a.Sum + b.Sum, Min: min(a.Min, b.Min), Max: max(a.Max, b.Max)}
}

// Avg is Java's average: sum/count rounded half-up to four decimals, 0
// when empty.
func (a SummarySnapshot) Avg() float64 {
	if a.Count == 0 {
		return 0
	}
	return math.Floor(float64(a.Sum)/float64(a.Count)*10000+0.5) / 10000
}

// Quantile returns the value at quantile q (0..1) from the histogram, the
// lower bound of the bucket holding it (exact below 128), clamped to
// [Min, Max]; 0 when empty.
func (a SummarySnapshot) Quantile(q float64) int64 {
	var total int64
	for _, c := range a.counts {
		total += c
	}
	if total == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(total)))
	if rank < 1 {
		rank = 1
	}
	var seen int64
	for i, c := range a.counts {
		seen += c
		if seen >= rank {
			return min(max(histLower(i), a.Min), a.Max)
		}
	}
	return a.Max
}

// Metrics are the ServerMetrics of Java 3.8.0 that a standalone gozk
// records. The names are Java's; every metric Java has and gozk does not
// record reads as zero in mntr and Prometheus (see package admin, whose
// catalog lists them all). To record another one (election_time,
// commit_count, ... for ensembles), add a field under its Java name here
// and to Summaries or Counters: mntr, the AdminServer and Prometheus pick
// it up by name.
type Metrics struct {
	ReadLatency   *Summary // readlatency: ms from arrival to reply of reads (ping, sasl included)
	UpdateLatency *Summary // updatelatency: same for writes (createSession, closeSession included)
	FsyncTime     *Summary // fsynctime: ms per txn log batch append + fsync
	SnapshotTime  *Summary // snapshottime: ms per snapshot (see RecordSnapshotTime)
	DBInitTime    *Summary // dbinittime: ms to load the database at startup
	BatchSize     *Summary // sync_processor_batch_size: txns per fsync

	StartupTxnsLoaded   *Summary // startup_txns_loaded
	StartupTxnsLoadTime *Summary // startup_txns_load_time

	NodeCreatedWatchCount  *Summary // node_created_watch_count
	NodeDeletedWatchCount  *Summary // node_deleted_watch_count
	NodeChangedWatchCount  *Summary // node_changed_watch_count
	NodeChildrenWatchCount *Summary // node_children_watch_count

	ReadPerNamespace  *SummarySet // read_per_namespace: bytes read per top-level znode
	WritePerNamespace *SummarySet // write_per_namespace: bytes written per top-level znode

	BytesReceived          ShardedCounter // bytes_received_count
	ResponseBytes          ShardedCounter // response_bytes: bytes of replies
	WatchBytes             ShardedCounter // watch_bytes: bytes of notifications
	ConnectionRequestCount Counter        // connection_request_count
	StaleSessionsExpired   Counter        // stale_sessions_expired
	PrepRequestQueued      Counter        // prep_processor_request_queued
	SyncRequestQueued      Counter        // sync_processor_request_queued
	UnrecoverableErrors    Counter        // unrecoverable_error_count
	DigestMismatches       Counter        // digest_mismatches_count
	ConnectionRejected     Counter        // connection_rejected
	LargeRequestsRejected  Counter        // large_requests_rejected

	// SnapshotFailures counts snapshots that failed to be written
	// (gozk_snapshot_failures, exported by Prometheus only: mntr keeps
	// Java's keys). Java 3.8.0 has no such metric: it exits instead.
	SnapshotFailures Counter
}

func newMetrics() *Metrics {
	return &Metrics{
		ReadLatency:            NewSummary("readlatency", true),
		UpdateLatency:          NewSummary("updatelatency", true),
		FsyncTime:              NewSummary("fsynctime", false),
		SnapshotTime:           NewSummary("snapshottime", false),
		DBInitTime:             NewSummary("dbinittime", false),
		BatchSize:              NewSummary("sync_processor_batch_size", false),
		StartupTxnsLoaded:      NewSummary("startup_txns_loaded", false),
		StartupTxnsLoadTime:    NewSummary("startup_txns_load_time", false),
		NodeCreatedWatchCount:  NewSummary("node_created_watch_count", false),
		NodeDeletedWatchCount:  NewSummary("node_deleted_watch_count", false),
		NodeChangedWatchCount:  NewSummary("node_changed_watch_count", false),
		NodeChildrenWatchCount: NewSummary("node_children_watch_count", false),
		ReadPerNamespace:       NewSummarySet("read_per_namespace"),
		WritePerNamespace:      NewSummarySet("write_per_namespace"),
	}
}

// Summaries returns every summary by its Java name.
func (m *Metrics) Summaries() map[string]*Summary {
	out := map[string]*Summary{}
	for _, s := range []*Summary{m.ReadLatency, m.UpdateLatency, m.FsyncTime, m.SnapshotTime, m.DBInitTime,
		m.BatchSize, m.StartupTxnsLoaded, m.StartupTxnsLoadTime, m.NodeCreatedWatchCount,
		m.NodeDeletedWatchCount, m.NodeChangedWatchCount, m.NodeChildrenWatchCount} {
		out[s.Name] = s
	}
	return out
}

// Counters returns every counter's value by its Java name.
func (m *Metrics) Counters() map[string]int64 {
	return map[string]int64{
		"bytes_received_count":          m.BytesReceived.Load(),
		"response_bytes":                m.ResponseBytes.Load(),
		"watch_bytes":                   m.WatchBytes.Load(),
		"connection_request_count":      m.ConnectionRequestCount.Load(),
		"stale_sessions_expired":        m.StaleSessionsExpired.Load(),
		"prep_processor_request_queued": m.PrepRequestQueued.Load(),
		"sync_processor_request_queued": m.SyncRequestQueued.Load(),
		"unrecoverable_error_count":     m.UnrecoverableErrors.Load(),
		"digest_mismatches_count":       m.DigestMismatches.Load(),
		"connection_rejected":           m.ConnectionRejected.Load(),
		"large_requests_rejected":       m.LargeRequestsRejected.Load(),
		"gozk_snapshot_failures":        m.SnapshotFailures.Load(),
	}
}

// reset zeroes every metric, as srst does through Java's resetAll.
func (m *Metrics) reset() {
	for _, s := range m.Summaries() {
		s.Reset()
	}
	m.ReadPerNamespace.Reset()
	m.WritePerNamespace.Reset()
	m.BytesReceived.Reset()
	m.ResponseBytes.Reset()
	m.WatchBytes.Reset()
	for _, c := range []*Counter{&m.ConnectionRequestCount, &m.StaleSessionsExpired, &m.PrepRequestQueued,
		&m.SyncRequestQueued, &m.UnrecoverableErrors, &m.DigestMismatches, &m.ConnectionRejected, &m.LargeRequestsRejected, &m.SnapshotFailures} {
		c.Reset()
	}
}

// serverStats is Java's ServerStats: server-wide packet counters and the
// sizes of client responses. The request latency of srvr is the union of
// the read and update latency summaries, which srst resets together.
type serverStats struct {
	started         atomic.Int64 // wall ms, reset by nothing (uptime)
	packetsReceived ShardedCounter
	packetsSent     ShardedCounter
	fsyncExceeded   Counter
	authFailed      Counter
	lastRespSize    atomic.Int64
	minRespSize     atomic.Int64
	maxRespSize     atomic.Int64
}

func (st *serverStats) resetResponseSizes() {
	st.lastRespSize.Store(-1)
	st.minRespSize.Store(-1)
	st.maxRespSize.Store(-1)
}

func (st *serverStats) responseSize(n int64) {
	if st.lastRespSize.Load() != n {
		st.lastRespSize.Store(n)
	}
	for {
		m := st.minRespSize.Load()
		if (m >= 0 && n >= m) || st.minRespSize.CompareAndSwap(m, n) {
			break
		}
	}
	for {
		m := st.maxRespSize.Load()
		if n <= m || st.maxRespSize.CompareAndSwap(m, n) {
			break
		}
	}
}

// connStats is Java's per-connection ServerCnxn statistics (cons).
type connStats struct {
	established int64 // wall ms
	recved      atomic.Int64
	sent        atomic.Int64
	lastOp      atomic.Int32 // proto.OpCode + opShift; 0 = NA
	lastCxid    atomic.Int64
	lastZxid    atomic.Int64
	lastResp    atomic.Int64 // MonoMillis
	lastLat     atomic.Int64
	minLat      atomic.Int64
	maxLat      atomic.Int64
	count       atomic.Int64
	totalLat    atomic.Int64
}

// opShift keeps opcode 0 apart from "no operation yet".
const opShift = 1000

func (cs *connStats) reset() {
	cs.recved.Store(0)
	cs.sent.Store(0)
	cs.lastOp.Store(0)
	cs.lastCxid.Store(-1)
	cs.lastZxid.Store(-1)
	cs.lastResp.Store(0)
	cs.lastLat.Store(0)
	cs.minLat.Store(math.MaxInt64)
	cs.maxLat.Store(0)
	cs.count.Store(0)
	cs.totalLat.Store(0)
}
