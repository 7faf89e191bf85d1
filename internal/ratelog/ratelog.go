package ratelog

import (
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// Every lets one line of a kind through per interval and counts the lines
// it holds back meanwhile. It is safe for concurrent use; its zero value
// lets the first line through.
type Every struct {
	// Now is Event's clock; nil is time.Now.
	Now func() time.Time

	mu   sync.Mutex
	last time.Time
	held int
}

// Allow reports whether a line may be written at now, an interval after
// the last one let through; held is how many were held back since then.
func (e *Every) Allow(now time.Time, interval time.Duration) (held int, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.last.IsZero() && now.Sub(e.last) < interval {
		e.held++
		return 0, false
	}
	held, e.held, e.last = e.held, 0, now
	return held, true
}

// Event starts a line at level (a logger's Warn, Info, ...) when one may
// be written now, with "notLogged" set to the lines held back since the
// last; otherwise it is nil, on which zerolog's methods do nothing, so a
// caller chains its fields and Msg either way.
func (e *Every) Event(interval time.Duration, level func() *zerolog.Event) *zerolog.Event {
	now := time.Now
	if e.Now != nil {
		now = e.Now
	}
	held, ok := e.Allow(now(), interval)
	if !ok {
		return nil
	}
	ev := level()
	if held > 0 {
		ev = ev.Int("notLogged", held)
	}
	return ev
}
