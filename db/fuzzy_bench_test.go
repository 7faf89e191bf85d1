package db

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// BenchmarkApplyDuringFuzzyWalk measures what a snapshot costs the write
// path in the tree itself: a tree of 1,000,000 znodes of 100 bytes (1000
// parents of 1000 children) is walked with FuzzyWalk (budget 1000, as the
// server's snapshots do, the copies handed to a consumer that encodes
// nothing) while another goroutine applies setData txns back to back. It
// reports the walk time and the p99 and max latency of Apply during the
// walk, and of one Next call (the read lock is held for all of it: the
// longest a write can wait for the walk). Without a walk Apply takes about
// a microsecond; on a loaded machine the Apply figures include scheduling
// delays the walk does not cause.
func BenchmarkApplyDuringFuzzyWalk(b *testing.B) {
	const parents, perParent = 1000, 1000
	tree := New(Options{DigestEnabled: true})
	zxid := int64(0)
	next := func() int64 { zxid++; return zxid }
	data := make([]byte, 100)
	for p := range parents {
		parent := fmt.Sprintf("/d%04d", p)
		tree.Apply(createTxn(next(), parent, nil, -1))
		for c := range perParent {
			tree.Apply(createTxn(next(), fmt.Sprintf("%s/n%04d", parent, c), data, int32(c+1)))
		}
	}
	for b.Loop() {
		stop := make(chan struct{})
		lat := make(chan []time.Duration)
		go func() {
			var l []time.Duration
			version := int32(0)
			for i := 0; ; i++ {
				select {
				case <-stop:
					lat <- l
					return
				default:
				}
				version++
				txn := setDataTxn(next(), fmt.Sprintf("/d%04d/n%04d", i%parents, i%perParent), data, version)
				start := time.Now()
				tree.Apply(txn)
				l = append(l, time.Since(start))
			}
		}()
		began := time.Now()
		walk := tree.StartFuzzyWalk()
		var buf []SnapshotNode
		var holds []time.Duration
		n := 0
		for {
			t0 := time.Now()
			buf = walk.Next(buf, 1000)
			holds = append(holds, time.Since(t0))
			if len(buf) == 0 {
				break
			}
			n += len(buf)
		}
		took := time.Since(began)
		close(stop)
		l := <-lat
		slices.Sort(l)
		b.ReportMetric(float64(took.Milliseconds()), "walk-ms")
		b.ReportMetric(float64(n), "nodes")
		b.ReportMetric(float64(len(l)), "applies")
		b.ReportMetric(float64(l[len(l)*99/100].Microseconds()), "apply-p99-µs")
		b.ReportMetric(float64(l[len(l)-1].Microseconds()), "apply-max-µs")
		slices.Sort(holds)
		b.ReportMetric(float64(holds[len(holds)*99/100].Microseconds()), "hold-p99-µs")
		b.ReportMetric(float64(holds[len(holds)-1].Microseconds()), "hold-max-µs")
	}
}
