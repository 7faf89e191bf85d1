package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/gozk/gozk/proto"
)

// FailoverConfig tunes a failover measurement; zero fields take the
// defaults of failoverDefaults.
type FailoverConfig struct {
	// Before is how long the writers run before the leader is killed.
	Before time.Duration
	// Limit bounds the wait for every measure after the kill.
	Limit time.Duration
	// Retry is the pause after a failed connection attempt or write, as
	// a client pauses before trying again.
	Retry time.Duration
	// AttemptTimeout bounds one connection attempt or one wait for a
	// reply.
	AttemptTimeout time.Duration
	// SessionTimeout is requested by the writers' sessions, which must
	// outlive the election.
	SessionTimeout time.Duration
	Progress       io.Writer
}

func (fc FailoverConfig) withDefaults() FailoverConfig {
	def := func(p *time.Duration, v time.Duration) {
		if *p <= 0 {
			*p = v
		}
	}
	def(&fc.Before, time.Second)
	def(&fc.Limit, time.Minute)
	def(&fc.Retry, 5*time.Millisecond)
	def(&fc.AttemptTimeout, 2*time.Second)
	def(&fc.SessionTimeout, 30*time.Second)
	if fc.Progress == nil {
		fc.Progress = io.Discard
	}
	return fc
}

// Failover is one kill of an ensemble's leader.
type Failover struct {
	Server    string `json:"server"` // "gozk" or "java"
	Run       int    `json:"run"`
	Killed    string `json:"killed"`
	NewLeader string `json:"new_leader"`
	// ExistingMs is the time from the kill to the first acknowledged
	// write issued after it on any of the sessions that existed before it
	// (one per member, each writing in a loop; those of the survivors and
	// the leader's own reconnect to another member and reattach).
	ExistingMs float64 `json:"existing_session_ms"`
	// ExistingAllMs is the time until every one of those sessions had a
	// write acknowledged.
	ExistingAllMs float64 `json:"existing_sessions_all_ms"`
	// NewSessionMs is the time from the kill to the first new session
	// that connected to a survivor and had a create acknowledged.
	NewSessionMs float64 `json:"new_session_ms"`
	// Reconnects counts the existing sessions' connection attempts.
	Reconnects int64 `json:"reconnect_attempts"`
}

// failoverRoot holds the writers' nodes.
const failoverRoot = "/gozk-bench-failover"

// writer is one existing session writing in a loop through a failover.
type writer struct {
	fc       FailoverConfig
	addrs    []string // every member; the writer moves to the next on a loss
	at       int
	c        *conn
	path     string
	lastZxid int64
	// sessionID and passwd reattach the session after a loss.
	sessionID int64
	passwd    []byte
	killedAt  *atomic.Int64 // unix ns of the leader's death, 0 before it
	// ackAfterKill is when the first write issued after the kill was
	// acknowledged; written by the writer's goroutine, read after it ends.
	ackAfterKill time.Time
	acked        chan struct{}
	reconnects   int64
	err          error
}

// run writes until stop is closed.
func (w *writer) run(stop <-chan struct{}) {
	req := proto.SetDataRequest{Path: w.path, Data: []byte("failover"), Version: -1}
	for {
		select {
		case <-stop:
			if w.c != nil {
				deleteAll(w.c, []string{w.path}, time.Now().Add(w.fc.AttemptTimeout))
				w.c.close()
			}
			return
		default:
		}
		if w.c == nil {
			w.reconnect(stop)
			continue
		}
		issued := time.Now()
		rep, err := w.c.call(proto.OpSetData, &req)
		if err != nil {
			w.c.abort()
			w.c.recycle()
			w.c = nil
			continue
		}
		if rep.err != proto.ErrOK {
			sleepOrStop(w.fc.Retry, stop)
			continue
		}
		w.lastZxid = max(w.lastZxid, rep.zxid)
		w.acknowledged(issued, time.Now())
	}
}

// acknowledged records a write issued at issued and acknowledged at now:
// the first one issued after the kill ends the writer's measurement. A
// write issued before the kill does not count, even when its answer comes
// after: it may have been committed by the old leader.
func (w *writer) acknowledged(issued, now time.Time) {
	if k := w.killedAt.Load(); k != 0 && issued.UnixNano() >= k && w.ackAfterKill.IsZero() {
		w.ackAfterKill = now
		close(w.acked)
	}
}

// reconnect reattaches the session at the next member, as a client does
// after losing its server.
func (w *writer) reconnect(stop <-chan struct{}) {
	w.at = (w.at + 1) % len(w.addrs)
	w.reconnects++
	c, err := dialSession(w.addrs[w.at], dialOptions{sessionTimeout: w.fc.SessionTimeout, ioTimeout: w.fc.AttemptTimeout},
		w.sessionID, w.passwd, w.lastZxid)
	if err != nil {
		w.err = err
		sleepOrStop(w.fc.Retry, stop)
		return
	}
	w.c = c
}

