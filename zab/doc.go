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
package zab
