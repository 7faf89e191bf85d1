package proto

import "strconv"

// OpCode is a request or txn type (RequestHeader.type, TxnHeader.type,
// MultiHeader.type).
type OpCode int32

// The opcodes of ZooKeeper 3.8.
const (
	OpNotification         OpCode = 0
	OpCreate               OpCode = 1
	OpDelete               OpCode = 2
	OpExists               OpCode = 3
	OpGetData              OpCode = 4
	OpSetData              OpCode = 5
	OpGetACL               OpCode = 6
	OpSetACL               OpCode = 7
	OpGetChildren          OpCode = 8
	OpSync                 OpCode = 9
	OpPing                 OpCode = 11
	OpGetChildren2         OpCode = 12
	OpCheck                OpCode = 13
	OpMulti                OpCode = 14
	OpCreate2              OpCode = 15
	OpReconfig             OpCode = 16
	OpCheckWatches         OpCode = 17
	OpRemoveWatches        OpCode = 18
	OpCreateContainer      OpCode = 19
	OpDeleteContainer      OpCode = 20
	OpCreateTTL            OpCode = 21
	OpMultiRead            OpCode = 22
	OpAuth                 OpCode = 100
	OpSetWatches           OpCode = 101
	OpSASL                 OpCode = 102
	OpGetEphemerals        OpCode = 103
	OpGetAllChildrenNumber OpCode = 104
	OpSetWatches2          OpCode = 105
	OpAddWatch             OpCode = 106
	OpWhoAmI               OpCode = 107
	OpCreateSession        OpCode = -10
	OpCloseSession         OpCode = -11
	OpError                OpCode = -1
)

var opNames = map[OpCode]string{
	OpNotification: "notification", OpCreate: "create", OpDelete: "delete",
	OpExists: "exists", OpGetData: "getData", OpSetData: "setData",
	OpGetACL: "getACL", OpSetACL: "setACL", OpGetChildren: "getChildren",
	OpSync: "sync", OpPing: "ping", OpGetChildren2: "getChildren2",
	OpCheck: "check", OpMulti: "multi", OpCreate2: "create2",
	OpReconfig: "reconfig", OpCheckWatches: "checkWatches",
	OpRemoveWatches: "removeWatches", OpCreateContainer: "createContainer",
	OpDeleteContainer: "deleteContainer", OpCreateTTL: "createTTL",
	OpMultiRead: "multiRead", OpAuth: "auth", OpSetWatches: "setWatches",
	OpSASL: "sasl", OpGetEphemerals: "getEphemerals",
	OpGetAllChildrenNumber: "getAllChildrenNumber", OpSetWatches2: "setWatches2",
	OpAddWatch: "addWatch", OpWhoAmI: "whoAmI", OpCreateSession: "createSession",
	OpCloseSession: "closeSession", OpError: "error",
}

// String returns the name ZooKeeper's tools print for the opcode.
func (o OpCode) String() string {
	if n, ok := opNames[o]; ok {
		return n
	}
	return "unknown " + strconv.Itoa(int(o))
}

// IsWrite reports whether a request of this type becomes a txn and
// consumes a zxid.
func (o OpCode) IsWrite() bool {
	switch o {
	case OpCreate, OpCreate2, OpCreateContainer, OpCreateTTL, OpDelete,
		OpDeleteContainer, OpSetData, OpSetACL, OpMulti, OpReconfig,
		OpCheck, OpCreateSession, OpCloseSession:
		return true
	}
	return false
}

// IsKnownClientOp reports whether a client may send this opcode; any other
// is answered with Unimplemented. A check outside a multi is one: Java's
// PrepRequestProcessor turns it into a CheckVersionTxn like any write.
func (o OpCode) IsKnownClientOp() bool {
	switch o {
	case OpCreate, OpDelete, OpExists, OpGetData, OpSetData, OpGetACL,
		OpSetACL, OpGetChildren, OpSync, OpPing, OpGetChildren2, OpCheck, OpMulti,
		OpCreate2, OpReconfig, OpCheckWatches, OpRemoveWatches,
		OpCreateContainer, OpDeleteContainer, OpCreateTTL, OpMultiRead,
		OpAuth, OpSetWatches, OpSASL, OpGetEphemerals,
		OpGetAllChildrenNumber, OpSetWatches2, OpAddWatch, OpWhoAmI,
		OpCloseSession:
		return true
	}
	return false
}

// Reserved xids.
const (
	XidNotification int32 = -1
	XidPing         int32 = -2
	XidAuth         int32 = -4
	XidSetWatches   int32 = -8
)
