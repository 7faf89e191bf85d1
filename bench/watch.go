package bench

import (
	"encoding/binary"
	"fmt"
	"sync"
	"time"

	"github.com/gozk/gozk/proto"
)

// watchFleet is the watchers' side of the watch workload: the sessions
// that arm a data watch on the node each round and wait for its
// notification. Its methods are called from one goroutine.
type watchFleet interface {
	// live counts the watchers not lost so far.
	live() int
	// arm has every live watcher set a data watch on the node (getData
	// with watch) and returns once each has its answer or is lost. Only
	// the notification delivery is timed, so arming is over before the
	// setData is sent.
	arm(measured bool)
	// firing says that the setData is about to be sent, at at: each
	// notification's delay is counted from there.
	firing(at time.Time)
	// await waits until every watcher armed by the last arm has read its
	// notification or is lost. It returns the time of the last
	// notification and whether every watcher of the round got one; when
	// the round is measured each notification's delay is recorded as
	// "notify".
	await() (last time.Time, all bool)
	// abort drops every live watcher (the setData failed, so no
	// notification is coming).
	abort()
	// close ends the sessions (closeSession, then the socket) and returns
	// the watchers' tallies.
	close() []*tally
}

// runWatch measures watch fan-out: Watchers sessions each set a data watch
// (getData with watch) on one node; a separate session then sets the
// node's data, and the round lasts until every watcher has read its
// notification. A round is one operation ("fanout"); each notification's
// delay after the setData was sent is recorded as "notify".
func (r *runner) runWatch() ([]*tally, error) {
	conns, failures := r.dialAll(r.cfg.Watchers)
	var opened []*conn
	for _, c := range conns {
		if c != nil {
			opened = append(opened, c)
		}
	}
	if len(opened) == 0 {
		if r.ctx.Err() != nil {
			return nil, nil
		}
		return nil, fmt.Errorf("no watcher session could be opened: %v", failures.errs)
	}
	node := r.keys[0]
	fleet, err := newWatchFleet(opened, node, r.cfg.IOTimeout)
	if err != nil {
		for _, c := range opened {
			c.close()
		}
		return nil, err
	}
	// The setter's session opens last, so it is not idle while the
	// watchers connect.
	admin, err := dial(r.cfg.Server, r.dialOptions())
	if err != nil {
		fleet.close()
		return nil, err
	}
	defer admin.close()
	setter := &tally{}
	r.setTimes()
	set := proto.SetDataRequest{Path: node, Data: r.value, Version: -1}
	for {
		ok, measured := r.canIssue(time.Now())
		if !ok || fleet.live() == 0 {
			break
		}
		fleet.arm(measured)
		fired := time.Now()
		fleet.firing(fired)
		rep, err := admin.call(proto.OpSetData, &set)
		if err == nil && rep.err != proto.ErrOK {
			err = rep.err
		}
		if err != nil {
			// Without the setData no watcher will be notified: give up.
			setter.fail("setData: " + err.Error())
			fleet.abort()
			break
		}
		last, all := fleet.await()
		if !measured {
			continue
		}
		if all {
			setter.done(kindFanout, fired, last)
		} else {
			setter.fail("fanout: a watcher was lost")
		}
	}
	r.sampleEnd()
	return append([]*tally{failures, setter}, fleet.close()...), nil
}

// isDataChanged reports whether the body of a notification frame (after
// its reply header) is the NodeDataChanged event of node, without decoding
// the path into a string.
func isDataChanged(body []byte, node string) bool {
	if len(body) < 12 || proto.EventType(int32(binary.BigEndian.Uint32(body))) != proto.EventNodeDataChanged {
		return false
	}
	n := int(int32(binary.BigEndian.Uint32(body[8:])))
	return n == len(node) && len(body) >= 12+n && string(body[12:12+n]) == node
}

// goFleet runs each watcher on a goroutine of its own with the blocking
// conn, where the kernel's poller is not available to the load generator.
type goFleet struct {
	ws    []*watcher
	wg    sync.WaitGroup
	round *watchRound
	armed []*watcher // live when the round began
	fired time.Time
}

// watchRound is one fan-out of a goFleet.
type watchRound struct {
	armed    sync.WaitGroup
	notified sync.WaitGroup
	measured bool
}

// watcher is one session of a goFleet.
type watcher struct {
	c        *conn
	t        tally
	rounds   chan *watchRound
	notified time.Time
	dead     bool
}

func newGoFleet(conns []*conn, node string) *goFleet {
	f := &goFleet{}
	for _, c := range conns {
		w := &watcher{c: c, rounds: make(chan *watchRound, 1)}
		f.ws = append(f.ws, w)
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			w.serve(node)
		}()
	}
	return f
}

// live is called between rounds, when no watcher goroutine is running.
func (f *goFleet) live() int {
	n := 0
	for _, w := range f.ws {
		if !w.dead {
			n++
		}
	}
	return n
}

func (f *goFleet) arm(measured bool) {
	f.armed = f.armed[:0]
	for _, w := range f.ws {
		if !w.dead {
			f.armed = append(f.armed, w)
		}
	}
	f.round = &watchRound{measured: measured}
	f.round.armed.Add(len(f.armed))
	f.round.notified.Add(len(f.armed))
	for _, w := range f.armed {
		w.rounds <- f.round
	}
	f.round.armed.Wait()
}

func (f *goFleet) firing(at time.Time) { f.fired = at }

func (f *goFleet) await() (last time.Time, all bool) {
	f.round.notified.Wait()
	fired := f.fired
	last, all = fired, true
	for _, w := range f.armed {
		if w.dead {
			all = false
			continue
		}
		if f.round.measured {
			w.t.done(kindNotify, fired, w.notified)
		}
		if w.notified.After(last) {
			last = w.notified
		}
	}
	return last, all
}

func (f *goFleet) abort() {
	for _, w := range f.armed {
		w.c.abort()
	}
	f.round.notified.Wait()
}

func (f *goFleet) close() []*tally {
	for _, w := range f.ws {
		close(w.rounds)
	}
	f.wg.Wait()
	tallies := make([]*tally, len(f.ws))
	for i, w := range f.ws {
		tallies[i] = &w.t
	}
	return tallies
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
		if isDataChanged(rep.body, node) {
			return nil
		}
	}
}
