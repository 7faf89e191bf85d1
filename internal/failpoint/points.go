package failpoint

// Point is a place in gozk where a fault can be injected. Each fires at
// one spot, named in its comment; Hit(p) is called there.
type Point int

const (
	// LearnerLoggedBeforeAck fires on a follower in the broadcast when
	// the log reports proposals durable, before the ACKs for them are
	// queued and written (peer/learner.go, learnerRun.run): the proposal
	// is on the disk, the leader has not heard of it.
	LearnerLoggedBeforeAck Point = iota
	// LearnerAfterNewLeaderAck fires on a learner right after the ACK of
	// NEWLEADER has been written to the leader's connection, before
	// UPTODATE is read (peer/learner.go, learnerRun.run): the sync's
	// snapshot, txns and current epoch are durable, nothing is served.
	LearnerAfterNewLeaderAck
	// LearnerMidSnap fires on a learner reading the tree a leader
	// streams after SNAP, once the stream's first node is decoded and
	// loaded into the new tree, the rest not yet read
	// (server/learner.go, Server.LoadSnapStream).
	LearnerMidSnap
	// AfterCurrentEpoch fires right after the current epoch is written
	// durably during a sync: on a learner at NEWLEADER, before its ACK
	// is sent (peer/member.go, serverStore.PersistCurrentEpoch); on the
	// leader once a quorum acknowledged the new epoch (ACKEPOCH), before
	// it syncs the learners and sends them NEWLEADER (peer/leader.go,
	// leaderLoop.do). The fix-up written at start from
	// the log's last zxid does not fire it.
	AfterCurrentEpoch
	// LearnerMidTrunc fires on a learner told to TRUNC once the log is
	// truncated and the newer snapshots deleted, before the tree is
	// reloaded from what is left (server/learner.go, Server.TruncateLog).
	LearnerMidTrunc
	// LeaderMidSnapSend fires on the leader sending a SNAP's tree once
	// the stream's first write has been flushed to the learner's
	// connection, the rest not yet written (peer/leaderconn.go,
	// midSnapWriter).
	LeaderMidSnapSend
	// LeaderLoggedBeforeCommit fires on the leader when its own log
	// reports proposals durable, before Zab counts that as the leader's
	// ACK (peer/leader.go, leaderLoop.handle): no COMMIT can have gone
	// out for them yet unless a quorum of followers acknowledged.
	LeaderLoggedBeforeCommit
	// DiskSync fires at every fsync (Sync, SyncData, SyncTo) of a file
	// or directory of the txn log and the snapshot store, before the
	// fsync (vfs.go, FS), once StartDiskFaults has been called (by `gozk
	// server` when its data is loaded); an error fails the fsync, a
	// sleep stalls it. Only `gozk server` installs it, and only when a
	// disk point is armed.
	DiskSync
	// DiskWrite fires at every write (Write, WriteAt) to a file of the
	// txn log and the snapshot store, before the write (vfs.go, FS),
	// from StartDiskFaults on; an error fails it as a full disk or EIO
	// would.
	DiskWrite

	numPoints
)

var pointNames = [numPoints]string{
	LearnerLoggedBeforeAck:   "learner-logged-before-ack",
	LearnerAfterNewLeaderAck: "learner-after-newleader-ack",
	LearnerMidSnap:           "learner-mid-snap",
	AfterCurrentEpoch:        "after-current-epoch",
	LearnerMidTrunc:          "learner-mid-trunc",
	LeaderMidSnapSend:        "leader-mid-snap-send",
	LeaderLoggedBeforeCommit: "leader-logged-before-commit",
	DiskSync:                 "disk-sync",
	DiskWrite:                "disk-write",
}

// String is the point's name in GOZK_FAILPOINTS.
func (p Point) String() string {
	if p < 0 || p >= numPoints {
		return "failpoint(?)"
	}
	return pointNames[p]
}

// Points are every point, in declaration order.
func Points() []Point {
	out := make([]Point, numPoints)
	for i := range out {
		out[i] = Point(i)
	}
	return out
}

// Lookup returns the point named name.
func Lookup(name string) (Point, bool) {
	for i, n := range pointNames {
		if n == name {
			return Point(i), true
		}
	}
	return 0, false
}
