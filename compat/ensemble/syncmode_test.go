package ensemble

import (
	"strings"
	"testing"
)

// javaLeaderLog is a Java 3.8.0 leader's log (slf4j-simple: time since
// start, [thread], level, logger, message) syncing learners 1 and 2 in
// every way, two of them at once on interleaved threads.
const javaLeaderLog = `2664 [LearnerHandler-/127.0.0.1:35958] INFO org.apache.zookeeper.server.quorum.LearnerHandler - Synchronizing with Learner sid: 1 maxCommittedLog=0x0 minCommittedLog=0x0 lastProcessedZxid=0x0 peerLastZxid=0x0
2665 [LearnerHandler-/127.0.0.1:35958] INFO org.apache.zookeeper.server.quorum.LearnerHandler - Sending DIFF zxid=0x0 for peer sid: 1
2666 [LearnerHandler-/127.0.0.1:35960] INFO org.apache.zookeeper.server.quorum.LearnerHandler - Synchronizing with Learner sid: 2 maxCommittedLog=0x0 minCommittedLog=0x0 lastProcessedZxid=0x0 peerLastZxid=0x0
5001 [LearnerHandler-/127.0.0.1:36000] INFO org.apache.zookeeper.server.quorum.LearnerHandler - Synchronizing with Learner sid: 1 maxCommittedLog=0x100000250 minCommittedLog=0x100000050 lastProcessedZxid=0x100000250 peerLastZxid=0x100000010
5002 [LearnerHandler-/127.0.0.1:35960] INFO org.apache.zookeeper.server.quorum.LearnerHandler - Sending snapshot last zxid of peer is 0x0, zxid of leader is 0x100000000, send zxid of db as 0x0, 1 concurrent snapshot sync, snapshot sync was exempt from throttle
5003 [LearnerHandler-/127.0.0.1:36000] WARN org.apache.zookeeper.server.persistence.FileTxnLog - Unable to find proposals from txnlog for zxid: 0x100000010
5004 [LearnerHandler-/127.0.0.1:36000] INFO org.apache.zookeeper.server.quorum.LearnerHandler - Sending snapshot last zxid of peer is 0x100000010, zxid of leader is 0x100000250, send zxid of db as 0x100000250, 1 concurrent snapshot sync, snapshot sync was exempt from throttle
7000 [LearnerHandler-/127.0.0.1:36010] INFO org.apache.zookeeper.server.quorum.LearnerHandler - Synchronizing with Learner sid: 1 maxCommittedLog=0x100000018 minCommittedLog=0x100000001 lastProcessedZxid=0x200000000 peerLastZxid=0x100000019
7001 [LearnerHandler-/127.0.0.1:36010] DEBUG org.apache.zookeeper.server.quorum.LearnerHandler - Sending TRUNC to follower zxidToSend=0x100000018 for peer sid:1
`

func TestJavaLeaderSyncModes(t *testing.T) {
	if got := strings.Join(JavaLeaderSyncModes(javaLeaderLog, 1), " "); got != "DIFF SNAP TRUNC" {
		t.Errorf("learner 1: %s, want DIFF SNAP TRUNC", got)
	}
	if got := strings.Join(JavaLeaderSyncModes(javaLeaderLog, 2), " "); got != "SNAP" {
		t.Errorf("learner 2: %s, want SNAP", got)
	}
	if got := JavaLeaderSyncModes(javaLeaderLog, 3); len(got) != 0 {
		t.Errorf("learner 3, never synced: %v", got)
	}
}

func TestJavaLearnerSyncModes(t *testing.T) {
	log := `1200 [QuorumPeer[myid=1](plain=127.0.0.1:2000)(secure=disabled)] INFO org.apache.zookeeper.server.quorum.Learner - Getting a diff from the leader 0x100000003
9000 [QuorumPeer[myid=1](plain=127.0.0.1:2000)(secure=disabled)] INFO org.apache.zookeeper.server.quorum.Learner - Getting a snapshot from leader 0x100000250
9100 [QuorumPeer[myid=1](plain=127.0.0.1:2000)(secure=disabled)] INFO org.apache.zookeeper.server.quorum.Learner - Learner received NEWLEADER message
9900 [QuorumPeer[myid=1](plain=127.0.0.1:2000)(secure=disabled)] WARN org.apache.zookeeper.server.quorum.Learner - Truncating log to get in sync with the leader 0x100000018
`
	if got := strings.Join(JavaLearnerSyncModes(log), " "); got != "DIFF SNAP TRUNC" {
		t.Errorf("%s, want DIFF SNAP TRUNC", got)
	}
}

// gozk's wording is matched loosely: a line about syncing that names a
// mode; lines about fsync or snapshots alone do not count.
func TestGozkSyncModes(t *testing.T) {
	log := `{"level":"info","leader":3,"mode":"diff","message":"synced with the leader"}
2026-11-28T06:00:00Z INF fsync of the txn log took 3ms
2026-11-28T06:00:01Z INF snapshot written zxid=0x100000064
2026-11-28T06:00:02Z INF syncing with leader 3 by SNAP zxid=0x100000250
2026-11-28T06:00:03Z INF sync with the leader: truncating the log to 0x100000018
2026-11-28T06:00:04Z INF syncing a learner learner=2 mode=DIFF zxid=0x200000000
`
	if got := strings.Join(GozkSyncModes(log), " "); got != "DIFF SNAP TRUNC" {
		t.Errorf("%s, want DIFF SNAP TRUNC", got)
	}
}

// A gozk leader's line for each learner it syncs, console or JSON.
func TestGozkLeaderLogSyncModes(t *testing.T) {
	log := `2026-11-28T06:24:29.958Z INF syncing a learner learner=2 mode=DIFF zxid=0x10000006d
2026-11-28T06:24:30.481Z INF syncing a learner learner=1 mode=SNAP zxid=0x200000000
2026-11-28T06:24:30.481Z INF snapshot sent to a learner bytes=10976 learner=1 tookMs=0.104184
2026-11-28T06:24:31.000Z INF syncing with the leader leader=1 mode=DIFF zxid=0x200000005
{"level":"info","learner":1,"mode":"TRUNC","zxid":"0x200000003","message":"syncing a learner"}
2026-11-28T06:24:32.000Z INF syncing a learner learner=12 mode=DIFF zxid=0x300000000
`
	if got := strings.Join(GozkLeaderSyncModes(log, 1), " "); got != "SNAP TRUNC" {
		t.Errorf("learner 1: %s, want SNAP TRUNC", got)
	}
	if got := strings.Join(GozkLeaderSyncModes(log, 2), " "); got != "DIFF" {
		t.Errorf("learner 2: %s, want DIFF", got)
	}
	if got := GozkLeaderSyncModes(log, 3); len(got) != 0 {
		t.Errorf("learner 3, never synced: %v", got)
	}
}
