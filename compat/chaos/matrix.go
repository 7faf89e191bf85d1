package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/compat/ensemble"
	"github.com/gozk/gozk/compat/zkwire"
)

// Layouts is the matrix's ensemble axis: gozk alone, and gozk mixed with
// Apache ZooKeeper 3.8.0 both ways. JavaControl runs the same faults on
// an all-Java ensemble, to tell gozk's findings from ZooKeeper's own.
var (
	Layouts = []Layout{
		{Name: "3 gozk", Kinds: []Kind{Gozk, Gozk, Gozk}},
		{Name: "5 gozk", Kinds: []Kind{Gozk, Gozk, Gozk, Gozk, Gozk}},
		{Name: "2 Java + 1 gozk", Kinds: []Kind{Java, Java, Gozk}},
		{Name: "1 Java + 2 gozk", Kinds: []Kind{Java, Gozk, Gozk}},
	}
	JavaControl = Layout{Name: "3 Java (control)", Kinds: []Kind{Java, Java, Java}}
)

// CellTiming shapes one cell: load before the fault, and after the
// ensemble serves again.
type CellTiming struct {
	Before, After time.Duration
}

// DefaultTiming keeps a cell to about ten seconds.
var DefaultTiming = CellTiming{Before: time.Second, After: 1500 * time.Millisecond}

// cellSessionTimeout is the workloads' session timeout: longer than any
// fault (faultTime) plus an election, so that sessions survive them, and
// short enough that the sessions the ephemeral workload abandons expire
// soon after the load stops.
const cellSessionTimeout = 8 * time.Second

// RunCell runs one nemesis on a serving cluster under the workloads and
// returns the cell's row. err is the harness failing (the ensemble never
// served again, a workload could not run); the findings are in the row.
func RunCell(ctx context.Context, c *Cluster, n Nemesis, workloads []Workload, seed int64, timing CellTiming, logf func(string, ...any)) (Row, error) {
	row := Row{Layout: c.Layout.Name, Nemesis: n.Name}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	env := &Env{Servers: c.Servers(), Leader: c.LeaderAddr, Seed: seed, Clients: 2,
		SessionTimeout: cellSessionTimeout, Logf: logf}

	wctx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	probe := startProbe(wctx, c.Servers())
	var wg sync.WaitGroup
	werrs := make([]error, len(workloads))
	for i, w := range workloads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			werrs[i] = w.Run(wctx, env)
		}()
	}
	if err := sleep(ctx, timing.Before); err != nil {
		return row, err
	}
	faultAt := time.Now()
	faults, err := n.Run(ctx, c, rng)
	row.Faults = faults
	if err != nil {
		stopLoad()
		wg.Wait()
		return row, fmt.Errorf("%s: %w", n.Name, err)
	}
	if err := c.WaitServing(ctx); err != nil {
		stopLoad()
		wg.Wait()
		return row, fmt.Errorf("after %s: %w", n.Name, err)
	}
	if err := sleep(ctx, timing.After); err != nil {
		return row, err
	}
	stopLoad()
	wg.Wait()
	row.Recover = probe.longestGapSince(faultAt)
	for i, err := range werrs {
		if err != nil {
			return row, fmt.Errorf("workload %s: %w", workloads[i].Name(), err)
		}
	}
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for _, w := range workloads {
		row.Results = append(row.Results, w.Check(cctx, env))
	}
	if d, err := c.convergedTrees(cctx); err != nil {
		return row, err
	} else if d != "" {
		row.Results = append(row.Results, Result{Workload: "trees", Anomalies: []string{d}})
	}
	return row, nil
}

// probe writes through every member, each on a session of its own
// bound to that member, every few milliseconds, and keeps the times
// writes were acknowledged: the longest gap between two of them after a
// fault is how long no client anywhere could write.
type probe struct {
	mu  sync.Mutex
	oks []time.Time
}

const probePath = "/chaos-probe"

func startProbe(ctx context.Context, servers []string) *probe {
	p := &probe{}
	for i, addr := range servers {
		go p.writeThrough(ctx, addr, fmt.Sprintf("%s-%d", probePath, i+1))
	}
	return p
}

