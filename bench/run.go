package bench

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// opKind is what one timed operation was.
type opKind uint8

const (
	kindGet opKind = iota
	kindSet
	kindCreate
	kindExists
	kindChildren
	kindMulti
	kindConnect
	kindClose
	kindFanout
	kindNotify
	numKinds
)

var kindNames = [numKinds]string{"get", "set", "create", "exists", "children", "multi", "connect", "close", "fanout", "notify"}

// children per parent of the children workload, and the number of parents.
const (
	childrenPerParent = 10
	childrenParents   = 100
)

// dialParallelism bounds concurrent handshakes while sessions are set up,
// so that a listen backlog (50 in Java) is not overrun.
const dialParallelism = 16

// Result is the outcome of one run.
type Result struct {
	Label     string    `json:"label,omitempty"`
	Server    string    `json:"server"`
	Servers   []string  `json:"servers,omitempty"` // the sessions' servers, when spread
	Client    string    `json:"client"`
	Workload  string    `json:"workload"`
	Sessions  int       `json:"sessions"`
	InFlight  int       `json:"inflight"`
	ValueSize int       `json:"value_size"`
	ReadRatio float64   `json:"read_ratio,omitempty"`
	Watchers  int       `json:"watchers,omitempty"`
	Started   time.Time `json:"started"`
	// Seconds is the measured phase, from the end of the warmup to the
	// last measured reply.
	Seconds float64 `json:"seconds"`
	// Ops counts successful measured operations (fan-out rounds for the
	// watch workload, sessions for connect).
	Ops       uint64  `json:"ops"`
	OpsPerSec float64 `json:"ops_per_sec"`
	// Latency is over every measured operation of the workload's main
	// kind; PerOp breaks it down (mixed: get and set; connect: connect and
	// close; watch: fanout and notify).
	Latency Summary            `json:"latency"`
	PerOp   map[string]Summary `json:"per_op,omitempty"`
	// Errors counts failed measured operations and lost connections, by
	// error name.
	Errors     uint64            `json:"errors"`
	ErrorKinds map[string]uint64 `json:"error_kinds,omitempty"`
	// NotifyPerSec is the notification rate of the watch workload.
	NotifyPerSec float64 `json:"notify_per_sec,omitempty"`
	// ServerProc is filled when a PID was given.
	ServerProc *ProcStats `json:"server_proc,omitempty"`
	// ClientCPUPerOpUs is this process's CPU time per operation.
	ClientCPUPerOpUs float64 `json:"client_cpu_per_op_us"`
	// Warnings are problems that did not stop the run (incomplete cleanup).
	Warnings []string `json:"warnings,omitempty"`
}

// ProcStats describe the server process over the measured phase.
type ProcStats struct {
	PID        int     `json:"pid"`
	CPUSeconds float64 `json:"cpu_seconds"`
	CPUPerOpUs float64 `json:"cpu_per_op_us"`
	// CPUUtil is CPU seconds per wall second (1.0 = one core busy).
	CPUUtil  float64 `json:"cpu_util"`
	RSSBytes int64   `json:"rss_bytes"`
	HWMBytes int64   `json:"rss_peak_bytes"`
}

// tally is one goroutine's measurements.
type tally struct {
	hist     [numKinds]Histogram
	errs     map[string]uint64
	lastDone time.Time
}

func (t *tally) fail(name string) {
	if t.errs == nil {
		t.errs = make(map[string]uint64)
	}
	t.errs[name]++
}

func (t *tally) done(k opKind, start, now time.Time) {
	t.hist[k].Record(now.Sub(start))
	if now.After(t.lastDone) {
		t.lastDone = now
	}
}

// connErrName names a connection-level failure.
func connErrName(err error) string {
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) && ne.Timeout() {
		return "connection: timeout"
	}
	return "connection: " + err.Error()
}

// runner holds what every goroutine of a run shares.
type runner struct {
	cfg          Config
	ctx          context.Context
	dir          string // the run's own znode directory
	value        []byte
	keys         []string
	parents      []string // children workload
	createParent string
	measureStart time.Time
	end          time.Time
	issued       atomic.Int64 // measured operations started
	onMeasure    sync.Once
	startSample  sample
	endSample    sample
	endSampled   bool
}

