package invariants

import "fmt"

// Violation is the value a violated invariant panics with.
type Violation struct {
	Msg string
}

func (v *Violation) Error() string { return "invariant violated: " + v.Msg }

// Violated panics with a *Violation saying what broke. Call it behind
// Enabled: its arguments are evaluated before the call.
func Violated(format string, args ...any) {
	panic(&Violation{Msg: fmt.Sprintf(format, args...)})
}

// Check panics with a *Violation carrying msg when ok is false and the
// invariants are enabled. Without the tag it is an empty function the
// compiler drops, but ok is still computed: behind Enabled go the checks
// whose condition costs anything.
func Check(ok bool, msg string) {
	if Enabled && !ok {
		panic(&Violation{Msg: msg})
	}
}
