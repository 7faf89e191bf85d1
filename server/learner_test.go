package server

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// forwarded is one request a learner sent its leader.
type forwarded struct {
	sid  int64
	cxid int32
	op   proto.OpCode
	body []byte
	ids  []proto.Id
}

// fakeLeader is the learner's leader link in these tests: it records what
// the learner sends, and the test plays the leader's answers by calling
// the server as the peer would (LogTxn, CommitTxn, Revalidated,
// SyncDone), from one goroutine.
type fakeLeader struct {
	mu           sync.Mutex
	requests     chan forwarded
	revalidating chan int64
	zxid         int64
}

func (f *fakeLeader) Forward(sid int64, cxid int32, op proto.OpCode, body []byte, ids []proto.Id) error {
	f.requests <- forwarded{sid, cxid, op, append([]byte(nil), body...), ids}
	return nil
}

func (f *fakeLeader) Revalidate(sid int64, _ int32) error {
	f.revalidating <- sid
	return nil
}

// commit logs and commits a txn of type typ with body for request r, as
// a leader's PROPOSAL and COMMIT do.
func (f *fakeLeader) commit(t *testing.T, s *Server, r forwarded, typ proto.OpCode, body jute.Record) {
	t.Helper()
	f.mu.Lock()
	f.zxid++
	zxid := f.zxid
	f.mu.Unlock()
	e := proto.TxnEntry{Header: proto.TxnHeader{ClientId: r.sid, Cxid: r.cxid, Zxid: zxid, Time: time.Now().UnixMilli(), Type: int32(typ)}, Body: body}
	if err := s.LogTxn(zxid, e.Marshal()); err != nil {
		t.Fatal(err)
	}
	if err := s.CommitTxn(zxid); err != nil {
		t.Fatal(err)
	}
}

func (f *fakeLeader) next(t *testing.T) forwarded {
	t.Helper()
	select {
	case r := <-f.requests:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("nothing forwarded to the leader")
		return forwarded{}
	}
}

// startLearner runs an ensemble server serving as a follower of a
// fakeLeader, which answers createSession requests by itself.
func startLearner(t *testing.T) (*Server, *fakeLeader) {
	t.Helper()
	s := startTestServer(t, t.TempDir(), func(c *Config) { c.Ensemble = true; c.ServerID = 5 })
	f := &fakeLeader{requests: make(chan forwarded, 16), revalidating: make(chan int64, 4), zxid: 0x100000000}
	if err := s.StartLearning(Learning{Link: f}); err != nil {
		t.Fatal(err)
	}
	return s, f
}

// connectThrough connects a client to a learner, playing the leader's
// commit of its createSession.
func connectThrough(t *testing.T, s *Server, f *fakeLeader) *zk.Conn {
	t.Helper()
	type result struct {
		c   *zk.Conn
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, ev, err := zk.Connect([]string{s.Addr().String()}, 4*time.Second, zk.WithLogInfo(false))
		if err == nil {
			for e := range ev {
				if e.State == zk.StateHasSession {
					break
				}
			}
		}
		done <- result{c, err}
	}()
	r := f.next(t)
	if r.op != proto.OpCreateSession || r.cxid != 0 || r.sid>>56 != 5 {
		t.Fatalf("forwarded %+v; want a createSession with cxid 0 and server id 5 in its session id", r)
	}
	f.commit(t, s, r, proto.OpCreateSession, &proto.CreateSessionTxn{TimeOut: 4000})
	res := <-done
	if res.err != nil {
		t.Fatal(res.err)
	}
	t.Cleanup(res.c.Close)
	return res.c
}