// canIssue reports whether an operation may start at now, and whether it
// is measured.
func (r *runner) canIssue(now time.Time) (ok, measured bool) {
	if now.After(r.end) || r.ctx.Err() != nil {
		return false, false
	}
	if now.Before(r.measureStart) {
		return true, false
	}
	if r.issued.Add(1) > r.cfg.Ops {
		return false, false
	}
	return true, true
}

// Run runs one workload against cfg.Server and reports it. Znodes the run
// created are deleted before it returns.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, ctx: ctx}
	r.value = make([]byte, cfg.ValueSize)
	for i := range r.value {
		r.value[i] = byte('a' + i%26)
	}
	// The admin session prepares and, on a fresh session, cleans up: a
	// session left idle through a long run would expire.
	admin, err := dial(cfg.Server, r.dialOptions())
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", cfg.Server, err)
	}
	res := &Result{
		Label: cfg.Label, Server: cfg.Server, Servers: cfg.Servers, Client: cfg.Client, Workload: cfg.Workload,
		Sessions: cfg.Sessions, InFlight: cfg.InFlight, ValueSize: cfg.ValueSize,
		Started: time.Now().UTC().Truncate(time.Second),
	}
	switch cfg.Workload {
	case WorkloadMixed:
		res.ReadRatio = cfg.ReadRatio
	case WorkloadWatch:
		res.Watchers, res.Sessions, res.InFlight = cfg.Watchers, cfg.Watchers, 1
	}
	if err := r.prepare(admin); err != nil {
		r.cleanup(admin, nil)
		admin.close()
		return nil, fmt.Errorf("prepare: %w", err)
	}
	admin.close()

	var tallies []*tally
	var created [][]string
	switch cfg.Workload {
	case WorkloadConnect:
		tallies, err = r.runConnect()
	case WorkloadWatch:
		tallies, err = r.runWatch()
	default:
		if cfg.Client == ClientGoZookeeper {
			tallies, created, err = r.runRequestsZK()
		} else {
			tallies, created, err = r.runRequests()
		}
	}
	if !r.endSampled {
		r.sampleEnd()
	}
	cleanupErr := r.cleanupFresh(created)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Workload, err)
	}
	r.summarize(res, tallies, r.endSample)
	if cleanupErr != nil {
		res.Warnings = append(res.Warnings, "cleanup: "+cleanupErr.Error())
	}
	if cfg.Workload == WorkloadWatch && res.Seconds > 0 {
		res.NotifyPerSec = float64(res.PerOp["notify"].Count) / res.Seconds
	}
	return res, nil
}

func (r *runner) dialOptions() dialOptions {
	return dialOptions{sessionTimeout: r.cfg.SessionTimeout, ioTimeout: r.cfg.IOTimeout}
}

// setTimes starts the clock: warmup now, measurement after it.
func (r *runner) setTimes() {
	now := time.Now()
	r.measureStart = now.Add(r.cfg.Warmup)
	r.end = r.measureStart.Add(r.cfg.Duration)
	time.AfterFunc(r.cfg.Warmup, r.markMeasureStart)
}

// sampleEnd samples the server when the measured phase is over, before
// sessions close (closing may delete ephemeral nodes).
func (r *runner) sampleEnd() {
	r.endSample, r.endSampled = takeSample(r.cfg.pids()), true
}

func (r *runner) markMeasureStart() {
	r.onMeasure.Do(func() { r.startSample = takeSample(r.cfg.pids()) })
}

