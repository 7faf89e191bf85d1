package proto_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// The fuzz targets below cover every top-level decoder of the package: a
// client request frame, the handshake, every generated record, a txn with
// its multi sub-txns, a quorum packet and a multi response. Each one checks
// that decoding never panics, that nothing decoded is larger than the input
// or the Reader's limit (so no input makes the decoder allocate more than a
// bound proportional to its size), and that a decoded value survives
// encoding and decoding again unchanged.
//
// The second encoding is compared as a value, not byte for byte, because
// jute decoding is not injective: a null string (-1) reads as "" and is
// written back as the empty string (0); any non-zero boolean byte reads as
// true and is written back as 1; a four-byte UTF-8 sequence in a string
// (which Java never writes) reads as is and is written back as a CESU-8
// surrogate pair; the old CreateTxnV0 reads as a CreateTxn with
// parentCVersion -1; and trailing bytes that Java ignores are dropped. The
// second encoding must, however, be a fixed point: encoding the value read
// back from it gives the same bytes.

// fuzzLimit is the Reader limit in the fuzz targets: small, so that a
// length the fuzzer makes up between the limit and the input size is
// caught as ErrTooLarge rather than allocated.
const fuzzLimit = 4096

// requestRecord returns an empty record for the body of a client request
// with opcode op, as ZooKeeper's server reads it. known is false for an
// opcode no client may send (Java answers those with Unimplemented and
// never reads the body); rec is nil for a known opcode without a body:
// ping, closeSession, whoAmI, and deleteContainer, whose body Java reads as
// raw path bytes rather than a record.
func requestRecord(op proto.OpCode) (rec jute.Record, known bool) {
	switch op {
	case proto.OpCreate, proto.OpCreate2, proto.OpCreateContainer:
		return new(proto.CreateRequest), true
	case proto.OpCreateTTL:
		return new(proto.CreateTTLRequest), true
	case proto.OpDelete:
		return new(proto.DeleteRequest), true
	case proto.OpExists:
		return new(proto.ExistsRequest), true
	case proto.OpGetData:
		return new(proto.GetDataRequest), true
	case proto.OpSetData:
		return new(proto.SetDataRequest), true
	case proto.OpGetACL:
		return new(proto.GetACLRequest), true
	case proto.OpSetACL:
		return new(proto.SetACLRequest), true
	case proto.OpGetChildren:
		return new(proto.GetChildrenRequest), true
	case proto.OpGetChildren2:
		return new(proto.GetChildren2Request), true
	case proto.OpSync:
		return new(proto.SyncRequest), true
	case proto.OpCheck:
		return new(proto.CheckVersionRequest), true
	case proto.OpMulti, proto.OpMultiRead:
		return new(proto.MultiRequest), true
	case proto.OpReconfig:
		return new(proto.ReconfigRequest), true
	case proto.OpCheckWatches:
		return new(proto.CheckWatchesRequest), true
	case proto.OpRemoveWatches:
		return new(proto.RemoveWatchesRequest), true
	case proto.OpAuth:
		return new(proto.AuthPacket), true
	case proto.OpSetWatches:
		return new(proto.SetWatches), true
	case proto.OpSetWatches2:
		return new(proto.SetWatches2), true
	case proto.OpSASL:
		return new(proto.GetSASLRequest), true
	case proto.OpGetEphemerals:
		return new(proto.GetEphemeralsRequest), true
	case proto.OpGetAllChildrenNumber:
		return new(proto.GetAllChildrenNumberRequest), true
	case proto.OpAddWatch:
		return new(proto.AddWatchRequest), true
	case proto.OpPing, proto.OpCloseSession, proto.OpWhoAmI, proto.OpDeleteContainer:
		return nil, true
	}
	return nil, false
}

// clientFrame is a decoded request frame (the bytes after the length
// prefix): the header and the body record the opcode calls for.
type clientFrame struct {
	Header proto.RequestHeader
	Body   jute.Record // nil for opcodes without a record body
	Known  bool
}

