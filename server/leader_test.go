package server

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// quorumSink plays the followers of a leading server: it records the
// proposals, and commits what the leader logged once allowed.
type quorumSink struct {
	s *Server

	mu        sync.Mutex
	proposals []int64
	logged    int64
	hold      bool // no quorum: nothing commits
	rolled    chan struct{}
}

func (q *quorumSink) RolledOver() { close(q.rolled) }

func (q *quorumSink) Propose(zxid int64, data []byte) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if h := binaryZxid(data); h != zxid {
		panic("proposal data for another zxid")
	}
	q.proposals = append(q.proposals, zxid)
}

func (q *quorumSink) Logged(zxid int64) {
	q.mu.Lock()
	q.logged = zxid
	hold := q.hold
	q.mu.Unlock()
	if !hold {
		q.s.Committed(zxid)
	}
}

func binaryZxid(data []byte) int64 {
	r := jute.NewReader(data)
	var h proto.TxnHeader
	h.Decode(r)
	return h.Zxid
}

func startLeader(t *testing.T, hold bool) (*Server, *quorumSink) {
	return startLeaderAt(t, hold, 0)
}

func startLeaderAt(t *testing.T, hold bool, initialCounter int64) (*Server, *quorumSink) {
	t.Helper()
	s := startTestServer(t, t.TempDir(), func(c *Config) { c.Ensemble = true; c.ServerID = 3 })
	q := &quorumSink{s: s, hold: hold, rolled: make(chan struct{})}
	if err := s.StartLeading(Leading{Sink: q, Epoch: 4, InitialCounter: initialCounter}); err != nil {
		t.Fatal(err)
	}
	return s, q
}