// summarize turns the tallies into the result.
func (r *runner) summarize(res *Result, tallies []*tally, end sample) {
	r.markMeasureStart() // a run shorter than its warmup
	var total tally
	for _, t := range tallies {
		for k := range t.hist {
			total.hist[k].Merge(&t.hist[k])
		}
		for name, n := range t.errs {
			if total.errs == nil {
				total.errs = make(map[string]uint64)
			}
			total.errs[name] += n
		}
		if t.lastDone.After(total.lastDone) {
			total.lastDone = t.lastDone
		}
	}
	var main Histogram
	main.Merge(&total.hist[kindGet])
	main.Merge(&total.hist[kindSet])
	main.Merge(&total.hist[kindCreate])
	main.Merge(&total.hist[kindExists])
	main.Merge(&total.hist[kindChildren])
	main.Merge(&total.hist[kindMulti])
	main.Merge(&total.hist[kindConnect])
	main.Merge(&total.hist[kindFanout])
	res.Latency = main.Summary()
	res.Ops = main.Count()
	res.PerOp = make(map[string]Summary)
	for k := range total.hist {
		if total.hist[k].Count() > 0 {
			res.PerOp[kindNames[k]] = total.hist[k].Summary()
		}
	}
	if len(res.PerOp) <= 1 {
		res.PerOp = nil
	}
	for _, n := range total.errs {
		res.Errors += n
	}
	res.ErrorKinds = total.errs
	if total.lastDone.After(r.measureStart) {
		res.Seconds = total.lastDone.Sub(r.measureStart).Seconds()
		res.OpsPerSec = float64(res.Ops) / res.Seconds
	}
	start := r.startSample
	if res.Ops > 0 {
		res.ClientCPUPerOpUs = round1((end.clientCPU - start.clientCPU).Seconds() * 1e6 / float64(res.Ops))
	}
	if r.cfg.PID != 0 && end.procOK && start.procOK {
		p := &ProcStats{PID: r.cfg.PID, RSSBytes: end.rss, HWMBytes: end.hwm}
		p.CPUSeconds = round3((end.procCPU - start.procCPU).Seconds())
		if res.Ops > 0 {
			p.CPUPerOpUs = round1(p.CPUSeconds * 1e6 / float64(res.Ops))
		}
		if wall := end.at.Sub(start.at).Seconds(); wall > 0 {
			p.CPUUtil = round3(p.CPUSeconds / wall)
		}
		res.ServerProc = p
	}
	res.Seconds = round3(res.Seconds)
	res.OpsPerSec = round1(res.OpsPerSec)
}

func round1(v float64) float64 { return float64(int64(v*10+0.5)) / 10 }
func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

// prepare creates the run's directory and the nodes the workload needs.
func (r *runner) prepare(c *conn) error {
	if err := createIgnoreExists(c, r.cfg.Root, nil); err != nil {
		return err
	}
	r.dir = r.cfg.Root + "/r" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if err := createIgnoreExists(c, r.dir, nil); err != nil {
		return err
	}
	switch r.cfg.Workload {
	case WorkloadGet, WorkloadSet, WorkloadExists, WorkloadMixed, WorkloadMulti:
		if err := createIgnoreExists(c, r.dir+"/k", nil); err != nil {
			return err
		}
		r.keys = make([]string, r.cfg.Keys)
		for i := range r.keys {
			r.keys[i] = r.dir + "/k/" + strconv.Itoa(i)
		}
		return createAll(c, r.keys, r.value, r.deadline())
	case WorkloadChildren:
		r.parents = make([]string, childrenParents)
		var kids []string
		for i := range r.parents {
			r.parents[i] = r.dir + "/p" + strconv.Itoa(i)
			for j := 0; j < childrenPerParent; j++ {
				kids = append(kids, r.parents[i]+"/child-"+strconv.Itoa(j))
			}
		}
		if err := createAll(c, r.parents, nil, r.deadline()); err != nil {
			return err
		}
		return createAll(c, kids, r.value, r.deadline())
	case WorkloadCreate, WorkloadCreateSeq, WorkloadCreateEphemeral:
		r.createParent = r.dir + "/c"
		return createIgnoreExists(c, r.createParent, nil)
	case WorkloadWatch:
		r.keys = []string{r.dir + "/w"}
		return createAll(c, r.keys, r.value, r.deadline())
	}
	return nil
}

func (r *runner) deadline() time.Time { return time.Now().Add(r.cfg.CleanupTimeout) }

// cleanupFresh cleans up on a new session.
func (r *runner) cleanupFresh(created [][]string) error {
	c, err := dial(r.cfg.Server, r.dialOptions())
	if err != nil {
		return err
	}
	defer c.close()
	return r.cleanup(c, created)
}

