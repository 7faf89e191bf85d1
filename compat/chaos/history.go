package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"net"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// Outcome is what the client learnt of one operation.
type Outcome int

const (
	// OK: the server acknowledged the operation.
	OK Outcome = iota
	// Failed: the server refused it (a version conflict, a node that
	// exists), so it certainly took no effect.
	Failed
	// Indeterminate: the client cannot know whether it took effect (the
	// connection or the session went away with the request in flight, or
	// no reply came before the operation's deadline).
	Indeterminate
)

func (o Outcome) String() string {
	switch o {
	case OK:
		return "ok"
	case Failed:
		return "failed"
	default:
		return "indeterminate"
	}
}

// OpKind names what an operation did.
type OpKind string

const (
	// KindRead is a getData at whichever server the session is on.
	KindRead OpKind = "read"
	// KindLinRead is a getData after a sync and a barrier transaction
	// in the same session (on the member that leads, or a final read).
	KindLinRead OpKind = "linread"
	// KindCAS is a setData (or a multi of check and setData) with the
	// version a previous read returned.
	KindCAS OpKind = "cas"
	// KindCreate creates Path (or, sequential, a child of Key).
	KindCreate OpKind = "create"
	// KindDelete deletes Key.
	KindDelete OpKind = "delete"
	// KindList is a getChildren of Key.
	KindList OpKind = "list"
)

// Op is one operation of a history with its outcome and what the reply
// told. Times are nanoseconds since the workload started; an
// indeterminate operation's Return is still when the client gave up.
type Op struct {
	Client int
	// Session is the session the operation ran in, 0 when it changed
	// during the operation (an expired session replaced by a new one):
	// such an operation takes no part in the per-session checks.
	Session int64
	// Server is the member the session was connected to when the
	// operation returned.
	Server       string
	Kind         OpKind
	Key          string
	Call, Return int64
	Outcome      Outcome
	Err          string

	// Input: the version a CAS expects and the data it writes or a
	// create stores.
	Expect int32
	Value  string

	// Output: the data read, the node's stat (a read's or a CAS's), the
	// path a create returned, a list's children with the parent's stat.
	Data     string
	Version  int32
	Mzxid    int64
	Pzxid    int64
	Cversion int32
	Owner    int64
	Path     string
	Children []string
}

// History collects the operations of concurrent clients.
type History struct {
	mu    sync.Mutex
	start time.Time
	ops   []Op
}

func newHistory() *History { return &History{start: time.Now()} }

func (h *History) now() int64 { return int64(time.Since(h.start)) }

func (h *History) add(op Op) {
	h.mu.Lock()
	h.ops = append(h.ops, op)
	h.mu.Unlock()
}

// Ops returns the recorded operations ordered by invocation.
func (h *History) Ops() []Op {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := append([]Op(nil), h.ops...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Call < out[j].Call })
	return out
}

// tally counts outcomes into a result.
func tally(r *Result, ops []Op) {
	for _, op := range ops {
		switch op.Outcome {
		case OK:
			r.OK++
		case Failed:
			r.Failed++
		default:
			r.Indeterminate++
		}
	}
}

// classify maps an operation's error to its outcome. Errors the server
// returns for a request it judged (and so did not apply) are definite;
// an error that may hide an applied request is not. go-zookeeper fails
// requests it never wrote with ErrNoServer, so those are definite too.
func classify(err error) Outcome {
	switch {
	case err == nil:
		return OK
	case errors.Is(err, zk.ErrBadVersion), errors.Is(err, zk.ErrNodeExists),
		errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrNotEmpty),
		errors.Is(err, zk.ErrNoChildrenForEphemerals), errors.Is(err, zk.ErrNoServer),
		errors.Is(err, zk.ErrBadArguments), errors.Is(err, zk.ErrInvalidACL),
		errors.Is(err, zk.ErrNoAuth), errors.Is(err, zk.ErrAPIError):
		return Failed
	default:
		return Indeterminate
	}
}

// errTimeout marks an operation the client stopped waiting for.
var errTimeout = errors.New("no reply before the operation's deadline")

