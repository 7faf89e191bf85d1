package admin

import (
	"bufio"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// jvmCollector exports the Go runtime under the names of the JVM metrics
// that 3.8.0's provider exports with exportJvmInfo (simpleclient_hotspot),
// so that dashboards and alerts written for them keep a meaning: the
// ZooKeeper documentation's own example alert is
// jvm_memory_bytes_used / jvm_memory_bytes_max{area="heap"} > 0.8. "heap"
// is the Go heap; its maximum is GOMEMLIMIT, or a quarter of the
// machine's memory as the JVM's default maximum heap when no limit is
// set. go_* and process_* carry the rest.
type jvmCollector struct {
	used, committed, max *prometheus.Desc
	threads, gc, info    *prometheus.Desc
}

func newJVMCollector() *jvmCollector {
	return &jvmCollector{
		used:      prometheus.NewDesc("jvm_memory_bytes_used", "Used bytes of a given JVM memory area.", []string{"area"}, nil),
		committed: prometheus.NewDesc("jvm_memory_bytes_committed", "Committed (bytes) of a given JVM memory area.", []string{"area"}, nil),
		max:       prometheus.NewDesc("jvm_memory_bytes_max", "Max (bytes) of a given JVM memory area.", []string{"area"}, nil),
		threads:   prometheus.NewDesc("jvm_threads_current", "Current thread count of a JVM", nil, nil),
		gc:        prometheus.NewDesc("jvm_gc_collection_seconds", "Time spent in a given JVM garbage collector in seconds.", []string{"gc"}, nil),
		info:      prometheus.NewDesc("jvm_info", "JVM version info", []string{"version", "vendor", "runtime"}, nil),
	}
}

func (j *jvmCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{j.used, j.committed, j.max, j.threads, j.gc, j.info} {
		ch <- d
	}
}

func (j *jvmCollector) Collect(ch chan<- prometheus.Metric) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	nonHeap := ms.Sys - ms.HeapSys
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(j.used, float64(ms.HeapAlloc), "heap")
	gauge(j.used, float64(ms.StackInuse+ms.MSpanInuse+ms.MCacheInuse+ms.BuckHashSys+ms.GCSys+ms.OtherSys), "nonheap")
	gauge(j.committed, float64(ms.HeapSys-ms.HeapReleased), "heap")
	gauge(j.committed, float64(nonHeap), "nonheap")
	gauge(j.max, heapMax(), "heap")
	gauge(j.max, -1, "nonheap")
	gauge(j.threads, float64(pprof.Lookup("threadcreate").Count()))
	ch <- prometheus.MustNewConstSummary(j.gc, uint64(ms.NumGC), float64(ms.PauseTotalNs)/1e9, nil, "go")
	gauge(j.info, 1, runtime.Version(), "The Go Authors", "Go")
}

// heapMax is GOMEMLIMIT, or a quarter of the physical memory.
func heapMax() float64 {
	if limit := debug.SetMemoryLimit(-1); limit > 0 && limit < math.MaxInt64 {
		return float64(limit)
	}
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err == nil {
				return kb * 1024 / 4
			}
		}
	}
	return -1
}
