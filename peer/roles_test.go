package peer

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/gozk/gozk/internal/stallfs"
	"github.com/gozk/gozk/server"
	"github.com/gozk/gozk/zab"
)

// TestLostLeaderNextLeaderSeesTheLoggedTxn: a follower logs and
// acknowledges a proposal its leader never commits, then loses the
// leader. The tree it keeps into the next role holds that txn (Java's
// ZOOKEEPER-2845: the tree is fast-forwarded from the log), so the next
// leader hears it as the follower's last zxid and syncs it by a DIFF
// from there; the txn stays, as Zab requires of an acknowledged one.
func TestLostLeaderNextLeaderSeesTheLoggedTxn(t *testing.T) {
	dir := t.TempDir()
	srv := ensembleServer(t, dir)
	defer func() { srv.Close() }()
	addr, done := leaderOnLoopback(t, func(l *scriptedLeader) {
		l.handshake(0, 1, 0)
		l.diffWithNothing(0, 1)
		l.send(zab.Proposal, 0x100000001, createTxn(0x100000001, 0x100, 1, "/committed", 0))
		l.expect(zab.Ack, 0x100000001)
		l.send(zab.Commit, 0x100000001, nil)
		l.send(zab.Proposal, 0x100000002, createTxn(0x100000002, 0x100, 2, "/logged", 1))
		l.expect(zab.Ack, 0x100000002)
	})
	if err := followServer(t, addr, srv, false); !errors.Is(err, ErrLeaderLost) {
		t.Fatalf("FollowLeader = %v", err)
	}
	<-done
	if err := srv.StopServing(); err != nil { // as Member.Run does between roles
		t.Fatal(err)
	}
	addr, done = leaderOnLoopback(t, func(l *scriptedLeader) {
		l.handshake(1, 2, 0x100000002)
		l.diffWithNothing(0x100000002, 2)
		l.send(zab.Proposal, 0x200000001, createTxn(0x200000001, 0x100, 3, "/next", 2))
		l.expect(zab.Ack, 0x200000001)
		l.send(zab.Commit, 0x200000001, nil)
		l.send(zab.Ping, 0x200000001, nil)
		l.expect(zab.Ping, 0x200000001)
	})
	if err := followServer(t, addr, srv, false); !errors.Is(err, ErrLeaderLost) {
		t.Fatalf("FollowLeader = %v", err)
	}
	<-done
	if got := paths(srv); got != "/committed /logged /next" {
		t.Fatalf("after the second leader's DIFF the tree holds %q", got)
	}
	srv = reopen(t, srv, dir)
	if got := paths(srv); got != "/committed /logged /next" {
		t.Fatalf("after a restart the tree holds %q", got)
	}
}

// TestSnapCutShortThenDiff: a leader dies in the middle of a SNAP, or
// right after the SNAP's tree but before NEWLEADER; the next leader
// syncs the follower by a DIFF from the last zxid it reports. The
// follower's tree is then its own plus the DIFF, with nothing of the
// SNAP's tree (Java's ZOOKEEPER-3642 cleared its half-loaded database
// for this), and so is the tree a restart reads.
func TestSnapCutShortThenDiff(t *testing.T) {
	snap := javaSnapStream(t)
	for _, tc := range []struct {
		name  string
		sent  int
		after func(l *scriptedLeader)
	}{
		{"mid-stream", len(snap) / 2, nil},
		{"before NEWLEADER", len(snap), func(l *scriptedLeader) {
			l.send(zab.Proposal, 0x100000007, createTxn(0x100000007, 0x100, 7, "/fromsnapleader", 0))
			l.send(zab.Commit, 0x100000007, nil)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := prepared(t, "/mine")
			srv := ensembleServer(t, dir)
			defer func() { srv.Close() }()
			addr, done := leaderOnLoopback(t, func(l *scriptedLeader) {
				l.handshake(1, 2, 0x100000001)
				l.send(zab.Snap, 0x100000006, nil)
				l.conn.Write(snap[:tc.sent])
				if tc.after != nil {
					tc.after(l)
				}
			})
			if err := followServer(t, addr, srv, false); err == nil {
				t.Fatal("FollowLeader returned nil after a sync cut short")
			}
			<-done
			if err := srv.StopServing(); err != nil {
				t.Fatal(err)
			}
			addr, done = leaderOnLoopback(t, func(l *scriptedLeader) {
				l.handshake(2, 3, 0x100000001)
				l.send(zab.Diff, 0x100000002, nil)
				l.send(zab.Proposal, 0x100000002, createTxn(0x100000002, 0x100, 2, "/two", 1))
				l.send(zab.Commit, 0x100000002, nil)
				l.send(zab.NewLeader, 0x300000000, nil)
				l.expect(zab.Ack, 0x300000000)
				l.send(zab.UpToDate, -1, nil)
				l.expect(zab.Ack, 0x300000000)
			})
			if err := followServer(t, addr, srv, false); !errors.Is(err, ErrLeaderLost) {
				t.Fatalf("FollowLeader = %v", err)
			}
			<-done
			if got, z := paths(srv), srv.LastZxid(); got != "/mine /two" || z != 0x100000002 {
				t.Fatalf("after the DIFF the tree holds %q at 0x%x; want /mine /two at 0x100000002", got, z)
			}
			if err := srv.StopServing(); err != nil {
				t.Fatal(err)
			}
			// A later TRUNC sync snapshots the tree; the log below it
			// stays, as after any TRUNC: only a SNAP's snapshot stands
			// in for the log under it.
			addr, done = leaderOnLoopback(t, func(l *scriptedLeader) {
				l.handshake(3, 4, 0x100000002)
				l.send(zab.Trunc, 0x100000002, nil)
				l.send(zab.NewLeader, 0x400000000, nil)
				l.expect(zab.Ack, 0x400000000)
				l.send(zab.UpToDate, -1, nil)
				l.expect(zab.Ack, 0x400000000)
			})
			if err := followServer(t, addr, srv, false); !errors.Is(err, ErrLeaderLost) {
				t.Fatalf("FollowLeader = %v", err)
			}
			<-done
			if first, err := srv.Store().Log().FirstZxid(); err != nil || first != 0x100000001 {
				t.Fatalf("after a TRUNC sync the log starts at 0x%x (%v), want 0x100000001: purged as if after a SNAP", first, err)
			}
			if err := srv.StopServing(); err != nil {
				t.Fatal(err)
			}
			srv = reopen(t, srv, dir)
			if got := paths(srv); got != "/mine /two" {
				t.Fatalf("after a restart the tree holds %q", got)
			}
			if strings.Contains(paths(srv), "/fromsnapleader") {
				t.Fatal("a txn of the cut-short sync survived")
			}
		})
	}
}

