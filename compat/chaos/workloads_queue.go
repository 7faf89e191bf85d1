package chaos

import (
	"context"
	"fmt"
	"math/rand"
	"sync"

	"github.com/go-zookeeper/zk"
)

// queueWorkload is ZooKeeper's queue recipe: enqueue is a sequential
// create storing a tag; dequeue lists the children, reads the smallest
// and deletes it, and only a successful delete takes the element.
type queueWorkload struct {
	root string
	hist *History
}

// NewQueue returns the queue workload.
func NewQueue() Workload { return &queueWorkload{} }

func (w *queueWorkload) Name() string { return "queue" }

func (w *queueWorkload) Run(ctx context.Context, env *Env) error {
	env = withDefaults(env)
	w.root = runRoot("queue", env.Seed)
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
				env.Logf("queue client %d: %v", c, err)
				return
			}
			defer s.close()
			for n := 0; pauseBetweenOps(ctx, rng); n++ {
				if rng.Intn(2) == 0 {
					s.create(w.root+"/q-", fmt.Sprintf("c%d-%d", c, n), zk.FlagSequence)
				} else {
					w.dequeue(s)
				}
			}
		}(c)
	}
	wg.Wait()
	return nil
}

// dequeue tries the three smallest children in order until one delete
// is acknowledged or refused for the last time.
func (w *queueWorkload) dequeue(s *clientSession) {
	l := s.list(w.root)
	if l.Outcome != OK {
		return
	}
	for i, child := range l.Children {
		if i == 3 {
			return
		}
		p := w.root + "/" + child
		g := s.get(p)
		if g.Outcome != OK {
			continue // taken by another client since the list
		}
		d := s.do(Op{Kind: KindDelete, Key: p, Value: g.Data}, func(c *zk.Conn, op *Op) error {
			return c.Delete(p, -1)
		})
		if d.Outcome != Failed {
			return
		}
	}
}

func (w *queueWorkload) Check(ctx context.Context, env *Env) Result {
	return checkFinalChildren(ctx, env, "queue", w.hist, w.root, checkQueue)
}
