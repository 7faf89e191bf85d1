package peer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/internal/failpoint"
	"github.com/gozk/gozk/server"
	"github.com/gozk/gozk/zab"
)

// The crash tests run a follower in a child process (this test binary
// again, in TestFailpointChild) against a scripted leader here, with a
// crash armed in the child's GOZK_FAILPOINTS; once the child has died of
// SIGKILL at the point, its data directory is opened here, as a restart
// would, and checked against what Zab requires.
const (
	childDirEnv    = "GOZK_TEST_FAILPOINT_DIR"
	childLeaderEnv = "GOZK_TEST_FAILPOINT_LEADER"
)

// TestFailpointChild is the child's side: a follower on the data
// directory, following the leader, with the points of GOZK_FAILPOINTS
// armed. It is skipped when not run as a child.
func TestFailpointChild(t *testing.T) {
	dir, addr := os.Getenv(childDirEnv), os.Getenv(childLeaderEnv)
	if dir == "" {
		t.Skip("run by the crash tests")
	}
	if _, err := failpoint.ArmFromEnv(); err != nil {
		t.Fatal(err)
	}
	srv := ensembleServer(t, dir)
	err := followServer(t, addr, srv, false)
	t.Fatalf("the follower survived its failpoint: FollowLeader = %v", err)
}

// crashFollower runs the child follower on dir against the scripted
// leader script with spec armed, and returns once the child has died of
// SIGKILL (the test fails otherwise). The child's standard error must
// name the point that crashed it.
func crashFollower(t *testing.T, dir, spec string, script func(l *scriptedLeader)) {
	t.Helper()
	addr, done := leaderOnLoopback(t, script)
	cmd := exec.Command(os.Args[0], "-test.run=^TestFailpointChild$", "-test.v")
	cmd.Env = append(os.Environ(), childDirEnv+"="+dir, childLeaderEnv+"="+addr, failpoint.EnvVar+"="+spec)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	<-done
	var ee *exec.ExitError
	ws, ok := syscall.WaitStatus(0), false
	if errors.As(err, &ee) {
		ws, ok = ee.Sys().(syscall.WaitStatus)
	}
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the follower ended with %v, want death by SIGKILL at %s:\n%s", err, spec, out.String())
	}
	point, _, _ := strings.Cut(spec, "=")
	if !strings.Contains(out.String(), "gozk: failpoint "+point+": crash") {
		t.Fatalf("the follower died of SIGKILL, not at %s:\n%s", point, out.String())
	}
}

