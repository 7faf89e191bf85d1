package db

import (
	"errors"
	"strings"
	"testing"

	"github.com/gozk/gozk/internal/invariants"
)

// applyViolation applies txn and returns the message of the invariant it
// broke, "" when it broke none.
func applyViolation(b *txnBuilder, txn func(*txnBuilder) Result) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			var v *invariants.Violation
			if err, ok := r.(error); !ok || !errors.As(err, &v) {
				panic(r)
			}
			msg = v.Msg
		}
	}()
	txn(b)
	return ""
}

// A session's ephemerals are kept twice, as nodes and as Java's ordered
// set of paths; an ephemeral that leaves the tree must be among its
// session's nodes. Bookkeeping that loses either shows at the next change
// of that session's ephemerals.
func TestInvariantEphemeralBookkeeping(t *testing.T) {
	if !invariants.Enabled {
		t.Skip("the assertions are compiled in only with -tags invariants")
	}
	tree := New(Options{})
	b := &txnBuilder{session: 0x42}
	ok := func(what string, txn func(*txnBuilder) Result) {
		t.Helper()
		if msg := applyViolation(b, txn); msg != "" {
			t.Fatalf("%s: %s", what, msg)
		}
	}
	ok("create /e1", func(b *txnBuilder) Result { return tree.Apply(b.ephemeral("/e1")) })
	ok("create /e2", func(b *txnBuilder) Result { return tree.Apply(b.ephemeral("/e2")) })
	// A set replaces the node with a wider copy, which takes its place in
	// the session's set.
	ok("set /e2", func(b *txnBuilder) Result { return tree.Apply(b.setData("/e2", []byte("x"), 1)) })
	ok("delete /e1", func(b *txnBuilder) Result { return tree.Apply(b.delete("/e1")) })

	// The node kept, its path lost.
	tree.javaEphemerals[0x42].Remove("/e2")
	msg := applyViolation(b, func(b *txnBuilder) Result { return tree.Apply(b.ephemeral("/e3")) })
	if !strings.Contains(msg, "after /e3, session 0x42 has 2 ephemeral nodes but 1 paths") {
		t.Fatalf("path lost: violation %q", msg)
	}

	// The path kept, the node lost.
	tree = New(Options{})
	ok("create /e4", func(b *txnBuilder) Result { return tree.Apply(b.ephemeral("/e4")) })
	delete(tree.ephemerals[0x42], tree.lookup("/e4"))
	msg = applyViolation(b, func(b *txnBuilder) Result { return tree.Apply(b.delete("/e4")) })
	if !strings.Contains(msg, "ephemeral /e4 leaves the tree but is not among the ephemerals of its session 0x42") {
		t.Fatalf("node lost: violation %q", msg)
	}
}