// TestLearnerRoleEndsAfterItsAppends: a follower loses its leader while
// a proposal's fsync is still under way. The role ends (StopServing)
// only once that fsync is done, so no append of the old role is in
// flight when the next leader's TRUNC cuts the log (Java's
// ZOOKEEPER-4712 left the learner's sync thread running); the truncated
// txn is gone from the tree and from the log a restart reads.
func TestLearnerRoleEndsAfterItsAppends(t *testing.T) {
	dir := t.TempDir()
	stall := stallfs.New()
	cfg := server.Defaults()
	cfg.DataDir = dir
	cfg.ClientAddr = "127.0.0.1:0"
	cfg.TickTime = 200 * time.Millisecond
	cfg.Ensemble = true
	cfg.ServerID = 2
	cfg.ForceSync = true
	cfg.FS = stall.FS(vfs.Default)
	srv, err := server.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Close() }()
	defer stall.Finish()
	addr, done := leaderOnLoopback(t, func(l *scriptedLeader) {
		l.handshake(0, 1, 0)
		l.diffWithNothing(0, 1)
		stall.Arm(true)
		l.send(zab.Proposal, 0x100000001, createTxn(0x100000001, 0x100, 1, "/inflight", 0))
		<-stall.Entered // the proposal's fsync is under way; the leader goes
	})
	if err := followServer(t, addr, srv, false); !errors.Is(err, ErrLeaderLost) {
		t.Fatalf("FollowLeader = %v", err)
	}
	<-done
	stopped := make(chan error, 1)
	go func() { stopped <- srv.StopServing() }()
	select {
	case err := <-stopped:
		t.Fatalf("StopServing returned (%v) with the role's fsync still under way", err)
	case <-time.After(300 * time.Millisecond):
	}
	stall.Arm(false)
	stall.Release()
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	if got := paths(srv); got != "/inflight" {
		t.Fatalf("the tree kept for the next role holds %q, want the logged /inflight", got)
	}
	addr, done = leaderOnLoopback(t, func(l *scriptedLeader) {
		l.handshake(1, 2, 0x100000001)
		l.send(zab.Trunc, 0, nil)
		l.send(zab.NewLeader, 0x200000000, nil)
		l.expect(zab.Ack, 0x200000000)
		l.send(zab.UpToDate, -1, nil)
		l.expect(zab.Ack, 0x200000000)
	})
	if err := followServer(t, addr, srv, false); !errors.Is(err, ErrLeaderLost) {
		t.Fatalf("FollowLeader = %v", err)
	}
	<-done
	if got := paths(srv); got != "" {
		t.Fatalf("after the TRUNC the tree holds %q", got)
	}
	if err := srv.StopServing(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	srv = ensembleServer(t, dir)
	if got, z := paths(srv), srv.LastZxid(); got != "" || z != 0 {
		t.Fatalf("after a restart the tree holds %q at 0x%x; the truncated txn came back", got, z)
	}
}
