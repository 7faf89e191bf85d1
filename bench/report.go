package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// Shape is "sessions x in-flight", e.g. "16x1" (the watch workload shows
// its fan-out instead, "w1000").
func (r *Result) Shape() string {
	if r.Workload == WorkloadWatch {
		return fmt.Sprintf("w%d", r.Watchers)
	}
	return fmt.Sprintf("%dx%d", r.Sessions, r.InFlight)
}

// WriteJSON writes v as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteText describes one result for a person.
func (r *Result) WriteText(w io.Writer) {
	label := ""
	if r.Label != "" {
		label = r.Label + " "
	}
	fmt.Fprintf(w, "%s%s at %s: workload %s, %s, value %d B, client %s", label, r.Server, r.Started.Format("2006-01-02 15:04:05Z"), r.Workload, r.shapeWords(), r.ValueSize, r.Client)
	if r.Workload == WorkloadMixed {
		fmt.Fprintf(w, ", read ratio %.2f", r.ReadRatio)
	}
	fmt.Fprintln(w)
	unit := "ops"
	switch r.Workload {
	case WorkloadConnect:
		unit = "sessions"
	case WorkloadWatch:
		unit = "rounds"
	}
	fmt.Fprintf(w, "  %d %s in %.3f s: %.1f %s/s, %d errors\n", r.Ops, unit, r.Seconds, r.OpsPerSec, unit, r.Errors)
	if r.NotifyPerSec > 0 {
		fmt.Fprintf(w, "  %.1f notifications/s\n", r.NotifyPerSec)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  latency µs\tcount\tmean\tp50\tp90\tp99\tp99.9\tmax\t")
	writeSummary(tw, "  all", r.Latency)
	for _, name := range sortedKeys(r.PerOp) {
		writeSummary(tw, "  "+name, r.PerOp[name])
	}
	tw.Flush()
	for _, name := range sortedKeys(r.ErrorKinds) {
		fmt.Fprintf(w, "  error %s: %d\n", name, r.ErrorKinds[name])
	}
	if p := r.ServerProc; p != nil {
		fmt.Fprintf(w, "  server pid %d: CPU %.3f s, %.1f µs/op, %.2f cores; RSS %s (peak %s)\n",
			p.PID, p.CPUSeconds, p.CPUPerOpUs, p.CPUUtil, mib(p.RSSBytes), mib(p.HWMBytes))
	}
	fmt.Fprintf(w, "  client CPU %.1f µs/op\n", r.ClientCPUPerOpUs)
	for _, warning := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warning)
	}
}

func (r *Result) shapeWords() string {
	if r.Workload == WorkloadWatch {
		return fmt.Sprintf("%d watchers", r.Watchers)
	}
	return fmt.Sprintf("%d sessions x %d in flight", r.Sessions, r.InFlight)
}

func writeSummary(w io.Writer, name string, s Summary) {
	fmt.Fprintf(w, "%s\t%d\t%.1f\t%d\t%d\t%d\t%d\t%d\t\n", name, s.Count, s.MeanUs, s.P50Us, s.P90Us, s.P99Us, s.P999Us, s.MaxUs)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// WriteTable writes results one per row.
func WriteTable(w io.Writer, results []*Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "server\tworkload\tshape\tops/s\tp50 µs\tp90 µs\tp99 µs\tp99.9 µs\tmax µs\terrors\tsrv µs/op\tsrv RSS\t")
	for _, r := range results {
		cpu, rss := "-", "-"
		if p := r.ServerProc; p != nil {
			cpu, rss = fmt.Sprintf("%.1f", p.CPUPerOpUs), mib(p.RSSBytes)
		}
		l := r.Latency
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n",
			orDash(r.Label), r.Workload, r.Shape(), r.OpsPerSec, l.P50Us, l.P90Us, l.P99Us, l.P999Us, l.MaxUs, r.Errors, cpu, rss)
	}
	tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Ratio compares gozk's result for one grid cell with Java's. Each ratio
