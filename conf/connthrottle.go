package conf

import (
	"strconv"
	"strings"
)

// ConnectionThrottle is Java's connection throttle (BlueThrottle, the
// zookeeper.connection_throttle_* system properties): a token bucket
// every ConnectRequest draws from, with BLUE's random early drop on top.
// Tokens 0, the default, turns it off.
type ConnectionThrottle struct {
	Tokens        int     // connection_throttle_tokens: the bucket's size (0: no throttle)
	FillTimeMs    int     // connection_throttle_fill_time: ms per refill (default 1)
	FillCount     int     // connection_throttle_fill_count: tokens per refill (default 1)
	FreezeTimeMs  int     // connection_throttle_freeze_time: ms between drop-chance changes; -1 (default) turns BLUE off
	DropIncrease  float64 // connection_throttle_drop_increase (0.02)
	DropDecrease  float64 // connection_throttle_drop_decrease (0.002)
	DecreaseRatio float64 // connection_throttle_decrease_ratio (0)
	// Weighted is connection_throttle_weight_enabled: a new global
	// session costs GlobalWeight tokens, a local one LocalWeight, a
	// reconnect RenewWeight, and Tokens and FillCount count global
	// sessions (they are multiplied by GlobalWeight), as in Java.
	Weighted     bool
	GlobalWeight int // connection_throttle_global_session_weight (3)
	LocalWeight  int // connection_throttle_local_session_weight (1)
	RenewWeight  int // connection_throttle_renew_session_weight (2)
}

func defaultConnectionThrottle() ConnectionThrottle {
	return ConnectionThrottle{FillTimeMs: 1, FillCount: 1, FreezeTimeMs: -1, DropIncrease: 0.02, DropDecrease: 0.002,
		GlobalWeight: 3, LocalWeight: 1, RenewWeight: 2}
}

// applyConnectionThrottle reads the throttle's properties as BlueThrottle
// reads them: weights out of range are warned about and replaced as Java
// replaces them, and with weights on the bucket's size and refill count
// global sessions. A real-number property that does not parse stops a
// Java server from starting (its throttle class fails to load), so it is
// refused here; so is a fill time below 1 with the throttle on, with
// which Java divides by zero at every connection.
func (c *Config) applyConnectionThrottle() error {
	t := defaultConnectionThrottle()
	c.sysInt(&t.Tokens, zk("connection_throttle_tokens"))
	c.sysInt(&t.FillTimeMs, zk("connection_throttle_fill_time"))
	c.sysInt(&t.FillCount, zk("connection_throttle_fill_count"))
	c.sysInt(&t.FreezeTimeMs, zk("connection_throttle_freeze_time"))
	for _, f := range []struct {
		dst  *float64
		name string
	}{
		{&t.DropIncrease, "connection_throttle_drop_increase"},
		{&t.DropDecrease, "connection_throttle_drop_decrease"},
		{&t.DecreaseRatio, "connection_throttle_decrease_ratio"},
	} {
		p, ok := c.sysLookup(zk(f.name))
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(p.Value), 64)
		if err != nil {
			return c.errorAt(p, "%q is not a number", p.Value)
		}
		*f.dst = v
	}
	c.sysBool(&t.Weighted, zk("connection_throttle_weight_enabled"))
	global, local, renew := 3, 1, 2
	c.sysInt(&global, zk("connection_throttle_global_session_weight"))
	c.sysInt(&local, zk("connection_throttle_local_session_weight"))
	c.sysInt(&renew, zk("connection_throttle_renew_session_weight"))
	// BlueThrottle's checks: a weight not above 0 gets its default, and
	// the global and renew weights are at least the local one (as it
	// was given).
	weight := func(kind string, v, def int, atLeastLocal bool) int {
		p, set := c.sysLookup(zk("connection_throttle_" + kind + "_session_weight"))
		if !set {
			// Left at its default, it can only be below a local
			// weight that was set: name that one.
			p, _ = c.sysLookup(zk("connection_throttle_local_session_weight"))
		}
		switch {
		case v <= 0:
			c.warnAt(p, "the %s session weight %d is not above 0; using %d as Java does", kind, v, def)
			return def
		case atLeastLocal && v < local:
			c.warnAt(p, "the %s session weight %d is below the local session weight %d; using the local one as Java does", kind, v, local)
			return local
		}
		return v
	}
	t.GlobalWeight = weight("global", global, 3, true)
	t.LocalWeight = weight("local", local, 1, false)
	t.RenewWeight = weight("renew", renew, 2, true)
	if t.Weighted {
		t.Tokens *= t.GlobalWeight
		t.FillCount *= t.GlobalWeight
	}
	if t.Tokens != 0 && t.FillTimeMs < 1 {
		p, _ := c.sysLookup(zk("connection_throttle_fill_time"))
		return c.errorAt(p, "must be at least 1 (ms) while connection_throttle_tokens is set: Java divides by it")
	}
	c.ConnectionThrottle = t
	return nil
}
