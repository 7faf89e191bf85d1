package peer

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/internal/testport"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/persistence/zkfiles"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/server"
	"github.com/gozk/gozk/zab"
)

// recordingStore is a LearnerStore that records what it is asked, loads a
// SNAP stream by decoding it, and makes each logged txn durable at once.
type recordingStore struct {
	mu     sync.Mutex
	calls  []string
	nodes  int
	logged chan int64
}

func newRecordingStore() *recordingStore { return &recordingStore{logged: make(chan int64, 64)} }

func (s *recordingStore) record(format string, args ...any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, fmt.Sprintf(format, args...))
	return nil
}

func (s *recordingStore) PersistAcceptedEpoch(e int64) error { return s.record("accepted %d", e) }
func (s *recordingStore) PersistCurrentEpoch(e int64) error  { return s.record("current %d", e) }
func (s *recordingStore) TruncateLog(z int64) error          { return s.record("truncate 0x%x", z) }
func (s *recordingStore) LoadSnapshot(r *bufio.Reader, z int64) error {
	info, err := zkfiles.DecodeSnapStream(r, 0, zkfiles.SnapshotHandler{})
	if err != nil {
		return err
	}
	s.nodes = info.Nodes
	return s.record("load snapshot 0x%x (%d nodes, %d sessions)", z, info.Nodes, info.Sessions)
}
func (s *recordingStore) TakeSnapshot(sync bool) error { return s.record("snapshot sync=%v", sync) }
func (s *recordingStore) ApplyTxn(t zab.Txn) error     { return s.record("apply 0x%x", t.Zxid) }
func (s *recordingStore) LogTxn(t zab.Txn) error {
	s.logged <- t.Zxid
	return s.record("log 0x%x", t.Zxid)
}
func (s *recordingStore) FlushLog() error                      { return s.record("flush") }
func (s *recordingStore) CommitTxn(z int64) error              { return s.record("commit 0x%x", z) }
func (s *recordingStore) StartServing(server.LeaderLink) error { return s.record("serve") }
func (s *recordingStore) Logged() <-chan int64                 { return s.logged }
func (s *recordingStore) Calls() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.calls, "; ")
}

func txnBytes(zxid int64) []byte {
	b := binary.BigEndian.AppendUint64(nil, 0x5)
	b = binary.BigEndian.AppendUint32(b, 1)
	b = binary.BigEndian.AppendUint64(b, uint64(zxid))
	b = binary.BigEndian.AppendUint64(b, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(proto.OpSetData))
	return append(b, "record"...)
}

func follow(t *testing.T, addr string, l *zab.Learner, store LearnerStore, hooks LearnerHooks) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return FollowLeader(ctx, LearnerConn{LeaderAddrs: []string{addr}, InitTimeout: 5 * time.Second, SyncTimeout: 5 * time.Second,
		MaxPacket: jute.DefaultMaxBuffer, Logger: zerolog.Nop()}, l, store, hooks)
}