func (p *probe) writeThrough(ctx context.Context, addr, path string) {
	conn, _, err := zk.Connect([]string{addr}, 20*time.Second, zk.WithLogger(quiet{}))
	if err != nil {
		return
	}
	defer conn.Close()
	for i := 0; ctx.Err() == nil; i++ {
		data := []byte(strconv.Itoa(i))
		err := withTimeout(ctx, 2*time.Second, func() error {
			_, err := conn.Set(path, data, -1)
			if err == zk.ErrNoNode {
				_, err = conn.Create(path, data, 0, zk.WorldACL(zk.PermAll))
			}
			return err
		})
		if err == nil {
			p.mu.Lock()
			p.oks = append(p.oks, time.Now())
			p.mu.Unlock()
		}
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (p *probe) longestGapSince(t time.Time) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	var longest time.Duration
	last := t
	oks := append([]time.Time(nil), p.oks...)
	sort.Slice(oks, func(i, j int) bool { return oks[i].Before(oks[j]) })
	for _, ok := range oks {
		if ok.Before(t) {
			continue
		}
		if gap := ok.Sub(last); gap > longest {
			longest = gap
		}
		last = ok
	}
	return longest
}

// withTimeout runs op, giving up on it after d (it may still complete
// later: the caller then does not know whether it took effect).
func withTimeout(ctx context.Context, d time.Duration, op func() error) error {
	done := make(chan error, 1)
	go func() { done <- op() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		return context.DeadlineExceeded
	case <-ctx.Done():
		return ctx.Err()
	}
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

// writeBlindly creates znodes through the server at addr alone, without
// waiting for answers, until stop is closed; done is closed once its
// session is gone.
func writeBlindly(addr, prefix string, stop <-chan struct{}) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		conn, _, err := zk.Connect([]string{addr}, 20*time.Second, zk.WithLogger(quiet{}))
		if err != nil {
			return
		}
		defer conn.Close()
		for i := 0; ; i++ {
			path := fmt.Sprintf("%s-%d-%d", prefix, time.Now().UnixNano(), i)
			go conn.Create(path, nil, 0, zk.WorldACL(zk.PermAll))
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return done
}

// convergedTrees waits until every member has stopped moving (the same
// last zxid on all for a second), then reads every member's tree and
// returns the first difference ("" when they are identical).
// /zookeeper/config is left out: each member's names its own links.
func (c *Cluster) convergedTrees(ctx context.Context) (string, error) {
	skip := func(p string) bool { return p == ensemble.ConfigNode }
	var last string
	for attempt := 0; attempt < 5; attempt++ {
		if err := c.waitStill(ctx); err != nil {
			return "", err
		}
		var first ensemble.Tree
		var firstM *Member
		diff := ""
		for _, m := range c.Members {
			t, err := m.dump(ctx)
			if err != nil {
				return "", err
			}
			t = t.Without(skip)
			if firstM == nil {
				first, firstM = t, m
				continue
			}
			if d := ensemble.DiffTrees(first, t); d != "" {
				diff = fmt.Sprintf("trees of %v and %v differ: %s", firstM, m, d)
				break
			}
		}
		if diff == "" {
			return "", nil
		}
		// A tree that moved while it was read (a session expiring) is
		// read again.
		last = diff
	}
	return last, nil
}

// waitStill waits until every member reports the same zxid twice, a
// second apart.
func (c *Cluster) waitStill(ctx context.Context) error {
	deadline := time.Now().Add(time.Minute)
	prev := ""
	for time.Now().Before(deadline) {
		var zs []string
		for _, m := range c.Members {
			zs = append(zs, m.zxid())
		}
		cur := strings.Join(zs, ",")
		if cur == prev && !strings.Contains(cur, "?") && allSame(zs) {
			return nil
		}
		prev = cur
		if err := sleep(ctx, time.Second); err != nil {
			return err
		}
	}
	return fmt.Errorf("the members' zxids never settled (%s)", prev)
}

func allSame(xs []string) bool {
	for _, x := range xs {
		if x != xs[0] {
			return false
		}
	}
	return true
}

// zxid is the member's last zxid from srvr ("?" when it does not answer).
func (m *Member) zxid() string {
	out, err := zkwire.FourLetterWord(m.Addr(), "srvr", 2*time.Second)
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, "Zxid: "); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

// dump reads the member's whole tree after a sync, on a session of its
// own.
func (m *Member) dump(ctx context.Context) (ensemble.Tree, error) {
	conn, _, err := zk.Connect([]string{m.Addr()}, 20*time.Second, zk.WithLogger(quiet{}))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var tree ensemble.Tree
	err = withTimeout(ctx, time.Minute, func() error {
		if _, err := conn.Sync("/"); err != nil {
			return fmt.Errorf("sync on %v: %w", m, err)
		}
		var err error
		tree, err = ensemble.Dump(conn)
		return err
	})
	return tree, err
}

// Summary renders rows as a markdown table with one line per cell (the
// workloads' counts summed), the form the documentation carries; Table
// has the line per workload.
func Summary(rows []Row) string {
	var b strings.Builder
	b.WriteString("| layout | nemesis | faults | longest write outage | ops | ok | indeterminate | anomalies | lost | duplicated |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, row := range rows {
		var ops, ok, ind, anomalies, lost, dup int
		for _, r := range row.Results {
			ops += r.Ops()
			ok += r.OK
			ind += r.Indeterminate
			anomalies += len(r.Anomalies)
			lost += r.Lost
			dup += r.Duplicated
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %d | %d | %d | %d | %d | %d |\n", row.Layout, row.Nemesis, row.Faults,
			row.Recover.Round(10*time.Millisecond), ops, ok, ind, anomalies, lost, dup)
	}
	return b.String()
}
