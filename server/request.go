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

	// Set by prep for writes.
	txn *proto.TxnEntry
	err proto.ErrCode // the error prep found (also in the ErrorTxn)

	// Storage prep uses instead of allocating: txn points at txnEntry,
	// and the first change records of the write (a set has one, a create
	// or delete two) are recs[:nrecs]. Requests are never reused, so the
	// outstanding-changes table may keep pointing into recs until final
	// drops them.
	txnEntry proto.TxnEntry
	recs     [2]changeRecord
	nrecs    int

	// Set by final.
	done   bool
	zxid   int64
	result db.Result

	// handshake is set for the createSession request a ConnectRequest
	// turned into.
	handshake *proto.Handshake
}

// isWrite reports whether the request takes the prep -> sync -> final path.
func (r *request) isWrite() bool { return isWriteOp(r.op) }

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
