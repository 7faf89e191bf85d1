// Package proto holds ZooKeeper's protocol vocabulary: every record of the
// client protocol, the transaction log, snapshots and the quorum protocol
// (generated from zookeeper.jute by jutegen), and the hand-written parts
// around them: opcodes, error codes, create modes and the ephemeralOwner
// encoding of containers and TTL nodes, watch event types and keeper
// states, permission bits and well-known identities, path validation with
// Java's exact rules, the multi request and response framing, the
// handshake records with their optional readOnly byte, and the txn
// envelope (header, body and optional digest) that gozk logs, applies and
// replicates.
//
// It knows nothing of networking or storage.
package proto
