package proto

import (
	"errors"

	"github.com/gozk/gozk/jute"
)

// ErrInvalidMultiOp is the decode error for an operation type that may not
// appear in a multi request; the server answers MarshallingError.
var ErrInvalidMultiOp = errors.New("invalid operation type in multi")

// MultiOp is one operation of a multi or multiRead request. Exactly the
// record that matches Type is meaningful.
type MultiOp struct {
	Type        OpCode
	Create      CreateRequest       // create, create2, createContainer
	CreateTTL   CreateTTLRequest    // createTTL
	Delete      DeleteRequest       // delete
	SetData     SetDataRequest      // setData
	Check       CheckVersionRequest // check
	GetChildren GetChildrenRequest  // getChildren (multiRead)
	GetData     GetDataRequest      // getData (multiRead)
}

// Path returns the path the operation names.
func (op *MultiOp) Path() string {
	switch op.Type {
	case OpCreate, OpCreate2, OpCreateContainer:
		return op.Create.Path
	case OpCreateTTL:
		return op.CreateTTL.Path
	case OpDelete:
		return op.Delete.Path
	case OpSetData:
		return op.SetData.Path
	case OpCheck:
		return op.Check.Path
	case OpGetChildren:
		return op.GetChildren.Path
	case OpGetData:
		return op.GetData.Path
	}
	return ""
}

// Record returns the request record that matches Type, or nil for a type
// that cannot appear in a multi.
func (op *MultiOp) Record() jute.Record {
	switch op.Type {
	case OpCreate, OpCreate2, OpCreateContainer:
		return &op.Create
	case OpCreateTTL:
		return &op.CreateTTL
	case OpDelete:
		return &op.Delete
	case OpSetData:
		return &op.SetData
	case OpCheck:
		return &op.Check
	case OpGetChildren:
		return &op.GetChildren
	case OpGetData:
		return &op.GetData
	}
	return nil
}

// IsRead reports whether the operation belongs in a multiRead.
func (op *MultiOp) IsRead() bool { return op.Type == OpGetChildren || op.Type == OpGetData }

// MultiRequest is the body of multi (14) and multiRead (22): operations,
// each behind a MultiHeader, closed by a header with done set.
type MultiRequest struct {
	Ops []MultiOp
}

// Encode writes the request as Java's MultiOperationRecord does.
func (m *MultiRequest) Encode(w *jute.Writer) {
	for i := range m.Ops {
		op := &m.Ops[i]
		h := MultiHeader{Type: int32(op.Type), Done: false, Err: -1}
		h.Encode(w)
		if rec := op.Record(); rec != nil {
			rec.Encode(w)
		}
	}
	end := MultiHeader{Type: -1, Done: true, Err: -1}
	end.Encode(w)
}

// Decode reads a multi body, reusing m.Ops. An operation type that cannot
// appear in a multi is an error (ErrInvalidMultiOp), as in Java.
func (m *MultiRequest) Decode(r *jute.Reader) {
	m.Ops = m.Ops[:0]
	var h MultiHeader
	for r.Err() == nil {
		h.Decode(r)
		if r.Err() != nil || h.Done {
			return
		}
		// No count guard is needed: every operation consumes at least its
		// header from the bounded input before the next one is appended.
		m.Ops = append(m.Ops, MultiOp{Type: OpCode(h.Type)})
		op := &m.Ops[len(m.Ops)-1]
		rec := op.Record()
		if rec == nil {
			r.Fail("MultiHeader.type", ErrInvalidMultiOp)
			return
		}
		rec.Decode(r)
	}
}

// MultiResult is one result of a multi or multiRead reply. Type is the
// result type (OpError for failures); the fields that Type uses are set.
type MultiResult struct {
	Type     OpCode
	Err      ErrCode  // the error code of an OpError result
	Path     string   // create, create2
	Stat     Stat     // create2, setData, getData
	Data     []byte   // getData
	Children []string // getChildren
}

// MultiResponse is the body of a multi or multiRead reply.
type MultiResponse struct {
	Results []MultiResult
}

// Encode writes the reply as Java's MultiResponse does: each result behind
// a header whose err is the result's code (0 for success), then a closing
// header {-1, true, -1}.
func (m *MultiResponse) Encode(w *jute.Writer) {
	for i := range m.Results {
		res := &m.Results[i]
		h := MultiHeader{Type: int32(res.Type)}
		if res.Type == OpError {
			h.Err = int32(res.Err)
		}
		h.Encode(w)
		switch res.Type {
		case OpCreate:
			w.WriteString(res.Path)
		case OpCreate2:
			w.WriteString(res.Path)
			res.Stat.Encode(w)
		case OpSetData:
			res.Stat.Encode(w)
		case OpGetData:
			w.WriteBuffer(res.Data)
			res.Stat.Encode(w)
		case OpGetChildren:
			if res.Children == nil {
				w.WriteInt(-1)
			} else {
				w.WriteInt(int32(len(res.Children)))
				for _, c := range res.Children {
					w.WriteString(c)
				}
			}
		case OpError:
			w.WriteInt(int32(res.Err))
		}
	}
	end := MultiHeader{Type: -1, Done: true, Err: -1}
	end.Encode(w)
}

// Decode reads a multi reply, reusing m.Results.
func (m *MultiResponse) Decode(r *jute.Reader) {
	m.Results = m.Results[:0]
	var h MultiHeader
	for r.Err() == nil {
		h.Decode(r)
		if r.Err() != nil || h.Done {
			return
		}
		m.Results = append(m.Results, MultiResult{Type: OpCode(h.Type)})
		res := &m.Results[len(m.Results)-1]
		switch res.Type {
		case OpCreate:
			res.Path = r.ReadString("CreateResponse.path")
		case OpCreate2:
			res.Path = r.ReadString("Create2Response.path")
			res.Stat.Decode(r)
		case OpSetData:
			res.Stat.Decode(r)
		case OpGetData:
			res.Data = r.ReadBuffer("GetDataResponse.data")
			res.Stat.Decode(r)
		case OpGetChildren:
			var gc GetChildrenResponse
			gc.Decode(r)
			res.Children = gc.Children
		case OpDelete, OpCheck:
		case OpError:
			res.Err = ErrCode(r.ReadInt("ErrorResponse.err"))
		default:
			r.Fail("MultiHeader.type", ErrInvalidMultiOp)
			return
		}
	}
}
