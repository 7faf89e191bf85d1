package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync"

	"github.com/go-zookeeper/zk"
)

// registerWorkload drives a few znodes as compare-and-set registers:
// each client reads a key (at whichever member its session is on) and
// writes it conditional on the version it read; some reads go to the
// leader after a sync and a barrier and, with the writes, must be
// linearizable. The counter variant has one key whose data is a count
// that each write increments, through a multi of a version check and
// the setData.
type registerWorkload struct {
	name    string
	keys    int
	counter bool

	root string
	hist *History
}

// NewRegister returns the register workload over a few keys.
func NewRegister() Workload { return &registerWorkload{name: "register", keys: 3} }

// NewCounter returns the counter workload.
func NewCounter() Workload { return &registerWorkload{name: "counter", keys: 1, counter: true} }

func (w *registerWorkload) Name() string { return w.name }

func (w *registerWorkload) initial() string {
	if w.counter {
		return "0"
	}
	return "init"
}

func (w *registerWorkload) key(i int) string { return fmt.Sprintf("%s/k%d", w.root, i) }

func (w *registerWorkload) Run(ctx context.Context, env *Env) error {
	env = withDefaults(env)
	w.root = runRoot(w.name, env.Seed)
	w.hist = newHistory()
	if err := ensurePath(ctx, env, w.root, nil); err != nil {
		return err
	}
	for i := 0; i < w.keys; i++ {
		if err := ensurePath(ctx, env, w.key(i), []byte(w.initial())); err != nil {
			return err
		}
	}
	var wg sync.WaitGroup
	for c := 0; c < max(env.Clients, 1); c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			w.client(ctx, env, c)
		}(c)
	}
	wg.Wait()
	return nil
}

// leaderSession keeps a session on the member that leads, reopened
// when the leader moves.
type leaderSession struct {
	addr string
	s    *clientSession
}

func (l *leaderSession) get(ctx context.Context, env *Env, client int, hist *History) *clientSession {
	addr := env.Leader()
	if addr == "" {
		return nil
	}
	if l.s != nil && l.addr == addr {
		return l.s
	}
	l.s.close()
	s, err := openSession(ctx, env, []string{addr}, client, hist, false)
	if err != nil {
		l.s = nil
		return nil
	}
	l.addr, l.s = addr, s
	return s
}

func (w *registerWorkload) client(ctx context.Context, env *Env, c int) {
	rng := rand.New(rand.NewSource(env.Seed*1000 + int64(c)))
	s, err := openSession(ctx, env, env.Servers, c, w.hist, false)
	if err != nil {
		env.Logf("%s client %d: %v", w.name, c, err)
		return
	}
	defer s.close()
	var leader leaderSession
	defer func() { leader.s.close() }()
	for n := 0; pauseBetweenOps(ctx, rng); n++ {
		key := w.key(rng.Intn(w.keys))
		if rng.Intn(10) < 3 {
			if ls := leader.get(ctx, env, c, w.hist); ls != nil {
				w.leaderRead(ls, key)
			}
			continue
		}
		r := s.get(key)
		if r.Outcome != OK {
			continue
		}
		value := fmt.Sprintf("c%d-%d", c, n)
		if w.counter {
			count, ok := counterValue(r.Data)
			if !ok {
				continue // reported by the check
			}
			value = fmt.Sprintf("%d %s", count+1, value)
		}
		w.cas(s, key, r.Version, value)
	}
}

// leaderRead reads key on the leader's session after a sync and a
// barrier. A sync alone does not make the read linearizable: at the
// leader, Java lets a client's sync through like a read, so the leader
// may answer before applying a write it has already committed and a
// follower has already acknowledged. The barrier, a multi holding only
// a version check that any version passes, is a transaction: the
// session's read waits until it is applied, and with it every write
// committed before it, and a deposed leader cannot commit it.
func (w *registerWorkload) leaderRead(s *clientSession, key string) {
	s.do(Op{Kind: KindLinRead, Key: key}, func(c *zk.Conn, op *Op) error {
		if _, err := c.Sync(key); err != nil {
			return err
		}
		if err := barrier(c, key); err != nil {
			return err
		}
		data, st, err := c.Get(key)
		if err == nil {
			op.Data = string(data)
			op.setStat(st)
		}
		return err
	})
}