// TestLearnerAnswersWhatTheLeaderCommits: a write is forwarded with the
// client's session, cxid, body and identities; a read sent behind it
// waits for its commit; a txn committed for another server's client is
// applied too.
func TestLearnerAnswersWhatTheLeaderCommits(t *testing.T) {
	s, f := startLearner(t)
	c := connectThrough(t, s, f)
	created := make(chan error, 1)
	go func() {
		_, err := c.Create("/a", []byte("x"), 0, zk.WorldACL(zk.PermAll))
		created <- err
	}()
	r := f.next(t)
	if r.op != proto.OpCreate || r.sid != c.SessionID() || len(r.ids) == 0 || r.ids[0].Scheme != "ip" {
		t.Fatalf("forwarded %+v", r)
	}
	var req proto.CreateRequest
	jr := jute.NewReader(r.body)
	req.Decode(jr)
	if jr.Err() != nil || req.Path != "/a" {
		t.Fatalf("forwarded body %q: %v", req.Path, jr.Err())
	}
	// Another server's client writes first.
	f.commit(t, s, forwarded{sid: 0x7700000000000001, cxid: 3}, proto.OpCreate,
		&proto.CreateTxn{Path: "/other", Data: []byte{}, Acl: proto.OpenACLUnsafe, ParentCVersion: 1})
	select {
	case err := <-created:
		t.Fatalf("the create was answered (%v) before its commit", err)
	case <-time.After(100 * time.Millisecond):
	}
	f.commit(t, s, r, proto.OpCreate, &proto.CreateTxn{Path: "/a", Data: []byte("x"), Acl: proto.OpenACLUnsafe, ParentCVersion: 2})
	if err := <-created; err != nil {
		t.Fatalf("create: %v", err)
	}
	for _, p := range []string{"/a", "/other"} {
		if ok, _, err := c.Exists(p); err != nil || !ok {
			t.Errorf("exists %s: %v %v", p, ok, err)
		}
	}
	// A failure comes back as the ErrorTxn the leader made.
	failed := make(chan error, 1)
	go func() {
		_, err := c.Create("/a", nil, 0, zk.WorldACL(zk.PermAll))
		failed <- err
	}()
	f.commit(t, s, f.next(t), proto.OpError, &proto.ErrorTxn{Err: int32(proto.ErrNodeExists)})
	if err := <-failed; !errors.Is(err, zk.ErrNodeExists) {
		t.Fatalf("create of an existing node: %v", err)
	}
}

// TestLearnerSyncGoesThroughTheLeader: a sync waits for the leader's
// SYNC, and a read behind it for the sync.
func TestLearnerSyncGoesThroughTheLeader(t *testing.T) {
	s, f := startLearner(t)
	c := connectThrough(t, s, f)
	synced := make(chan error, 1)
	go func() {
		_, err := c.Sync("/")
		synced <- err
	}()
	if r := f.next(t); r.op != proto.OpSync {
		t.Fatalf("forwarded %+v, want the sync", r)
	}
	select {
	case err := <-synced:
		t.Fatalf("sync answered (%v) before the leader's SYNC", err)
	case <-time.After(100 * time.Millisecond):
	}
	s.SyncDone()
	if err := <-synced; err != nil {
		t.Fatal(err)
	}
}

