// Package zab is ZooKeeper's atomic broadcast as Apache ZooKeeper 3.8
// speaks it on the quorum port, so that gozk and Java servers lead and
// follow each other.
//
// This file set holds the quorum port's wire format, apart from any
// state: the packet types, the stream of QuorumPacket records (written
// back to back with no length prefix, so every length inside is bounded
// as Java's BinaryInputArchive bounds it, by jute.maxbuffer plus its
// extra size), and the bodies the packets carry (LearnerInfo, LEADERINFO
// and ACKEPOCH epochs, a learner's PING touch table, REVALIDATE, and the
// REQUEST a learner forwards). Every decoder returns an error naming what
// is wrong and never panics (fuzzed).
//
// Learner is the follower's and observer's side of the protocol as a pure
// state machine: packets from the leader in; packets to send, epochs to
// persist, log writes, truncations, snapshots to load or take, commits and
// the start of serving out, in the order they must happen. It follows
// Java 3.9.3's learner, whose order at NEWLEADER (log and fsync the txns
// the leader committed, then write the current epoch, then acknowledge)
// fixes 3.8.0's data loss on the same packets; it takes the COMMITs a
// 3.8.0 leader sends between NEWLEADER and UPTODATE. The caller owns the
// connection, the disk and the timers (initLimit, syncLimit), and tells
// the learner when logged txns are durable (Logged), which is when a
// follower acknowledges them.
//
// On the leader's side, PlanSync decides how a learner is brought up to
// date exactly as Java 3.8.0's LearnerHandler.syncFollower decides (DIFF
// or TRUNC from the committed log, the txn log then the committed log, or
// SNAP), held to the cases of Java's own LearnerHandlerTest. EpochsAtStart
// applies Java's start-up rules to the epoch records.
//
// Leader is the leader with all its learners as a pure state machine, as
// Java 3.8.0's Leader and LearnerHandler run them: the new epoch once the
// leader and a quorum of voters (quorum.Verifier: majority or
// hierarchical) registered, ACKEPOCH (refusing a learner ahead of the
// leader), each learner's sync (PlanSync, then everything proposed since
// in the same step, then NEWLEADER), serving once a quorum acknowledged
// NEWLEADER, then UPTODATE; proposals, ACKs and commits in zxid order
// (COMMIT to followers, INFORM to observers), syncs, REQUEST, REVALIDATE
// and session touches; and the timers: Tick every half tickTime pings,
// closes silent learners, steps down when a handshake wait passes
// initLimit or the synced voters are no quorum. The caller owns the
// connections (each has a handle it chooses), the disk (LeaderLog, the
// epoch writes, its own fsync reported by LocalLogged) and the prep
// stage (Propose, Sync), and carries out the LeaderActions in order.
// Its loop, in outline (one goroutine owns the Leader):
//
//	l, err := zab.Lead(cfg)           // after the election, the tree loaded
//	do(l.Start())
//	for {
//		select {
//		case c := <-accepted:      l.Connect(c.id)
//		case p := <-received:      do(l.Receive(p.conn, p.packet))
//		case c := <-closed:        l.Disconnect(c)
//		case t := <-prepared:      acts, err := l.Propose(t.zxid, t.data); do(acts)
//		case z := <-fsynced:       do(l.LocalLogged(z))
//		case z := <-applied:       l.Applied(z)
//		case c := <-syncReached:   do(l.Sync(c))
//		case r := <-revalidated:   do(l.RevalidateReply(r.conn, r.session, r.valid))
//		case c := <-snapWritten:   l.SnapshotSent(c)
//		case <-halfTick.C:         do(l.Tick())
//		}
//	}
//
// where do writes packets to their connections (each connection's in
// order), persists epochs before going on, and hands commits, requests
// and revalidations to the server; after LeadStepDown it closes every
// learner connection and returns to the election.
//
// With LeaderConfig.Relay the same machine is a follower's observer
// master (Java's ObserverMaster): observers only, serving in the
// followed epoch from the start, synced from the follower's database,
// fed the real leader's proposals (Propose) and commits (Committed), an
// INFORM to the observers for each; it keeps no quorum and passes the
// observers' requests, revalidations and touches to its caller.
//
// Where it differs from Java 3.8.0, for a follower's sake or for want of
// a feature:
//   - a COMMIT due to a follower between its NEWLEADER and its UPTODATE
//     is held back and sent right after UPTODATE (a 3.8.0 follower fails
//     on it, ZOOKEEPER-4394); PROPOSALs and INFORMs are not held;
//   - ACKs of proposals that come before the NEWLEADER ACK (a 3.8.0
//     follower logs asynchronously, ZOOKEEPER-4685) are counted, and the
//     NEWLEADER ACK is still awaited; Java takes the first ACK for the
//     NEWLEADER ACK and never counts that follower towards the quorum;
//   - a NEWLEADER ACK of another epoch closes the learner (Java logs it
//     and goes on);
//   - once a proposal commits, those after it that already have their
//     quorum commit too (Java retries only after a reconfiguration);
//   - learners of the protocol before ZooKeeper 3.4 (no server id in
//     FOLLOWERINFO, or a version below 0x10000) are refused, and so is a
//     packet a learner sends while Java's handler would be blocked
//     waiting for the epoch or its acks;
//   - no reconfiguration (COMMITANDACTIVATE), no oracle for two-server
//     ensembles, no zookeeper.leader.maxTimeToWaitForEpoch.
//
// The leader is checked by interaction scripts (testdata/leader), by
// runs with this package's Learners under random delivery, and against
// Java 3.8.0 followers that elect a gozk server and follow it
// (leader_interop_test.go, tag interop).
package zab
