package proto

import (
	"encoding/hex"
	"errors"
	"reflect"
	"testing"

	"github.com/gozk/gozk/jute"
)

func TestSessionPasswordMatchesJavaRandom(t *testing.T) {
	// Produced by java.util.Random(id ^ 0xB3415C00L).nextBytes(new byte[16]).
	cases := []struct {
		id   int64
		want string
	}{
		{0, "f22acd4a97e69d6d20a49bb638eadb38"},
		{1, "054cc74a37327db215e702e20c73f005"},
		{0x0100017c2a3b0000, "2749b4ef28610518dd1975f8b1d97612"},
		{-1, "20f62cb5648dc2d771471c8a2486a9ee"},
		{-1<<63 + 5, "51d0af4ab760fac5eaf29f8f5a96423a"},
	}
	for _, c := range cases {
		pw := SessionPassword(c.id)
		if got := hex.EncodeToString(pw[:]); got != c.want {
			t.Errorf("SessionPassword(%#x) = %s, want %s", c.id, got, c.want)
		}
	}
}

func TestValidatePath(t *testing.T) {
	valid := []string{"/", "/a", "/a/b", "/...", "/.a", "/a.", "/ü", "/名/x", "/\ufeff", "/a b", "/zookeeper_limits"}
	invalid := []string{
		"", "a", "a/b", "/a/", "//", "/a//b", "/.", "/..", "/a/.", "/a/..", "/a/./b", "/a/../b",
		"/a\x00b", "/\x01", "/\x1f", "/\x7f", "/\u0080", "/\u009f", "/\ue000", "/\uf8ff",
		"/\ufff0", "/\uffff", "/😀", "/\xff", "/\xed\xa0\x80",
	}
	for _, p := range valid {
		if err := ValidatePath(p); err != nil {
			t.Errorf("ValidatePath(%q) = %v, want valid", p, err)
		}
	}
	for _, p := range invalid {
		if err := ValidatePath(p); err == nil {
			t.Errorf("ValidatePath(%q) = nil, want an error", p)
		}
	}
}

func TestParentPath(t *testing.T) {
	cases := []struct{ path, parent string }{
		{"/a", ""}, {"/a/b", "/a"}, {"/a/", "/a"}, {"/a//b", "/a/"}, {"/", ""},
	}
	for _, c := range cases {
		got, ok := ParentPath(c.path)
		if !ok || got != c.parent {
			t.Errorf("ParentPath(%q) = %q, %v; want %q", c.path, got, ok, c.parent)
		}
	}
	if _, ok := ParentPath("noslash"); ok {
		t.Error("ParentPath(noslash) reported a parent")
	}
}

func TestAppendSequenceMatchesJavaFormat(t *testing.T) {
	cases := map[int32]string{
		0: "0000000000", 5: "0000000005", 2147483647: "2147483647",
		-5: "-000000005", -2147483648: "-2147483648", -123456789: "-123456789",
	}
	for in, want := range cases {
		if got := string(AppendSequence(nil, in)); got != want {
			t.Errorf("AppendSequence(%d) = %q, want %q", in, got, want)
		}
	}
}

func TestEphemeralOwnerEncoding(t *testing.T) {
	if KindOf(0, true) != KindPersistent || KindOf(0x1234, true) != KindEphemeral {
		t.Fatal("plain owners misclassified")
	}
	if KindOf(ContainerEphemeralOwner, false) != KindContainer {
		t.Fatal("container not recognised")
	}
	owner := TTLEphemeralOwner(1000)
	if uint64(owner) != 0xFF000000000003E8 {
		t.Fatalf("TTL owner = %#x", uint64(owner))
	}
	if KindOf(owner, true) != KindTTL || TTLOf(owner) != 1000 {
		t.Fatal("TTL owner not decoded")
	}
	if KindOf(owner, false) != KindEphemeral {
		t.Fatal("with extended types off a TTL owner is an ordinary ephemeral owner")
	}
	if KindOf(owner|1<<40, true) != KindInvalid {
		t.Fatal("unknown extended type accepted")
	}
	if VisibleEphemeralOwner(owner, true) != 0 || VisibleEphemeralOwner(ContainerEphemeralOwner, true) != 0 {
		t.Fatal("containers and TTL nodes must show owner 0")
	}
	if !ValidTTL(MaxTTL) || ValidTTL(MaxTTL+1) || ValidTTL(0) {
		t.Fatal("TTL range")
	}
}

func TestErrorCodes(t *testing.T) {
	err := NewError(ErrNoNode, "/a")
	if err.Error() != "KeeperErrorCode = NoNode for /a" {
		t.Fatalf("message %q", err.Error())
	}
	if !errors.Is(err, ErrNoNode) || errors.Is(err, ErrNodeExists) {
		t.Fatal("errors.Is does not match codes")
	}
	if CodeOf(err) != ErrNoNode || CodeOf(nil) != ErrOK || CodeOf(errors.New("x")) != ErrSystemError {
		t.Fatal("CodeOf")
	}
	if ErrCode(-126).Known() {
		t.Fatal("-126 does not exist")
	}
}