func sleepOrStop(d time.Duration, stop <-chan struct{}) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-stop:
	}
}

// MeasureFailover kills e's leader with SIGKILL while one session per
// member writes in a loop, times the way back to acknowledged writes on
// those sessions and on a new one, then restarts the killed member and
// waits for the ensemble to have a leader and two followers again.
func MeasureFailover(ctx context.Context, e *Ensemble, fc FailoverConfig) (*Failover, error) {
	fc = fc.withDefaults()
	leader := e.Leader()
	if leader < 0 {
		return nil, errors.New("no leader")
	}
	var addrs []string
	for _, p := range e.Members {
		addrs = append(addrs, p.Addr)
	}
	opts := dialOptions{sessionTimeout: fc.SessionTimeout, ioTimeout: fc.AttemptTimeout}
	var killedAt atomic.Int64
	var writers []*writer
	defer func() {
		for _, w := range writers {
			if w.c != nil {
				w.c.abort()
			}
		}
	}()
	for i, addr := range addrs {
		c, err := dial(addr, opts)
		if err != nil {
			return nil, fmt.Errorf("connect to %s: %w", e.Members[i].Name, err)
		}
		w := &writer{fc: fc, addrs: addrs, at: i, c: c, killedAt: &killedAt, acked: make(chan struct{}),
			path: failoverRoot + "/w" + strconv.Itoa(i)}
		writers = append(writers, w)
		if err := createIgnoreExists(c, failoverRoot, nil); err != nil {
			return nil, err
		}
		if err := createIgnoreExists(c, w.path, nil); err != nil {
			return nil, err
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, w := range writers {
		w.sessionID, w.passwd = w.c.sessionID, w.c.passwd
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(stop)
		}()
	}
	stopWriters := func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		wg.Wait()
	}
	defer stopWriters()

	sleepOrStop(fc.Before, ctx.Done())
	victim := e.Members[leader]
	f := &Failover{Server: e.Name, Killed: victim.Name}
	kill := time.Now()
	victim.Stop()
	// Only writes issued once the leader is gone count: one issued
	// between the signal and the death may still be acknowledged by it.
	// The times below are still taken from the signal.
	killedAt.Store(time.Now().UnixNano())

	newSession := make(chan time.Time, 1)
	probeCtx, cancelProbes := context.WithTimeout(ctx, fc.Limit)
	var probes sync.WaitGroup
	for i, addr := range addrs {
		if i == leader {
			continue
		}
		probes.Add(1)
		go func() {
			defer probes.Done()
			probeNewSession(probeCtx, addr, opts, fc.Retry, newSession)
		}()
	}
	deadline := time.NewTimer(fc.Limit)
	defer deadline.Stop()
	var timedOut []string
	var newAt time.Time
	select {
	case newAt = <-newSession:
	case <-deadline.C:
		timedOut = append(timedOut, "a new session")
	case <-ctx.Done():
	}
	cancelProbes()
	probes.Wait()
	for i, w := range writers {
		select {
		case <-w.acked:
		case <-deadline.C:
			timedOut = append(timedOut, "the session of "+e.Members[i].Name)
		case <-ctx.Done():
		}
	}
	stopWriters()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(timedOut) > 0 {
		var last []string
		for _, w := range writers {
			if w.err != nil {
				last = append(last, w.err.Error())
			}
		}
		return nil, fmt.Errorf("no acknowledged write within %v of the kill on %s (last errors: %s)", fc.Limit, strings.Join(timedOut, ", "), strings.Join(last, "; "))
	}
	f.NewSessionMs = ms(newAt.Sub(kill))
	for _, w := range writers {
		took := ms(w.ackAfterKill.Sub(kill))
		if f.ExistingMs == 0 || took < f.ExistingMs {
			f.ExistingMs = took
		}
		f.ExistingAllMs = max(f.ExistingAllMs, took)
		f.Reconnects += w.reconnects
	}

	fmt.Fprintf(fc.Progress, "restarting %s\n", victim.Name)
	if err := victim.start(); err != nil {
		return nil, fmt.Errorf("restarting %s: %w", victim.Name, err)
	}
	if err := e.WaitRoles(ctx); err != nil {
		return nil, err
	}
	f.NewLeader = e.Members[e.Leader()].Name
	return f, nil
}

