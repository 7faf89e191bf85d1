package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// A Nemesis injects one kind of fault into a running Cluster and heals
// it before it returns; the harness then waits for the ensemble to serve
// again and checks the workloads.
type Nemesis struct {
	Name string
	// Applies reports whether the nemesis can act on the layout (disk
	// faults and crash points need a gozk member).
	Applies func(Layout) bool
	// Run injects the fault, heals it and returns how many faults it
	// injected (a crash point counts each time it fired). An error is
	// the harness failing, never the fault's effect.
	Run func(ctx context.Context, c *Cluster, rng *rand.Rand) (faults int, err error)
}

// faultTime is how long a partition or a pause lasts: twice syncLimit,
// so that the leader and its learners give up on each other.
const faultTime = 2*syncLimitDuration + 500*time.Millisecond

// downTime is how long a killed member stays down.
const downTime = 2 * time.Second

func always(Layout) bool { return true }

func hasGozk(l Layout) bool {
	for _, k := range l.Kinds {
		if k == Gozk {
			return true
		}
	}
	return false
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// leaderOrErr returns the current leader, waiting for one.
func leaderOrErr(ctx context.Context, c *Cluster) (*Member, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		if l := c.Leader(); l != nil {
			return l, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no member leads")
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return nil, err
		}
	}
}

func killAndRestart(ctx context.Context, m *Member) error {
	m.Kill()
	if err := sleep(ctx, downTime); err != nil {
		return err
	}
	return m.Start()
}

// Nemeses is the fault matrix's fault axis, in the order it runs.
func Nemeses() []Nemesis {
	ns := []Nemesis{
		{Name: "leader kill", Applies: always, Run: func(ctx context.Context, c *Cluster, _ *rand.Rand) (int, error) {
			l, err := leaderOrErr(ctx, c)
			if err != nil {
				return 0, err
			}
			return 1, killAndRestart(ctx, l)
		}},
		{Name: "random kill", Applies: always, Run: func(ctx context.Context, c *Cluster, rng *rand.Rand) (int, error) {
			return 1, killAndRestart(ctx, pick(rng, c.Members))
		}},
		{Name: "leader pause", Applies: always, Run: func(ctx context.Context, c *Cluster, _ *rand.Rand) (int, error) {
			l, err := leaderOrErr(ctx, c)
			if err != nil {
				return 0, err
			}
			l.Pause()
			defer l.Resume()
			return 1, sleep(ctx, faultTime)
		}},
		{Name: "leader partition", Applies: always, Run: func(ctx context.Context, c *Cluster, _ *rand.Rand) (int, error) {
			l, err := leaderOrErr(ctx, c)
			if err != nil {
				return 0, err
			}
			c.Isolate(l.ID)
			defer c.Heal()
			return 1, sleep(ctx, faultTime)
		}},
		{Name: "minority partition", Applies: always, Run: func(ctx context.Context, c *Cluster, rng *rand.Rand) (int, error) {
			// A random minority, which holds the leader or not.
			perm := rng.Perm(len(c.Members))
			var group []int64
			for _, i := range perm[:(len(c.Members)-1)/2] {
				group = append(group, c.Members[i].ID)
			}
			c.Isolate(group...)
			defer c.Heal()
			return 1, sleep(ctx, faultTime)
		}},
		{Name: "disk fault", Applies: hasGozk, Run: diskFault},
	}
	for _, cp := range crashPoints {
		ns = append(ns, Nemesis{Name: "crash: " + cp.point, Applies: hasGozk, Run: cp.run})
	}
	return ns
}

// gozkMembers are the gozk members of c, the leader first when it is
// one.
func gozkMembers(c *Cluster) []*Member {
	var out []*Member
	l := c.Leader()
	if l != nil && l.Kind == Gozk {
		out = append(out, l)
	}
	for _, m := range c.Members {
		if m.Kind == Gozk && m != l {
			out = append(out, m)
		}
	}
	return out
}

