package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// The server's live heap is mostly the data tree, and its garbage is
// request-sized. Go's default (GOGC=100, 4 MiB minimum goal) suits neither
// end: an empty or small tree is collected a dozen times a second under
// load, each cycle stopping the world and stealing a core from the event
// loops, while a tree of a million znodes is allowed to double its
// resident memory before the next cycle. The policy below keeps the heap
// goal at live + max(gcMinHeadroom, live/gcHeadroomDivisor).
const (
	// gcMinHeadroom is the garbage a small heap may gather between cycles.
	gcMinHeadroom = 64 << 20
	// gcHeadroomDivisor bounds the garbage of a large heap to a fifth of
	// the live heap.
	gcHeadroomDivisor = 5
	// gcMinLive is the smallest live heap the percent is computed for:
	// the runtime's minimum goal is 4 MiB times GOGC/100, so a percent
	// computed for a smaller heap would overshoot the headroom.
	gcMinLive = 4 << 20
)

// liveHeapMetric is the heap marked live by the last cycle.
const liveHeapMetric = "/gc/heap/live:bytes"

// startGCPolicy applies the policy unless GOGC or GOMEMLIMIT is set, in
// which case the operator's choice stands. The percent is recomputed after
// every cycle from the live heap it found, starting with a cycle run now in
// the background: after loading a large tree the last cycle's live heap is
// stale, and the default goal would let the heap double before the next.
func startGCPolicy() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	p := &gcPolicy{sample: []metrics.Sample{{Name: liveHeapMetric}}}
	p.arm()
	go runtime.GC()
}

type gcPolicy struct {
	sample  []metrics.Sample
	percent int
}

// gcPercentFor returns the GOGC value that puts the next goal at
// live + max(gcMinHeadroom, live/gcHeadroomDivisor).
func gcPercentFor(live uint64) int {
	live = max(live, gcMinLive)
	headroom := max(uint64(gcMinHeadroom), live/gcHeadroomDivisor)
	return int(headroom*100/live + 1)
}

func (p *gcPolicy) update() {
	metrics.Read(p.sample)
	if p.sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	want := gcPercentFor(p.sample[0].Value.Uint64())
	// Small changes are not worth a call that takes the heap lock.
	if p.percent == 0 || want > p.percent*11/10 || want < p.percent*9/10 {
		debug.SetGCPercent(want)
		p.percent = want
	}
}

// gcSentinel holds a pointer so that it is never batched by the tiny
// allocator, whose objects' finalizers may not run.
type gcSentinel struct{ policy *gcPolicy }

// arm runs update after the next cycle: the finalizer of an unreachable
// sentinel runs once a cycle has found it garbage, and re-arms itself.
func (p *gcPolicy) arm() {
	runtime.SetFinalizer(&gcSentinel{policy: p}, func(s *gcSentinel) {
		s.policy.update()
		s.policy.arm()
	})
}
