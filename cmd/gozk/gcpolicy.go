package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
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
// The idle release (see releaseWhenIdle) runs either way.
func startGCPolicy() {
	go releaseWhenIdle(time.NewTicker(idleCheckInterval).C, debug.FreeOSMemory)
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	p := &gcPolicy{sample: []metrics.Sample{{Name: liveHeapMetric}}}
	p.arm()
	go runtime.GC()
}

// The heap a server keeps between collections is garbage it is about to
// reuse while requests come, but after a burst of writes (loading a
// large tree, a restart's recovery) it may sit idle with the garbage of
// the burst resident: the runtime returns free memory to the OS only
// slowly, and never below its next heap goal (a fifth or more over the
// live heap). releaseWhenIdle gives it all back once the server has gone
// quiet.
const (
	// idleCheckInterval is how often allocation is sampled.
	idleCheckInterval = 500 * time.Millisecond
	// idleAllocBytes is the most a server allocates between two samples
	// and still counts as idle: sessions' pings and the odd request.
	idleAllocBytes = 1 << 20
	// idleSlackBytes is the resident heap over the live heap, at least,
	// that is worth a collection to give back; the slack is also at least
	// idleSlackDivisor of the live heap, so that the fragmentation a
	// release leaves does not trigger another.
	idleSlackBytes   = 16 << 20
	idleSlackDivisor = 8
)

// idleMetrics are read by releaseWhenIdle, in this order.
var idleMetrics = []string{
	"/gc/heap/allocs:bytes",              // allocated since start
	liveHeapMetric,                       // marked by the last cycle
	"/memory/classes/heap/objects:bytes", // resident: live and garbage objects
	"/memory/classes/heap/unused:bytes",  // resident: spans' free slots
	"/memory/classes/heap/free:bytes",    // resident: free pages not yet returned
}

// releaseWhenIdle calls release (debug.FreeOSMemory: a collection, then
// every free page returned) on each tick at which an idleReleaser says so.
func releaseWhenIdle(tick <-chan time.Time, release func()) {
	samples := make([]metrics.Sample, len(idleMetrics))
	for i, name := range idleMetrics {
		samples[i].Name = name
	}
	read := func() (allocs, live, resident uint64, ok bool) {
		metrics.Read(samples)
		for _, s := range samples {
			if s.Value.Kind() != metrics.KindUint64 {
				return 0, 0, 0, false
			}
		}
		v := func(i int) uint64 { return samples[i].Value.Uint64() }
		return v(0), v(1), v(2) + v(3) + v(4), true
	}
	var r idleReleaser
	if allocs, _, _, ok := read(); ok {
		r.start(allocs)
	}
	for range tick {
		allocs, live, resident, ok := read()
		if ok && r.tick(allocs, live, resident) {
			release()
			if allocs, _, _, ok := read(); ok {
				r.released(allocs)
			}
		}
	}
}

// idleReleaser decides when to release: at a tick where the resident heap
// holds much more than the live heap and little was allocated since the
// previous tick. What is left over a release is fragmentation, not
// garbage, so there is no other until more than that slack has been
// allocated since.
type idleReleaser struct {
	lastAllocs     uint64 // at the previous tick
	releasedAllocs uint64 // at the last release
}

func (r *idleReleaser) start(allocs uint64) { r.lastAllocs = allocs }

// tick takes the allocation total, the live heap and the resident heap
// now, and reports whether to release.
func (r *idleReleaser) tick(allocs, live, resident uint64) bool {
	idle := allocs-r.lastAllocs <= idleAllocBytes
	r.lastAllocs = allocs
	slack := max(uint64(idleSlackBytes), live/idleSlackDivisor)
	return idle && resident > live+slack && allocs-r.releasedAllocs > slack
}

// released records a release and the allocation total after it.
func (r *idleReleaser) released(allocs uint64) { r.lastAllocs, r.releasedAllocs = allocs, allocs }

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
