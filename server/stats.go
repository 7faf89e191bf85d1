package server

import (
	"math"
	"math/bits"
	"slices"
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

// Summary is Java's AvgMinMaxCounter (basic) or AvgMinMaxPercentileCounter
// (advanced): count, sum, min, max and a histogram from which percentiles
// are read. Both kinds keep the histogram, since Prometheus exports
// quantiles of both, as Java's provider does; which kind a summary is,
// and so whether mntr shows its percentiles, is package admin's catalog's
// business.
type Summary struct {
	Name     string
	shards   [statShards]summaryShard
	min, max atomic.Int64
	hist     *[statShards][histBuckets]atomic.Int64
}

// NewSummary returns an empty summary.
func NewSummary(name string) *Summary {
	s := &Summary{Name: name, hist: new([statShards][histBuckets]atomic.Int64)}
	s.min.Store(math.MaxInt64)
	s.max.Store(math.MinInt64)
	return s
}

// Add records one value in the shard of hint.
func (s *Summary) Add(hint uint64, v int64) {
	sh := &s.shards[hint%statShards]
	sh.count.Add(1)
	sh.sum.Add(v)
	recordExtremes(&s.min, &s.max, v)
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

// SummarySnapshot is a summary's values at one moment: what the server
// recorded, which package admin turns into averages and quantiles.
type SummarySnapshot struct {
	Count, Sum, Min, Max int64
	// Buckets are the histogram's non-empty buckets by ascending bound.
	Buckets []HistogramBucket
}

// HistogramBucket is one bucket of a summary's histogram: Count values
// from Lower (exact below 128) up to the next bucket's Lower, 12.5% wider
// at most.
type HistogramBucket struct {
	Lower, Count int64
}

// Snapshot reads the summary. Min and Max are 0 while it is empty, as in
// Java.
func (s *Summary) Snapshot() SummarySnapshot {
	var out SummarySnapshot
	for i := range s.shards {
		out.Count += s.shards[i].count.Load()
		out.Sum += s.shards[i].sum.Load()
	}
	out.Min, out.Max = readExtremes(&s.min, &s.max)
	if s.hist != nil {
		for j := 0; j < histBuckets; j++ {
			var n int64
			for i := range s.hist {
				n += s.hist[i][j].Load()
			}
			if n > 0 {
				out.Buckets = append(out.Buckets, HistogramBucket{Lower: histLower(j), Count: n})
			}
		}
	}
	return out
}

// PercentileSummarySet is Java's AvgMinMaxPercentileCounterSet: one
// advanced summary (with its histogram, 75 KB) per key, for sets whose
// keys are few and known, such as server ids.
type PercentileSummarySet struct {
	Name string
	m    sync.Map // key -> *Summary
}

// NewPercentileSummarySet returns an empty set.
func NewPercentileSummarySet(name string) *PercentileSummarySet {
	return &PercentileSummarySet{Name: name}
}

// Add records v under key.
func (ps *PercentileSummarySet) Add(key string, v int64) {
	sm, ok := ps.m.Load(key)
	if !ok {
		sm, _ = ps.m.LoadOrStore(key, NewSummary(key))
	}
	sm.(*Summary).Add(0, v)
}

// Keys returns the keys, sorted.
func (ps *PercentileSummarySet) Keys() []string {
	var keys []string
	ps.m.Range(func(k, _ any) bool {
		keys = append(keys, k.(string))
		return true
	})
	slices.Sort(keys)
	return keys
}

// Snapshot reads the summary of key; false if there is none.
func (ps *PercentileSummarySet) Snapshot(key string) (SummarySnapshot, bool) {
	sm, ok := ps.m.Load(key)
	if !ok {
		return SummarySnapshot{}, false
	}
	return sm.(*Summary).Snapshot(), true
}

// Reset empties every summary and keeps the keys, as Java's does.
func (ps *PercentileSummarySet) Reset() {
	ps.m.Range(func(_, sm any) bool {
		sm.(*Summary).Reset()
		return true
	})
}

// recordExtremes lowers minV to v and raises maxV to v where it must.
func recordExtremes(minV, maxV *atomic.Int64, v int64) {
	for {
		m := minV.Load()
		if v >= m || minV.CompareAndSwap(m, v) {
			break
		}
	}
	for {
		m := maxV.Load()
		if v <= m || maxV.CompareAndSwap(m, v) {
			break
		}
	}
}

// readExtremes reads a minimum and a maximum kept from their sentinels,
// 0 for either while nothing was recorded.
func readExtremes(minV, maxV *atomic.Int64) (int64, int64) {
	lo, hi := minV.Load(), maxV.Load()
	if lo == math.MaxInt64 {
		lo = 0
	}
	if hi == math.MinInt64 {
		hi = 0
	}
	return lo, hi
}

// Merge combines two snapshots (counts, sums, extremes; not the
// histograms).
func (a SummarySnapshot) Merge(b SummarySnapshot) SummarySnapshot {
	switch {
	case a.Count == 0:
		return SummarySnapshot{Count: b.Count, Sum: b.Sum, Min: b.Min, Max: b.Max}
	case b.Count == 0:
		return SummarySnapshot{Count: a.Count, Sum: a.Sum, Min: a.Min, Max: a.Max}
	}
	return SummarySnapshot{Count: a.Count + b.Count, Sum: a.Sum + b.Sum, Min: min(a.Min, b.Min), Max: max(a.Max, b.Max)}
}

// Metrics are the ServerMetrics of Java 3.8.0 that gozk records. The
// names are Java's; every metric Java has and gozk does not record reads
// as zero in mntr and Prometheus (see package admin, whose catalog lists
// them all). To record another one, add a field under its Java name here
// and to Summaries or Counters: mntr, the AdminServer and Prometheus pick
// it up by name. A summary's Add takes a shard hint first: off the
// request path, pass 0.
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

	// An ensemble member's metrics, named after Java's, with when Java
	// records them. SetRole and SetPhase record the first five; the
	// ensemble code records the others where Java does.

	ElectionTime          *Summary // election_time: ms from starting to look to starting to follow or lead (SetRole)
	FollowerSyncTime      *Summary // follower_sync_time: ms a follower took to sync with its leader (SetPhase)
	ObserverSyncTime      *Summary // observer_sync_time: same for an observer (SetPhase)
	UnavailableTime       *Summary // unavailable_time: ms from starting to look to serving again (SetPhase)
	LeaderUnavailableTime *Summary // leader_unavailable_time: the same, recorded by a member that ends up leading (SetPhase)
	LookingCount          Counter  // looking_count: elections this member started (SetRole)

	// LearnerRequestProcessorQueueSize is learner_request_processor_queue_size:
	// a follower or observer records the number of client requests
	// waiting to be forwarded to the leader each time it queues one (its
	// Java FollowerRequestProcessor / ObserverRequestProcessor).
	LearnerRequestProcessorQueueSize *Summary
	// ProposalLatency is proposal_latency: on each PROPOSAL a follower
	// receives, wall ms from the txn header's time to now, when not
	// negative (clocks may drift).
	ProposalLatency *Summary
	// CommitPropagationLatency is commit_propagation_latency: on each
	// COMMIT (follower) or INFORM (observer), wall ms from the txn
	// header's time to the commit being handed to the final stage.
	CommitPropagationLatency *Summary
	// ProposalAckCreationLatency is proposal_ack_creation_latency: wall ms
	// from the txn header's time to the ACK being created after the
	// txn was logged (follower's SendAckRequestProcessor, and the
	// leader's own ACK).
	ProposalAckCreationLatency *Summary
	// QuorumAckLatency is quorum_ack_latency: on a leader, wall ms from
	// the txn header's time to the proposal reaching a quorum of ACKs.
	QuorumAckLatency *Summary
	// InflightDiffCount and InflightSnapCount are inflight_diff_count and
	// inflight_snap_count: on a leader, the learner syncs in progress
	// (Java's sync throttler) each time one starts a DIFF or a SNAP.
	InflightDiffCount *Summary
	InflightSnapCount *Summary

	LearnerProposalReceived Counter // learner_proposal_received_count: PROPOSALs a follower received
	LearnerCommitReceived   Counter // learner_commit_received_count: COMMITs a follower or INFORMs an observer received
	ProposalCount           Counter // proposal_count: proposals a leader sent
	CommitCount             Counter // commit_count: proposals a leader committed
	DiffCount               Counter // diff_count: learners a leader synced with a DIFF
	SnapCount               Counter // snap_count: learners a leader synced with a SNAP
	RevalidateCount         Counter // revalidate_count: REVALIDATEs a leader answered for its learners' clients
	// ConnectionRevalidateCount is connection_revalidate_count: clients
	// that reconnected with an existing session (any role; Java counts it
	// where it reopens the session).
	ConnectionRevalidateCount Counter
	// CnxnClosedWithoutServer is cnxn_closed_without_zk_server_running:
	// connections closed because an ensemble member was not serving
	// (electing, syncing).
	CnxnClosedWithoutServer Counter
	// RequestsNotForwardedToCommitProcessor is
	// requests_not_forwarded_to_commit_processor: on a leader, requests
	// its proposal stage did not hand on because the proposal failed.
	RequestsNotForwardedToCommitProcessor Counter
	// QuitLeadingDueToDisloyalVoter is
	// quit_leading_due_to_disloyal_voter: a leader that stepped down
	// because a voter it relied on followed another leader.
	QuitLeadingDueToDisloyalVoter Counter
	// ConnectionTokenDeficit is connection_token_deficit: the
	// connection throttle's deficit after each ConnectRequest it lets
	// through (0 with the throttle off, as in Java).
	ConnectionTokenDeficit *Summary
	// UnsuccessfulHandshake is unsuccessful_handshake: TLS handshakes
	// of the client port that failed.
	UnsuccessfulHandshake Counter
	// TLSHandshakeExceeded is tls_handshake_exceeded: TLS client
	// connections closed before their handshake over
	// zookeeper.netty.server.outstandingHandshake.limit.
	TLSHandshakeExceeded Counter

	// A leader's summaries per learner, keyed by the learner's server id
	// in decimal.

	// LearnerHandlerQPSize is learner_handler_qp_size: each time the
	// leader takes a packet from a learner's send queue, the number of
	// packets still queued for it.
	LearnerHandlerQPSize *SummarySet
	// LearnerHandlerQPTime is learner_handler_qp_time_ms: ms a marker
	// packet spent in a learner's send queue (Java queues one with the
	// proposals now and then to measure the queue's delay).
	LearnerHandlerQPTime *PercentileSummarySet
	// AckLatency is ack_latency: ms from a proposal to a learner's ACK of
	// it, for the proposals whose zxid is a multiple of
	// zookeeper.leader.ackLoggingFrequency (1000).
	AckLatency *PercentileSummarySet
}

func newMetrics() *Metrics {
	return &Metrics{
		ReadLatency:            NewSummary("readlatency"),
		UpdateLatency:          NewSummary("updatelatency"),
		FsyncTime:              NewSummary("fsynctime"),
		SnapshotTime:           NewSummary("snapshottime"),
		DBInitTime:             NewSummary("dbinittime"),
		BatchSize:              NewSummary("sync_processor_batch_size"),
		StartupTxnsLoaded:      NewSummary("startup_txns_loaded"),
		StartupTxnsLoadTime:    NewSummary("startup_txns_load_time"),
		NodeCreatedWatchCount:  NewSummary("node_created_watch_count"),
		NodeDeletedWatchCount:  NewSummary("node_deleted_watch_count"),
		NodeChangedWatchCount:  NewSummary("node_changed_watch_count"),
		NodeChildrenWatchCount: NewSummary("node_children_watch_count"),
		ReadPerNamespace:       NewSummarySet("read_per_namespace"),
		WritePerNamespace:      NewSummarySet("write_per_namespace"),

		ElectionTime:                     NewSummary("election_time"),
		FollowerSyncTime:                 NewSummary("follower_sync_time"),
		ObserverSyncTime:                 NewSummary("observer_sync_time"),
		UnavailableTime:                  NewSummary("unavailable_time"),
		LeaderUnavailableTime:            NewSummary("leader_unavailable_time"),
		LearnerRequestProcessorQueueSize: NewSummary("learner_request_processor_queue_size"),
		ProposalLatency:                  NewSummary("proposal_latency"),
		CommitPropagationLatency:         NewSummary("commit_propagation_latency"),
		ProposalAckCreationLatency:       NewSummary("proposal_ack_creation_latency"),
		QuorumAckLatency:                 NewSummary("quorum_ack_latency"),
		InflightDiffCount:                NewSummary("inflight_diff_count"),
		InflightSnapCount:                NewSummary("inflight_snap_count"),
		LearnerHandlerQPSize:             NewSummarySet("learner_handler_qp_size"),
		LearnerHandlerQPTime:             NewPercentileSummarySet("learner_handler_qp_time_ms"),
		AckLatency:                       NewPercentileSummarySet("ack_latency"),
		ConnectionTokenDeficit:           NewSummary("connection_token_deficit"),
	}
}

// Summaries returns every summary by its Java name.
func (m *Metrics) Summaries() map[string]*Summary {
	out := map[string]*Summary{}
	for _, s := range []*Summary{m.ReadLatency, m.UpdateLatency, m.FsyncTime, m.SnapshotTime, m.DBInitTime,
		m.BatchSize, m.StartupTxnsLoaded, m.StartupTxnsLoadTime, m.NodeCreatedWatchCount,
		m.NodeDeletedWatchCount, m.NodeChangedWatchCount, m.NodeChildrenWatchCount,
		m.ElectionTime, m.FollowerSyncTime, m.ObserverSyncTime, m.UnavailableTime, m.LeaderUnavailableTime,
		m.LearnerRequestProcessorQueueSize, m.ProposalLatency, m.CommitPropagationLatency,
		m.ProposalAckCreationLatency, m.QuorumAckLatency, m.InflightDiffCount, m.InflightSnapCount,
		m.ConnectionTokenDeficit} {
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

		"looking_count":                              m.LookingCount.Load(),
		"learner_proposal_received_count":            m.LearnerProposalReceived.Load(),
		"learner_commit_received_count":              m.LearnerCommitReceived.Load(),
		"proposal_count":                             m.ProposalCount.Load(),
		"commit_count":                               m.CommitCount.Load(),
		"diff_count":                                 m.DiffCount.Load(),
		"snap_count":                                 m.SnapCount.Load(),
		"revalidate_count":                           m.RevalidateCount.Load(),
		"connection_revalidate_count":                m.ConnectionRevalidateCount.Load(),
		"cnxn_closed_without_zk_server_running":      m.CnxnClosedWithoutServer.Load(),
		"requests_not_forwarded_to_commit_processor": m.RequestsNotForwardedToCommitProcessor.Load(),
		"quit_leading_due_to_disloyal_voter":         m.QuitLeadingDueToDisloyalVoter.Load(),
		"unsuccessful_handshake":                     m.UnsuccessfulHandshake.Load(),
		"tls_handshake_exceeded":                     m.TLSHandshakeExceeded.Load(),
	}
}

// reset zeroes every metric, as srst does through Java's resetAll.
func (m *Metrics) reset() {
	for _, s := range m.Summaries() {
		s.Reset()
	}
	m.ReadPerNamespace.Reset()
	m.WritePerNamespace.Reset()
	m.LearnerHandlerQPSize.Reset()
	m.LearnerHandlerQPTime.Reset()
	m.AckLatency.Reset()
	m.BytesReceived.Reset()
	m.ResponseBytes.Reset()
	m.WatchBytes.Reset()
	for _, c := range []*Counter{&m.ConnectionRequestCount, &m.StaleSessionsExpired, &m.PrepRequestQueued,
		&m.SyncRequestQueued, &m.UnrecoverableErrors, &m.DigestMismatches, &m.ConnectionRejected, &m.LargeRequestsRejected, &m.SnapshotFailures,
		&m.LookingCount, &m.LearnerProposalReceived, &m.LearnerCommitReceived, &m.ProposalCount, &m.CommitCount,
		&m.DiffCount, &m.SnapCount, &m.RevalidateCount, &m.ConnectionRevalidateCount, &m.CnxnClosedWithoutServer,
		&m.RequestsNotForwardedToCommitProcessor, &m.QuitLeadingDueToDisloyalVoter,
		&m.UnsuccessfulHandshake, &m.TLSHandshakeExceeded} {
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
	// Plain connections while TLS is configured, from a loopback
	// address or not (Java's Netty factory counts them; see tls.go).
	nonMTLSLocal  Counter
	nonMTLSRemote Counter
	lastRespSize  atomic.Int64
	minRespSize   atomic.Int64
	maxRespSize   atomic.Int64
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