// cleanup deletes what the run created, children first, within
// CleanupTimeout.
func (r *runner) cleanup(c *conn, created [][]string) error {
	if r.dir == "" {
		return nil
	}
	deadline := r.deadline()
	var paths []string
	for _, s := range created {
		paths = append(paths, s...)
	}
	var parents []string
	switch {
	case r.keys != nil && r.cfg.Workload != WorkloadWatch:
		paths = append(paths, r.keys...)
		parents = append(parents, r.dir+"/k")
	case r.keys != nil:
		paths = append(paths, r.keys...)
	}
	for _, p := range r.parents {
		for j := 0; j < childrenPerParent; j++ {
			paths = append(paths, p+"/child-"+strconv.Itoa(j))
		}
	}
	parents = append(parents, r.parents...)
	if r.createParent != "" {
		parents = append(parents, r.createParent)
	}
	parents = append(parents, r.dir)
	if err := deleteAll(c, paths, deadline); err != nil {
		return err
	}
	if err := deleteAll(c, parents, deadline); err != nil {
		return err
	}
	// The shared root goes too unless another run still uses it.
	rep, err := c.call(proto.OpDelete, &proto.DeleteRequest{Path: r.cfg.Root, Version: -1})
	if err == nil && rep.err != proto.ErrOK && rep.err != proto.ErrNotEmpty && rep.err != proto.ErrNoNode {
		return fmt.Errorf("delete %s: %v", r.cfg.Root, rep.err.Name())
	}
	return err
}

func createIgnoreExists(c *conn, path string, data []byte) error {
	rep, err := c.call(proto.OpCreate, &proto.CreateRequest{Path: path, Data: data, Acl: proto.OpenACLUnsafe})
	if err != nil {
		return err
	}
	if rep.err != proto.ErrOK && rep.err != proto.ErrNodeExists {
		return fmt.Errorf("create %s: %s", path, rep.err.Name())
	}
	return nil
}

// pipelineWindow is how many setup or cleanup requests are outstanding.
const pipelineWindow = 256

// pipeline sends n requests with up to pipelineWindow outstanding and
// checks each reply in order.
func pipeline(c *conn, n int, deadline time.Time, build func(i int) (proto.OpCode, jute.Record), check func(i int, rep reply) error) error {
	xids := make([]int32, 0, pipelineWindow)
	next, done := 0, 0
	for done < n {
		for next < n && next-done < pipelineWindow {
			op, rec := build(next)
			xids = append(xids, c.queue(op, rec))
			next++
		}
		rep, err := c.readReply()
		if err != nil {
			return err
		}
		if rep.xid == xidNotification || rep.xid == xidPing {
			continue
		}
		if rep.xid != xids[0] {
			return fmt.Errorf("reply xid %d, want %d", rep.xid, xids[0])
		}
		xids = xids[1:]
		if err := check(done, rep); err != nil {
			return err
		}
		done++
		if done%1024 == 0 && time.Now().After(deadline) {
			return fmt.Errorf("stopped after %d of %d requests: time limit", done, n)
		}
	}
	return nil
}

func createAll(c *conn, paths []string, data []byte, deadline time.Time) error {
	var req proto.CreateRequest
	return pipeline(c, len(paths), deadline, func(i int) (proto.OpCode, jute.Record) {
		req = proto.CreateRequest{Path: paths[i], Data: data, Acl: proto.OpenACLUnsafe}
		return proto.OpCreate, &req
	}, func(i int, rep reply) error {
		if rep.err != proto.ErrOK {
			return fmt.Errorf("create %s: %s", paths[i], rep.err.Name())
		}
		return nil
	})
}

func deleteAll(c *conn, paths []string, deadline time.Time) error {
	var req proto.DeleteRequest
	return pipeline(c, len(paths), deadline, func(i int) (proto.OpCode, jute.Record) {
		req = proto.DeleteRequest{Path: paths[i], Version: -1}
		return proto.OpDelete, &req
	}, func(i int, rep reply) error {
		if rep.err != proto.ErrOK && rep.err != proto.ErrNoNode {
			return fmt.Errorf("delete %s: %s", paths[i], rep.err.Name())
		}
		return nil
	})
}

// dialAll opens n sessions, dialParallelism at a time. Failed dials are
// counted in the returned tally and leave a nil entry.
func (r *runner) dialAll(n int) ([]*conn, *tally) {
	conns := make([]*conn, n)
	var failures tally
	var mu sync.Mutex
	sem := make(chan struct{}, dialParallelism)
	var wg sync.WaitGroup
	for i := range conns {
		if r.ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			c, err := dial(r.cfg.sessionServer(i), r.dialOptions())
			if err != nil {
				mu.Lock()
				failures.fail(connErrName(err))
				mu.Unlock()
				return
			}
			conns[i] = c
		}(i)
	}
	wg.Wait()
	return conns, &failures
}

