package main

import (
	"os"
	"runtime"

	"github.com/gozk/gozk/netio"
)

// Each network event loop waits for traffic in epoll_wait while holding
// one of Go's processors (a P). With GOMAXPROCS equal to the cores, a
// loop blocked there leaves the other goroutines (the write goroutine,
// the txn log's writer, snapshots) one processor short, and the runtime's
// monitor takes the loop's P back after 20 µs whenever anything else is
// runnable: it starts another thread for it, keeps itself on its
// shortest sleep, and the loop then has to find a P again when epoll
// returns. Giving the loops Ps of their own above the cores avoids that
// churn; the cores are still shared by the kernel's scheduler, and a loop
// that sleeps in epoll_wait uses none of it. On two cores with one loop,
// in alternating runs at 64 sessions with 4 requests in flight, the
// server's CPU per set was 5% lower on average (0-8% run to run), per
// create and get about 4%, and its sysmon's share of the CPU samples fell
// from 9% to 4%.

// eventLoopsAndProcs returns the event loops the server runs with the
// configured count (0 = the default for the current GOMAXPROCS) and the
// GOMAXPROCS it should then have: the current one, plus one per loop
// unless the operator set GOMAXPROCS.
func eventLoopsAndProcs(configured int, procs int, procsFromEnv bool) (loops, newProcs int) {
	loops = configured
	if loops <= 0 {
		loops = netio.DefaultLoopsFor(procs)
	}
	if procsFromEnv {
		return loops, procs
	}
	return loops, procs + loops
}

// applyProcs fixes the event loop count before raising GOMAXPROCS (the
// default count is computed from the processors, and must not see the
// raised figure) and returns it.
func applyProcs(configured int) int {
	loops, procs := eventLoopsAndProcs(configured, runtime.GOMAXPROCS(0), os.Getenv("GOMAXPROCS") != "")
	if procs != runtime.GOMAXPROCS(0) {
		runtime.GOMAXPROCS(procs)
	}
	return loops
}