// diskFault stalls every fsync of a gozk member (the leader when gozk
// leads) for a while, then restarts it with an fsync that fails in the
// middle of its work, which must stop it without losing anything
// acknowledged, and finally restarts it on a healthy disk.
func diskFault(ctx context.Context, c *Cluster, _ *rand.Rand) (int, error) {
	m := gozkMembers(c)[0]
	m.Kill()
	m.Arm("disk-sync=sleep(300ms)")
	if err := m.Start(); err != nil {
		return 0, err
	}
	if err := sleep(ctx, faultTime); err != nil {
		return 1, err
	}
	m.Kill()
	m.Arm("disk-sync=error@30")
	if err := m.Start(); err != nil {
		return 1, err
	}
	// It runs until an fsync fails; a member that never gets that far
	// (no writes reached it) is stopped after a while.
	select {
	case <-m.Exited():
	case <-time.After(3 * faultTime):
	case <-ctx.Done():
	}
	m.Kill()
	m.Arm()
	return 2, m.Start()
}

// A crashPoint nemesis arms gozk members with a crash at one point (the
// process kills itself with SIGKILL there), makes the ensemble pass that
// point, restarts every member that crashed without the point armed, and
// disarms the rest. A member can only be armed when it starts, so arming
// restarts it; points only a leader reaches are armed on every gozk
// member, one after the other, and fire on whichever leads.
type crashPoint struct {
	point string
	// targets are the members to arm (none: the point cannot be reached
	// in this layout).
	targets func(c *Cluster) []*Member
	// prep runs on a target while it is down, before its armed start.
	prep func(m *Member) error
	// trigger makes the ensemble pass the point once the targets run.
	trigger func(ctx context.Context, c *Cluster) error
}