// zkQuietLogger drops go-zookeeper's reconnect chatter, which faults make
// plentiful.
type zkQuietLogger struct{}

func (zkQuietLogger) Printf(string, ...any) {}

// clientSession is one client session with the helpers that time and record
// its operations.
type clientSession struct {
	client  int
	conn    *zk.Conn
	hist    *History
	timeout time.Duration
	dialer  *cutDialer

	// ids holds every session id the connection has had: go-zookeeper
	// opens a new session by itself when the ensemble expires one.
	mu      sync.Mutex
	ids     []int64
	current atomic.Pointer[zk.Conn]
}

// noteSession records the connection's session id when it has one;
// go-zookeeper stores the id before it reports the new state.
func (s *clientSession) noteSession(ev zk.Event) {
	if ev.Type != zk.EventSession || ev.State != zk.StateHasSession {
		return
	}
	if c := s.current.Load(); c != nil {
		s.recordID(c.SessionID())
	}
}

func (s *clientSession) recordID(id int64) {
	if id == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.ids) == 0 || s.ids[len(s.ids)-1] != id {
		s.ids = append(s.ids, id)
	}
}

// sessionIDs returns every session id the connection has had, oldest
// first.
func (s *clientSession) sessionIDs() []int64 {
	s.recordID(s.conn.SessionID())
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int64(nil), s.ids...)
}

// cutDialer lets a workload abandon a session: once cut, the current
// connection is closed and no new one is dialled, so the session is
// neither closed nor kept alive and the ensemble must expire it.
type cutDialer struct {
	mu    sync.Mutex
	cut   bool
	conns []net.Conn
}

func (d *cutDialer) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cut {
		return nil, errors.New("session abandoned")
	}
	c, err := net.DialTimeout(network, addr, timeout)
	if err == nil {
		d.conns = append(d.conns, c)
	}
	return c, err
}

func (d *cutDialer) abandon() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cut = true
	for _, c := range d.conns {
		c.Close()
	}
	d.conns = nil
}

// opTimeout bounds how long a client waits for one reply: go-zookeeper
// keeps a request queued while it reconnects, so without a bound a
// client could wait through a whole fault.
func opTimeout(env *Env) time.Duration {
	t := env.SessionTimeout
	if t < 2*time.Second {
		t = 2 * time.Second
	}
	return t
}

// openSession opens a session on servers and waits (bounded by ctx) until it
// has one. It returns the session even when none came, so that its
// operations record the failure.
func openSession(ctx context.Context, env *Env, servers []string, client int, hist *History, abandonable bool) (*clientSession, error) {
	s := &clientSession{client: client, hist: hist, timeout: opTimeout(env)}
	var conn *zk.Conn
	var err error
	if abandonable {
		s.dialer = &cutDialer{}
		conn, _, err = zk.Connect(servers, env.SessionTimeout, zk.WithLogInfo(false), zk.WithLogger(zkQuietLogger{}),
			zk.WithEventCallback(s.noteSession), zk.WithDialer(s.dialer.dial))
	} else {
		conn, _, err = zk.Connect(servers, env.SessionTimeout, zk.WithLogInfo(false), zk.WithLogger(zkQuietLogger{}),
			zk.WithEventCallback(s.noteSession))
	}
	if err != nil {
		return nil, err
	}
	s.conn = conn
	s.current.Store(conn)
	s.recordID(conn.SessionID()) // established before the pointer was set
	s.awaitSession(ctx, opTimeout(env))
	return s, nil
}