func TestMultiRoundTrip(t *testing.T) {
	req := MultiRequest{Ops: []MultiOp{
		{Type: OpCreate, Create: CreateRequest{Path: "/a", Data: []byte("x"), Acl: OpenACLUnsafe, Flags: 2}},
		{Type: OpCreateTTL, CreateTTL: CreateTTLRequest{Path: "/t", Data: nil, Acl: OpenACLUnsafe, Flags: 5, Ttl: 100}},
		{Type: OpDelete, Delete: DeleteRequest{Path: "/b", Version: -1}},
		{Type: OpSetData, SetData: SetDataRequest{Path: "/c", Data: []byte{}, Version: 3}},
		{Type: OpCheck, Check: CheckVersionRequest{Path: "/d", Version: 7}},
	}}
	b := jute.Marshal(&req)
	var got MultiRequest
	if err := jute.UnmarshalExact(b, &got, "multi"); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(req, got) {
		t.Fatalf("round trip:\n%+v\n%+v", req, got)
	}

	resp := MultiResponse{Results: []MultiResult{
		{Type: OpCreate, Path: "/a0000000000"},
		{Type: OpCreate2, Path: "/t", Stat: Stat{Czxid: 5}},
		{Type: OpDelete}, {Type: OpSetData, Stat: Stat{Version: 4}}, {Type: OpCheck},
		{Type: OpGetData, Data: []byte("v"), Stat: Stat{DataLength: 1}},
		{Type: OpGetChildren, Children: []string{"x", "y"}},
		{Type: OpError, Err: ErrNoNode},
	}}
	b = jute.Marshal(&resp)
	var gotResp MultiResponse
	if err := jute.UnmarshalExact(b, &gotResp, "multi"); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(resp, gotResp) {
		t.Fatalf("round trip:\n%+v\n%+v", resp, gotResp)
	}
}

func TestMultiRejectsForeignOps(t *testing.T) {
	var w jute.Writer
	h := MultiHeader{Type: int32(OpSync), Err: -1}
	h.Encode(&w)
	w.WriteString("/a")
	var m MultiRequest
	err := jute.Unmarshal(w.Bytes(), &m)
	if !errors.Is(err, ErrInvalidMultiOp) {
		t.Fatalf("err = %v", err)
	}
}

func TestTxnEntryVariants(t *testing.T) {
	// A closeSession written by a 3.5 server has no body.
	hdr := TxnHeader{ClientId: 7, Cxid: 0, Zxid: 9, Time: 1, Type: int32(OpCloseSession)}
	got, err := DecodeTxn(jute.Marshal(&hdr), 0)
	if err != nil || got.Body != nil || got.Digest != nil {
		t.Fatalf("bodyless closeSession: %+v %v", got, err)
	}
	// A create from a pre-3.3 log lacks parentCVersion.
	hdr.Type = int32(OpCreate)
	var w jute.Writer
	hdr.Encode(&w)
	v0 := CreateTxnV0{Path: "/x", Data: []byte("d"), Acl: OpenACLUnsafe, Ephemeral: true}
	v0.Encode(&w)
	got, err = DecodeTxn(w.Bytes(), 0)
	if err != nil {
		t.Fatal(err)
	}
	ct, ok := got.Body.(*CreateTxn)
	if !ok || ct.ParentCVersion != -1 || ct.Path != "/x" || !ct.Ephemeral {
		t.Fatalf("CreateTxnV0 fallback: %+v", got.Body)
	}
	// A digest follows the record when present.
	entry := TxnEntry{Header: hdr, Body: &CreateTxn{Path: "/y", Acl: OpenACLUnsafe, ParentCVersion: 3}, Digest: &TxnDigest{Version: 2, TreeDigest: -42}}
	got, err = DecodeTxn(entry.Marshal(), 0)
	if err != nil || !reflect.DeepEqual(got, &entry) {
		t.Fatalf("digest round trip: %+v %v", got, err)
	}
	// Garbage after the digest is an error.
	if _, err := DecodeTxn(append(entry.Marshal(), 1), 0); err == nil {
		t.Fatal("trailing byte accepted")
	}
	// A multi's sub-txns decode by their type.
	mt := MultiTxn{Txns: []Txn{{Type: int32(OpDelete), Data: jute.Marshal(&DeleteTxn{Path: "/z"})}}}
	sub, err := DecodeSubTxn(&mt.Txns[0], 0)
	if err != nil || sub.(*DeleteTxn).Path != "/z" {
		t.Fatalf("sub txn: %+v %v", sub, err)
	}
}

func TestHandshakeOldClient(t *testing.T) {
	h := Handshake{ConnectRequest: ConnectRequest{TimeOut: 30000, Passwd: make([]byte, 16)}, ReadOnly: true}
	b := jute.Marshal(&h)
	if len(b) != 45 {
		t.Fatalf("handshake is %d bytes, want 45", len(b))
	}
	var got Handshake
	if err := jute.Unmarshal(b, &got); err != nil || !got.ReadOnly || got.OldClient {
		t.Fatalf("%+v %v", got, err)
	}
	if err := jute.Unmarshal(b[:44], &got); err != nil || got.ReadOnly || !got.OldClient {
		t.Fatalf("old client: %+v %v", got, err)
	}
	reply := HandshakeReply{ConnectResponse: ConnectResponse{Passwd: make([]byte, 16)}}
	if n := len(jute.Marshal(&reply)); n != 37 {
		t.Fatalf("reply is %d bytes, want 37", n)
	}
	reply.OldClient = true
	if n := len(jute.Marshal(&reply)); n != 36 {
		t.Fatalf("old reply is %d bytes, want 36", n)
	}
}