// decodeClientFrame decodes a request frame as the server sees it. Bytes
// after the record are ignored, as Java ignores them.
func decodeClientFrame(b []byte, limit int) (*clientFrame, error) {
	r := jute.NewReader(b)
	r.SetLimit(limit)
	f := new(clientFrame)
	f.Header.Decode(r)
	if r.Err() != nil {
		return nil, r.Err()
	}
	f.Body, f.Known = requestRecord(proto.OpCode(f.Header.Type))
	if f.Body != nil {
		f.Body.Decode(r)
	}
	if r.Err() != nil {
		return nil, r.Err()
	}
	return f, nil
}

func (f *clientFrame) marshal() []byte {
	var w jute.Writer
	f.Header.Encode(&w)
	if f.Body != nil {
		f.Body.Encode(&w)
	}
	return w.Bytes()
}

// frame builds a request frame body for the seed corpora.
func frame(xid int32, op proto.OpCode, body jute.Record) []byte {
	var w jute.Writer
	h := proto.RequestHeader{Xid: xid, Type: int32(op)}
	h.Encode(&w)
	if body != nil {
		body.Encode(&w)
	}
	return w.Bytes()
}

// checkBounded walks a decoded value and fails if a string, buffer or
// vector is longer than the input it came from or a string or buffer is
// longer than the Reader's limit, or if their sizes add up to more than
// the input.
func checkBounded(t *testing.T, v any, inputLen, limit int) {
	t.Helper()
	total := 0
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem(), path)
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				walk(v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		case reflect.String:
			n := v.Len()
			total += n
			if n > inputLen || n > limit {
				t.Fatalf("%s: string of %d bytes from %d bytes of input (limit %d)", path, n, inputLen, limit)
			}
		case reflect.Slice:
			n := v.Len()
			if v.Cap() > inputLen {
				t.Fatalf("%s: slice with capacity %d from %d bytes of input", path, v.Cap(), inputLen)
			}
			if v.Type().Elem().Kind() == reflect.Uint8 {
				total += n
				if n > limit {
					t.Fatalf("%s: buffer of %d bytes (limit %d)", path, n, limit)
				}
				return
			}
			for i := 0; i < n; i++ {
				walk(v.Index(i), path+"[]")
			}
		}
	}
	walk(reflect.ValueOf(v), reflect.TypeOf(v).String())
	if total > inputLen {
		t.Fatalf("decoded strings and buffers add up to %d bytes from %d bytes of input", total, inputLen)
	}
}

// checkDecodeError fails unless err is a *jute.DecodeError (which also
// carries ErrInvalidMultiOp and the txn decoder's type errors) or the bare
// ErrUnknownTxnType of DecodeSubTxn.
func checkDecodeError(t *testing.T, err error) {
	t.Helper()
	var de *jute.DecodeError
	if !errors.As(err, &de) && !errors.Is(err, proto.ErrUnknownTxnType) {
		t.Fatalf("decode error %T %v is not a *jute.DecodeError", err, err)
	}
}

// roundTrip encodes v, decodes the result with decode and checks that the
// value is unchanged and that its encoding is stable.
func roundTrip[T any](t *testing.T, v T, encode func(T) []byte, decode func([]byte) (T, error)) {
	t.Helper()
	b1 := encode(v)
	v2, err := decode(b1)
	if err != nil {
		t.Fatalf("re-encoded value does not decode: %v\nvalue %+v\nbytes %x", err, v, b1)
	}
	if !reflect.DeepEqual(v, v2) {
		t.Fatalf("value changed in a round trip:\nfirst  %#v\nsecond %#v\nbytes %x", v, v2, b1)
	}
	if b2 := encode(v2); !bytes.Equal(b1, b2) {
		t.Fatalf("encoding is not stable:\nfirst  %x\nsecond %x", b1, b2)
	}
}

// addGoldenSeeds adds the committed golden vectors whose names match glob
// (in testdata/golden) to the corpus, transformed by wrap. Missing files
// are not an error: the seeds below stand on their own.
func addGoldenSeeds(f *testing.F, glob string, add func(name string, b []byte)) {
	names, _ := filepath.Glob(filepath.Join("testdata", "golden", glob))
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err == nil {
			add(filepath.Base(name), b)
		}
	}
}