// is gozk / Java: above 1 means gozk has more throughput, and more latency,
// CPU or memory.
type Ratio struct {
	Workload    string  `json:"workload"`
	Shape       string  `json:"shape"`
	GozkOps     float64 `json:"gozk_ops_per_sec"`
	JavaOps     float64 `json:"java_ops_per_sec"`
	OpsRatio    float64 `json:"ops_ratio"`
	GozkP50     int64   `json:"gozk_p50_us"`
	JavaP50     int64   `json:"java_p50_us"`
	P50Ratio    float64 `json:"p50_ratio"`
	GozkP99     int64   `json:"gozk_p99_us"`
	JavaP99     int64   `json:"java_p99_us"`
	P99Ratio    float64 `json:"p99_ratio"`
	GozkCPU     float64 `json:"gozk_cpu_per_op_us,omitempty"`
	JavaCPU     float64 `json:"java_cpu_per_op_us,omitempty"`
	CPURatio    float64 `json:"cpu_per_op_ratio,omitempty"`
	GozkRSS     int64   `json:"gozk_rss_bytes,omitempty"`
	JavaRSS     int64   `json:"java_rss_bytes,omitempty"`
	RSSRatio    float64 `json:"rss_ratio,omitempty"`
	GozkErrors  uint64  `json:"gozk_errors"`
	JavaErrors  uint64  `json:"java_errors"`
	GozkNotifyS float64 `json:"gozk_notify_per_sec,omitempty"`
	JavaNotifyS float64 `json:"java_notify_per_sec,omitempty"`
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return float64(int64(a/b*100+0.5)) / 100
}

// NewRatio compares two results of the same cell.
func NewRatio(gozk, java *Result) Ratio {
	r := Ratio{
		Workload: gozk.Workload, Shape: gozk.Shape(),
		GozkOps: gozk.OpsPerSec, JavaOps: java.OpsPerSec, OpsRatio: ratio(gozk.OpsPerSec, java.OpsPerSec),
		GozkP50: gozk.Latency.P50Us, JavaP50: java.Latency.P50Us, P50Ratio: ratio(float64(gozk.Latency.P50Us), float64(java.Latency.P50Us)),
		GozkP99: gozk.Latency.P99Us, JavaP99: java.Latency.P99Us, P99Ratio: ratio(float64(gozk.Latency.P99Us), float64(java.Latency.P99Us)),
		GozkErrors: gozk.Errors, JavaErrors: java.Errors,
		GozkNotifyS: gozk.NotifyPerSec, JavaNotifyS: java.NotifyPerSec,
	}
	if g, j := gozk.ServerProc, java.ServerProc; g != nil && j != nil {
		r.GozkCPU, r.JavaCPU, r.CPURatio = g.CPUPerOpUs, j.CPUPerOpUs, ratio(g.CPUPerOpUs, j.CPUPerOpUs)
		r.GozkRSS, r.JavaRSS, r.RSSRatio = g.RSSBytes, j.RSSBytes, ratio(float64(g.RSSBytes), float64(j.RSSBytes))
	}
	return r
}

// WriteRatios writes the comparison table.
func WriteRatios(w io.Writer, ratios []Ratio) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tshape\tgozk ops/s\tjava ops/s\tratio\tgozk p50\tjava p50\tratio\tgozk p99\tjava p99\tratio\tgozk cpu/op\tjava cpu/op\tratio\tgozk RSS\tjava RSS\tratio\terrors g/j\t")
	for _, r := range ratios {
		cpuG, cpuJ, cpuR, rssG, rssJ, rssR := "-", "-", "-", "-", "-", "-"
		if r.JavaCPU > 0 {
			cpuG, cpuJ, cpuR = fmt.Sprintf("%.1f", r.GozkCPU), fmt.Sprintf("%.1f", r.JavaCPU), fmt.Sprintf("%.2f", r.CPURatio)
		}
		if r.JavaRSS > 0 {
			rssG, rssJ, rssR = mib(r.GozkRSS), mib(r.JavaRSS), fmt.Sprintf("%.2f", r.RSSRatio)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%.0f\t%.2f\t%d\t%d\t%.2f\t%d\t%d\t%.2f\t%s\t%s\t%s\t%s\t%s\t%s\t%d/%d\t\n",
			r.Workload, r.Shape, r.GozkOps, r.JavaOps, r.OpsRatio, r.GozkP50, r.JavaP50, r.P50Ratio,
			r.GozkP99, r.JavaP99, r.P99Ratio, cpuG, cpuJ, cpuR, rssG, rssJ, rssR, r.GozkErrors, r.JavaErrors)
	}
	tw.Flush()
	fmt.Fprintln(w, strings.TrimSpace(`
ratios are gozk / Java: ops/s above 1 is faster; latency, CPU per op and RSS below 1 are better.
latency in µs (connect: handshake; watch: setData until the last watcher is notified); cpu/op is server CPU µs per op.`))
}
