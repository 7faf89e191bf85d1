package server

import (
	"fmt"
	"sort"
	"testing"
	"time"
)

// fakeExpiryClock drives a sessionTracker's expireLoop on a clock of its
// own: each wait the loop asks for passes at once, running on the way the
// actions scheduled inside it (a session's creation, a touch) at their
// own times.
type fakeExpiryClock struct {
	now     int64
	actions map[int64]func()
	stopped bool
}

func (c *fakeExpiryClock) after(d time.Duration) <-chan time.Time {
	if c.stopped {
		return nil // only stop can end the wait
	}
	target := c.now + max(d.Milliseconds(), 0)
	var due []int64
	for at := range c.actions {
		if at <= target {
			due = append(due, at)
		}
	}
	sort.Slice(due, func(i, j int) bool { return due[i] < due[j] })
	for _, at := range due {
		c.now = max(c.now, at)
		c.actions[at]()
		delete(c.actions, at)
	}
	c.now = target
	ch := make(chan time.Time, 1)
	ch <- time.UnixMilli(target)
	return ch
}

// TestSessionExpiresWithinOneTickOfItsTimeout runs the expirer from
// several start phases against sessions last touched at several offsets,
// and checks that each is closed within (timeout, timeout + tickTime] of
// its last touch, as in Java.
func TestSessionExpiresWithinOneTickOfItsTimeout(t *testing.T) {
	const (
		tick    = 5000
		timeout = 10000
		base    = int64(1_700_000_000_000) // a tick boundary
	)
	for _, start := range []int64{0, 1, 1234, 2500, 4999} {
		for _, touchedAfter := range []int64{0, 1, 2, 777, 4999, 5000, 12345} {
			for _, retouch := range []bool{false, true} {
				name := fmt.Sprintf("start+%d/created+%d/retouched=%v", start, touchedAfter, retouch)
				t.Run(name, func(t *testing.T) {
					clock := &fakeExpiryClock{now: base + start, actions: map[int64]func(){}}
					tr := newSessionTracker(tick*time.Millisecond, 1)
					tr.now = func() int64 { return clock.now }
					created := base + start + touchedAfter
					last := created
					var sess *session
					clock.actions[created] = func() { sess = tr.add(42, timeout) }
					if retouch {
						// touched again half a tick before the first bucket
						last = tr.roundToTick(created+timeout) - tick/2
						clock.actions[last] = func() {
							if !tr.touch(sess) {
								t.Errorf("touch at %d failed", last)
							}
						}
					}
					stop := make(chan struct{})
					expiredAt := int64(-1)
					tr.expireLoop(stop, clock.after, func(s *session) {
						if s.id != 42 {
							t.Errorf("expired session %d", s.id)
						}
						expiredAt = clock.now
						clock.stopped = true
						close(stop)
					})
					if age := expiredAt - last; age <= timeout || age > timeout+tick {
						t.Fatalf("expired %d ms after its last touch, want (%d, %d]", age, timeout, timeout+tick)
					}
				})
			}
		}
	}
}