// TestFollowerSyncsBySnapFromAScriptedLeader plays what a Java 3.8.0
// leader sends a follower that needs a SNAP: the snapshot stream Java
// writes (zkfiles' fixture), a committed and an outstanding proposal, a
// COMMIT between NEWLEADER and UPTODATE, then the broadcast.
func TestFollowerSyncsBySnapFromAScriptedLeader(t *testing.T) {
	snap, err := os.ReadFile("../persistence/zkfiles/testdata/java-snapstream.bin")
	if err != nil {
		t.Fatal(err)
	}
	var pingReply proto.QuorumPacket
	addr, done := leaderOnLoopback(t, func(l *scriptedLeader) {
		info := l.expect(zab.FollowerInfo, 0x100000000)
		if li, _ := zab.LearnerInfoOf(info.Data); li.Serverid != 2 {
			t.Errorf("FOLLOWERINFO names server %d", li.Serverid)
		}
		l.send(zab.LeaderInfo, 0x200000000, zab.IntBody(zab.ProtocolVersion))
		l.expect(zab.AckEpoch, 0x100000003)
		l.send(zab.Snap, 0x100000006, nil)
		l.conn.Write(snap)
		l.send(zab.Proposal, 0x100000007, txnBytes(0x100000007))
		l.send(zab.Commit, 0x100000007, nil)
		l.send(zab.Proposal, 0x100000008, txnBytes(0x100000008))
		l.send(zab.NewLeader, 0x200000000, nil)
		l.expect(zab.Ack, 0x200000000)
		l.send(zab.Commit, 0x100000008, nil)
		l.send(zab.UpToDate, -1, nil)
		l.expect(zab.Ack, 0x200000000)
		l.expect(zab.Ack, 0x100000008)
		l.send(zab.Proposal, 0x200000001, txnBytes(0x200000001))
		l.expect(zab.Ack, 0x200000001)
		l.send(zab.Commit, 0x200000001, nil)
		l.send(zab.Ping, 0x200000001, nil)
		pingReply = l.expect(zab.Ping, 0x200000001)
	})
	store := newRecordingStore()
	var vote int64
	err = follow(t, addr, zab.NewLearner(zab.LearnerConfig{ID: 2, AcceptedEpoch: 1, CurrentEpoch: 1, LastZxid: 0x100000003}), store, LearnerHooks{
		UpdateElectionVote: func(e int64) { vote = e },
		TouchTable:         func() []zab.SessionTouch { return []zab.SessionTouch{{ID: 0x200000000000001, Timeout: 30000}} },
	})
	<-done
	if !errors.Is(err, ErrLeaderLost) {
		t.Fatalf("FollowLeader = %v, want the leader lost when it hangs up", err)
	}
	want := "accepted 2; load snapshot 0x100000006 (10 nodes, 2 sessions); apply 0x100000007; snapshot sync=true; current 2; " +
		"serve; log 0x100000008; commit 0x100000008; log 0x200000001; commit 0x200000001"
	if got := store.Calls(); got != want {
		t.Fatalf("store calls:\n got %s\nwant %s", got, want)
	}
	if vote != 2 {
		t.Errorf("election vote updated to epoch %d, want 2", vote)
	}
	if touches, err := zab.ReadTouchTable(pingReply.Data); err != nil || len(touches) != 1 || touches[0].Timeout != 30000 {
		t.Errorf("PING reply carries %v, %v", touches, err)
	}
}

func TestSilentLeaderIsLost(t *testing.T) {
	addr, done := leaderOnLoopback(t, func(l *scriptedLeader) {
		l.expect(zab.FollowerInfo, 0)
		time.Sleep(2 * time.Second) // says nothing for longer than initLimit
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := FollowLeader(ctx, LearnerConn{LeaderAddrs: []string{addr}, InitTimeout: 300 * time.Millisecond, SyncTimeout: 300 * time.Millisecond,
		MaxPacket: jute.DefaultMaxBuffer, Logger: zerolog.Nop()}, zab.NewLearner(zab.LearnerConfig{ID: 2}), newRecordingStore(), LearnerHooks{})
	<-done
	if !errors.Is(err, ErrLeaderLost) {
		t.Fatalf("FollowLeader = %v, want the leader lost", err)
	}
}

func TestUnexpectedSyncPacketStopsTheServer(t *testing.T) {
	addr, done := leaderOnLoopback(t, func(l *scriptedLeader) {
		l.handshake(0, 1, 0)
		l.send(zab.Proposal, 0x100000001, txnBytes(0x100000001))
		l.br.ReadByte() // until the learner hangs up
	})
	err := follow(t, addr, zab.NewLearner(zab.LearnerConfig{ID: 2}), newRecordingStore(), LearnerHooks{})
	<-done
	var fatal *zab.FatalError
	if !errors.As(err, &fatal) || fatal.Code != zab.ExitQuorumPacketError {
		t.Fatalf("FollowLeader = %v, want a FatalError with exit status 13", err)
	}
}

func TestNoLeaderThere(t *testing.T) {
	addr := testport.Addr(t)
	if err := follow(t, addr, zab.NewLearner(zab.LearnerConfig{ID: 2}), newRecordingStore(), LearnerHooks{}); !errors.Is(err, ErrLeaderLost) {
		t.Fatalf("FollowLeader = %v, want the leader lost", err)
	}
}

// TestLeaderListeningLateIsReached: a follower often decides before its
// new leader listens; as Java's, it dials again.
func TestLeaderListeningLateIsReached(t *testing.T) {
	addr := testport.Addr(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(250 * time.Millisecond)
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Errorf("listening again on %s: %v", addr, err)
			return
		}
		defer ln.Close()
		ln.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second))
		conn, err := ln.Accept()
		if err != nil {
			return // the follower gave up before the leader listened
		}
		defer conn.Close()
		l := &scriptedLeader{t: t, conn: conn, br: bufio.NewReader(conn)}
		l.expect(zab.FollowerInfo, 0)
	}()
	err := follow(t, addr, zab.NewLearner(zab.LearnerConfig{ID: 2}), newRecordingStore(), LearnerHooks{})
	<-done
	if !errors.Is(err, ErrLeaderLost) || strings.Contains(err.Error(), "connecting") {
		t.Fatalf("FollowLeader = %v, want the leader reached, then lost when it hangs up", err)
	}
}