// probeNewSession opens new sessions on addr until one has a create
// acknowledged, and sends the time of that acknowledgement.
func probeNewSession(ctx context.Context, addr string, opts dialOptions, retry time.Duration, done chan<- time.Time) {
	for ctx.Err() == nil {
		c, err := dial(addr, opts)
		if err != nil {
			sleepOrStop(retry, ctx.Done())
			continue
		}
		rep, err := c.call(proto.OpCreate, &proto.CreateRequest{
			Path: failoverRoot + "/n", Acl: proto.OpenACLUnsafe, Flags: int32(proto.ModeEphemeralSequential)})
		if err == nil && rep.err == proto.ErrOK {
			select {
			case done <- time.Now():
			default:
			}
			c.close()
			return
		}
		c.abort()
		c.recycle()
		sleepOrStop(retry, ctx.Done())
	}
}

// FailoverSummary holds the medians of each server's failovers.
type FailoverSummary struct {
	GozkRuns          int     `json:"gozk_runs"`
	JavaRuns          int     `json:"java_runs"`
	GozkExistingMs    float64 `json:"gozk_existing_session_ms"`
	JavaExistingMs    float64 `json:"java_existing_session_ms"`
	ExistingRatio     float64 `json:"existing_session_ratio"`
	GozkExistingAllMs float64 `json:"gozk_existing_sessions_all_ms"`
	JavaExistingAllMs float64 `json:"java_existing_sessions_all_ms"`
	ExistingAllRatio  float64 `json:"existing_sessions_all_ratio"`
	GozkNewSessionMs  float64 `json:"gozk_new_session_ms"`
	JavaNewSessionMs  float64 `json:"java_new_session_ms"`
	NewSessionRatio   float64 `json:"new_session_ratio"`
}

// SummarizeFailovers takes the median of each measure per server and the
// gozk/Java ratios of the medians; nil when there were no failovers.
func SummarizeFailovers(fs []*Failover) *FailoverSummary {
	if len(fs) == 0 {
		return nil
	}
	var s FailoverSummary
	col := map[string]*[3][]float64{"gozk": {}, "java": {}}
	for _, f := range fs {
		c, ok := col[f.Server]
		if !ok {
			continue
		}
		c[0] = append(c[0], f.ExistingMs)
		c[1] = append(c[1], f.ExistingAllMs)
		c[2] = append(c[2], f.NewSessionMs)
	}
	g, j := col["gozk"], col["java"]
	s.GozkRuns, s.JavaRuns = len(g[0]), len(j[0])
	s.GozkExistingMs, s.JavaExistingMs = median(g[0]), median(j[0])
	s.GozkExistingAllMs, s.JavaExistingAllMs = median(g[1]), median(j[1])
	s.GozkNewSessionMs, s.JavaNewSessionMs = median(g[2]), median(j[2])
	s.ExistingRatio = ratio(s.GozkExistingMs, s.JavaExistingMs)
	s.ExistingAllRatio = ratio(s.GozkExistingAllMs, s.JavaExistingAllMs)
	s.NewSessionRatio = ratio(s.GozkNewSessionMs, s.JavaNewSessionMs)
	return &s
}

// WriteFailovers writes every failover and the medians.
func WriteFailovers(w io.Writer, fs []*Failover, s *FailoverSummary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "server\trun\tkilled\tnew leader\texisting ms\tall existing ms\tnew session ms\treconnects\t")
	for _, f := range fs {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%.1f\t%.1f\t%.1f\t%d\t\n", f.Server, f.Run, f.Killed, f.NewLeader,
			f.ExistingMs, f.ExistingAllMs, f.NewSessionMs, f.Reconnects)
	}
	tw.Flush()
	if s == nil {
		return
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "failover, median ms\tgozk\tjava\tratio\t")
	row := func(what string, g, j, r float64) {
		cell := func(runs int, v string) string {
			if runs == 0 {
				return "-"
			}
			return v
		}
		both := min(s.GozkRuns, s.JavaRuns)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", what, cell(s.GozkRuns, fmt.Sprintf("%.1f", g)),
			cell(s.JavaRuns, fmt.Sprintf("%.1f", j)), cell(both, fmt.Sprintf("%.2f", r)))
	}
	row("first write, existing session", s.GozkExistingMs, s.JavaExistingMs, s.ExistingRatio)
	row("every existing session written", s.GozkExistingAllMs, s.JavaExistingAllMs, s.ExistingAllRatio)
	row("new session: connect + create", s.GozkNewSessionMs, s.JavaNewSessionMs, s.NewSessionRatio)
	tw.Flush()
	fmt.Fprintf(w, "over %d gozk and %d Java runs; from the leader's SIGKILL; ratios are gozk / Java, below 1 is faster.\n", s.GozkRuns, s.JavaRuns)
}
