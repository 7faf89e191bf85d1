package chaos

import (
	"context"
	"fmt"
	"math/rand"
	"sync"

	"github.com/go-zookeeper/zk"
)

// elementsWorkload creates children of one parent, each storing a tag
// no other create uses, and now and then lists the parent. sequential:
// the unique-ids workload, where the server names each child with the
// parent's sequence counter; otherwise the set workload, where the
// client names it after the tag.
type elementsWorkload struct {
	name       string
	sequential bool

	root string
	hist *History
}

// NewUniqueIDs returns the unique-ids workload.
func NewUniqueIDs() Workload { return &elementsWorkload{name: "unique-ids", sequential: true} }

// NewSet returns the set workload.
func NewSet() Workload { return &elementsWorkload{name: "set"} }

func (w *elementsWorkload) Name() string { return w.name }

func (w *elementsWorkload) Run(ctx context.Context, env *Env) error {
	env = withDefaults(env)
	w.root = runRoot(w.name, env.Seed)
	w.hist = newHistory()
	if err := ensurePath(ctx, env, w.root, nil); err != nil {
		return err
	}
	var wg sync.WaitGroup
	for c := 0; c < max(env.Clients, 1); c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(env.Seed*1000 + int64(c)))
			s, err := openSession(ctx, env, env.Servers, c, w.hist, false)
			if err != nil {
				env.Logf("%s client %d: %v", w.name, c, err)
				return
			}
			defer s.close()
			for n := 0; pauseBetweenOps(ctx, rng); n++ {
				if rng.Intn(8) == 0 {
					s.list(w.root)
					continue
				}
				tag := fmt.Sprintf("c%d-%d", c, n)
				if w.sequential {
					s.create(w.root+"/id-", tag, zk.FlagSequence)
				} else {
					s.create(w.root+"/"+tag, tag, 0)
				}
			}
		}(c)
	}
	wg.Wait()
	return nil
}

func (w *elementsWorkload) Check(ctx context.Context, env *Env) Result {
	return checkFinalChildren(ctx, env, w.name, w.hist, w.root, checkElements)
}

// checkFinalChildren is the Check of a workload whose final state is the
// children of root (set, unique-ids, queue): the per-session checks on
// the history, then judge on it and every member's final children.
func checkFinalChildren(ctx context.Context, env *Env, name string, hist *History, root string,
	judge func([]Op, []finalView) (anomalies []string, lost, dup int)) Result {
	env = withDefaults(env)
	r := Result{Workload: name}
	if hist == nil {
		r.Anomalies = append(r.Anomalies, "the workload never ran")
		return r
	}
	ops := hist.Ops()
	tally(&r, ops)
	r.Anomalies = append(r.Anomalies, checkSessions(ops, deleteAttempts(ops))...)
	views, err := readFinal(ctx, env, root)
	if err != nil {
		r.Anomalies = append(r.Anomalies, err.Error())
		return r
	}
	a, lost, dup := judge(ops, views)
	r.Anomalies = append(r.Anomalies, a...)
	r.Lost, r.Duplicated = lost, dup
	return r
}