// TestLearnerSessionMovedClosesTheConnection: when the leader finds the
// session owned elsewhere, Java answers nothing and closes the
// connection; so does gozk.
func TestLearnerSessionMovedClosesTheConnection(t *testing.T) {
	s, f := startLearner(t)
	c := connectThrough(t, s, f)
	done := make(chan error, 1)
	go func() {
		_, err := c.Set("/x", nil, -1)
		done <- err
	}()
	f.commit(t, s, f.next(t), proto.OpError, &proto.ErrorTxn{Err: int32(proto.ErrSessionMoved)})
	select {
	case err := <-done:
		if err == nil || errors.Is(err, zk.ErrSessionMoved) {
			t.Fatalf("set answered %v; want the connection closed without an answer", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the connection stayed open")
	}
}

// TestLearnerRevalidatesReconnects: a client reconnecting with a session
// id gets its session only when the leader says it lives.
func TestLearnerRevalidatesReconnects(t *testing.T) {
	s, f := startLearner(t)
	for _, valid := range []bool{true, false} {
		sid := int64(0x0300000000000042)
		if !valid {
			sid++
		}
		pw := proto.SessionPassword(sid)
		conn := dialRaw(t, s)
		h := proto.Handshake{ConnectRequest: proto.ConnectRequest{TimeOut: 4000, SessionId: sid, Passwd: pw[:]}}
		sendFrame(t, conn, jute.Marshal(&h))
		select {
		case got := <-f.revalidating:
			if got != sid {
				t.Fatalf("revalidating 0x%x, want 0x%x", got, sid)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no REVALIDATE")
		}
		s.Revalidated(sid, valid)
		var reply proto.ConnectResponse
		readFrame(t, conn, &reply)
		if valid && (reply.SessionId != sid || reply.TimeOut != 4000) || !valid && reply.TimeOut != 0 {
			t.Fatalf("valid=%v: ConnectResponse %+v", valid, reply)
		}
		conn.Close()
	}
	if n := s.Metrics().ConnectionRevalidateCount.Load(); n != 2 {
		t.Errorf("connection_revalidate_count %d, want 2", n)
	}
	if tt := s.TouchTable(); tt[0x0300000000000042] != 4000 {
		t.Errorf("touch table %v lacks the revalidated session", tt)
	}
}

// TestLearnerClosesSessionsTheLeaderCloses: the commit of a closeSession
// made by the leader (an expiry) drops the session's connection here.
func TestLearnerClosesSessionsTheLeaderCloses(t *testing.T) {
	s, f := startLearner(t)
	c := connectThrough(t, s, f)
	f.commit(t, s, forwarded{sid: c.SessionID()}, proto.OpCloseSession, &proto.CloseSessionTxn{Paths2Delete: []string{}})
	deadline := time.Now().Add(10 * time.Second)
	for c.State() == zk.StateHasSession {
		if time.Now().After(deadline) {
			t.Fatal("the client kept its connection after the leader closed its session")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestEnsembleServerServesOnlyWhileLearning: before the learner starts
// and after StopServing, clients are turned away.
func TestEnsembleServerServesOnlyWhileLearning(t *testing.T) {
	s := startTestServer(t, t.TempDir(), func(c *Config) { c.Ensemble = true; c.ServerID = 5 })
	if s.Serving() {
		t.Fatal("an ensemble server serves before its role starts")
	}
	conn := dialRaw(t, s)
	h := proto.Handshake{ConnectRequest: proto.ConnectRequest{TimeOut: 4000}}
	sendFrame(t, conn, jute.Marshal(&h))
	if !closedWithoutReply(conn) {
		t.Fatal("a looking server answered a ConnectRequest")
	}
	f := &fakeLeader{requests: make(chan forwarded, 4), zxid: 0x100000000}
	if err := s.StartLearning(Learning{Link: f}); err != nil {
		t.Fatal(err)
	}
	c := connectThrough(t, s, f)
	if err := s.StopServing(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for c.State() == zk.StateHasSession {
		if time.Now().After(deadline) {
			t.Fatal("StopServing left a client connected")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := s.Metrics().CnxnClosedWithoutServer.Load(); n == 0 {
		t.Error("cnxn_closed_without_zk_server_running not counted")
	}
}

func dialRaw(t *testing.T, s *Server) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func sendFrame(t *testing.T, conn net.Conn, payload []byte) {
	t.Helper()
	frame := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
	if _, err := conn.Write(append(frame, payload...)); err != nil {
		t.Fatal(err)
	}
}

func readFrame(t *testing.T, conn net.Conn, rec jute.Record) {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var n [4]byte
	if _, err := io.ReadFull(conn, n[:]); err != nil {
		t.Fatalf("reading a frame: %v", err)
	}
	b := make([]byte, binary.BigEndian.Uint32(n[:]))
	if _, err := io.ReadFull(conn, b); err != nil {
		t.Fatalf("reading a frame: %v", err)
	}
	r := jute.NewReader(b)
	rec.Decode(r)
	if r.Err() != nil {
		t.Fatalf("decoding a frame: %v", r.Err())
	}
}

// closedWithoutReply reports whether the server closed conn without
// sending anything.
func closedWithoutReply(conn net.Conn) bool {
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var b [1]byte
	n, err := conn.Read(b[:])
	return n == 0 && errors.Is(err, io.EOF)
}