var (
	seedACL  = []proto.ACL{{Perms: proto.PermAll, Id: proto.Id{Scheme: "world", Id: "anyone"}}, {Perms: 1, Id: proto.Id{Scheme: "digest", Id: "u:h"}}}
	seedStat = proto.Stat{Czxid: 1, Mzxid: 2, Ctime: 3, Mtime: 4, Version: 5, Cversion: 6, Aversion: 7, EphemeralOwner: 8, DataLength: 9, NumChildren: 10, Pzxid: 11}
)

// seedRequests is one valid body for every request opcode.
func seedRequests() map[proto.OpCode]jute.Record {
	return map[proto.OpCode]jute.Record{
		proto.OpCreate:               &proto.CreateRequest{Path: "/a", Data: []byte("x"), Acl: seedACL, Flags: 0},
		proto.OpCreate2:              &proto.CreateRequest{Path: "/a/b-", Data: nil, Acl: seedACL[:1], Flags: 3},
		proto.OpCreateContainer:      &proto.CreateRequest{Path: "/c", Data: []byte{}, Acl: []proto.ACL{}, Flags: 4},
		proto.OpCreateTTL:            &proto.CreateTTLRequest{Path: "/t", Data: []byte("v"), Acl: seedACL, Flags: 5, Ttl: 1000},
		proto.OpDelete:               &proto.DeleteRequest{Path: "/a", Version: -1},
		proto.OpExists:               &proto.ExistsRequest{Path: "/a", Watch: true},
		proto.OpGetData:              &proto.GetDataRequest{Path: "/a/😀", Watch: false},
		proto.OpSetData:              &proto.SetDataRequest{Path: "/a", Data: []byte("new"), Version: 3},
		proto.OpGetACL:               &proto.GetACLRequest{Path: "/a"},
		proto.OpSetACL:               &proto.SetACLRequest{Path: "/a", Acl: seedACL, Version: 0},
		proto.OpGetChildren:          &proto.GetChildrenRequest{Path: "/", Watch: true},
		proto.OpGetChildren2:         &proto.GetChildren2Request{Path: "/", Watch: false},
		proto.OpSync:                 &proto.SyncRequest{Path: "/"},
		proto.OpCheck:                &proto.CheckVersionRequest{Path: "/a", Version: 2},
		proto.OpReconfig:             &proto.ReconfigRequest{JoiningServers: "server.4=h:2888:3888;2181", LeavingServers: "2", NewMembers: "", CurConfigId: -1},
		proto.OpCheckWatches:         &proto.CheckWatchesRequest{Path: "/a", Type: 1},
		proto.OpRemoveWatches:        &proto.RemoveWatchesRequest{Path: "/a", Type: 3},
		proto.OpAuth:                 &proto.AuthPacket{Type: 0, Scheme: "digest", Auth: []byte("u:p")},
		proto.OpSetWatches:           &proto.SetWatches{RelativeZxid: 9, DataWatches: []string{"/a"}, ExistWatches: []string{}, ChildWatches: []string{"/", "/b"}},
		proto.OpSetWatches2:          &proto.SetWatches2{RelativeZxid: 9, DataWatches: []string{"/a"}, ExistWatches: []string{}, ChildWatches: []string{}, PersistentWatches: []string{"/p"}, PersistentRecursiveWatches: []string{"/r"}},
		proto.OpSASL:                 &proto.GetSASLRequest{Token: []byte{1, 2, 3}},
		proto.OpGetEphemerals:        &proto.GetEphemeralsRequest{PrefixPath: "/e"},
		proto.OpGetAllChildrenNumber: &proto.GetAllChildrenNumberRequest{Path: "/"},
		proto.OpAddWatch:             &proto.AddWatchRequest{Path: "/w", Mode: 1},
		proto.OpMulti: &proto.MultiRequest{Ops: []proto.MultiOp{
			{Type: proto.OpCreate, Create: proto.CreateRequest{Path: "/m", Data: []byte("d"), Acl: seedACL[:1], Flags: 0}},
			{Type: proto.OpCreateTTL, CreateTTL: proto.CreateTTLRequest{Path: "/m/t", Acl: seedACL[:1], Flags: 5, Ttl: 10}},
			{Type: proto.OpSetData, SetData: proto.SetDataRequest{Path: "/m", Data: []byte("e"), Version: -1}},
			{Type: proto.OpCheck, Check: proto.CheckVersionRequest{Path: "/m", Version: 1}},
			{Type: proto.OpDelete, Delete: proto.DeleteRequest{Path: "/m", Version: -1}},
		}},
		proto.OpMultiRead: &proto.MultiRequest{Ops: []proto.MultiOp{
			{Type: proto.OpGetData, GetData: proto.GetDataRequest{Path: "/a"}},
			{Type: proto.OpGetChildren, GetChildren: proto.GetChildrenRequest{Path: "/", Watch: true}},
		}},
	}
}