// TestLeaderAppliesWhatTheQuorumCommits: a leader's writes carry zxids of
// its epoch, are proposed in order, and are answered only once committed.
func TestLeaderAppliesWhatTheQuorumCommits(t *testing.T) {
	s, q := startLeader(t, false)
	c, _ := connect(t, s)
	if _, err := c.Create("/a", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	_, st, err := c.Get("/a")
	if err != nil || st.Czxid>>32 != 4 {
		t.Fatalf("/a: %+v %v; want a zxid of epoch 4", st, err)
	}
	q.mu.Lock()
	props := append([]int64(nil), q.proposals...)
	q.hold = true
	q.mu.Unlock()
	if len(props) != 2 || props[0] != 4<<32|1 || props[1] != 4<<32|2 {
		t.Fatalf("proposals %x, want the createSession then the create, from 0x400000001", props)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Set("/a", []byte("x"), -1)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("set answered (%v) without a quorum", err)
	case <-time.After(200 * time.Millisecond):
	}
	q.mu.Lock()
	logged := q.logged
	q.mu.Unlock()
	s.Committed(logged)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestLeaderPreparesLearnerRequests: a learner's create is prepared with
// its client's identities and session; a request of a session another
// server owns is SESSIONMOVED; an unknown session's is SESSIONEXPIRED.
func TestLeaderPreparesLearnerRequests(t *testing.T) {
	s, _ := startLeader(t, false)
	sid := int64(0x0100000000000007)
	submit := func(owner int64, op proto.OpCode, body []byte) {
		t.Helper()
		if err := s.SubmitLearnerRequest(LearnerRequest{Owner: owner, Session: sid, Cxid: 1, Op: op, Body: body,
			IDs: []proto.Id{{Scheme: "ip", Id: "10.0.0.1"}}}); err != nil {
			t.Fatal(err)
		}
	}
	waitZxid := func(want int64) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for s.LastZxid() < want {
			if time.Now().After(deadline) {
				t.Fatalf("tree at 0x%x, want 0x%x", s.LastZxid(), want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	create := jute.Marshal(&proto.CreateRequest{Path: "/l", Data: []byte("d"), Acl: proto.OpenACLUnsafe})
	submit(1, proto.OpCreate, create)
	waitZxid(4<<32 | 1)
	if _, _, ok := s.Tree().Exists("/l"); ok {
		t.Fatal("a create of an unknown session was applied")
	}
	submit(1, proto.OpCreateSession, []byte{0, 0, 0x0f, 0xa0})
	submit(1, proto.OpCreate, create)
	waitZxid(4<<32 | 3)
	if _, _, ok := s.Tree().Exists("/l"); !ok {
		t.Fatal("the learner's create was not applied")
	}
	if !s.RevalidateSession(2, sid, 4000) {
		t.Fatal("a live session revalidated as dead")
	}
	submit(1, proto.OpDelete, jute.Marshal(&proto.DeleteRequest{Path: "/l", Version: -1}))
	waitZxid(4<<32 | 4)
	if _, _, ok := s.Tree().Exists("/l"); !ok {
		t.Fatal("a request from the server the session moved away from was applied")
	}
	if s.RevalidateSession(2, sid+1, 4000) {
		t.Fatal("an unknown session revalidated as live")
	}
}

// TestLeaderTermEndsWithoutQuorum: batches waiting for a quorum when the
// role ends are not answered, and the server stops serving.
func TestLeaderTermEndsWithoutQuorum(t *testing.T) {
	s, q := startLeader(t, false)
	c, _ := connect(t, s)
	q.mu.Lock()
	q.hold = true
	q.mu.Unlock()
	done := make(chan error, 1)
	go func() {
		_, err := c.Create("/never", nil, 0, zk.WorldACL(zk.PermAll))
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	if err := s.StopServing(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Fatal("a write without a quorum was acknowledged")
	} else if errors.Is(err, zk.ErrNodeExists) {
		t.Fatal(err)
	}
	if s.Serving() {
		t.Fatal("serving after the term ended")
	}
}

// TestLeaderTouchesKeepOwners: a learner's PING reply lists sessions it
// only committed (Java's followers list every session they commit); the
// touch keeps them alive and leaves their owner, so the leader's own
// client is not told its session moved.
func TestLeaderTouchesKeepOwners(t *testing.T) {
	s, _ := startLeader(t, false)
	c, _ := connect(t, s)
	s.TouchSessions(map[int64]int32{c.SessionID(): 4000})
	if _, err := c.Create("/mine", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatalf("create after a learner's touch: %v", err)
	}
}

// TestLeaderZxidRollover: with zookeeper.testingonly.initialZxid near the
// counter's end, the write that would take its last value is not
// prepared, and the leader is told to step down, as Java's leader does.
func TestLeaderZxidRollover(t *testing.T) {
	s, q := startLeaderAt(t, false, 0xfffffffc)
	c, _ := connect(t, s) // createSession: 0x4fffffffd
	if _, err := c.Create("/last", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if z := s.LastZxid(); z != 4<<32|0xfffffffe {
		t.Fatalf("last zxid 0x%x, want 0x4fffffffe", z)
	}
	// A sync takes no zxid: with the counter at its end it is answered,
	// and the leader keeps leading.
	synced := make(chan error, 1)
	go func() { _, err := c.Sync("/last"); synced <- err }()
	select {
	case err := <-synced:
		if err != nil {
			t.Fatalf("sync with the counter at its end: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a sync with the counter at its end was not answered")
	}
	select {
	case <-q.rolled:
		t.Fatal("a sync made the leader give up its epoch")
	default:
	}
	go c.Create("/never", nil, 0, zk.WorldACL(zk.PermAll))
	select {
	case <-q.rolled:
	case <-time.After(10 * time.Second):
		t.Fatal("the leader was not told its zxids ran out")
	}
	if _, _, ok := s.Tree().Exists("/never"); ok {
		t.Fatal("a write past the counter's end was applied")
	}
}

// TestLeaderZxidRolloverOnCreateSession: a createSession takes a zxid
// like any write, so one arriving when the counter is at its end makes the
// leader give up its epoch instead of using the counter's last value, as
// every proposal does on Java's leader.
func TestLeaderZxidRolloverOnCreateSession(t *testing.T) {
	s, q := startLeaderAt(t, false, 0xfffffffe)
	c, _, err := zk.Connect([]string{s.Addr().String()}, 4*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	select {
	case <-q.rolled:
	case <-time.After(10 * time.Second):
		t.Fatal("a createSession with the counter at its end did not make the leader give up")
	}
	if z := s.LastZxid(); uint32(z) == 0xffffffff {
		t.Fatalf("the session took the counter's last value: 0x%x", z)
	}
}

// TestLeaderSyncWaitsForEarlierWrites: followers can apply and answer a
// txn the leader has not applied yet (the quorum commits it while the
// leader's own apply waits), so a sync of the leader's own client must
// be answered only once every write prepared before it is applied; the
// read after it then sees them, as behind Java's leader.
func TestLeaderSyncWaitsForEarlierWrites(t *testing.T) {
	s, q := startLeader(t, false)
	writer, _ := connect(t, s)
	reader, _ := connect(t, s)
	if _, err := writer.Create("/r", []byte("old"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	q.mu.Lock()
	q.hold = true
	q.mu.Unlock()
	set := make(chan error, 1)
	go func() {
		_, err := writer.Set("/r", []byte("new"), -1)
		set <- err
	}()
	// The set is prepared and proposed, not committed.
	deadline := time.Now().Add(10 * time.Second)
	for {
		q.mu.Lock()
		n := len(q.proposals)
		q.mu.Unlock()
		if n == 4 { // two createSessions, the create, the set
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d proposals; want the set proposed", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	synced := make(chan error, 1)
	go func() {
		_, err := reader.Sync("/r")
		synced <- err
	}()
	select {
	case err := <-synced:
		t.Fatalf("sync answered (%v) before the set before it committed", err)
	case <-time.After(300 * time.Millisecond):
	}
	q.mu.Lock()
	q.hold = false
	logged := q.logged
	q.mu.Unlock()
	s.Committed(logged)
	if err := <-set; err != nil {
		t.Fatal(err)
	}
	if err := <-synced; err != nil {
		t.Fatal(err)
	}
	if data, _, err := reader.Get("/r"); err != nil || string(data) != "new" {
		t.Fatalf("read after sync: %q, %v; want the set's data", data, err)
	}
}
