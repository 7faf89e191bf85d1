package server

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// txnSink plays a quorum that commits every proposal at once, keeping
// each proposal's txn.
type txnSink struct {
	s  *Server
	mu sync.Mutex
	// txns are the proposals' txns, in zxid order.
	txns []*proto.TxnEntry
	err  error
}

func (q *txnSink) RolledOver() {}

func (q *txnSink) Propose(zxid int64, data []byte) {
	txn, err := proto.DecodeTxn(data, 0)
	q.mu.Lock()
	defer q.mu.Unlock()
	if err != nil && q.err == nil {
		q.err = fmt.Errorf("proposal 0x%x: %w", zxid, err)
	}
	q.txns = append(q.txns, txn)
}

func (q *txnSink) Logged(zxid int64) { q.s.Committed(zxid) }

// TestLeaderAnswersEachLearnerRequestOnce: a learner's requests are
// checked against the nodes' ACLs with the identities its client
// authenticated with (the REQUEST's authinfo), and each becomes exactly
// one txn of the client's session and cxid, as Java's leader prepares
// them: the write itself, a CheckVersionTxn for a check sent alone, or
// an ErrorTxn with the code prep found (Java's PrepRequestProcessor).
// The learner matches each commit to the oldest request its session
// forwarded, so a missing txn leaves the requests after it unmatched and
// a second one is taken for the next request.
func TestLeaderAnswersEachLearnerRequestOnce(t *testing.T) {
	s := startTestServer(t, t.TempDir(), func(c *Config) { c.Ensemble = true; c.ServerID = 3 })
	q := &txnSink{s: s}
	if err := s.StartLeading(Leading{Sink: q, Epoch: 4}); err != nil {
		t.Fatal(err)
	}
	const session = int64(0x0100000000000007)
	alice := proto.Id{Scheme: "digest", Id: "alice:aliceshash"}
	bob := proto.Id{Scheme: "digest", Id: "bob:bobshash"}
	submit := func(cxid int32, op proto.OpCode, body []byte, ids ...proto.Id) {
		t.Helper()
		if err := s.SubmitLearnerRequest(LearnerRequest{Owner: 1, Session: session, Cxid: cxid, Op: op, Body: body, IDs: ids}); err != nil {
			t.Fatal(err)
		}
	}
	setData := func(data string) []byte {
		return jute.Marshal(&proto.SetDataRequest{Path: "/secret", Data: []byte(data), Version: -1})
	}
	check := func(version int32) []byte {
		return jute.Marshal(&proto.CheckVersionRequest{Path: "/secret", Version: version})
	}
	submit(0, proto.OpCreateSession, []byte{0, 0, 0x0f, 0xa0})
	submit(1, proto.OpCreate, jute.Marshal(&proto.CreateRequest{Path: "/secret", Data: []byte("v0"),
		Acl: []proto.ACL{{Perms: proto.PermAll, Id: alice}}}), alice)
	submit(2, proto.OpSetData, setData("by alice"), alice)
	submit(3, proto.OpSetData, setData("by bob"), bob)
	submit(4, proto.OpCheck, check(1), alice)
	submit(5, proto.OpCheck, check(1), bob)
	submit(6, proto.OpCheck, check(7), alice)
	submit(7, proto.OpDelete, jute.Marshal(&proto.DeleteRequest{Path: "/missing", Version: -1}))
	submit(8, proto.OpSetData, []byte{1, 2, 3})
	submit(9, proto.OpCreate, jute.Marshal(&proto.CreateRequest{Path: "/marker", Acl: proto.OpenACLUnsafe}))

	// Each request is prepared in order, so once the marker is in the
	// tree every txn before it has been proposed.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, _, ok := s.Tree().Exists("/marker"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the learner's requests were not all applied")
		}
		time.Sleep(5 * time.Millisecond)
	}
	q.mu.Lock()
	txns, err := q.txns, q.err
	q.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"0 createSession",
		"1 create",
		"2 setData",
		"3 error NOAUTH", // bob may not write /secret
		"4 check",        // version 1 after alice's write
		"5 error NOAUTH", // nor read it, which a check needs
		"6 error BADVERSION",
		"7 error NONODE",
		"8 error MARSHALLINGERROR", // a body that does not decode
		"9 create",
	}
	var got []string
	for _, txn := range txns {
		if txn.Header.ClientId != session {
			t.Errorf("txn 0x%x of session 0x%x, want 0x%x", txn.Header.Zxid, txn.Header.ClientId, session)
		}
		line := fmt.Sprintf("%d %s", txn.Header.Cxid, proto.OpCode(txn.Header.Type))
		if e, ok := txn.Body.(*proto.ErrorTxn); ok {
			line += " " + proto.ErrCode(e.Err).Name()
		}
		got = append(got, line)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the learner's requests made the txns\n%q\nwant one each:\n%q", got, want)
	}
	data, _, _, ok := s.Tree().GetData("/secret")
	if !ok || string(data) != "by alice" {
		t.Fatalf("/secret holds %q (exists: %v), want alice's write only", data, ok)
	}
}
