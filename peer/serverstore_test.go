package peer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"
	"github.com/rs/zerolog"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/netio"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/server"
	"github.com/gozk/gozk/zab"
)

// ensembleServer opens an ensemble server (serving nothing until a
// learner starts) on dir.
func ensembleServer(t *testing.T, dir string) *server.Server {
	t.Helper()
	cfg := server.Defaults()
	cfg.DataDir = dir
	cfg.ClientAddr = "127.0.0.1:0"
	cfg.TickTime = 200 * time.Millisecond
	cfg.Ensemble = true
	cfg.ServerID = 2
	srv, err := server.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// createTxn is a create of path as a Java leader proposes it.
func createTxn(zxid int64, session int64, cxid int32, path string, parentCVersion int32) []byte {
	e := proto.TxnEntry{
		Header: proto.TxnHeader{ClientId: session, Cxid: cxid, Zxid: zxid, Time: 1700000000000, Type: int32(proto.OpCreate)},
		Body:   &proto.CreateTxn{Path: path, Data: []byte("v"), Acl: proto.OpenACLUnsafe, ParentCVersion: parentCVersion},
	}
	return e.Marshal()
}

// followServer runs a learner backed by srv against the scripted leader
// at addr until the leader hangs up.
func followServer(t *testing.T, addr string, srv *server.Server, observer bool) error {
	t.Helper()
	m := &Member{srv: srv}
	current, accepted, err := m.epochs()
	if err != nil {
		t.Fatal(err)
	}
	l := zab.NewLearner(zab.LearnerConfig{ID: 2, Observer: observer, AcceptedEpoch: accepted, CurrentEpoch: current, LastZxid: srv.LastZxid()})
	store := &serverStore{srv: srv, observer: observer}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return FollowLeader(ctx, LearnerConn{LeaderAddrs: []string{addr}, InitTimeout: 5 * time.Second, SyncTimeout: 5 * time.Second,
		MaxPacket: jute.DefaultMaxBuffer, Logger: zerolog.Nop()}, l, store, LearnerHooks{
		Revalidated: srv.Revalidated,
		SyncDone:    func(proto.QuorumPacket) { srv.SyncDone() },
	})
}

// paths lists the tree's paths outside /zookeeper.
func paths(srv *server.Server) string {
	var out []string
	srv.Tree().Walk(func(path string, _ []byte, _ []proto.ACL, _ proto.StatPersisted) error {
		if path != "" && !strings.HasPrefix(path, "/zookeeper") {
			out = append(out, path)
		}
		return nil
	})
	sort.Strings(out)
	return strings.Join(out, " ")
}

func reopen(t *testing.T, srv *server.Server, dir string) *server.Server {
	t.Helper()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	return ensembleServer(t, dir)
}

// TestFollowerDiffCommitBetweenNewLeaderAndUpToDate plays a Java leader's
// DIFF to a fresh follower: two committed txns, a proposal the leader
// commits only after NEWLEADER (3.8.0 sends that COMMIT before
// UPTODATE), then the broadcast. Everything committed is applied, the
// txns are logged (a restart has them), and the epochs are written.
func TestFollowerDiffCommitBetweenNewLeaderAndUpToDate(t *testing.T) {
	dir := t.TempDir()
	srv := ensembleServer(t, dir)
	addr, done := leaderOnLoopback(t, func(l *scriptedLeader) {
		l.handshake(0, 1, 0)
		l.send(zab.Diff, 0x100000003, nil)
		l.send(zab.Proposal, 0x100000001, createTxn(0x100000001, 0x100, 1, "/a", 0))
		l.send(zab.Commit, 0x100000001, nil)
		l.send(zab.Proposal, 0x100000002, createTxn(0x100000002, 0x100, 2, "/b", 1))
		l.send(zab.Commit, 0x100000002, nil)
		l.send(zab.Proposal, 0x100000003, createTxn(0x100000003, 0x100, 3, "/c", 2))
		l.send(zab.NewLeader, 0x100000000, nil)
		l.expect(zab.Ack, 0x100000000)
		l.send(zab.Commit, 0x100000003, nil)
		l.send(zab.UpToDate, -1, nil)
		l.expect(zab.Ack, 0x100000000)
		// Logged only now, in the broadcast: acknowledged as a proposal.
		l.expect(zab.Ack, 0x100000003)
		l.send(zab.Proposal, 0x100000004, createTxn(0x100000004, 0x100, 4, "/d", 3))
		l.expect(zab.Ack, 0x100000004)
		l.send(zab.Commit, 0x100000004, nil)
		l.send(zab.Ping, 0x100000004, nil)
		l.expect(zab.Ping, 0x100000004)
	})
	err := followServer(t, addr, srv, false)
	<-done
	if !errors.Is(err, ErrLeaderLost) {
		t.Fatalf("FollowLeader = %v, want the leader lost", err)
	}
	if got := paths(srv); got != "/a /b /c /d" {
		t.Fatalf("tree holds %q", got)
	}
	if err := srv.StopServing(); err != nil {
		t.Fatal(err)
	}
	srv = reopen(t, srv, dir)
	defer srv.Close()
	if got, z := paths(srv), srv.LastZxid(); got != "/a /b /c /d" || z != 0x100000004 {
		t.Fatalf("after a restart the tree holds %q up to 0x%x", got, z)
	}
	e, err := srv.Store().Epochs()
	if err != nil || e.Current != 1 || e.Accepted != 1 {
		t.Fatalf("epochs %+v, %v; want current and accepted 1", e, err)
	}
}

// TestFollowerTruncates: a follower that logged txns the new leader
// never committed is told to TRUNC; they are gone from its tree and from
// its log, so a restart does not bring them back.
func TestFollowerTruncates(t *testing.T) {
	dir := t.TempDir()
	srv := ensembleServer(t, dir)
	// Epoch 1 logged /a, /b, /c; the new leader (epoch 2) has only /a.
	for i, p := range []string{"/a", "/b", "/c"} {
		z := int64(0x100000001 + i)
		if err := srv.LogTxn(z, createTxn(z, 0x100, int32(i+1), p, int32(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := srv.FlushLog(); err != nil {
		t.Fatal(err)
	}
	srv.Store().SetAcceptedEpoch(1)
	srv.Store().SetCurrentEpoch(1)
	if err := srv.StopServing(); err != nil { // reload: the tree counts what was logged
		t.Fatal(err)
	}
	if z := srv.LastZxid(); z != 0x100000003 {
		t.Fatalf("reloaded tree at 0x%x", z)
	}
	addr, done := leaderOnLoopback(t, func(l *scriptedLeader) {
		l.handshake(1, 2, 0x100000003)
		l.send(zab.Trunc, 0x100000001, nil)
		l.send(zab.NewLeader, 0x200000000, nil)
		l.expect(zab.Ack, 0x200000000)
		l.send(zab.UpToDate, -1, nil)
		l.expect(zab.Ack, 0x200000000)
		l.send(zab.Proposal, 0x200000001, createTxn(0x200000001, 0x100, 9, "/x", 1))
		l.expect(zab.Ack, 0x200000001)
		l.send(zab.Commit, 0x200000001, nil)
		l.send(zab.Ping, 0x200000001, nil)
		l.expect(zab.Ping, 0x200000001)
	})
	err := followServer(t, addr, srv, false)
	<-done
	if !errors.Is(err, ErrLeaderLost) {
		t.Fatalf("FollowLeader = %v", err)
	}
	if got := paths(srv); got != "/a /x" {
		t.Fatalf("tree holds %q, want /a /x", got)
	}
	if err := srv.StopServing(); err != nil {
		t.Fatal(err)
	}
	if got := paths(srv); got != "/a /x" {
		t.Fatalf("reloaded from the log the tree holds %q, want /a /x", got)
	}
	srv = reopen(t, srv, dir)
	defer srv.Close()
	if got := paths(srv); got != "/a /x" {
		t.Fatalf("after a restart the tree holds %q, want /a /x", got)
	}
}

// TestLeaderDiesMidSnap: the leader hangs up in the middle of the SNAP's
// stream. The follower keeps its own tree and log, and the next leader's
// SNAP replaces them whole.
func TestLeaderDiesMidSnap(t *testing.T) {
	snap, err := os.ReadFile(filepath.Join("..", "persistence", "zkfiles", "testdata", "java-snapstream.bin"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	srv := ensembleServer(t, dir)
	defer func() { srv.Close() }()
	if err := srv.LogTxn(0x100000001, createTxn(0x100000001, 0x100, 1, "/mine", 0)); err != nil {
		t.Fatal(err)
	}
	srv.Store().SetAcceptedEpoch(1)
	srv.Store().SetCurrentEpoch(1)
	if err := srv.StopServing(); err != nil {
		t.Fatal(err)
	}
	before := paths(srv)
	addr, done := leaderOnLoopback(t, func(l *scriptedLeader) {
		l.handshake(1, 2, 0x100000001)
		l.send(zab.Snap, 0x100000006, nil)
		l.conn.Write(snap[:len(snap)/2])
	})
	err = followServer(t, addr, srv, false)
	<-done
	if err == nil {
		t.Fatal("FollowLeader returned nil after a SNAP cut short")
	}
	if err := srv.StopServing(); err != nil {
		t.Fatal(err)
	}
	if got := paths(srv); got != before || srv.LastZxid() != 0x100000001 {
		t.Fatalf("after a SNAP cut short the tree holds %q at 0x%x, want %q at 0x100000001", got, srv.LastZxid(), before)
	}
	// The next leader: the follower accepted epoch 2 from the last one.
	addr, done = leaderOnLoopback(t, func(l *scriptedLeader) {
		l.handshake(2, 3, 0x100000001)
		l.send(zab.Snap, 0x100000006, nil)
		l.conn.Write(snap)
		l.send(zab.NewLeader, 0x300000000, nil)
		l.expect(zab.Ack, 0x300000000)
		l.send(zab.UpToDate, -1, nil)
		l.expect(zab.Ack, 0x300000000)
	})
	err = followServer(t, addr, srv, false)
	<-done
	if !errors.Is(err, ErrLeaderLost) {
		t.Fatalf("FollowLeader = %v", err)
	}
	snapPaths := paths(srv)
	if strings.Contains(snapPaths, "/mine") || snapPaths == "" || srv.LastZxid() != 0x100000006 {
		t.Fatalf("after the SNAP the tree holds %q at 0x%x", snapPaths, srv.LastZxid())
	}
	srv = reopen(t, srv, dir)
	if got := paths(srv); got != snapPaths || srv.LastZxid() != 0x100000006 {
		t.Fatalf("after a restart the tree holds %q at 0x%x, want the SNAP's %q", got, srv.LastZxid(), snapPaths)
	}
}

// TestClientWritesThroughAFollower: a client's create on a follower goes
// to the leader as a REQUEST with the client's session, cxid, body and
// identities; the leader's commit of the matching txn answers it, a read
// queued behind it waits for it, and a sync goes through the leader.
func TestClientWritesThroughAFollower(t *testing.T) {
	dir := t.TempDir()
	srv := ensembleServer(t, dir)
	defer srv.Close()
	ln, err := netio.Listen(srv.ClientPortConfig(), srv)
	if err != nil {
		t.Fatal(err)
	}
	srv.Serve(ln)
	reqs := make(chan zab.ForwardedRequest, 4)
	addr, done := leaderOnLoopback(t, func(l *scriptedLeader) {
		l.handshake(0, 1, 0)
		l.diffWithNothing(0, 1)
		zxid := int64(0x100000000)
		for {
			p := l.read()
			if p == nil {
				return
			}
			switch zab.PacketType(p.Type) {
			case zab.Request:
				r, err := zab.ReadRequest(p.Data)
				if err != nil {
					t.Errorf("REQUEST: %v", err)
					return
				}
				reqs <- r
				var txn []byte
				switch proto.OpCode(r.Op) {
				case proto.OpCreateSession:
					zxid++
					e := proto.TxnEntry{Header: proto.TxnHeader{ClientId: r.Session, Cxid: r.Cxid, Zxid: zxid, Time: 1, Type: r.Op},
						Body: &proto.CreateSessionTxn{TimeOut: 4000}}
					txn = e.Marshal()
				case proto.OpCreate:
					zxid++
					txn = createTxn(zxid, r.Session, r.Cxid, "/written", 0)
				case proto.OpSync:
					// The last request of the test: answered, and the
					// leader goes away.
					l.send(zab.Sync, zxid, nil)
					return
				default:
					t.Errorf("unexpected forwarded op %d", r.Op)
					return
				}
				l.send(zab.Proposal, zxid, txn)
				l.expect(zab.Ack, zxid)
				l.send(zab.Commit, zxid, nil)
			case zab.Ack:
			default:
				t.Errorf("leader got %s", zab.PacketType(p.Type))
			}
		}
	})
	followed := make(chan error, 1)
	go func() { followed <- followServer(t, addr, srv, false) }()
	waitServing(t, srv)
	c, _, err := gozk.Connect([]string{srv.Addr().String()}, 4*time.Second, gozk.WithLogger(quietLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Create("/written", []byte("v"), 0, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatalf("create through the follower: %v", err)
	}
	if ok, _, err := c.Exists("/written"); err != nil || !ok {
		t.Fatalf("exists after the create: %v %v", ok, err)
	}
	if _, err := c.Sync("/written"); err != nil {
		t.Fatalf("sync through the follower: %v", err)
	}
	r := <-reqs
	if proto.OpCode(r.Op) != proto.OpCreateSession || r.Cxid != 0 || len(r.Body) != 4 || r.Session>>56 != 2 {
		t.Errorf("forwarded createSession %+v; want cxid 0, a 4-byte timeout, and server id 2 in the session id", r)
	}
	if r := <-reqs; proto.OpCode(r.Op) != proto.OpCreate || r.Session != c.SessionID() {
		t.Errorf("forwarded create %+v", r)
	}
	if r := <-reqs; proto.OpCode(r.Op) != proto.OpSync {
		t.Errorf("forwarded %+v, want the sync", r)
	}
	<-done
	if err := <-followed; !errors.Is(err, ErrLeaderLost) {
		t.Errorf("FollowLeader = %v, want the leader lost", err)
	}
	if err := srv.StopServing(); err != nil {
		t.Fatal(err)
	}
	c.Close()
}

func waitServing(t *testing.T, srv *server.Server) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for srv.Role() != server.RoleFollower && srv.Role() != server.RoleObserver {
		if time.Now().After(deadline) {
			t.Fatal("the learner never served")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}

// TestLostLeaderKeepsLoggedProposals: a follower in the broadcast logs a
// proposal the leader never commits, then loses the leader. The next
// election must count that txn (Java reloads its tree from the log):
// after StopServing the tree holds it, and so does a restart.
func TestLostLeaderKeepsLoggedProposals(t *testing.T) {
	dir := t.TempDir()
	srv := ensembleServer(t, dir)
	addr, done := leaderOnLoopback(t, func(l *scriptedLeader) {
		l.handshake(0, 1, 0)
		l.diffWithNothing(0, 1)
		l.send(zab.Proposal, 0x100000001, createTxn(0x100000001, 0x100, 1, "/committed", 0))
		l.expect(zab.Ack, 0x100000001)
		l.send(zab.Commit, 0x100000001, nil)
		l.send(zab.Proposal, 0x100000002, createTxn(0x100000002, 0x100, 2, "/logged", 1))
		l.expect(zab.Ack, 0x100000002)
	})
	err := followServer(t, addr, srv, false)
	<-done
	if !errors.Is(err, ErrLeaderLost) {
		t.Fatalf("FollowLeader = %v", err)
	}
	if got := paths(srv); got != "/committed" {
		t.Fatalf("while following the tree holds %q", got)
	}
	if err := srv.StopServing(); err != nil {
		t.Fatal(err)
	}
	if got, z := paths(srv), srv.LastZxid(); got != "/committed /logged" || z != 0x100000002 {
		t.Fatalf("after losing the leader the tree holds %q at 0x%x; want the logged txn counted", got, z)
	}
	srv = reopen(t, srv, dir)
	defer srv.Close()
	if got := paths(srv); got != "/committed /logged" {
		t.Fatalf("after a restart the tree holds %q", got)
	}
}