func (cp crashPoint) run(ctx context.Context, c *Cluster, _ *rand.Rand) (int, error) {
	targets := cp.targets(c)
	if len(targets) == 0 {
		return 0, nil
	}
	hits := 0
	// reap restarts, disarmed, the targets whose crash point fired.
	reap := func() error {
		for _, m := range targets {
			if m.Armed() && !m.Running() {
				if m.KilledBySignal() {
					hits++
				} else {
					c.logf("%v stopped at %s without the crash: %v", m, cp.point, m.LogTail(5))
				}
				m.Arm()
				if err := m.Start(); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, m := range targets {
		m.Kill()
		m.Arm(cp.point + "=crash")
		if cp.prep != nil {
			if err := cp.prep(m); err != nil {
				return hits, err
			}
		}
		if err := m.Start(); err != nil {
			return hits, err
		}
		// Wait until it serves or its point fires while it joins.
		deadline := time.Now().Add(20 * time.Second)
		for m.Running() && m.Mode() == "" && time.Now().Before(deadline) {
			if err := sleep(ctx, 50*time.Millisecond); err != nil {
				return hits, err
			}
		}
		if err := reap(); err != nil {
			return hits, err
		}
	}
	if hits == 0 && cp.trigger != nil {
		if err := cp.trigger(ctx, c); err != nil {
			return hits, err
		}
	}
	deadline := time.Now().Add(4 * faultTime)
	for hits == 0 && time.Now().Before(deadline) {
		if err := reap(); err != nil {
			return hits, err
		}
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return hits, err
		}
	}
	// Disarm whatever still runs armed, and restart what crashed.
	for _, m := range targets {
		if err := reap(); err != nil {
			return hits, err
		}
		if m.Armed() && m.Running() {
			m.Kill()
			m.Arm()
			if err := m.Start(); err != nil {
				return hits, err
			}
		}
	}
	if hits == 0 {
		c.logf("crash point %s was not reached", cp.point)
	}
	return hits, nil
}

var crashPoints = []crashPoint{
	// A follower crashes after logging a proposal and before its ACK:
	// the first proposal after it joins.
	{point: "learner-logged-before-ack", targets: oneFollower},
	// A follower crashes after its NEWLEADER ACK: its armed start syncs.
	{point: "learner-after-newleader-ack", targets: oneFollower},
	// A follower with an empty data directory crashes in the middle of
	// the SNAP that fills it.
	{point: "learner-mid-snap", targets: oneFollower, prep: func(m *Member) error { return m.Wipe() }},
	// A member crashes right after writing a new currentEpoch, which it
	// does when the leader is killed and a new epoch begins.
	{point: "after-current-epoch", targets: oneFollower, trigger: killLeader},
	// A member that logged txns nobody else has crashes in the middle of
	// the TRUNC that removes them: the leader, cut off from the others
	// while a client writes through it, steps down, and the new leader
	// truncates it when it is back.
	{point: "learner-mid-trunc", targets: allGozk, trigger: isolateLeaderWithWrites},
	// The leader crashes in the middle of a SNAP it sends to a follower
	// that lost its data directory.
	{point: "leader-mid-snap-send", targets: allGozk, trigger: wipeFollower},
	// The leader crashes after logging a proposal, before counting its
	// own ACK: at the next write.
	{point: "leader-logged-before-commit", targets: allGozk},
}

// oneFollower is a gozk follower (or, when every gozk member leads, the
// leader).
func oneFollower(c *Cluster) []*Member {
	l := c.Leader()
	var lead *Member
	for _, m := range c.Members {
		if m.Kind != Gozk {
			continue
		}
		if m != l {
			return []*Member{m}
		}
		lead = m
	}
	if lead != nil {
		return []*Member{lead}
	}
	return nil
}

// allGozk is every gozk member, followers first: the leader is armed
// last so that arming ends with a gozk leader when one can lead.
func allGozk(c *Cluster) []*Member {
	ms := gozkMembers(c)
	if len(ms) > 1 && ms[0] == c.Leader() {
		ms = append(ms[1:], ms[0])
	}
	return ms
}

func killLeader(ctx context.Context, c *Cluster) error {
	l, err := leaderOrErr(ctx, c)
	if err != nil {
		return err
	}
	return killAndRestart(ctx, l)
}

// isolateLeaderWithWrites makes the leader log txns nobody else has and
// then rejoin a new leader that has committed nothing yet, the one case
// where a leader truncates a learner (Java's rule, which gozk follows: a
// learner ahead within an epoch the leader has moved past gets a SNAP).
// The leader is cut off from its peers while a client writes through it;
// the clients of the others are cut off too, so that the new leader they
// elect commits nothing before the old one is back.
func isolateLeaderWithWrites(ctx context.Context, c *Cluster) error {
	l, err := leaderOrErr(ctx, c)
	if err != nil {
		return err
	}
	var others []int64
	for _, m := range c.Members {
		if m != l {
			others = append(others, m.ID)
		}
	}
	c.Isolate(l.ID)
	c.CutClients(others...)
	defer c.HealClients()
	stop := make(chan struct{})
	done := writeBlindly(l.Addr(), "/chaos-orphans", stop)
	// Until the others lead without it.
	deadline := time.Now().Add(30 * time.Second)
	for {
		nl := c.Leader()
		if nl != nil && nl != l {
			break
		}
		if time.Now().After(deadline) {
			break
		}
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			break
		}
	}
	close(stop)
	<-done
	c.Heal()
	// Until the old leader has synced again (or crashed doing so).
	deadline = time.Now().Add(20 * time.Second)
	for l.Running() && l.Mode() != "follower" && time.Now().Before(deadline) {
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// wipeFollower kills a follower, empties its data directory and starts
// it again: it needs a SNAP.
func wipeFollower(ctx context.Context, c *Cluster) error {
	l, err := leaderOrErr(ctx, c)
	if err != nil {
		return err
	}
	for _, m := range c.Members {
		if m != l && !m.Armed() {
			m.Kill()
			if err := m.Wipe(); err != nil {
				return err
			}
			return m.Start()
		}
	}
	for _, m := range c.Members {
		if m != l {
			m.Kill()
			if err := m.Wipe(); err != nil {
				return err
			}
			return m.Start()
		}
	}
	return nil
}
