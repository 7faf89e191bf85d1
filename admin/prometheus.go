package admin

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gozk/gozk/server"
)

// Quantiles of 3.8.0's PrometheusMetricsProvider summaries: advanced ones
// export the 0.5, 0.9 and 0.99 quantiles, basic ones only the median.
var (
	advancedQuantiles = []float64{0.5, 0.9, 0.99}
	basicQuantiles    = []float64{0.5}
)

// The quantiles of Java's Prometheus summaries cover the last 10 minutes
// (client_java's default maxAge, in 5 age buckets); gozk keeps the
// cumulative histograms of the last windowSlots rotations and exports
// quantiles over the values recorded since the oldest.
const (
	windowSlots  = 5
	windowRotate = 2 * time.Minute
)

// collector exports the catalog on each scrape: gauges as gauges,
// counters as counters (named as in Java, without _total), summaries as
// summaries with Java's quantiles. Reading happens at scrape time only;
// the request path records into the server's atomics and nothing else.
type collector struct {
	c       *Commands
	descs   map[string]*prometheus.Desc
	setDesc map[string]*prometheus.Desc // summary sets, labelled key="<namespace or server id>"

	mu    sync.Mutex
	slots [windowSlots]map[string]server.SummarySnapshot // ring of past snapshots
	next  int
}

// rotate remembers the summaries as they are now; the oldest snapshot
// kept is the start of the quantiles' window.
func (col *collector) rotate() {
	s := col.c.srv.Load()
	if s == nil {
		return
	}
	snaps := map[string]server.SummarySnapshot{}
	for name, sm := range s.Metrics().Summaries() {
		snaps[name] = sm.Snapshot()
	}
	col.mu.Lock()
	col.slots[col.next] = snaps
	col.next = (col.next + 1) % windowSlots
	col.mu.Unlock()
}

// windowStart is the oldest snapshot of a summary still in the window.
func (col *collector) windowStart(name string) (server.SummarySnapshot, bool) {
	col.mu.Lock()
	defer col.mu.Unlock()
	for i := 0; i < windowSlots; i++ {
		if m := col.slots[(col.next+i)%windowSlots]; m != nil {
			snap, ok := m[name]
			return snap, ok
		}
	}
	return server.SummarySnapshot{}, false
}

func newCollector(c *Commands) *collector {
	col := &collector{c: c, descs: map[string]*prometheus.Desc{}, setDesc: map[string]*prometheus.Desc{}}
	for _, set := range summarySetNames {
		col.setDesc[set.name] = prometheus.NewDesc(set.name, set.name, []string{"key"}, nil)
	}
	for _, e := range catalog {
		// Java registers every metric with its own name as help text.
		col.descs[e.name] = prometheus.NewDesc(e.name, e.name, nil, nil)
	}
	for _, c := range gozkCounters {
		col.descs[c.name] = prometheus.NewDesc(c.name, c.help, nil, nil)
	}
	return col
}

// gozkCounters are counters gozk records that Java 3.8.0 has no metric
// for. Prometheus exports them; mntr keeps to Java's keys.
var gozkCounters = []struct{ name, help string }{
	{"gozk_snapshot_failures", "snapshots that failed to be written (the server goes on; Java exits)"},
}

func (col *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range col.descs {
		ch <- d
	}
	for _, d := range col.setDesc {
		ch <- d
	}
}

func (col *collector) Collect(ch chan<- prometheus.Metric) {
	s := col.c.srv.Load()
	if s == nil {
		return
	}
	mv := col.c.readMetrics(s)
	for _, set := range summarySets(s) {
		d := col.setDesc[set.name]
		qs := basicQuantiles
		if set.advanced {
			qs = advancedQuantiles
		}
		for _, key := range set.Keys() {
			snap, ok := set.Snapshot(key)
			if !ok {
				continue // its top-level znode was deleted meanwhile
			}
			// A set's quantiles cover everything recorded, not a window.
			quantiles := make(map[float64]float64, len(qs))
			for _, q := range qs {
				quantiles[q] = math.NaN()
				if snap.Count > 0 {
					quantiles[q] = float64(summaryQuantile(snap, q))
				}
			}
			ch <- prometheus.MustNewConstSummary(d, uint64(snap.Count), float64(snap.Sum), quantiles, key)
		}
	}
	for _, c := range gozkCounters {
		ch <- prometheus.MustNewConstMetric(col.descs[c.name], prometheus.CounterValue, float64(mv.counters[c.name]))
	}
	role := s.Role()
	for _, e := range catalog {
		if !mv.has(e.name, role) {
			continue // Java registers the gauge only in the roles that have it
		}
		d := col.descs[e.name]
		switch e.kind {
		case kindGauge:
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, toFloat(mv.gauges[e.name]))
		case kindCounter:
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(mv.counters[e.name]))
		default:
			var snap server.SummarySnapshot
			if sm := mv.summaries[e.name]; sm != nil {
				snap = sm.Snapshot()
			}
			qs := basicQuantiles
			if e.kind == kindAdvancedSummary {
				qs = advancedQuantiles
			}
			window := snap
			if start, ok := col.windowStart(e.name); ok {
				window = summarySince(snap, start)
			}
			quantiles := make(map[float64]float64, len(qs))
			for _, q := range qs {
				if window.Count == 0 {
					quantiles[q] = math.NaN() // as client_java reports an empty window
					continue
				}
				quantiles[q] = float64(summaryQuantile(window, q))
			}
			ch <- prometheus.MustNewConstSummary(d, uint64(snap.Count), float64(snap.Sum), quantiles)
		}
	}
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case int:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// MetricsConfig is the metricsProvider.* part of zoo.cfg for the
// Prometheus provider.
type MetricsConfig struct {
	Host string // metricsProvider.httpHost (default 0.0.0.0)
	Port int    // metricsProvider.httpPort (default 7000; 0 picks a free port)
	// ExportRuntime is metricsProvider.exportJvmInfo: Go runtime and
	// process metrics (process_* carry the same names as the JVM's), and
	// the Go heap under the JVM's memory metric names (jvm.go).
	ExportRuntime bool
}

// Registry returns a Prometheus registry with the server's metrics (and
// the runtime's when asked), and the collector whose window must be
// rotated every windowRotate.
func (c *Commands) registry(exportRuntime bool) (*prometheus.Registry, *collector) {
	reg := prometheus.NewRegistry()
	col := newCollector(c)
	reg.MustRegister(col)
	if exportRuntime {
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), newJVMCollector())
	}
	return reg, col
}

// StartMetrics serves /metrics as 3.8.0's PrometheusMetricsProvider does.
func (c *Commands) StartMetrics(cfg MetricsConfig) (*HTTPServer, error) {
	if cfg.Host == "" {
		cfg.Host = "0.0.0.0"
	}
	reg, col := c.registry(cfg.ExportRuntime)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	h, err := serveHTTP(net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)), mux, 0)
	if err != nil {
		return nil, err
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		col.rotate()
		t := time.NewTicker(windowRotate)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				col.rotate()
			}
		}
	}()
	h.onClose = func() {
		close(stop)
		<-done
	}
	return h, nil
}