// prepared is a data directory whose log holds creates of paths in epoch
// 1 (both epochs 1), for a follower that already followed a leader.
func prepared(t *testing.T, paths ...string) string {
	t.Helper()
	dir := t.TempDir()
	srv := ensembleServer(t, dir)
	for i, p := range paths {
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
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// restarted opens dir as a restart would and checks its tree, last zxid
// and epochs.
func restarted(t *testing.T, dir, wantPaths string, wantZxid, wantCurrent, wantAccepted int64) {
	t.Helper()
	srv := ensembleServer(t, dir)
	defer srv.Close()
	got, z := paths(srv), srv.LastZxid()
	e, err := srv.Store().Epochs()
	if err != nil {
		t.Fatal(err)
	}
	if got != wantPaths || z != wantZxid || e.Current != wantCurrent || e.Accepted != wantAccepted {
		t.Fatalf("after the crash and a restart: tree %q at 0x%x, epochs current %d accepted %d; want %q at 0x%x, %d and %d",
			got, z, e.Current, e.Accepted, wantPaths, wantZxid, wantCurrent, wantAccepted)
	}
}

func javaSnapStream(t *testing.T) []byte {
	t.Helper()
	snap, err := os.ReadFile(filepath.Join("..", "persistence", "zkfiles", "testdata", "java-snapstream.bin"))
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// snapPaths are the paths of the fixture's tree (at 0x100000006), as a
// follower that took it holds them.
func snapPaths(t *testing.T) string {
	t.Helper()
	dir := prepared(t)
	snap := javaSnapStream(t)
	srv := ensembleServer(t, dir)
	defer srv.Close()
	addr, done := leaderOnLoopback(t, func(l *scriptedLeader) {
		l.handshake(1, 2, 0)
		l.send(zab.Snap, 0x100000006, nil)
		l.conn.Write(snap)
		l.send(zab.NewLeader, 0x200000000, nil)
		l.expect(zab.Ack, 0x200000000)
		l.send(zab.UpToDate, -1, nil)
		l.expect(zab.Ack, 0x200000000)
	})
	followServer(t, addr, srv, false)
	<-done
	return paths(srv)
}

// TestCrashLearnerLoggedBeforeAck: a follower dies with a proposal
// durable and its ACK not sent; after a restart the proposal is in its
// log (and tree), with the committed one before it.
func TestCrashLearnerLoggedBeforeAck(t *testing.T) {
	dir := t.TempDir()
	crashFollower(t, dir, "learner-logged-before-ack=crash@2", func(l *scriptedLeader) {
		l.handshake(0, 1, 0)
		l.diffWithNothing(0, 1)
		l.send(zab.Proposal, 0x100000001, createTxn(0x100000001, 0x100, 1, "/committed", 0))
		l.expect(zab.Ack, 0x100000001)
		l.send(zab.Commit, 0x100000001, nil)
		l.send(zab.Proposal, 0x100000002, createTxn(0x100000002, 0x100, 2, "/logged", 1))
		l.expectGone()
	})
	restarted(t, dir, "/committed /logged", 0x100000002, 1, 1)
}

// TestCrashLearnerAfterNewLeaderAck: a follower dies right after its
// NEWLEADER ACK; the DIFF's committed txns and the current epoch it
// acknowledged are durable.
func TestCrashLearnerAfterNewLeaderAck(t *testing.T) {
	dir := t.TempDir()
	crashFollower(t, dir, "learner-after-newleader-ack=crash", func(l *scriptedLeader) {
		l.handshake(0, 1, 0)
		l.send(zab.Diff, 0x100000002, nil)
		l.send(zab.Proposal, 0x100000001, createTxn(0x100000001, 0x100, 1, "/a", 0))
		l.send(zab.Commit, 0x100000001, nil)
		l.send(zab.Proposal, 0x100000002, createTxn(0x100000002, 0x100, 2, "/b", 1))
		l.send(zab.Commit, 0x100000002, nil)
		l.send(zab.NewLeader, 0x100000000, nil)
		l.expect(zab.Ack, 0x100000000)
		l.expectGone()
	})
	restarted(t, dir, "/a /b", 0x100000002, 1, 1)
}

// TestCrashLearnerMidSnap: a follower dies with part of a SNAP's tree
// read (the leader sends the rest only once it is gone, so the point
// must fire before the end of the stream); it restarts with its own tree
// and log, untouched, and the new epoch accepted.
func TestCrashLearnerMidSnap(t *testing.T) {
	dir := prepared(t, "/mine")
	snap := javaSnapStream(t)
	crashFollower(t, dir, "learner-mid-snap=crash", func(l *scriptedLeader) {
		l.handshake(1, 2, 0x100000001)
		l.send(zab.Snap, 0x100000006, nil)
		l.conn.Write(snap[:len(snap)/2])
		l.expectGone()
		l.conn.Write(snap[len(snap)/2:])
	})
	restarted(t, dir, "/mine", 0x100000001, 1, 2)
}

// TestCrashLearnerAfterCurrentEpoch: a follower dies after writing the
// current epoch at NEWLEADER, before acknowledging it: the SNAP's tree
// is on the disk (its snapshot precedes the epoch), not the old one.
func TestCrashLearnerAfterCurrentEpoch(t *testing.T) {
	want := snapPaths(t)
	dir := prepared(t, "/mine")
	snap := javaSnapStream(t)
	crashFollower(t, dir, "after-current-epoch=crash", func(l *scriptedLeader) {
		l.handshake(1, 2, 0x100000001)
		l.send(zab.Snap, 0x100000006, nil)
		l.conn.Write(snap)
		l.send(zab.NewLeader, 0x200000000, nil)
		l.expectGone()
	})
	restarted(t, dir, want, 0x100000006, 2, 2)
}

// TestCrashLearnerMidTrunc: a follower dies with its log truncated by
// TRUNC and its tree not yet reloaded; it restarts without the
// truncated txns.
func TestCrashLearnerMidTrunc(t *testing.T) {
	dir := prepared(t, "/a", "/b", "/c")
	crashFollower(t, dir, "learner-mid-trunc=crash", func(l *scriptedLeader) {
		l.handshake(1, 2, 0x100000003)
		l.send(zab.Trunc, 0x100000001, nil)
		l.expectGone()
	})
	restarted(t, dir, "/a", 0x100000001, 1, 2)
}

// TestEnsembleHitsTheZabPoints runs three members that sync by SNAP
// (forceSnapshotSync) with a hook watching every point: establishing the
// leader and one write pass each Zab point of the leader and the
// learners, in the roles their comments name.
func TestEnsembleHitsTheZabPoints(t *testing.T) {
	var mu sync.Mutex
	hits := map[failpoint.Point]int{}
	var members []*gozkMember
	var wrong []string
	restore, err := failpoint.SetHook("", func(p failpoint.Point, _ int64) error {
		mu.Lock()
		defer mu.Unlock()
		hits[p]++
		leaders := 0
		for _, m := range members {
			if m.srv.Role() == server.RoleLeader {
				leaders++
			}
		}
		// The leader's points fire on a member leading, the learners'
		// while one leads (in another member).
		if leaders == 0 && p != failpoint.AfterCurrentEpoch {
			wrong = append(wrong, p.String()+" with no member leading")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	mu.Lock()
	for _, p := range writeEnsemble(t, t.TempDir(), 3, "forceSnapshotSync=true") {
		members = append(members, startMember(t, p))
	}
	mu.Unlock()
	leader := waitRoles(t, members...)
	c := clientOf(t, leader)
	if _, err := c.Create("/x", nil, 0, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatal(err)
	}
	want := map[failpoint.Point]int{
		failpoint.LeaderMidSnapSend:        2,
		failpoint.LearnerMidSnap:           2,
		failpoint.AfterCurrentEpoch:        3,
		failpoint.LearnerAfterNewLeaderAck: 2,
		failpoint.LeaderLoggedBeforeCommit: 1,
		failpoint.LearnerLoggedBeforeAck:   1,
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		missing := ""
		for p, n := range want {
			if hits[p] < n {
				missing += fmt.Sprintf(" %s (%d of %d)", p, hits[p], n)
			}
		}
		got := fmt.Sprint(hits)
		mu.Unlock()
		if missing == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("points not hit:%s; hits %s", missing, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if hits[failpoint.LearnerMidTrunc] != 0 || hits[failpoint.DiskSync] != 0 {
		t.Errorf("points hit outside their place: %v", hits)
	}
	if len(wrong) > 0 {
		t.Errorf("points hit in the wrong role: %v", wrong)
	}
}

// TestEnsembleSurvivesInjectedErrors arms an error at one Zab point of
// a three-member ensemble under writes: the member that meets it handles
// it as the I/O error it stands for (a learner drops its leader and
// syncs again, a leader steps down), the ensemble forms again, and every
// member ends with every acknowledged write, and with a write whose
// answer was lost either everywhere or nowhere.
func TestEnsembleSurvivesInjectedErrors(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		extra []string
	}{
		{"leader-logged-before-commit=error@3", nil},
		{"leader-mid-snap-send=error@1", []string{"forceSnapshotSync=true"}},
		{"learner-logged-before-ack=error@2", nil},
		{"after-current-epoch=error@1", nil},
		{"learner-after-newleader-ack=error@1", nil},
	} {
		point, _, _ := strings.Cut(tc.spec, "=")
		t.Run(point, func(t *testing.T) {
			var hits atomic.Int64
			p, _ := failpoint.Lookup(point)
			restore, err := failpoint.SetHook(tc.spec, func(q failpoint.Point, _ int64) error {
				if q == p {
					hits.Add(1)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			defer restore()
			var members []*gozkMember
			var addrs []string
			for _, path := range writeEnsemble(t, t.TempDir(), 3, tc.extra...) {
				m := startMember(t, path)
				members = append(members, m)
				addrs = append(addrs, m.srv.Addr().String())
			}
			waitRoles(t, members...)
			c, _, err := gozk.Connect(addrs, 10*time.Second, gozk.WithLogger(quietLogger{}))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var acked, unsure []string
			for i := 0; i < 10; i++ {
				path := fmt.Sprintf("/k%d", i)
				if _, err := c.Create(path, nil, 0, gozk.WorldACL(gozk.PermAll)); err != nil {
					unsure = append(unsure, path)
					continue
				}
				acked = append(acked, path)
			}
			c.Close()
			if armed, _ := failpoint.Parse(tc.spec); hits.Load() < armed[0].Action.At {
				t.Fatalf("%s hit %d times; the armed hit never came", point, hits.Load())
			}
			waitRoles(t, members...)
			seen := map[string]int{}
			for _, m := range members {
				mc := clientOf(t, m)
				if _, err := mc.Sync("/"); err != nil {
					t.Fatal(err)
				}
				for _, path := range append(acked, unsure...) {
					if ok, _, err := mc.Exists(path); err != nil {
						t.Fatal(err)
					} else if ok {
						seen[path]++
					}
				}
				mc.Close()
			}
			for _, path := range acked {
				if seen[path] != len(members) {
					t.Errorf("acknowledged %s is on %d members of %d", path, seen[path], len(members))
				}
			}
			for _, path := range unsure {
				if n := seen[path]; n != 0 && n != len(members) {
					t.Errorf("unacknowledged %s is on %d members of %d", path, n, len(members))
				}
			}
			t.Logf("%d writes acknowledged, %d not; %s hit %d times", len(acked), len(unsure), point, hits.Load())
		})
	}
}

// TestMidSnapWriterFiresWithPartOnTheConnection: leader-mid-snap-send
// fires once, after the stream's first write has reached the connection
// (the buffer flushed) and before the rest is written; its error ends
// the stream.
func TestMidSnapWriterFiresWithPartOnTheConnection(t *testing.T) {
	var conn bytes.Buffer
	w := &midSnapWriter{w: &deadlineWriter{w: bufio.NewWriterSize(&conn, 64<<10)}}
	onConn := -1
	hits := 0
	restore, err := failpoint.SetHook("", func(p failpoint.Point, _ int64) error {
		if p == failpoint.LeaderMidSnapSend {
			hits++
			onConn = conn.Len()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{"first part", "second", "third"} {
		if _, err := w.Write([]byte(part)); err != nil {
			t.Fatal(err)
		}
	}
	restore()
	if hits != 1 || onConn != len("first part") {
		t.Fatalf("hit %d times, with %d bytes on the connection; want once, with the first part's %d", hits, onConn, len("first part"))
	}
	failpoint.Arm("leader-mid-snap-send=error")
	defer failpoint.Disarm()
	w = &midSnapWriter{w: &deadlineWriter{w: bufio.NewWriterSize(&conn, 64<<10)}}
	if _, err := w.Write([]byte("x")); !errors.Is(err, syscall.EIO) {
		t.Fatalf("write at an armed error: %v", err)
	}
}