func FuzzClientFrame(f *testing.F) {
	reqs := seedRequests()
	ops := make([]proto.OpCode, 0, len(reqs))
	for op := range reqs {
		ops = append(ops, op)
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i] < ops[j] })
	for i, op := range ops {
		f.Add(frame(int32(i+1), op, reqs[op]))
	}
	f.Add(frame(proto.XidPing, proto.OpPing, nil))
	f.Add(frame(7, proto.OpCloseSession, nil))
	f.Add(frame(8, proto.OpWhoAmI, nil))
	f.Add(frame(9, proto.OpCode(999), nil))
	f.Add(frame(proto.XidAuth, proto.OpAuth, &proto.AuthPacket{Scheme: "ip", Auth: nil}))
	f.Add(frame(10, proto.OpMulti, &proto.MultiRequest{}))
	addGoldenSeeds(f, "composite/multi*-request.bin", func(name string, b []byte) {
		op := proto.OpMulti
		if strings.HasPrefix(name, "multiread") {
			op = proto.OpMultiRead
		}
		f.Add(append(frame(11, op, nil), b...))
	})
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, err := decodeClientFrame(b, fuzzLimit)
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		checkBounded(t, fr, len(b), fuzzLimit)
		roundTrip(t, fr, (*clientFrame).marshal,
			func(b []byte) (*clientFrame, error) { return decodeClientFrame(b, fuzzLimit) })
	})
}

func decodeHandshake(b []byte, limit int) (*proto.Handshake, error) {
	r := jute.NewReader(b)
	r.SetLimit(limit)
	h := new(proto.Handshake)
	h.Decode(r)
	return h, r.Err()
}

func FuzzHandshake(f *testing.F) {
	pw := make([]byte, proto.PasswordLength)
	f.Add(jute.Marshal(&proto.Handshake{ConnectRequest: proto.ConnectRequest{TimeOut: 30000, Passwd: pw}}))
	f.Add(jute.Marshal(&proto.Handshake{ConnectRequest: proto.ConnectRequest{LastZxidSeen: 0x100000005, TimeOut: 4000, SessionId: 0x1000001, Passwd: []byte("0123456789abcdef")}, ReadOnly: true}))
	f.Add(jute.Marshal(&proto.Handshake{ConnectRequest: proto.ConnectRequest{TimeOut: 30000, Passwd: nil}, OldClient: true}))
	f.Add(append(jute.Marshal(&proto.Handshake{ConnectRequest: proto.ConnectRequest{Passwd: pw}}), 9, 9))
	addGoldenSeeds(f, "composite/connect-request-*.bin", func(_ string, b []byte) { f.Add(b) })
	addGoldenSeeds(f, "ConnectRequest-*.bin", func(_ string, b []byte) { f.Add(b) })
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := decodeHandshake(b, fuzzLimit)
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		checkBounded(t, h, len(b), fuzzLimit)
		roundTrip(t, h, func(h *proto.Handshake) []byte { return jute.Marshal(h) },
			func(b []byte) (*proto.Handshake, error) { return decodeHandshake(b, fuzzLimit) })
	})
}

