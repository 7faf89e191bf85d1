package server

import (
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gozk/gozk/conf"
)

// ConnThrottle configures the connection throttle Java calls BlueThrottle
// (zookeeper.connection_throttle_*): a bucket of Tokens that every
// ConnectRequest draws from and that gets FillCount back every
// FillTimeMs, with BLUE's random early drop on top unless FreezeTimeMs is
// -1. A refused connection is closed without an answer and counted in
// connection_rejected, as in Java.
type ConnThrottle struct {
	Tokens       int // 0: no throttle
	FillTimeMs   int // at least 1 with Tokens set
	FillCount    int
	FreezeTimeMs int // -1: no random drop (as Java, only -1)
	// DropIncrease and DropDecrease move the drop chance once per
	// FreezeTimeMs: up while the bucket is empty, down while its deficit
	// is at most DecreaseRatio of Tokens.
	DropIncrease, DropDecrease, DecreaseRatio float64
	// NewSessionTokens and RenewTokens are what a ConnectRequest for a
	// new session and one that reconnects a session cost (1 each unless
	// Java's weights are on).
	NewSessionTokens, RenewTokens int
}

// connThrottleFromConf is the throttle zoo.cfg and the -D flags ask for:
// with Java's weights on, a new session costs the local session weight
// when local sessions are enabled and the global one otherwise, a
// reconnect the renew weight.
func connThrottleFromConf(c *conf.Config) ConnThrottle {
	t := c.ConnectionThrottle
	out := ConnThrottle{Tokens: t.Tokens, FillTimeMs: t.FillTimeMs, FillCount: t.FillCount, FreezeTimeMs: t.FreezeTimeMs,
		DropIncrease: t.DropIncrease, DropDecrease: t.DropDecrease, DecreaseRatio: t.DecreaseRatio,
		NewSessionTokens: 1, RenewTokens: 1}
	if t.Weighted {
		out.NewSessionTokens, out.RenewTokens = t.GlobalWeight, t.RenewWeight
		if c.LocalSessionsEnabled {
			out.NewSessionTokens = t.LocalWeight
		}
	}
	return out
}

// throttleEpoch starts the throttle's monotonic millisecond clock.
var throttleEpoch = time.Now()

func throttleNow() int64 { return time.Since(throttleEpoch).Milliseconds() }

// connThrottle is BlueThrottle's algorithm, on the caller's clock (ms)
// and random numbers so that tests decide both.
type connThrottle struct {
	cfg  ConnThrottle
	rand func() float64

	mu         sync.Mutex
	tokens     int
	lastFill   int64 // ms
	lastFreeze int64 // ms
	// drop is the drop chance's bits: written under mu, read without it
	// by the gauge.
	drop atomic.Uint64
}

func newConnThrottle(cfg ConnThrottle, nowMs int64, random func() float64) *connThrottle {
	if random == nil {
		random = rand.Float64
	}
	return &connThrottle{cfg: cfg, rand: random, tokens: cfg.Tokens, lastFill: nowMs, lastFreeze: nowMs}
}

// allow takes need tokens at nowMs, or says no: after a random drop at
// the current drop chance, or when the bucket holds fewer. It also
// returns the bucket's deficit after the call.
func (t *connThrottle) allow(need int, nowMs int64) (ok bool, deficit int) {
	if t.cfg.Tokens == 0 { // Java's "maxTokens = 0": no throttle
		return true, 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	fillMs := int64(max(t.cfg.FillTimeMs, 1))
	if elapsed := nowMs - t.lastFill; elapsed > fillMs {
		// As Java: whole refills since the last one, the remainder
		// of the interval dropped.
		refill := elapsed * int64(t.cfg.FillCount) / fillMs
		t.tokens = int(min(int64(t.tokens)+refill, int64(t.cfg.Tokens)))
		t.lastFill = nowMs
	}
	if t.cfg.FreezeTimeMs != -1 && !t.survivesDrop(nowMs) {
		return false, t.cfg.Tokens - t.tokens
	}
	if t.tokens < need {
		return false, t.cfg.Tokens - t.tokens
	}
	t.tokens -= need
	return true, t.cfg.Tokens - t.tokens
}

// survivesDrop moves the drop chance once per freeze time (up while the
// bucket is empty, down while the deficit is small) and draws against
// it. Called with mu held.
func (t *connThrottle) survivesDrop(nowMs int64) bool {
	deficit := t.cfg.Tokens - t.tokens
	threshold := int(math.Round(float64(t.cfg.Tokens) * t.cfg.DecreaseRatio))
	drop := t.dropChance()
	if nowMs-t.lastFreeze > int64(t.cfg.FreezeTimeMs) {
		switch {
		case deficit == t.cfg.Tokens && drop < 1:
			drop = min(drop+t.cfg.DropIncrease, 1)
		case deficit <= threshold && drop > 0:
			drop = max(drop-t.cfg.DropDecrease, 0)
		}
		t.lastFreeze = nowMs
		t.drop.Store(math.Float64bits(drop))
	}
	return !(t.rand() < drop)
}

// admitConnect draws the tokens a ConnectRequest costs (a reconnect's or
// a new session's) and counts it as Java's processConnectRequest does:
// refused, in connection_rejected; let through, its bucket's deficit in
// connection_token_deficit and the request in connection_request_count.
func (s *Server) admitConnect(c *connection, sessionID int64) bool {
	need := s.cfg.ConnThrottle.NewSessionTokens
	if sessionID != 0 {
		need = s.cfg.ConnThrottle.RenewTokens
	}
	ok, deficit := s.throttle.allow(max(need, 1), throttleNow())
	if !ok {
		s.mon.metrics.ConnectionRejected.Add(1)
		s.throttleLog.Event(throttleLogInterval, s.logger.Warn).Str("remote", c.nc.RemoteAddr().String()).
			Int("tokens", s.cfg.ConnThrottle.Tokens).Float64("dropChance", s.throttle.dropChance()).
			Msg("connection refused by the connection throttle (zookeeper.connection_throttle_*)")
		return false
	}
	s.mon.metrics.ConnectionTokenDeficit.Add(c.hint, int64(deficit))
	s.mon.metrics.ConnectionRequestCount.Add(1)
	return true
}

// throttleLogInterval is the least time between two log lines about
// connections the throttle refused: under a storm of reconnects they
// come by the thousand.
const throttleLogInterval = 10 * time.Second

// dropChance is the current drop chance.
func (t *connThrottle) dropChance() float64 { return math.Float64frombits(t.drop.Load()) }

// ConnectionDropChance is the connection throttle's chance of dropping a
// ConnectRequest at random (mntr's connection_drop_probability): 0
// unless the throttle's BLUE part is on and connections outrun its
// bucket.
func (s *Server) ConnectionDropChance() float64 { return s.throttle.dropChance() }
