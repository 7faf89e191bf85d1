package proto

import (
	"errors"
	"fmt"

	"github.com/gozk/gozk/jute"
)

// DigestVersion is the TxnDigest version gozk understands (ZooKeeper 3.6+).
const DigestVersion = 2

// TxnEntry is one transaction as ZooKeeper logs, applies and replicates it:
// the header, the record its type calls for (nil where the type has none,
// e.g. a closeSession logged by a server older than 3.6) and the optional
// trailing digest.
type TxnEntry struct {
	Header TxnHeader
	Body   jute.Record
	Digest *TxnDigest
}

// ErrUnknownTxnType is returned for a txn type no ZooKeeper writes.
var ErrUnknownTxnType = errors.New("unknown txn type")

// NewTxnBody returns an empty record for a top-level or multi sub-txn type,
// or nil for a type without a record.
func NewTxnBody(t OpCode) (jute.Record, error) {
	switch t {
	case OpCreateSession:
		return new(CreateSessionTxn), nil
	case OpCloseSession:
		return new(CloseSessionTxn), nil
	case OpError:
		return new(ErrorTxn), nil
	case OpCreate, OpCreate2:
		return new(CreateTxn), nil
	case OpCreateContainer:
		return new(CreateContainerTxn), nil
	case OpCreateTTL:
		return new(CreateTTLTxn), nil
	case OpDelete, OpDeleteContainer:
		return new(DeleteTxn), nil
	case OpSetData, OpReconfig:
		return new(SetDataTxn), nil
	case OpSetACL:
		return new(SetACLTxn), nil
	case OpMulti:
		return new(MultiTxn), nil
	case OpCheck:
		return new(CheckVersionTxn), nil
	}
	return nil, fmt.Errorf("%w %d", ErrUnknownTxnType, int32(t))
}

// Encode writes header, body and digest.
func (t *TxnEntry) Encode(w *jute.Writer) {
	t.Header.Encode(w)
	if t.Body != nil {
		t.Body.Encode(w)
	}
	if t.Digest != nil {
		t.Digest.Encode(w)
	}
}

// Marshal returns the encoding of t.
func (t *TxnEntry) Marshal() []byte { return jute.Marshal(t) }

// Decode reads a txn the way Java's SerializeUtils does: a closeSession
// without a body is accepted (logs of 3.5 and older), a create that ends
// before parentCVersion is read as the old CreateTxnV0 with
// parentCVersion -1 (Java does this for create only, not create2), and any bytes after the record are a TxnDigest.
func (t *TxnEntry) Decode(r *jute.Reader) {
	t.Header.Decode(r)
	t.Body, t.Digest = nil, nil
	if r.Err() != nil {
		return
	}
	typ := OpCode(t.Header.Type)
	body, err := NewTxnBody(typ)
	if err != nil {
		r.Fail("TxnHeader.type", err)
		return
	}
	if typ == OpCloseSession && r.Remaining() == 0 {
		return
	}
	rest := r.Rest()
	body.Decode(r)
	if r.Err() != nil && typ == OpCreate {
		var v0 CreateTxnV0
		sub := jute.NewReader(rest)
		sub.SetLimit(r.Limit())
		v0.Decode(sub)
		if sub.Err() == nil && sub.Remaining() == 0 {
			*r = *sub
			t.Body = &CreateTxn{Path: v0.Path, Data: v0.Data, Acl: v0.Acl, Ephemeral: v0.Ephemeral, ParentCVersion: -1}
			return
		}
	}
	if r.Err() != nil {
		return
	}
	t.Body = body
	if r.Remaining() > 0 {
		t.Digest = new(TxnDigest)
		t.Digest.Decode(r)
	}
}

// DecodeTxn decodes one complete txn entry; trailing bytes after a digest
// are an error.
func DecodeTxn(b []byte, limit int) (*TxnEntry, error) {
	r := jute.NewReader(b)
	if limit > 0 {
		r.SetLimit(limit)
	}
	t := new(TxnEntry)
	t.Decode(r)
	r.ExpectEnd("TxnDigest")
	if err := r.Err(); err != nil {
		return nil, err
	}
	return t, nil
}

// DecodeSubTxn decodes the record of one sub-transaction of a MultiTxn.
func DecodeSubTxn(sub *Txn, limit int) (jute.Record, error) {
	body, err := NewTxnBody(OpCode(sub.Type))
	if err != nil {
		return nil, err
	}
	if OpCode(sub.Type) == OpMulti {
		return nil, fmt.Errorf("%w: multi inside multi", ErrUnknownTxnType)
	}
	r := jute.NewReader(sub.Data)
	if limit > 0 {
		r.SetLimit(limit)
	}
	body.Decode(r)
	r.ExpectEnd("Txn.data")
	if err := r.Err(); err != nil {
		return nil, err
	}
	return body, nil
}