// recordNames lists proto.RecordTypes in a fixed order, so that the index
// byte of FuzzRecord means the same record in every run.
func recordNames() []string {
	names := make([]string, 0, len(proto.RecordTypes))
	for n := range proto.RecordTypes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func decodeRecord(name string, b []byte, limit int) (jute.Record, error) {
	rec := proto.RecordTypes[name]()
	r := jute.NewReader(b)
	r.SetLimit(limit)
	rec.Decode(r)
	return rec, r.Err()
}

func FuzzRecord(f *testing.F) {
	names := recordNames()
	index := map[string]byte{}
	for i, n := range names {
		index[n] = byte(i)
		// The empty value of every record is a valid seed.
		f.Add(byte(i), jute.Marshal(proto.RecordTypes[n]()))
	}
	for _, rec := range seedRequests() {
		if name := reflect.TypeOf(rec).Elem().Name(); name != "MultiRequest" {
			f.Add(index[name], jute.Marshal(rec))
		}
	}
	f.Add(index["GetDataResponse"], jute.Marshal(&proto.GetDataResponse{Data: bytes.Repeat([]byte("d"), 100), Stat: seedStat}))
	f.Add(index["GetChildrenResponse"], jute.Marshal(&proto.GetChildrenResponse{Children: []string{"a", "b", "node-0000000001"}}))
	f.Add(index["QuorumPacket"], jute.Marshal(&proto.QuorumPacket{Type: 2, Zxid: 5, Data: []byte{1}, Authinfo: []proto.Id{{Scheme: "ip", Id: "127.0.0.1"}}}))
	f.Add(index["WhoAmIResponse"], jute.Marshal(&proto.WhoAmIResponse{ClientInfo: []proto.ClientInfo{{AuthScheme: "ip", User: "127.0.0.1"}}}))
	addGoldenSeeds(f, "*.bin", func(name string, b []byte) {
		if i, ok := index[strings.SplitN(name, "-", 2)[0]]; ok {
			f.Add(i, b)
		}
	})
	f.Fuzz(func(t *testing.T, which byte, b []byte) {
		name := names[int(which)%len(names)]
		rec, err := decodeRecord(name, b, fuzzLimit)
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		checkBounded(t, rec, len(b), fuzzLimit)
		roundTrip(t, rec, jute.Marshal,
			func(b []byte) (jute.Record, error) { return decodeRecord(name, b, fuzzLimit) })
	})
}

// decodedTxn is a txn entry with its multi sub-txns decoded.
type decodedTxn struct {
	Entry *proto.TxnEntry
	Subs  []jute.Record
}

func decodeTxnWithSubs(b []byte, limit int) (*decodedTxn, error) {
	e, err := proto.DecodeTxn(b, limit)
	if err != nil {
		return nil, err
	}
	d := &decodedTxn{Entry: e}
	if mt, ok := e.Body.(*proto.MultiTxn); ok {
		for i := range mt.Txns {
			sub, err := proto.DecodeSubTxn(&mt.Txns[i], limit)
			if err != nil {
				return nil, err
			}
			d.Subs = append(d.Subs, sub)
		}
	}
	return d, nil
}

func FuzzTxn(f *testing.F) {
	hdr := func(op proto.OpCode) proto.TxnHeader {
		return proto.TxnHeader{ClientId: 0x1000001, Cxid: 3, Zxid: 0x100000007, Time: 1700000000000, Type: int32(op)}
	}
	digest := &proto.TxnDigest{Version: proto.DigestVersion, TreeDigest: 0x1234}
	entries := []proto.TxnEntry{
		{Header: hdr(proto.OpCreateSession), Body: &proto.CreateSessionTxn{TimeOut: 30000}},
		{Header: hdr(proto.OpCreate), Body: &proto.CreateTxn{Path: "/a", Data: []byte("x"), Acl: seedACL, Ephemeral: true, ParentCVersion: 1}, Digest: digest},
		{Header: hdr(proto.OpCreate2), Body: &proto.CreateTxn{Path: "/a", Acl: seedACL[:1], ParentCVersion: 1}},
		{Header: hdr(proto.OpCreateContainer), Body: &proto.CreateContainerTxn{Path: "/c", Data: []byte{}, Acl: seedACL[:1], ParentCVersion: 2}},
		{Header: hdr(proto.OpCreateTTL), Body: &proto.CreateTTLTxn{Path: "/t", Acl: seedACL[:1], ParentCVersion: 2, Ttl: 100}},
		{Header: hdr(proto.OpDelete), Body: &proto.DeleteTxn{Path: "/a"}},
		{Header: hdr(proto.OpDeleteContainer), Body: &proto.DeleteTxn{Path: "/c"}},
		{Header: hdr(proto.OpSetData), Body: &proto.SetDataTxn{Path: "/a", Data: []byte("y"), Version: 2}, Digest: digest},
		{Header: hdr(proto.OpSetACL), Body: &proto.SetACLTxn{Path: "/a", Acl: seedACL, Version: 1}},
		{Header: hdr(proto.OpError), Body: &proto.ErrorTxn{Err: int32(proto.ErrNoNode)}},
		{Header: hdr(proto.OpCloseSession), Body: &proto.CloseSessionTxn{Paths2Delete: []string{"/e1", "/e2"}}},
		{Header: hdr(proto.OpCloseSession)},
		{Header: hdr(proto.OpMulti), Body: &proto.MultiTxn{Txns: []proto.Txn{
			{Type: int32(proto.OpCreate), Data: jute.Marshal(&proto.CreateTxn{Path: "/m", Acl: seedACL[:1], ParentCVersion: 1})},
			{Type: int32(proto.OpSetData), Data: jute.Marshal(&proto.SetDataTxn{Path: "/m", Data: []byte("z"), Version: 1})},
			{Type: int32(proto.OpCheck), Data: jute.Marshal(&proto.CheckVersionTxn{Path: "/m", Version: 1})},
			{Type: int32(proto.OpDelete), Data: jute.Marshal(&proto.DeleteTxn{Path: "/m"})},
			{Type: int32(proto.OpError), Data: jute.Marshal(&proto.ErrorTxn{Err: int32(proto.ErrRuntimeInconsistency)})},
		}}, Digest: digest},
	}
	for i := range entries {
		f.Add(entries[i].Marshal())
	}
	// The pre-3.3 create without parentCVersion.
	var w jute.Writer
	h := hdr(proto.OpCreate)
	h.Encode(&w)
	v0 := proto.CreateTxnV0{Path: "/v0", Data: []byte("d"), Acl: seedACL[:1], Ephemeral: false}
	v0.Encode(&w)
	f.Add(w.Bytes())
	addGoldenSeeds(f, "composite/txn-*.bin", func(_ string, b []byte) { f.Add(b) })
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := decodeTxnWithSubs(b, fuzzLimit)
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		// Sub-txns are decoded from bytes of the entry, so each is bounded
		// by its own Txn.data rather than counted twice.
		checkBounded(t, d.Entry, len(b), fuzzLimit)
		if mt, ok := d.Entry.Body.(*proto.MultiTxn); ok {
			for i, sub := range d.Subs {
				checkBounded(t, sub, len(mt.Txns[i].Data), fuzzLimit)
			}
		}
		roundTrip(t, d, func(d *decodedTxn) []byte { return d.Entry.Marshal() },
			func(b []byte) (*decodedTxn, error) { return decodeTxnWithSubs(b, fuzzLimit) })
		// Each sub-txn survives on its own, too.
		for _, sub := range d.Subs {
			roundTrip(t, sub, jute.Marshal, func(b []byte) (jute.Record, error) {
				rec := reflect.New(reflect.TypeOf(sub).Elem()).Interface().(jute.Record)
				return rec, jute.UnmarshalExact(b, rec, "sub")
			})
		}
	})
}

