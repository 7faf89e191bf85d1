package failpoint

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// EnvVar is the environment variable `gozk server` reads its armed
// points from.
const EnvVar = "GOZK_FAILPOINTS"

// Kind is what an armed point does when hit.
type Kind int

const (
	// Crash kills the process with SIGKILL: nothing deferred runs,
	// nothing buffered is flushed.
	Crash Kind = iota + 1
	// Sleep blocks the hit for the action's duration.
	Sleep
	// Error makes the hit return an *InjectedError.
	Error
)

// Action is what one armed point does.
type Action struct {
	Kind Kind
	// At is the hit the action applies to, counting from 1; 0 means
	// every hit.
	At int64
	// Duration is how long Sleep blocks.
	Duration time.Duration
}

// String is the action as GOZK_FAILPOINTS spells it.
func (a Action) String() string {
	var s string
	switch a.Kind {
	case Crash:
		s = "crash"
	case Sleep:
		s = "sleep(" + a.Duration.String() + ")"
	case Error:
		s = "error"
	default:
		return "?"
	}
	if a.At > 0 {
		s += "@" + strconv.FormatInt(a.At, 10)
	}
	return s
}

// Armed is one point and its action.
type Armed struct {
	Point  Point
	Action Action
}

// String is the entry as GOZK_FAILPOINTS spells it.
func (a Armed) String() string { return a.Point.String() + "=" + a.Action.String() }

// InjectedError is the error a point armed with `error` returns. It unwraps to
// EIO, so code that looks at the cause sees an I/O error.
type InjectedError struct {
	Point Point
	Hit   int64
}

func (e *InjectedError) Error() string {
	return fmt.Sprintf("failpoint %s: injected I/O error (hit %d)", e.Point, e.Hit)
}

func (e *InjectedError) Unwrap() error { return syscall.EIO }

// table is what is armed: nil (no table) when nothing is.
type table struct {
	actions [numPoints]*Action
	hits    [numPoints]atomic.Int64
	// hook, when set, sees every hit of every point first (tests).
	hook func(p Point, hit int64) error
}

var armed atomic.Pointer[table]

// Hit is called where point p fires. Nothing armed costs one atomic load.
// An armed point counts its hits and, on the hits its action applies to,
// kills the process (crash), blocks (sleep) or returns an *InjectedError (error),
// which the caller handles as the I/O error it stands for.
func Hit(p Point) error {
	t := armed.Load()
	if t == nil {
		return nil
	}
	return t.hit(p)
}

func (t *table) hit(p Point) error {
	a := t.actions[p]
	if a == nil && t.hook == nil {
		return nil
	}
	n := t.hits[p].Add(1)
	if t.hook != nil {
		if err := t.hook(p, n); err != nil {
			return err
		}
	}
	if a == nil || a.At != 0 && a.At != n {
		return nil
	}
	switch a.Kind {
	case Crash:
		crash(p, n)
	case Sleep:
		time.Sleep(a.Duration)
	case Error:
		return &InjectedError{Point: p, Hit: n}
	}
	return nil
}

// crash kills the process at once, as kill -9 would: one line goes to
// standard error (unbuffered, so it is not lost), and nothing else runs.
func crash(p Point, n int64) {
	fmt.Fprintf(os.Stderr, "gozk: failpoint %s: crash (hit %d)\n", p, n)
	killSelf()
	select {} // the signal is on its way
}

// Parse reads a GOZK_FAILPOINTS value: entries name=action separated by
// semicolons, where action is crash, crash@N, sleep(DURATION),
// sleep(DURATION)@N, error or error@N. Spaces around entries and names
// are ignored, and so are empty entries. The error names the entry.
func Parse(spec string) ([]Armed, error) {
	var out []Armed
	seen := map[Point]bool{}
	for i, entry := range strings.Split(spec, ";") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		a, err := parseEntry(entry)
		if err != nil {
			return nil, fmt.Errorf("%s: entry %d %q: %w", EnvVar, i+1, entry, err)
		}
		if seen[a.Point] {
			return nil, fmt.Errorf("%s: entry %d %q: %s is armed twice", EnvVar, i+1, entry, a.Point)
		}
		seen[a.Point] = true
		out = append(out, a)
	}
	return out, nil
}

func parseEntry(entry string) (Armed, error) {
	name, action, ok := strings.Cut(entry, "=")
	if !ok {
		return Armed{}, errors.New("want name=action")
	}
	name, action = strings.TrimSpace(name), strings.TrimSpace(action)
	p, ok := Lookup(name)
	if !ok {
		return Armed{}, fmt.Errorf("unknown point %q (known: %s)", name, strings.Join(pointNames[:], ", "))
	}
	a, err := parseAction(action)
	if err != nil {
		return Armed{}, err
	}
	return Armed{Point: p, Action: a}, nil
}

func parseAction(s string) (Action, error) {
	var a Action
	if body, at, ok := strings.Cut(s, "@"); ok {
		n, err := strconv.ParseInt(at, 10, 64)
		if err != nil || n < 1 {
			return Action{}, fmt.Errorf("hit %q after @ is not a positive integer (hits count from 1)", at)
		}
		a.At = n
		s = body
	}
	switch {
	case s == "crash":
		a.Kind = Crash
	case s == "error":
		a.Kind = Error
	case strings.HasPrefix(s, "sleep(") && strings.HasSuffix(s, ")"):
		d, err := time.ParseDuration(s[len("sleep(") : len(s)-1])
		if err != nil {
			return Action{}, fmt.Errorf("sleep: %w", err)
		}
		if d < 0 {
			return Action{}, fmt.Errorf("sleep: negative duration %s", d)
		}
		a.Kind, a.Duration = Sleep, d
	default:
		return Action{}, fmt.Errorf("unknown action %q (want crash, sleep(DURATION) or error, each optionally @N)", s)
	}
	return a, nil
}

// Arm makes points fire as spec (a GOZK_FAILPOINTS value) says, with hit
// counts from zero, replacing whatever was armed; an empty spec disarms
// everything. On a parse error nothing changes.
func Arm(spec string) ([]Armed, error) {
	list, err := Parse(spec)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		armed.Store(nil)
		return nil, nil
	}
	t := &table{}
	for _, a := range list {
		act := a.Action
		t.actions[a.Point] = &act
	}
	armed.Store(t)
	return list, nil
}

// ArmFromEnv is Arm with the value of GOZK_FAILPOINTS.
func ArmFromEnv() ([]Armed, error) { return Arm(os.Getenv(EnvVar)) }

// Disarm disarms every point and removes any hook.
func Disarm() { armed.Store(nil) }

// IsArmed reports whether point p has an action armed.
func IsArmed(p Point) bool {
	t := armed.Load()
	return t != nil && t.actions[p] != nil
}

// SetHook arms spec (as Arm) and makes hook see every hit of every
// point, armed or not, before the point's action: its hit count (from 1)
// and the chance to fail the hit with an error of its own. Tests use it
// to observe where points fire without crashing. restore disarms
// everything.
func SetHook(spec string, hook func(p Point, hit int64) error) (restore func(), err error) {
	list, err := Parse(spec)
	if err != nil {
		return nil, err
	}
	t := &table{hook: hook}
	for _, a := range list {
		act := a.Action
		t.actions[a.Point] = &act
	}
	armed.Store(t)
	return Disarm, nil
}