// TestSlowSnapWithinEachReadsLimit: a snapshot that takes longer than
// initLimit in all is taken as long as no read waits that long (Java
// bounds each read).
func TestSlowSnapWithinEachReadsLimit(t *testing.T) {
	snap, err := os.ReadFile("../persistence/zkfiles/testdata/java-snapstream.bin")
	if err != nil {
		t.Fatal(err)
	}
	addr, done := leaderOnLoopback(t, func(l *scriptedLeader) {
		l.handshake(0, 1, 0)
		l.send(zab.Snap, 0x5, nil)
		for len(snap) > 0 { // 4 pieces 150 ms apart: 600 ms in all
			n := min(len(snap), 300)
			l.conn.Write(snap[:n])
			snap = snap[n:]
			time.Sleep(150 * time.Millisecond)
		}
		l.send(zab.NewLeader, 0x100000000, nil)
		l.expect(zab.Ack, 0x100000000)
	})
	store := newRecordingStore()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = FollowLeader(ctx, LearnerConn{LeaderAddrs: []string{addr}, InitTimeout: 400 * time.Millisecond, SyncTimeout: 400 * time.Millisecond,
		MaxPacket: jute.DefaultMaxBuffer, Logger: zerolog.Nop()}, zab.NewLearner(zab.LearnerConfig{ID: 2}), store, LearnerHooks{})
	<-done
	if !errors.Is(err, ErrLeaderLost) || !strings.Contains(store.Calls(), "load snapshot 0x5") || !strings.Contains(store.Calls(), "current 1") {
		t.Fatalf("FollowLeader = %v after %s; want the snapshot loaded and NEWLEADER acked", err, store.Calls())
	}
}

// TestLeaderReachedAtAnyOfItsAddresses: with a multi-address server line
// the learner dials every address of its leader at once and keeps the
// first that connects (Java's LeaderConnectors): an address that refuses
// does not keep it from the one that listens, and a second connection
// that also succeeds is closed.
func TestLeaderReachedAtAnyOfItsAddresses(t *testing.T) {
	c := LearnerConn{InitTimeout: 5 * time.Second, Logger: zerolog.Nop()}
	refusing := testport.Addr(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c.LeaderAddrs = []string{refusing, ln.Addr().String()}
	conn, addr, err := dialLeader(context.Background(), c)
	if err != nil {
		t.Fatalf("dialLeader = %v, want the listening address reached", err)
	}
	conn.Close()
	if addr != ln.Addr().String() {
		t.Fatalf("reached %s, want %s", addr, ln.Addr())
	}
	accepted, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	accepted.Close()

	// Both listen: one connection is kept, the other closed.
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	c.LeaderAddrs = []string{ln.Addr().String(), other.Addr().String()}
	conn, addr, err = dialLeader(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	open := 0
	for _, l := range []net.Listener{ln, other} {
		// The dial that lost may have been cancelled before it
		// connected: then its listener has nothing to accept.
		l.(*net.TCPListener).SetDeadline(time.Now().Add(2 * time.Second))
		a, err := l.Accept()
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			if l.Addr().String() == addr {
				t.Fatalf("nothing reached %s, the address dialLeader says it kept", addr)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		a.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		_, rerr := a.Read(make([]byte, 1))
		if ne, ok := rerr.(net.Error); ok && ne.Timeout() {
			open++
			if l.Addr().String() != addr {
				t.Errorf("the connection kept is to %s, dialLeader says %s", l.Addr(), addr)
			}
		}
		a.Close()
	}
	if open != 1 {
		t.Fatalf("%d connections left open, want the one kept", open)
	}

	// None listens: the leader is lost, with every address in the error.
	second := testport.Addr(t)
	c.LeaderAddrs = []string{refusing, second}
	c.InitTimeout = time.Second
	_, _, err = dialLeader(context.Background(), c)
	if !errors.Is(err, ErrLeaderLost) || !strings.Contains(err.Error(), refusing) || !strings.Contains(err.Error(), second) {
		t.Fatalf("dialLeader = %v, want the leader lost at %s and %s", err, refusing, second)
	}
}