func decodeQuorumPacket(b []byte, limit int) (*proto.QuorumPacket, error) {
	r := jute.NewReader(b)
	r.SetLimit(limit)
	p := new(proto.QuorumPacket)
	p.Decode(r)
	return p, r.Err()
}

func FuzzQuorumPacket(f *testing.F) {
	// PROPOSAL carrying a txn, PING with session data, ACK, and the shapes
	// of an empty and a null auth list.
	txn := proto.TxnEntry{Header: proto.TxnHeader{ClientId: 1, Cxid: 1, Zxid: 0x100000001, Time: 1, Type: int32(proto.OpDelete)}, Body: &proto.DeleteTxn{Path: "/a"}}
	f.Add(jute.Marshal(&proto.QuorumPacket{Type: 2, Zxid: 0x100000001, Data: txn.Marshal(), Authinfo: nil}))
	f.Add(jute.Marshal(&proto.QuorumPacket{Type: 5, Zxid: 0x100000001, Data: []byte{0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0x75, 0x30}, Authinfo: nil}))
	f.Add(jute.Marshal(&proto.QuorumPacket{Type: 3, Zxid: 0x100000001}))
	f.Add(jute.Marshal(&proto.QuorumPacket{Type: 11, Zxid: 7, Data: []byte{}, Authinfo: []proto.Id{}}))
	f.Add(jute.Marshal(&proto.QuorumPacket{Type: 1, Data: []byte("req"), Authinfo: []proto.Id{{Scheme: "digest", Id: "u:h"}, {Scheme: "ip", Id: "10.0.0.1"}}}))
	addGoldenSeeds(f, "QuorumPacket-*.bin", func(_ string, b []byte) { f.Add(b) })
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := decodeQuorumPacket(b, fuzzLimit)
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		checkBounded(t, p, len(b), fuzzLimit)
		roundTrip(t, p, func(p *proto.QuorumPacket) []byte { return jute.Marshal(p) },
			func(b []byte) (*proto.QuorumPacket, error) { return decodeQuorumPacket(b, fuzzLimit) })
	})
}

