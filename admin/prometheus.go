package admin

import (
	"net"
	"net/http"
	"strconv"

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

// collector exports the catalog on each scrape: gauges as gauges,
// counters as counters (named as in Java, without _total), summaries as
// summaries with Java's quantiles. Reading happens at scrape time only;
// the request path records into the server's atomics and nothing else.
type collector struct {
	c     *Commands
	descs map[string]*prometheus.Desc
}

func newCollector(c *Commands) *collector {
	col := &collector{c: c, descs: map[string]*prometheus.Desc{}}
	for _, e := range catalog {
		// Java registers every metric with its own name as help text.
		col.descs[e.name] = prometheus.NewDesc(e.name, e.name, nil, nil)
	}
	return col
}

func (col *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range col.descs {
		ch <- d
	}
}

func (col *collector) Collect(ch chan<- prometheus.Metric) {
	s := col.c.srv.Load()
	if s == nil {
		return
	}
	mv := col.c.readMetrics(s)
	for _, e := range catalog {
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
			quantiles := make(map[float64]float64, len(qs))
			for _, q := range qs {
				// Java's basic summaries have no histogram behind them
				// in gozk: their median is the average.
				if e.kind == kindAdvancedSummary {
					quantiles[q] = float64(snap.Quantile(q))
				} else {
					quantiles[q] = snap.Avg()
				}
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
	// process metrics (process_* carry the same names as the JVM's).
	ExportRuntime bool
}

// Registry returns a Prometheus registry with the server's metrics (and
// the runtime's when asked).
func (c *Commands) Registry(exportRuntime bool) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(newCollector(c))
	if exportRuntime {
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	return reg
}

// StartMetrics serves /metrics as 3.8.0's PrometheusMetricsProvider does.
func (c *Commands) StartMetrics(cfg MetricsConfig) (*HTTPServer, error) {
	if cfg.Host == "" {
		cfg.Host = "0.0.0.0"
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(c.Registry(cfg.ExportRuntime), promhttp.HandlerOpts{}))
	return serveHTTP(net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)), mux, 0)
}
