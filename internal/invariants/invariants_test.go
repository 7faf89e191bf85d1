package invariants

import (
	"errors"
	"strings"
	"testing"
)

// catch runs f and returns the *Violation it panicked with, or nil.
func catch(t *testing.T, f func()) (v *Violation) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			err, ok := r.(error)
			if !ok || !errors.As(err, &v) {
				t.Fatalf("panicked with %v, want a *Violation", r)
			}
		}
	}()
	f()
	return nil
}

func TestViolatedPanicsWithTheMessage(t *testing.T) {
	v := catch(t, func() { Violated("zxid 0x%x after 0x%x", 5, 7) })
	if v == nil || v.Error() != "invariant violated: zxid 0x5 after 0x7" {
		t.Fatalf("got %v", v)
	}
}

func TestCheckFiresOnlyUnderTheTag(t *testing.T) {
	if v := catch(t, func() { Check(true, "holds") }); v != nil {
		t.Fatalf("a true condition panicked: %v", v)
	}
	v := catch(t, func() { Check(false, "outstanding changes not empty") })
	switch {
	case Enabled && (v == nil || !strings.Contains(v.Error(), "outstanding changes not empty")):
		t.Fatalf("with the tag: got %v, want the message", v)
	case !Enabled && v != nil:
		t.Fatalf("without the tag: panicked with %v", v)
	}
}
