package chaos

import (
	"context"
	"fmt"
	"math/rand"
	"path"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// ephemeralWorkload checks ephemeral ownership: short sessions create
// ephemerals and are then closed or abandoned (their connection cut
// with no close, so the ensemble must expire them), while one session
// lives through the whole run holding its ephemeral.
type ephemeralWorkload struct {
	root string
	hist *History

	mu       sync.Mutex
	sessions map[int64]ephemeralSession
	live     []*clientSession
}

// NewEphemeral returns the ephemeral-ownership workload.
func NewEphemeral() Workload { return &ephemeralWorkload{} }

func (w *ephemeralWorkload) Name() string { return "ephemeral" }

// seen records a session id a client held; ended marks it over.
func (w *ephemeralWorkload) seen(id int64, ended bool) {
	if id == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.sessions[id]
	s.id = id
	s.ended = s.ended || ended
	w.sessions[id] = s
}

func (w *ephemeralWorkload) Run(ctx context.Context, env *Env) error {
	env = withDefaults(env)
	w.root = runRoot("ephemeral", env.Seed)
	w.hist = newHistory()
	w.sessions = map[int64]ephemeralSession{}
	if err := ensurePath(ctx, env, w.root, nil); err != nil {
		return err
	}
	var wg sync.WaitGroup
	for c := 0; c < max(env.Clients, 1); c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(env.Seed*1000 + int64(c)))
			if c == 0 {
				w.liveClient(ctx, env, c, rng)
			} else {
				w.cyclingClient(ctx, env, c, rng)
			}
		}(c)
	}
	wg.Wait()
	return nil
}

// liveClient keeps one session for the run (and for Check); should the
// ensemble expire it, the client's new session creates a new ephemeral.
func (w *ephemeralWorkload) liveClient(ctx context.Context, env *Env, c int, rng *rand.Rand) {
	s, err := openSession(ctx, env, env.Servers, c, w.hist, false)
	if err != nil {
		env.Logf("ephemeral client %d: %v", c, err)
		return
	}
	w.mu.Lock()
	w.live = append(w.live, s)
	w.mu.Unlock()
	var holder int64
	for n := 0; pauseBetweenOps(ctx, rng); n++ {
		ids := s.sessionIDs()
		for _, id := range ids[:max(len(ids)-1, 0)] {
			w.seen(id, true) // expired under the client
		}
		if len(ids) > 0 && ids[len(ids)-1] != holder {
			holder = ids[len(ids)-1]
			w.seen(holder, false)
			name := fmt.Sprintf("live-c%d-%d", c, n)
			s.create(w.root+"/"+name, name, zk.FlagEphemeral)
		}
		if rng.Intn(5) == 0 {
			s.list(w.root)
		}
	}
}

// cyclingClient opens a session, creates one or two ephemerals, lists
// the parent, and ends the session by closing or abandoning it.
func (w *ephemeralWorkload) cyclingClient(ctx context.Context, env *Env, c int, rng *rand.Rand) {
	for n := 0; ctx.Err() == nil; n++ {
		s, err := openSession(ctx, env, env.Servers, c, w.hist, true)
		if err != nil {
			env.Logf("ephemeral client %d: %v", c, err)
			return
		}
		for k := 0; k < 1+rng.Intn(2) && pauseBetweenOps(ctx, rng); k++ {
			name := fmt.Sprintf("c%d-s%d-e%d", c, n, k)
			s.create(w.root+"/"+name, name, zk.FlagEphemeral)
		}
		if pauseBetweenOps(ctx, rng) {
			s.list(w.root)
		}
		if rng.Intn(2) == 0 {
			s.close()
		} else {
			s.dialer.abandon()
			go s.close() // no server to tell: returns once go-zookeeper gives up
		}
		// Every session the connection had is over now (an abandoned
		// connection dials no more, so it gets no new one).
		for _, id := range s.sessionIDs() {
			w.seen(id, true)
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(50+rng.Intn(200)) * time.Millisecond):
		}
	}
}

func (w *ephemeralWorkload) Check(ctx context.Context, env *Env) Result {
	env = withDefaults(env)
	r := Result{Workload: "ephemeral"}
	if w.hist == nil {
		r.Anomalies = append(r.Anomalies, "the workload never ran")
		return r
	}
	defer func() {
		for _, s := range w.live {
			s.close()
		}
	}()
	ops := w.hist.Ops()
	tally(&r, ops)

	createdBy := map[string]int64{} // child name -> creating session, 0 if unknown
	for _, op := range ops {
		if op.Kind == KindCreate {
			createdBy[path.Base(op.Key)] = op.Session
		}
	}
	mayVanish := func(p string, by int64) bool {
		id, ok := createdBy[path.Base(p)]
		if !ok || id == 0 {
			return true
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.sessions[id].ended
	}

	// Ended sessions expire within their timeout (which the ensemble may
	// have raised to its minimum) plus the expiry check's granularity.
	deadline := time.Now().Add(3*env.SessionTimeout + 20*time.Second)
	var views []finalView
	for {
		var err error
		views, err = readFinal(ctx, env, w.root)
		if err != nil {
			r.Anomalies = append(r.Anomalies, err.Error())
			return r
		}
		w.pingLive()
		if !w.endedRemain(views) || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	w.mu.Lock()
	sessions := make(map[int64]ephemeralSession, len(w.sessions))
	for id, s := range w.sessions {
		sessions[id] = s
	}
	w.mu.Unlock()
	r.Anomalies = append(r.Anomalies, checkSessions(ops, mayVanish)...)
	a, lost := checkEphemerals(ops, sessions, views)
	r.Anomalies = append(r.Anomalies, a...)
	r.Lost = lost
	return r
}

// pingLive asks each live session whether it still holds: an answer in
// the same session marks it alive (it held its ephemerals through the
// views read before), an expiry marks it ended, and so are the sessions
// the connection had before.
func (w *ephemeralWorkload) pingLive() {
	for _, s := range w.live {
		before := s.conn.SessionID()
		op := s.do(Op{Kind: "ping", Key: w.root}, func(c *zk.Conn, op *Op) error {
			_, _, err := c.Exists(w.root)
			return err
		})
		ids := s.sessionIDs()
		w.mu.Lock()
		for _, id := range ids {
			st := w.sessions[id]
			st.id = id
			switch {
			case id != before && id != ids[len(ids)-1]:
				st.ended = true
			case id == before && op.Outcome == OK && op.Session == before:
				st.alive = true
			case id == before && (op.Session != before || op.Err == zk.ErrSessionExpired.Error()):
				st.ended = true
			}
			w.sessions[id] = st
		}
		w.mu.Unlock()
	}
}

// endedRemain reports whether some member still serves an ephemeral of
// a session that ended.
func (w *ephemeralWorkload) endedRemain(views []finalView) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, v := range views {
		for _, node := range v.Children {
			if w.sessions[node.Owner].ended {
				return true
			}
		}
	}
	return false
}
