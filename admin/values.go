package admin

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/gozk/gozk/server"
)

// kv is one key and value of mntr or of a JSON object. Values are int64,
// int, float64, bool, string, nil, []any, or obj.
type kv struct {
	key   string
	value any
}

// obj is a JSON object with its keys in order.
type obj []kv

// metricValues reads every metric of the catalog from the server.
type metricValues struct {
	gauges    map[string]any
	counters  map[string]int64
	summaries map[string]*server.Summary
}

func (c *Commands) readMetrics(s *server.Server) metricValues {
	st := s.Stats()
	mv := metricValues{
		gauges: map[string]any{
			"ephemerals_count":            int64(st.EphemeralsCount),
			"num_alive_connections":       int64(st.Connections),
			"avg_latency":                 summaryAvg(st.Latency),
			"outstanding_requests":        st.Outstanding,
			"znode_count":                 int64(st.NodeCount),
			"global_sessions":             int64(st.GlobalSessions),
			"non_mtls_remote_conn_count":  st.NonMTLSRemote,
			"last_client_response_size":   st.LastResponseSize,
			"packets_sent":                st.PacketsSent,
			"packets_received":            st.PacketsReceived,
			"max_client_response_size":    st.MaxResponseSize,
			"connection_drop_probability": s.ConnectionDropChance(),
			"watch_count":                 int64(st.WatchCount),
			"auth_failed_count":           st.AuthFailed,
			"min_latency":                 st.Latency.Min,
			"max_file_descriptor_count":   st.MaxFileDescCount,
			"approximate_data_size":       st.ApproximateData,
			"open_file_descriptor_count":  st.OpenFileDescCount,
			"local_sessions":              int64(0),
			"uptime":                      st.UptimeMillis,
			"max_latency":                 st.Latency.Max,
			"outstanding_tls_handshake":   st.OutstandingTLSHandshakes,
			"min_client_response_size":    st.MinResponseSize,
			"non_mtls_local_conn_count":   st.NonMTLSLocal,
		},
		counters:  s.Metrics().Counters(),
		summaries: s.Metrics().Summaries(),
	}
	role := s.Role()
	if q := c.quorumOf(s); q != nil {
		mv.gauges["quorum_size"] = int64(len(q.voters()))
	}
	if role == server.RoleLeader {
		g := s.LeaderFigures()
		last, lo, hi := s.ProposalSizes()
		for k, v := range map[string]int64{
			"learners":                    int64(g.Learners),
			"synced_followers":            int64(g.SyncedFollowers),
			"synced_non_voting_followers": int64(g.SyncedNonVotingFollowers),
			"synced_observers":            int64(g.SyncedObservers),
			"pending_syncs":               int64(g.PendingSyncs),
			"leader_uptime":               s.LeaderUptime(),
			"last_proposal_size":          last,
			"min_proposal_size":           lo,
			"max_proposal_size":           hi,
		} {
			mv.gauges[k] = v
		}
	}
	if g := s.LeaderFigures(); role == server.RoleFollower && g.ObserverMaster {
		// Java's follower has the gauge while its ObserverMaster runs.
		mv.gauges["synced_observers"] = int64(g.SyncedObservers)
	}
	return mv
}

// has reports whether the metric name is shown for a server in role r:
// a follower shows synced_observers only while it is an observer
// master.
func (mv *metricValues) has(name string, r server.Role) bool {
	if name == "synced_observers" && r == server.RoleFollower {
		_, ok := mv.gauges[name]
		return ok
	}
	return hasMetric(name, r)
}

// summaryKeys are the mntr suffixes of a summary.
var basicKeys = []string{"avg", "min", "max", "cnt", "sum"}
var advancedKeys = []string{"avg", "min", "max", "cnt", "sum", "p50", "p95", "p99", "p999"}

func summaryValues(snap server.SummarySnapshot, advanced bool) []any {
	out := []any{summaryAvg(snap), snap.Min, snap.Max, snap.Count, snap.Sum}
	if advanced {
		out = append(out, summaryQuantile(snap, 0.5), summaryQuantile(snap, 0.95), summaryQuantile(snap, 0.99), summaryQuantile(snap, 0.999))
	}
	return out
}

