package zkwire

import (
	"fmt"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// bodyFieldLimit lets the test client decode fields far larger than Java's
// default limit, so that an oversized reply is seen rather than rejected.
const bodyFieldLimit = DefaultMaxFrame

// NewResponse returns an empty record for the success body of op, or nil
// for operations whose successful reply has no body. ok is false for
// opcodes that have no reply defined at all.
func NewResponse(op proto.OpCode) (rec jute.Record, ok bool) {
	switch op {
	case proto.OpCreate:
		return new(proto.CreateResponse), true
	case proto.OpCreate2, proto.OpCreateContainer, proto.OpCreateTTL:
		return new(proto.Create2Response), true
	case proto.OpExists:
		return new(proto.ExistsResponse), true
	case proto.OpGetData, proto.OpReconfig:
		return new(proto.GetDataResponse), true
	case proto.OpSetData:
		return new(proto.SetDataResponse), true
	case proto.OpGetACL:
		return new(proto.GetACLResponse), true
	case proto.OpSetACL:
		return new(proto.SetACLResponse), true
	case proto.OpGetChildren:
		return new(proto.GetChildrenResponse), true
	case proto.OpGetChildren2:
		return new(proto.GetChildren2Response), true
	case proto.OpSync:
		return new(proto.SyncResponse), true
	case proto.OpMulti, proto.OpMultiRead:
		return new(proto.MultiResponse), true
	case proto.OpSASL:
		return new(proto.SetSASLResponse), true
	case proto.OpGetEphemerals:
		return new(proto.GetEphemeralsResponse), true
	case proto.OpGetAllChildrenNumber:
		return new(proto.GetAllChildrenNumberResponse), true
	case proto.OpAddWatch:
		return new(proto.ErrorResponse), true
	case proto.OpWhoAmI:
		return new(proto.WhoAmIResponse), true
	case proto.OpDelete, proto.OpDeleteContainer, proto.OpPing, proto.OpCheckWatches,
		proto.OpRemoveWatches, proto.OpAuth, proto.OpSetWatches, proto.OpSetWatches2,
		proto.OpCloseSession:
		return nil, true
	}
	return nil, false
}

// DecodeBody decodes the success body of a reply to op. It returns the
// record (nil for body-less replies), the bytes left after it, and a
// decode error. Leftover bytes are returned rather than rejected because
// a compatibility test wants to show them.
func DecodeBody(op proto.OpCode, body []byte) (rec jute.Record, rest []byte, err error) {
	rec, ok := NewResponse(op)
	if !ok {
		return nil, body, fmt.Errorf("zkwire: no reply record is defined for %v", op)
	}
	if rec == nil {
		return nil, body, nil
	}
	r := jute.NewReader(body)
	r.SetLimit(bodyFieldLimit)
	rec.Decode(r)
	if r.Err() != nil {
		return rec, nil, r.Err()
	}
	return rec, r.Rest(), nil
}

func decodeRecord(body []byte, rec jute.Record) error {
	r := jute.NewReader(body)
	r.SetLimit(bodyFieldLimit)
	rec.Decode(r)
	return r.Err()
}
