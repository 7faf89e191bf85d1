package server

import (
	"errors"
	"strings"
	"testing"

	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/internal/invariants"
	"github.com/gozk/gozk/persistence"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/watches"
)

// violation runs f and returns the message of the invariant it broke, ""
// when it broke none.
func violation(t *testing.T, f func()) (msg string) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			var v *invariants.Violation
			err, ok := r.(error)
			if !ok || !errors.As(err, &v) {
				panic(r)
			}
			msg = v.Msg
		}
	}()
	f()
	return ""
}

func needInvariants(t *testing.T) {
	if !invariants.Enabled {
		t.Skip("the assertions are compiled in only with -tags invariants")
	}
}

// wantViolation fails unless msg names what broke.
func wantViolation(t *testing.T, msg, what string) {
	t.Helper()
	if !strings.Contains(msg, what) {
		t.Fatalf("violation %q, want one mentioning %q", msg, what)
	}
}

// A txn whose zxid does not rise above the last applied one stops the
// final stage.
func TestInvariantZxidsRiseIntoFinal(t *testing.T) {
	needInvariants(t)
	tree := db.New(db.Options{})
	s := &Server{tree: tree, watches: watches.NewManager(), prep: &prepStage{changes: newOutstandingChanges(tree)}}
	s.mon = newMonitor(s, true)
	errorTxn := func(zxid int64) *request {
		r := &request{op: proto.OpSetData, xid: int32(zxid)}
		r.w.txn = proto.TxnEntry{Header: proto.TxnHeader{Zxid: zxid, Type: int32(proto.OpError)}, Body: &proto.ErrorTxn{Err: int32(proto.ErrBadVersion)}}
		r.txn = &r.w.txn
		return r
	}
	for _, z := range []int64{1, 2, 5} {
		if msg := violation(t, func() { s.apply(errorTxn(z)) }); msg != "" {
			t.Fatalf("zxid %d after a lower one: %s", z, msg)
		}
	}
	wantViolation(t, violation(t, func() { s.apply(errorTxn(5)) }), "final stage: txn 0x5")
	wantViolation(t, violation(t, func() { s.apply(errorTxn(3)) }), "after 0x5")
}

// A batch may be applied and answered only once the log counts its txns
// durable.
func TestInvariantAnsweredOnlyOnceDurable(t *testing.T) {
	needInvariants(t)
	log, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	s := &Server{txnLog: log}
	batch := func(zxids ...int64) []*request {
		var reqs []*request
		for _, z := range zxids {
			r := &request{op: proto.OpSetData}
			if z != 0 {
				r.w.txn = proto.TxnEntry{Header: proto.TxnHeader{Zxid: z, Type: int32(proto.OpError)}, Body: &proto.ErrorTxn{}}
				r.txn = &r.w.txn
			}
			reqs = append(reqs, r)
		}
		return reqs
	}
	wantViolation(t, violation(t, func() { s.checkDurable(batch(1, 2, 0)) }), "batch up to txn 0x2 applied while the log is durable up to 0x0")
	entry := batch(1, 2)
	var entries []persistence.Entry
	for _, r := range entry {
		entries = append(entries, persistence.Entry{Zxid: r.txn.Header.Zxid, Data: r.txn.Marshal()})
	}
	if err := log.Append(entries); err != nil {
		t.Fatal(err)
	}
	if msg := violation(t, func() { s.checkDurable(batch(1, 2, 0)) }); msg != "" {
		t.Fatalf("a logged batch: %s", msg)
	}
	if msg := violation(t, func() { s.checkDurable(batch(0)) }); msg != "" {
		t.Fatalf("a batch without txns: %s", msg)
	}
	wantViolation(t, violation(t, func() { s.checkDurable(batch(3)) }), "batch up to txn 0x3")
}

// The outstanding changes must follow zxid order, and must be empty once
// every prepared write has been applied.
func TestInvariantOutstandingChanges(t *testing.T) {
	needInvariants(t)
	o := newOutstandingChanges(db.New(db.Options{}))
	o.add(&changeRecord{zxid: 7, path: "/a"})
	o.add(&changeRecord{zxid: 7, path: "/b"}) // a multi's records share its zxid
	wantViolation(t, violation(t, func() { o.add(&changeRecord{zxid: 6, path: "/c"}) }), "record of 0x6 for /c added after one of 0x7")

	o = newOutstandingChanges(db.New(db.Options{}))
	o.add(&changeRecord{zxid: 8, path: "/a"})
	o.add(&changeRecord{zxid: 9, path: "/b"})
	o.applied(8)
	wantViolation(t, violation(t, o.checkIdle), "1 records (oldest 0x9 /b) and 1 paths")
	o.applied(9)
	if msg := violation(t, o.checkIdle); msg != "" {
		t.Fatalf("every record applied: %s", msg)
	}
	// A multi rolled back leaves nothing behind either.
	snap := o.begin(10)
	o.add(&changeRecord{zxid: 10, path: "/m"})
	o.rollback(snap)
	if msg := violation(t, o.checkIdle); msg != "" {
		t.Fatalf("after a rollback: %s", msg)
	}
}

// A connection's replies must follow its requests: a request may go
// unanswered (a check sent alone), but a reply may not overtake one still
// due; a ping's reply says -2 whatever xid the ping had.
func TestInvariantRepliesInRequestOrder(t *testing.T) {
	needInvariants(t)
	var o replyOrder
	o.requested(1, proto.OpGetData)
	o.requested(2, proto.OpCheck) // no reply
	o.requested(3, proto.OpSetData)
	o.requested(0, proto.OpPing)
	o.requested(5, proto.OpExists)
	o.requested(6, proto.OpCreate)
	for _, xid := range []int32{1, 3, proto.XidPing, 6} {
		if msg := violation(t, func() { o.replied(xid) }); msg != "" {
			t.Fatalf("reply %d in order: %s", xid, msg)
		}
	}
	// 5 was overtaken by 6.
	wantViolation(t, violation(t, func() { o.replied(5) }), "xid 5 matches no request")
	// A reply nobody asked for.
	wantViolation(t, violation(t, func() { o.replied(proto.XidAuth) }), "xid -4 matches no request")
}
