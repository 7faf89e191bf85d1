package bench

import (
	"fmt"
	"sync"
	"time"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// watchRound is one fan-out: every live watcher arms a data watch on the
// node, then one setData fires them all.
type watchRound struct {
	armed    sync.WaitGroup
	notified sync.WaitGroup
	fired    time.Time // set before the setData is written
	measured bool
	firedMu  sync.RWMutex
}

// watcher is one session of the watch workload.
type watcher struct {
	c        *conn
	t        tally
	rounds   chan *watchRound
	notified time.Time
	dead     bool
}

// runWatch measures watch fan-out: Watchers sessions each set a data watch
// (getData with watch) on one node; a separate session then sets the
// node's data, and the round lasts until every watcher has read its
// notification. A round is one operation ("fanout"); each notification's
// delay after the setData was sent is recorded as "notify".
func (r *runner) runWatch() ([]*tally, error) {
	conns, failures := r.dialAll(r.cfg.Watchers)
	var watchers []*watcher
	for _, c := range conns {
		if c != nil {
			watchers = append(watchers, &watcher{c: c, rounds: make(chan *watchRound, 1)})
		}
	}
	if len(watchers) == 0 {
		if r.ctx.Err() != nil {
			return nil, nil
		}
		return nil, fmt.Errorf("no watcher session could be opened: %v", failures.errs)
	}
	// The setter's session opens last, so it is not idle while the
	// watchers connect.
	admin, err := dial(r.cfg.Server, r.dialOptions())
	if err != nil {
		for _, w := range watchers {
			w.c.close()
		}
		return nil, err
	}
	defer admin.close()
	node := r.keys[0]
	var wg sync.WaitGroup
	for _, w := range watchers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.serve(node)
		}()
	}
	setter := &tally{}
	r.setTimes()
	set := proto.SetDataRequest{Path: node, Data: r.value, Version: -1}
	for {
		ok, measured := r.canIssue(time.Now())
		if !ok {
			break
		}
		live := watchers[:0:0]
		for _, w := range watchers {
			if !w.dead {
				live = append(live, w)
			}
		}
		if len(live) == 0 {
			break
		}
		round := &watchRound{measured: measured}
		round.armed.Add(len(live))
		round.notified.Add(len(live))
		round.firedMu.Lock() // watchers read fired only after the unlock
		for _, w := range live {
			w.rounds <- round
		}
		round.armed.Wait()
		round.fired = time.Now()
		round.firedMu.Unlock()
		rep, err := admin.call(proto.OpSetData, &set)
		if err == nil && rep.err != proto.ErrOK {
			err = rep.err
		}
		if err != nil {
			// Without the setData no watcher will be notified: give up.
			setter.fail("setData: " + err.Error())
			for _, w := range live {
				w.c.abort()
			}
			round.notified.Wait()
			break
		}
		round.notified.Wait()
		if !measured {
			continue
		}
		last, all := round.fired, true
		for _, w := range live {
			if w.dead {
				all = false
				continue
			}
			if w.notified.After(last) {
				last = w.notified
			}
		}
		if all {
			setter.done(kindFanout, round.fired, last)
		} else {
			setter.fail("fanout: a watcher was lost")
		}
	}
	r.sampleEnd()
	for _, w := range watchers {
		close(w.rounds)
	}
	wg.Wait()
	tallies := []*tally{failures, setter}
	for _, w := range watchers {
		tallies = append(tallies, &w.t)
	}
	return tallies, nil
}

// serve runs the watcher's rounds until its channel closes, then closes
// its session.
func (w *watcher) serve(node string) {
	get := proto.GetDataRequest{Path: node, Watch: true}
	for round := range w.rounds {
		if w.dead {
			round.armed.Done()
			round.notified.Done()
			continue
		}
		rep, err := w.c.call(proto.OpGetData, &get)
		if err == nil && rep.err != proto.ErrOK {
			err = rep.err
		}
		round.armed.Done()
		if err != nil {
			w.die(round, "arm: "+err.Error())
			continue
		}
		if err := w.awaitNotification(node); err != nil {
			w.die(round, "notify: "+err.Error())
			continue
		}
		round.firedMu.RLock()
		fired := round.fired
		round.firedMu.RUnlock()
		if round.measured {
			w.t.done(kindNotify, fired, w.notified)
		}
		round.notified.Done()
	}
	if !w.dead {
		w.c.close()
	}
}

func (w *watcher) die(round *watchRound, why string) {
	if round.measured {
		w.t.fail(why)
	}
	w.dead = true
	w.c.abort()
	round.notified.Done()
}

// awaitNotification reads until the NodeDataChanged event for node.
func (w *watcher) awaitNotification(node string) error {
	for {
		rep, err := w.c.readReply()
		if err != nil {
			return err
		}
		if rep.xid != xidNotification {
			continue
		}
		w.notified = time.Now()
		var ev proto.WatcherEvent
		if err := jute.Unmarshal(rep.body, &ev); err != nil {
			return err
		}
		if ev.Path == node && proto.EventType(ev.Type) == proto.EventNodeDataChanged {
			return nil
		}
	}
}