// inflight is one outstanding request.
type inflight struct {
	xid      int32
	kind     opKind
	measured bool
	start    time.Time
	path     string // create: the path to delete afterwards
}

// session drives one connection of a request workload.
type session struct {
	r     *runner
	id    int
	c     *conn
	rng   *rand.Rand
	queue []inflight // FIFO of outstanding requests
	t     tally
	seq   int64
	// created holds persistent nodes to delete in cleanup.
	created []string
	// Reusable request records.
	get      proto.GetDataRequest
	set      proto.SetDataRequest
	create   proto.CreateRequest
	exists   proto.ExistsRequest
	children proto.GetChildrenRequest
	multi    proto.MultiRequest
	prefix   string
}

// runRequests runs a request workload: Sessions connections with InFlight
// requests outstanding on each.
func (r *runner) runRequests() ([]*tally, [][]string, error) {
	conns, failures := r.dialAll(r.cfg.Sessions)
	sessions := make([]*session, 0, len(conns))
	for i, c := range conns {
		if c == nil {
			continue
		}
		s := &session{r: r, id: i, c: c, rng: rand.New(rand.NewPCG(uint64(i)+1, 0x9e3779b97f4a7c15))}
		s.queue = make([]inflight, 0, r.cfg.InFlight)
		s.prefix = r.createParent + "/s" + strconv.Itoa(i) + "-"
		s.multi.Ops = make([]proto.MultiOp, r.cfg.MultiOps)
		sessions = append(sessions, s)
	}
	if len(sessions) == 0 {
		if r.ctx.Err() != nil {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("no session could be opened: %v", failures.errs)
	}
	r.setTimes()
	var loops, closes sync.WaitGroup
	release := make(chan struct{})
	for _, s := range sessions {
		loops.Add(1)
		closes.Add(1)
		go func() {
			defer closes.Done()
			ok := s.loop()
			loops.Done()
			<-release // the server's CPU is sampled before sessions close
			if ok {
				s.c.close()
			} else {
				s.c.abort()
			}
		}()
	}
	loops.Wait()
	r.sampleEnd()
	close(release)
	closes.Wait()
	tallies := []*tally{failures}
	created := make([][]string, 0, len(sessions))
	for _, s := range sessions {
		tallies = append(tallies, &s.t)
		created = append(created, s.created)
	}
	return tallies, created, nil
}

// loop keeps InFlight requests outstanding until the run ends, then drains
// them. It reports whether the connection is still usable.
func (s *session) loop() bool {
	for {
		now := time.Now()
		for len(s.queue) < s.r.cfg.InFlight {
			ok, measured := s.r.canIssue(now)
			if !ok {
				break
			}
			s.issue(now, measured)
		}
		if len(s.queue) == 0 {
			return true
		}
		rep, err := s.c.readReply()
		if err != nil {
			s.t.fail(connErrName(err))
			return false
		}
		if rep.xid == xidNotification || rep.xid == xidPing {
			continue
		}
		head := s.queue[0]
		copy(s.queue, s.queue[1:])
		s.queue = s.queue[:len(s.queue)-1]
		if rep.xid != head.xid {
			s.t.fail(fmt.Sprintf("protocol: reply xid %d, want %d", rep.xid, head.xid))
			return false
		}
		s.complete(head, rep, time.Now())
	}
}

func (s *session) key() string { return s.r.keys[s.rng.IntN(len(s.r.keys))] }

// issue queues the workload's next request.
func (s *session) issue(now time.Time, measured bool) {
	in := inflight{start: now, measured: measured}
	c := s.c
	switch s.r.cfg.Workload {
	case WorkloadGet:
		in.kind, s.get.Path = kindGet, s.key()
		in.xid = c.queue(proto.OpGetData, &s.get)
	case WorkloadExists:
		in.kind, s.exists.Path = kindExists, s.key()
		in.xid = c.queue(proto.OpExists, &s.exists)
	case WorkloadChildren:
		in.kind, s.children.Path = kindChildren, s.r.parents[s.rng.IntN(len(s.r.parents))]
		in.xid = c.queue(proto.OpGetChildren, &s.children)
	case WorkloadSet:
		in.kind = kindSet
		s.set = proto.SetDataRequest{Path: s.key(), Data: s.r.value, Version: -1}
		in.xid = c.queue(proto.OpSetData, &s.set)
	case WorkloadMixed:
		if s.rng.Float64() < s.r.cfg.ReadRatio {
			in.kind, s.get.Path = kindGet, s.key()
			in.xid = c.queue(proto.OpGetData, &s.get)
		} else {
			in.kind = kindSet
			s.set = proto.SetDataRequest{Path: s.key(), Data: s.r.value, Version: -1}
			in.xid = c.queue(proto.OpSetData, &s.set)
		}
	case WorkloadMulti:
		in.kind = kindMulti
		first := s.rng.IntN(len(s.r.keys))
		for i := range s.multi.Ops {
			s.multi.Ops[i] = proto.MultiOp{Type: proto.OpSetData, SetData: proto.SetDataRequest{
				Path: s.r.keys[(first+i)%len(s.r.keys)], Data: s.r.value, Version: -1}}
		}
		in.xid = c.queue(proto.OpMulti, &s.multi)
	case WorkloadCreate, WorkloadCreateSeq, WorkloadCreateEphemeral:
		in.kind = kindCreate
		s.create = proto.CreateRequest{Path: s.prefix, Data: s.r.value, Acl: proto.OpenACLUnsafe}
		switch s.r.cfg.Workload {
		case WorkloadCreate:
			s.seq++
			s.create.Path = s.prefix + strconv.FormatInt(s.seq, 10)
			in.path = s.create.Path
		case WorkloadCreateSeq:
			s.create.Flags = int32(proto.ModePersistentSequential)
		case WorkloadCreateEphemeral:
			s.seq++
			s.create.Path = s.prefix + strconv.FormatInt(s.seq, 10)
			s.create.Flags = int32(proto.ModeEphemeral)
		}
		in.xid = c.queue(proto.OpCreate, &s.create)
	}
	s.queue = append(s.queue, in)
}

// statSize is the encoded size of a Stat.
const statSize = 68

// replyShapeOK checks that a successful reply has the body its request
// calls for (a getData reply carries the node's data), so that no server
// is credited for answers it did not give.
func (s *session) replyShapeOK(kind opKind, body []byte) bool {
	switch kind {
	case kindGet:
		return len(body) == 4+len(s.r.value)+statSize
	case kindSet, kindExists:
		return len(body) == statSize
	case kindChildren:
		return len(body) >= 4 && int32(binary.BigEndian.Uint32(body)) == childrenPerParent
	case kindCreate:
		return len(body) >= 4+len(s.prefix)
	}
	return true
}

// complete accounts for one reply.
func (s *session) complete(in inflight, rep reply, now time.Time) {
	ok := rep.err == proto.ErrOK
	if ok && !s.replyShapeOK(in.kind, rep.body) {
		if in.measured {
			s.t.fail(fmt.Sprintf("malformed %s reply of %d bytes", kindNames[in.kind], len(rep.body)))
		}
		return
	}
	if ok && in.kind == kindMulti {
		var mr proto.MultiResponse
		if err := jute.Unmarshal(rep.body, &mr); err != nil {
			s.t.fail("multi reply: " + err.Error())
			return
		}
		for _, res := range mr.Results {
			if res.Type == proto.OpError {
				ok, rep.err = false, res.Err
				break
			}
		}
	}
	if ok && in.kind == kindCreate {
		switch s.r.cfg.Workload {
		case WorkloadCreate:
			s.created = append(s.created, in.path)
		case WorkloadCreateSeq:
			var cr proto.CreateResponse
			if err := jute.Unmarshal(rep.body, &cr); err != nil {
				s.t.fail("create reply: " + err.Error())
				return
			}
			s.created = append(s.created, cr.Path)
		}
	}
	if !in.measured {
		return
	}
	if !ok {
		s.t.fail(rep.err.Name())
		return
	}
	s.t.done(in.kind, in.start, now)
}
