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
package zab
