package server

import (
	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/proto"
)

// request is one client request (or an internal one: session expiry,
// container reaping) on its way through the server.
type request struct {
	conn    *connection // nil for internal requests
	session *session    // nil for internal requests without a session
	sid     int64       // session id; 0 for the container reaper
	xid     int32
	op      proto.OpCode
	body    []byte     // the record after the RequestHeader, owned by the request
	ids     []proto.Id // the connection's identities when the request was read
	start   int64      // monoNanos when the request arrived, for its latency
	// remote marks a txn committed by the leader that no local request
	// waits for: it was never counted as outstanding here.
	remote bool
	// fromLearner marks a request a learner forwarded to this leader;
	// owner is that learner's server id (the session's owner to check).
	fromLearner bool
	owner       int64
	syncReached func() // a learner's sync: called when prep reaches it
	dropped     bool   // not prepared: the leader's zxids ran out
	// viaLeader marks a sync a learner sends through its leader, or a
	// leader orders behind the writes prepared before it: it waits in
	// its session's queue as a write does.
	viaLeader bool

	// Set by prep for writes.
	txn *proto.TxnEntry
	err proto.ErrCode // the error prep found (also in the ErrorTxn)

	w writeState // filled by prep; txn points into it

	// Set by final.
	done   bool
	zxid   int64
	result db.Result

	// sessionTimeout is the negotiated timeout of the createSession
	// request a ConnectRequest turned into.
	sessionTimeout int32
}

// writeState holds, in the request's own allocation, what prep and final
// would otherwise allocate one by one for a write: the txn entry, the txn
// record of a create or set, the first change records (a set has one, a
// create or delete two) and room for the watch events its apply fires.
// Requests are never reused: the outstanding-changes table may point into
// recs until final drops the records, and the log and the tree read the
// txn record after prep is done with it. A read queued behind a write
// carries the unused room; a read answered at once allocates no request.
type writeState struct {
	txn     proto.TxnEntry
	digest  proto.TxnDigest
	create  proto.CreateTxn
	setData proto.SetDataTxn
	recs    [2]changeRecord
	nrecs   int
	events  [2]db.Event
}

// write returns r's writeState.
func (r *request) write() *writeState { return &r.w }

// isWrite reports whether the request takes the prep -> sync -> final path.
func (r *request) isWrite() bool { return r.viaLeader || isWriteOp(r.op) }

// isWriteOp reports whether requests of type op take the prep -> sync ->
// final path.
func isWriteOp(op proto.OpCode) bool {
	switch op {
	case proto.OpCreate, proto.OpCreate2, proto.OpCreateContainer, proto.OpCreateTTL,
		proto.OpDelete, proto.OpDeleteContainer, proto.OpSetData, proto.OpSetACL,
		proto.OpMulti, proto.OpReconfig, proto.OpCreateSession, proto.OpCloseSession,
		proto.OpCheck: // Java logs a check sent alone as a txn and answers nothing
		return true
	}
	return false
}