// monitor returns mntr's keys (without zk_) and values in Java's order.
func (c *Commands) monitor(s *server.Server) []kv {
	mv := c.readMetrics(s)
	out := make([]kv, 0, 520)
	role := s.Role()
	out = append(out, kv{"version", c.opts.Version}, kv{"server_state", role.String()})
	// Java's QuorumZooKeeperServer and ObserverZooKeeperServer add these
	// before the metrics.
	if role != server.RoleStandalone {
		out = append(out, kv{"peer_state", s.PeerState()})
	}
	if role == server.RoleObserver {
		id, _ := s.Leader() // the leader, or the observer master followed
		out = append(out, kv{"observer_master_id", id})
	}
	for _, e := range catalog {
		if !mv.has(e.name, role) {
			continue
		}
		switch e.kind {
		case kindGauge:
			out = append(out, kv{e.name, mv.gauges[e.name]})
		case kindCounter:
			out = append(out, kv{e.name, mv.counters[e.name]})
		case kindBasicSummary, kindAdvancedSummary:
			adv := e.kind == kindAdvancedSummary
			var snap server.SummarySnapshot
			if sm := mv.summaries[e.name]; sm != nil {
				snap = sm.Snapshot()
			}
			keys := basicKeys
			if adv {
				keys = advancedKeys
			}
			for i, v := range summaryValues(snap, adv) {
				out = append(out, kv{keys[i] + "_" + e.name, v})
			}
		}
	}
	// Then the summary sets, per key in Java's hash order:
	// zk_avg_<namespace>_read_per_namespace, ...
	for _, set := range summarySets(s) {
		keys := basicKeys
		if set.advanced {
			keys = advancedKeys
		}
		for _, key := range javaStringOrder(set.Keys()) {
			snap, ok := set.Snapshot(key)
			if !ok {
				continue // its top-level znode was deleted meanwhile
			}
			for i, v := range summaryValues(snap, set.advanced) {
				out = append(out, kv{keys[i] + "_" + key + "_" + set.name, v})
			}
		}
	}
	return out
}

// keyedSummaries is a summary set of either kind: one summary per key.
type keyedSummaries interface {
	Keys() []string
	Snapshot(key string) (server.SummarySnapshot, bool)
}

type summarySet struct {
	keyedSummaries
	name     string
	advanced bool // percentiles too (Java's AvgMinMaxPercentileCounterSet)
}

// summarySetNames are Java's summary sets in the order its mntr lists
// them: the basic ones, then the advanced ones, each in the order of
// its hash map. The leader's per-learner sets have keys only on a
// leader.
var summarySetNames = []struct {
	name     string
	advanced bool
}{
	{"learner_handler_qp_size", false},
	{"read_per_namespace", false},
	{"write_per_namespace", false},
	{"ack_latency", true},
	{"learner_handler_qp_time_ms", true},
}

// summarySets returns the server's summary sets in mntr's order.
func summarySets(s *server.Server) []summarySet {
	m := s.Metrics()
	byName := map[string]keyedSummaries{
		"learner_handler_qp_size":    m.LearnerHandlerQPSize,
		"read_per_namespace":         m.ReadPerNamespace,
		"write_per_namespace":        m.WritePerNamespace,
		"ack_latency":                m.AckLatency,
		"learner_handler_qp_time_ms": m.LearnerHandlerQPTime,
	}
	out := make([]summarySet, 0, len(summarySetNames))
	for _, n := range summarySetNames {
		out = append(out, summarySet{byName[n.name], n.name, n.advanced})
	}
	return out
}

// formatValue prints a value as Java's mntr does: integers as they are,
// other numbers with Double.toString, the rest as text.
func formatValue(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return javaDouble(x)
	case string:
		return x
	case nil:
		return "null"
	}
	return "?"
}

// javaDouble formats f as Java's Double.toString: at least one digit
// after the point, the shortest digits that round-trip, E-notation below
// 10^-3 and from 10^7 on.
func javaDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	a := math.Abs(f)
	if a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'E', -1, 64) // 1.234E+07
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	exp = strings.TrimPrefix(exp, "+")
	if strings.HasPrefix(exp, "-") {
		exp = "-" + strings.TrimLeft(exp[1:], "0")
	} else {
		exp = strings.TrimLeft(exp, "0")
	}
	return mant + "E" + exp
}

// Java hash-map iteration order, for the outputs whose order 3.8.0 takes
// from a HashMap or HashSet of strings or longs: by bucket index of the
// spread hash in a table sized for the entries, ties in insertion order
// (here: sorted order, the order gozk inserts in).

func javaStringHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 { // UTF-16 surrogate pair
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

func javaLongHash(v int64) int32 { return int32(v ^ int64(uint64(v)>>32)) }

// javaTableSize is the capacity of a HashMap holding n entries inserted
// one by one from the default capacity of 16 (it doubles when the size
// exceeds three quarters of the capacity).
func javaTableSize(n int) uint32 {
	c := uint32(16)
	for uint32(n) > c*3/4 {
		c *= 2
	}
	return c
}

func javaIndex(h int32, size uint32) uint32 {
	u := uint32(h)
	return (u ^ (u >> 16)) & (size - 1)
}

func javaStringOrder(in []string) []string {
	out := append([]string(nil), in...)
	sort.Strings(out)
	size := javaTableSize(len(out))
	sort.SliceStable(out, func(i, j int) bool {
		return javaIndex(javaStringHash(out[i]), size) < javaIndex(javaStringHash(out[j]), size)
	})
	return out
}

func javaLongOrder(in []int64) []int64 {
	out := append([]int64(nil), in...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	size := javaTableSize(len(out))
	sort.SliceStable(out, func(i, j int) bool {
		return javaIndex(javaLongHash(out[i]), size) < javaIndex(javaLongHash(out[j]), size)
	})
	return out
}
