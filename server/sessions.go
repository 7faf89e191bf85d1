package server

import (
	"sync"
	"time"
)

// session is one client session. Its request queue keeps the session's
// replies in request order: reads that arrive while one of its writes is in
// flight wait here for it.
type session struct {
	id      int64
	timeout int32 // negotiated, ms

	// Guarded by the tracker's mutex.
	expireAt int64 // ms, a multiple of tickTime
	closing  bool
	conn     *connection

	mu       sync.Mutex
	queue    []*request // requests not yet answered, in arrival order
	draining bool       // a goroutine is answering from the queue
}

// sessionTracker owns session ids, timeouts and expiry. Expiry works in
// buckets one tick wide, as Java's ExpiryQueue does: a touch moves the
// session to the bucket of roundUp(now + timeout), and the expirer wakes at
// each tick boundary to close what is due (see expireLoop).
type sessionTracker struct {
	tickTime int64
	now      func() int64 // ms, monotonic from the wall clock at start; tests drive it by hand

	mu       sync.Mutex
	sessions map[int64]*session
	buckets  map[int64]map[int64]*session // expiry time -> id -> session
	nextID   int64
}

// firstSessionID is Java's initial session id: the server id in the top
// byte and the low 40 bits of the millisecond clock shifted left by 16.
// A standalone server uses server id 1.
func firstSessionID(serverID int64, nowMillis int64) int64 {
	return serverID<<56 | int64(uint64(nowMillis<<24)>>8)
}

func newSessionTracker(tickTime time.Duration, serverID int64) *sessionTracker {
	start := time.Now()
	startMillis := start.UnixMilli()
	return &sessionTracker{
		tickTime: tickTime.Milliseconds(),
		// Deadlines run on the monotonic clock, as Java's expiry queue
		// runs on its elapsed time: a step of the wall clock (NTP, a
		// manual date) neither expires sessions early nor keeps them.
		now:      func() int64 { return startMillis + time.Since(start).Milliseconds() },
		sessions: map[int64]*session{},
		buckets:  map[int64]map[int64]*session{},
		nextID:   firstSessionID(serverID, startMillis),
	}
}

// newID returns a fresh session id, never the container marker.
func (t *sessionTracker) newID() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	for {
		id := t.nextID
		t.nextID++
		if id != -1<<63 && id != 0 && t.sessions[id] == nil {
			return id
		}
	}
}

// reset forgets every session and starts a new id sequence, as Java's
// server starts a new session tracker with each role.
func (t *sessionTracker) reset(serverID int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sessions = map[int64]*session{}
	t.buckets = map[int64]map[int64]*session{}
	t.nextID = firstSessionID(serverID, t.now())
}

// roundToTick is Java's ExpiryQueue.roundToNextInterval: the first tick
// boundary strictly after ms.
func (t *sessionTracker) roundToTick(ms int64) int64 {
	return (ms/t.tickTime + 1) * t.tickTime
}

// add registers a session (new, or recovered from the log) and starts its
// expiry clock.
func (t *sessionTracker) add(id int64, timeout int32) *session {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.sessions[id]
	if s == nil {
		s = &session{id: id, timeout: timeout}
		t.sessions[id] = s
	}
	s.timeout = timeout
	t.touchLocked(s, t.now())
	return s
}

func (t *sessionTracker) get(id int64) *session {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sessions[id]
}

// touch extends a session's life; it fails for unknown and closing
// sessions, whose requests Java drops without a reply.
func (t *sessionTracker) touch(s *session) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s.closing || t.sessions[s.id] != s {
		return false
	}
	t.touchLocked(s, t.now())
	return true
}

// touchLocked moves s to the bucket of now + timeout.
func (t *sessionTracker) touchLocked(s *session, now int64) {
	at := t.roundToTick(now + int64(s.timeout))
	if at == s.expireAt {
		return
	}
	if b := t.buckets[s.expireAt]; b != nil {
		delete(b, s.id)
		if len(b) == 0 {
			delete(t.buckets, s.expireAt)
		}
	}
	s.expireAt = at
	b := t.buckets[at]
	if b == nil {
		b = map[int64]*session{}
		t.buckets[at] = b
	}
	b[s.id] = s
}

// setTimeout renegotiates a reconnecting session's timeout.
func (t *sessionTracker) setTimeout(s *session, timeout int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s.timeout = timeout
	t.touchLocked(s, t.now())
}

// markClosing flags s so that its later requests are dropped; it returns
// false if s was already closing or gone.
func (t *sessionTracker) markClosing(s *session) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s.closing || t.sessions[s.id] != s {
		return false
	}
	s.closing = true
	return true
}

func (t *sessionTracker) isActive(s *session) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !s.closing && t.sessions[s.id] == s
}

// remove forgets a closed session and returns it with the connection it
// was bound to.
func (t *sessionTracker) remove(id int64) (*session, *connection) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.sessions[id]
	if s == nil {
		return nil, nil
	}
	delete(t.sessions, id)
	if b := t.buckets[s.expireAt]; b != nil {
		delete(b, id)
		if len(b) == 0 {
			delete(t.buckets, s.expireAt)
		}
	}
	return s, s.conn
}

// expireLoop closes due sessions until stop is closed, waking on every
// tick boundary as Java's SessionTrackerImpl does: sessions sit in buckets
// on tick boundaries, so a session is closed within (timeout, timeout +
// tickTime] of its last touch. A ticker started at an arbitrary phase
// would find each bucket up to one more tick late. after is time.After
// outside tests.
func (t *sessionTracker) expireLoop(stop <-chan struct{}, after func(time.Duration) <-chan time.Time, expire func(*session)) {
	wake := after(0)
	for {
		select {
		case <-stop:
			return
		case <-wake:
		}
		now := t.now()
		for _, s := range t.expired(now) {
			expire(s)
		}
		wake = after(time.Duration(t.roundToTick(now)-t.now()) * time.Millisecond)
	}
}

// expired marks closing and returns every session whose bucket is due.
func (t *sessionTracker) expired(now int64) []*session {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []*session
	for at, b := range t.buckets {
		if at > now {
			continue
		}
		for _, s := range b {
			if !s.closing {
				s.closing = true
				out = append(out, s)
			}
		}
		delete(t.buckets, at)
	}
	return out
}

// bind attaches conn to s and returns the connection it replaces, if any.
func (t *sessionTracker) bind(s *session, conn *connection) *connection {
	t.mu.Lock()
	defer t.mu.Unlock()
	old := s.conn
	s.conn = conn
	if old == conn {
		return nil
	}
	return old
}

// unbind detaches conn from s if it is still the session's connection.
func (t *sessionTracker) unbind(s *session, conn *connection) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s.conn == conn {
		s.conn = nil
	}
}

func (t *sessionTracker) connOf(s *session) *connection {
	t.mu.Lock()
	defer t.mu.Unlock()
	return s.conn
}

// count returns the number of live sessions.
func (t *sessionTracker) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.sessions)
}