func decodeMultiResponse(b []byte, limit int) (*proto.MultiResponse, error) {
	r := jute.NewReader(b)
	r.SetLimit(limit)
	m := new(proto.MultiResponse)
	m.Decode(r)
	return m, r.Err()
}

func FuzzMultiResponse(f *testing.F) {
	f.Add(jute.Marshal(&proto.MultiResponse{}))
	f.Add(jute.Marshal(&proto.MultiResponse{Results: []proto.MultiResult{
		{Type: proto.OpCreate, Path: "/a0000000001"},
		{Type: proto.OpCreate2, Path: "/b", Stat: seedStat},
		{Type: proto.OpDelete}, {Type: proto.OpSetData, Stat: seedStat}, {Type: proto.OpCheck},
	}}))
	f.Add(jute.Marshal(&proto.MultiResponse{Results: []proto.MultiResult{
		{Type: proto.OpGetData, Data: []byte("v"), Stat: seedStat},
		{Type: proto.OpGetData, Data: nil, Stat: seedStat},
		{Type: proto.OpGetChildren, Children: []string{"x", "y"}},
		{Type: proto.OpGetChildren, Children: nil},
		{Type: proto.OpError, Err: proto.ErrNoNode},
	}}))
	f.Add(jute.Marshal(&proto.MultiResponse{Results: []proto.MultiResult{
		{Type: proto.OpError, Err: proto.ErrOK}, {Type: proto.OpError, Err: proto.ErrBadVersion},
		{Type: proto.OpError, Err: proto.ErrRuntimeInconsistency},
	}}))
	addGoldenSeeds(f, "composite/multi*-response*.bin", func(_ string, b []byte) { f.Add(b) })
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeMultiResponse(b, fuzzLimit)
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		checkBounded(t, m, len(b), fuzzLimit)
		roundTrip(t, m, func(m *proto.MultiResponse) []byte { return jute.Marshal(m) },
			func(b []byte) (*proto.MultiResponse, error) { return decodeMultiResponse(b, fuzzLimit) })
	})
}