// awaitSession waits until the session is established, ctx ends or d
// passes.
func (s *clientSession) awaitSession(ctx context.Context, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for s.conn.State() != zk.StateHasSession {
		if ctx.Err() != nil || time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

func (s *clientSession) close() {
	if s != nil && s.conn != nil {
		s.conn.Close()
	}
}

// do runs one operation with the session's deadline and records it.
// fn fills the reply fields of op and returns the operation's error.
func (s *clientSession) do(op Op, fn func(c *zk.Conn, op *Op) error) Op {
	op.Client = s.client
	before := s.conn.SessionID()
	op.Call = s.hist.now()
	type reply struct {
		op  Op
		err error
	}
	done := make(chan reply, 1)
	go func(op Op) {
		err := fn(s.conn, &op)
		done <- reply{op, err}
	}(op)
	var err error
	timer := time.NewTimer(s.timeout)
	select {
	case r := <-done:
		op, err = r.op, r.err
	case <-timer.C:
		err = errTimeout
	}
	timer.Stop()
	op.Return = s.hist.now()
	op.Outcome = classify(err)
	if err != nil {
		op.Err = err.Error()
	}
	if after := s.conn.SessionID(); after == before {
		op.Session = after
	}
	op.Server = s.conn.Server()
	s.hist.add(op)
	return op
}

// Operations shared by the workloads; each fills the reply fields.

func (s *clientSession) get(key string) Op {
	return s.do(Op{Kind: KindRead, Key: key}, func(c *zk.Conn, op *Op) error {
		data, st, err := c.Get(key)
		if err == nil {
			op.Data = string(data)
			op.setStat(st)
		}
		return err
	})
}

func (s *clientSession) list(key string) Op {
	return s.do(Op{Kind: KindList, Key: key}, func(c *zk.Conn, op *Op) error {
		children, st, err := c.Children(key)
		if err == nil {
			sort.Strings(children)
			op.Children = children
			op.Pzxid, op.Cversion = st.Pzxid, st.Cversion
		}
		return err
	})
}

// create records a create of path (a prefix when flags hold
// zk.FlagSequence) storing value.
func (s *clientSession) create(path, value string, flags int32) Op {
	return s.do(Op{Kind: KindCreate, Key: path, Value: value}, func(c *zk.Conn, op *Op) error {
		p, err := c.Create(path, []byte(value), flags, zk.WorldACL(zk.PermAll))
		if err == nil {
			op.Path = p
		}
		return err
	})
}

func (op *Op) setStat(st *zk.Stat) {
	op.Version, op.Mzxid, op.Owner = st.Version, st.Mzxid, st.EphemeralOwner
}

// ensurePath creates path (persistent, empty) until it exists or ctx
// ends: set-up must succeed whatever faults the ensemble is under.
func ensurePath(ctx context.Context, env *Env, path string, data []byte) error {
	conn, _, err := zk.Connect(env.Servers, env.SessionTimeout, zk.WithLogInfo(false), zk.WithLogger(zkQuietLogger{}))
	if err != nil {
		return err
	}
	defer conn.Close()
	var last error
	for ctx.Err() == nil {
		_, last = runBounded(opTimeout(env), func() (string, error) {
			return conn.Create(path, data, 0, zk.WorldACL(zk.PermAll))
		})
		if last == nil || errors.Is(last, zk.ErrNodeExists) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("create %s: %v (%w)", path, last, ctx.Err())
}

// runBounded runs fn, giving up after d.
func runBounded[T any](d time.Duration, fn func() (T, error)) (T, error) {
	type reply struct {
		v   T
		err error
	}
	done := make(chan reply, 1)
	go func() {
		v, err := fn()
		done <- reply{v, err}
	}()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.v, r.err
	case <-timer.C:
		var zero T
		return zero, errTimeout
	}
}

// pauseBetweenOps sleeps between a client's operations (10 to 40 ms) so that a few
// clients leave the shared cores to the servers; it reports whether ctx
// is still live.
func pauseBetweenOps(ctx context.Context, rng *rand.Rand) bool {
	t := time.NewTimer(time.Duration(10+rng.Intn(31)) * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// runRoot names a fresh parent for one run, so that runs against the
// same ensemble never see each other's nodes.
func runRoot(name string, seed int64) string {
	return fmt.Sprintf("/chaos-%s-%d-%d", name, seed, time.Now().UnixNano())
}

// finalView is a parent's children as one member serves them after a
// sync, with each child's data and stat.
type finalView struct {
	Server   string
	Children map[string]Op // child name -> the read of it
}

// readFinal reads parent and its children through every server after
// a sync and a barrier on each, retrying each server until ctx ends:
// Check runs after the faults are healed, so every member must answer.
func readFinal(ctx context.Context, env *Env, parent string) ([]finalView, error) {
	var views []finalView
	for _, server := range env.Servers {
		v, err := readFinalAt(ctx, env, server, parent)
		if err != nil {
			return nil, err
		}
		views = append(views, v)
	}
	return views, nil
}

func readFinalAt(ctx context.Context, env *Env, server, parent string) (finalView, error) {
	var last error
	for ctx.Err() == nil {
		v, err := tryReadFinal(ctx, env, server, parent)
		if err == nil {
			return v, nil
		}
		last = err
		time.Sleep(200 * time.Millisecond)
	}
	return finalView{}, fmt.Errorf("final read of %s at %s: %v (%w)", parent, server, last, ctx.Err())
}

func tryReadFinal(ctx context.Context, env *Env, server, parent string) (finalView, error) {
	hist := newHistory()
	s, err := openSession(ctx, env, []string{server}, -1, hist, false)
	if err != nil {
		return finalView{}, err
	}
	defer s.close()
	syncOp := s.do(Op{Kind: "sync", Key: parent}, func(c *zk.Conn, op *Op) error {
		_, err := c.Sync(parent)
		return err
	})
	if syncOp.Outcome != OK {
		return finalView{}, errors.New(syncOp.Err)
	}
	b := s.do(Op{Kind: "barrier", Key: parent}, func(c *zk.Conn, op *Op) error {
		return barrier(c, parent)
	})
	if b.Outcome != OK {
		return finalView{}, errors.New(b.Err)
	}
	l := s.list(parent)
	if l.Outcome != OK {
		return finalView{}, errors.New(l.Err)
	}
	v := finalView{Server: server, Children: map[string]Op{}}
	for _, child := range l.Children {
		g := s.get(parent + "/" + child)
		switch {
		case g.Outcome == OK:
			v.Children[child] = g
		case errors.Is(classifyErr(g.Err), zk.ErrNoNode):
			// gone since the list (an ephemeral expiring): absent.
		default:
			return finalView{}, errors.New(g.Err)
		}
	}
	return v, nil
}

// classifyErr recovers the sentinel of a recorded error text.
func classifyErr(text string) error {
	for _, e := range []error{zk.ErrNoNode, zk.ErrNodeExists, zk.ErrBadVersion, zk.ErrSessionExpired, zk.ErrConnectionClosed} {
		if text == e.Error() {
			return e
		}
	}
	if text == "" {
		return nil
	}
	return errors.New(text)
}

// compareViews reports members whose children of parent differ from the
// first member's after the sync: once faults are healed every member
// must serve the same tree.
func compareViews(views []finalView) []string {
	var out []string
	if len(views) < 2 {
		return nil
	}
	names := func(v finalView) string {
		var n []string
		for c := range v.Children {
			n = append(n, c)
		}
		sort.Strings(n)
		return strings.Join(n, ",")
	}
	first := names(views[0])
	for _, v := range views[1:] {
		if got := names(v); got != first {
			out = append(out, fmt.Sprintf("single system image: after sync %s serves children [%s] but %s serves [%s]",
				v.Server, abbreviate(got), views[0].Server, abbreviate(first)))
		}
	}
	return out
}

func abbreviate(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// barrier commits a transaction that changes nothing (a multi holding
// only a check of path that any version passes) on c's session: the
// server answers the session's next read only once the barrier is
// applied, and so every write committed before it.
func barrier(c *zk.Conn, path string) error {
	res, err := c.Multi(&zk.CheckVersionRequest{Path: path, Version: -1})
	if err != nil {
		return err
	}
	for _, r := range res {
		if r.Error != nil {
			return r.Error
		}
	}
	return nil
}

// withDefaults fills what the harness left unset in env: no logging, no
// leader known (no leader reads), a 10 s session timeout.
func withDefaults(env *Env) *Env {
	e := *env
	if e.Logf == nil {
		e.Logf = func(string, ...any) {}
	}
	if e.Leader == nil {
		e.Leader = func() string { return "" }
	}
	if e.SessionTimeout <= 0 {
		e.SessionTimeout = 10 * time.Second
	}
	return &e
}