func (w *registerWorkload) cas(s *clientSession, key string, version int32, value string) {
	op := Op{Kind: KindCAS, Key: key, Expect: version, Value: value}
	if !w.counter {
		s.do(op, func(c *zk.Conn, op *Op) error {
			st, err := c.Set(key, []byte(value), version)
			if err == nil {
				op.setStat(st)
			}
			return err
		})
		return
	}
	s.do(op, func(c *zk.Conn, op *Op) error {
		res, err := c.Multi(
			&zk.CheckVersionRequest{Path: key, Version: version},
			&zk.SetDataRequest{Path: key, Data: []byte(value), Version: version})
		if err == nil {
			for _, r := range res {
				if r.Error != nil {
					err = r.Error
					break
				}
			}
		}
		if err != nil {
			// A multi refused at its check reports the check's error.
			if errors.Is(err, zk.ErrBadVersion) || strings.Contains(err.Error(), "version conflict") {
				return zk.ErrBadVersion
			}
			return err
		}
		if len(res) == 2 && res[1].Stat != nil {
			op.setStat(res[1].Stat)
		}
		return nil
	})
}

func (w *registerWorkload) Check(ctx context.Context, env *Env) Result {
	env = withDefaults(env)
	r := Result{Workload: w.name}
	if w.hist == nil {
		r.Anomalies = append(r.Anomalies, "the workload never ran")
		return r
	}
	ops := w.hist.Ops()
	tally(&r, ops)
	// The final state, read after a sync and a barrier at every member,
	// joins the history as linearizable reads: the faults are healed, so
	// each member must serve the last write.
	var finals []Op
	final := newHistory()
	final.start = w.hist.start
	for _, server := range env.Servers {
		for i := 0; i < w.keys; i++ {
			op, err := finalRead(ctx, env, server, w.key(i), final)
			if err != nil {
				r.Anomalies = append(r.Anomalies, err.Error())
				return r
			}
			finals = append(finals, op)
		}
	}
	all := append(append([]Op(nil), ops...), finals...)
	r.Anomalies = append(r.Anomalies, checkSessions(ops, deleteAttempts(ops))...)
	r.Anomalies = append(r.Anomalies, checkRegisterValues(all, w.initial())...)
	lin, note := checkLinearizable(all, w.initial())
	r.Anomalies = append(r.Anomalies, lin...)
	if note != "" {
		env.Logf("%s: %s", w.name, note)
	}
	if w.counter {
		a, lost, dup := checkCounter(ops, finals)
		r.Anomalies = append(r.Anomalies, a...)
		r.Lost, r.Duplicated = lost, dup
	}
	return r
}

// finalRead reads key at server after a sync and a barrier (see
// leaderRead), retrying until ctx ends.
func finalRead(ctx context.Context, env *Env, server, key string, hist *History) (Op, error) {
	var last string
	for ctx.Err() == nil {
		s, err := openSession(ctx, env, []string{server}, -1, hist, false)
		if err != nil {
			return Op{}, err
		}
		op := s.do(Op{Kind: KindLinRead, Key: key}, func(c *zk.Conn, op *Op) error {
			if _, err := c.Sync(key); err != nil {
				return err
			}
			if err := barrier(c, key); err != nil {
				return err
			}
			data, st, err := c.Get(key)
			if err == nil {
				op.Data = string(data)
				op.setStat(st)
			}
			return err
		})
		s.close()
		if op.Outcome == OK {
			return op, nil
		}
		last = op.Err
	}
	return Op{}, fmt.Errorf("final read of %s at %s: %s (%v)", key, server, last, ctx.Err())
}