// TestFuzzHelpersCoverEveryClientOp keeps requestRecord in step with the
// opcodes a client may send.
func TestFuzzHelpersCoverEveryClientOp(t *testing.T) {
	for op := proto.OpCode(-20); op < 200; op++ {
		_, known := requestRecord(op)
		if known != op.IsKnownClientOp() {
			t.Errorf("requestRecord(%v) known = %v, IsKnownClientOp = %v", op, known, op.IsKnownClientOp())
		}
	}
	reqs := seedRequests()
	for op := proto.OpCode(-20); op < 200; op++ {
		if rec, _ := requestRecord(op); rec != nil && reqs[op] == nil {
			t.Errorf("no seed for %v", op)
		}
	}
}

// TestOversizedFieldsRefused checks, outside the fuzzer, that a buffer or
// string above the Reader limit is refused with the field named and
// nothing of its size allocated.
func TestOversizedFieldsRefused(t *testing.T) {
	big := bytes.Repeat([]byte("x"), fuzzLimit+1)
	cases := []struct {
		name  string
		b     []byte
		field string
		dec   func([]byte) error
	}{
		{"getData response", jute.Marshal(&proto.GetDataResponse{Data: big}), "GetDataResponse.data",
			func(b []byte) error { _, err := decodeRecord("GetDataResponse", b, fuzzLimit); return err }},
		{"create frame", frame(1, proto.OpCreate, &proto.CreateRequest{Path: string(big)}), "CreateRequest.path",
			func(b []byte) error { _, err := decodeClientFrame(b, fuzzLimit); return err }},
		{"multi frame", frame(1, proto.OpMulti, &proto.MultiRequest{Ops: []proto.MultiOp{{Type: proto.OpSetData, SetData: proto.SetDataRequest{Path: "/a", Data: big}}}}), "SetDataRequest.data",
			func(b []byte) error { _, err := decodeClientFrame(b, fuzzLimit); return err }},
		{"handshake", jute.Marshal(&proto.Handshake{ConnectRequest: proto.ConnectRequest{Passwd: big}}), "ConnectRequest.passwd",
			func(b []byte) error { _, err := decodeHandshake(b, fuzzLimit); return err }},
		{"quorum packet", jute.Marshal(&proto.QuorumPacket{Data: big}), "QuorumPacket.data",
			func(b []byte) error { _, err := decodeQuorumPacket(b, fuzzLimit); return err }},
		{"txn", (&proto.TxnEntry{Header: proto.TxnHeader{Type: int32(proto.OpSetData)}, Body: &proto.SetDataTxn{Data: big}}).Marshal(), "SetDataTxn.data",
			func(b []byte) error { _, err := decodeTxnWithSubs(b, fuzzLimit); return err }},
		{"multi response", jute.Marshal(&proto.MultiResponse{Results: []proto.MultiResult{{Type: proto.OpGetData, Data: big}}}), "GetDataResponse.data",
			func(b []byte) error { _, err := decodeMultiResponse(b, fuzzLimit); return err }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.dec(c.b)
			var de *jute.DecodeError
			if !errors.As(err, &de) || !errors.Is(err, jute.ErrTooLarge) || de.Field != c.field {
				t.Fatalf("err = %v, want ErrTooLarge for %s", err, c.field)
			}
		})
	}
	// A vector count the input cannot hold is refused before allocating.
	var w jute.Writer
	w.WriteInt(0x7fffffff)
	w.WriteInt(0)
	allocs := testing.AllocsPerRun(20, func() {
		var gc proto.GetChildrenResponse
		r := jute.NewReader(w.Bytes())
		gc.Decode(r)
		if !errors.Is(r.Err(), jute.ErrTruncated) {
			t.Fatalf("err = %v", r.Err())
		}
	})
	if allocs > 3 {
		t.Errorf("%v allocations for a refused vector", allocs)
	}
}
