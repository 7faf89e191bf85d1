package chaos

import (
	"context"
	"time"
)

// A Workload is one kind of client traffic with its own correctness
// check, after Jepsen's ZooKeeper and ClickHouse Keeper workloads. Run
// drives clients against the ensemble while nemeses inject faults; Check
// runs once the faults are healed and the ensemble serves again, reads
// the final state and judges the whole recorded history.
type Workload interface {
	// Name is short and stable: it heads a column of the results table.
	Name() string
	// Run sends operations until ctx ends and records each one with its
	// outcome (ok, failed, or indeterminate when the client cannot know
	// whether it took effect: connection loss, a timeout). It returns
	// only on a failure of the workload itself, never for an operation's
	// error.
	Run(ctx context.Context, env *Env) error
	// Check reads the final state through env and judges the history.
	Check(ctx context.Context, env *Env) Result
}

// Env is what a workload knows of the ensemble under test.
type Env struct {
	// Servers are the client addresses ("host:port") of every member,
	// in myid order; a workload spreads its sessions over them.
	Servers []string
	// Leader returns the client address of the member that leads now,
	// or "" while none does.
	Leader func() string
	// Seed makes the workload's choices (keys, values, which server)
	// repeatable.
	Seed int64
	// Clients is how many concurrent sessions the workload opens.
	Clients int
	// SessionTimeout is the session timeout the workload's clients ask
	// for; it must outlast the faults a nemesis injects when the check
	// expects sessions to survive them.
	SessionTimeout time.Duration
	// Logf reports progress and findings (the test's t.Logf).
	Logf func(format string, args ...any)
}

// Result is a workload's verdict on one run.
type Result struct {
	Workload string
	// Ops counts operations by outcome.
	OK, Failed, Indeterminate int
	// Anomalies describes each violation of ZooKeeper's guarantees the
	// check found (a non-linearizable history, a read that went back in
	// zxid, an id handed out twice, ...). Empty is the only pass.
	Anomalies []string
	// Lost counts acknowledged writes missing from the final state;
	// Duplicated counts writes applied more than once.
	Lost, Duplicated int
}

// Ops is the number of operations the workload issued.
func (r Result) Ops() int { return r.OK + r.Failed + r.Indeterminate }

// Passed reports whether the run showed no anomaly, lost nothing
// acknowledged and applied nothing twice.
func (r Result) Passed() bool {
	return len(r.Anomalies) == 0 && r.Lost == 0 && r.Duplicated == 0
}
