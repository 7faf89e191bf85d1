// Package invariants holds gozk's assertions that are compiled in only
// under the invariants build tag: checks of rules the code relies on and
// that no test states directly, such as "the zxids reaching the final
// stage rise" or "a connection's replies go out in its request order".
// A release build pays nothing for them; tests and CI turn them on, so
// that every test, fuzz run and interop suite also checks them.
//
// Turn them on with the tag:
//
//	go test -tags invariants ./...
//	go build -tags invariants -o bin/gozk ./cmd/gozk
//
// `make testrace` runs the tests with -race -tags invariants, and
// `make build` / `make interop` build bin/gozk with whatever GOZK_TAGS
// holds (CI sets GOZK_TAGS=invariants).
//
// An assertion is written behind the constant Enabled, so that the check
// itself, and the arguments of its message, compile away without the tag:
//
//	if invariants.Enabled && zxid <= last {
//		invariants.Violated("final stage: zxid 0x%x after 0x%x", zxid, last)
//	}
//
// A violated invariant panics with a *Violation whose message names the
// rule that broke and the values that broke it. Only what is cheap belongs
// here: a comparison, a counter, a length, never a walk over the tree on
// the path of every write. Each assertion has a test that provokes it
// through its package's internal API and skips itself without the tag.
//
// The checks live beside the code they guard (search for
// invariants.Enabled): the server's pipeline (zxids rising into the final
// stage, a batch answered only once the log counts it durable, the
// outstanding changes in zxid order and empty when the pipeline is idle,
// each connection's replies in request order) and the data tree (a
// session's ephemerals kept consistently as nodes and as paths).
package invariants
