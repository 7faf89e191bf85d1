package persistence

import (
	"sync"
	"sync/atomic"
)

// gate lets users (readers, snapshot writers) into a store until the
// store is closed, and lets Close wait for those already in before it
// closes Pebble under them. Checking closed and joining are one step
// under mu, so Close never misses a user that got in just before it.
type gate struct {
	closed atomic.Bool
	mu     sync.Mutex
	users  sync.WaitGroup
}

// enter joins the users; false once the gate is closed. A true enter is
// followed by one leave.
func (g *gate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed.Load() {
		return false
	}
	g.users.Add(1)
	return true
}

func (g *gate) leave() { g.users.Done() }

// close shuts the gate and waits for the users inside. It returns
// ErrClosed, without waiting, when the gate was already closed.
func (g *gate) close() error {
	g.mu.Lock()
	if g.closed.Load() {
		g.mu.Unlock()
		return ErrClosed
	}
	g.closed.Store(true)
	g.mu.Unlock()
	g.users.Wait()
	return nil
}

// isClosed reports whether close has been called.
func (g *gate) isClosed() bool { return g.closed.Load() }
