// Package db is gozk's in-memory ZooKeeper data tree, kept as a pure state
// machine: a txn goes in (Tree.Apply), the new state and the watch events
// the txn causes come out. It owns the znodes and their stats, the ACL
// cache (one shared slice per distinct ACL list), the ephemeral, container
// and TTL indexes, the session table, quota tracking and the tree digest.
//
// The semantics are those of Apache ZooKeeper 3.8's DataTree, including
// the ones that only matter when a log is replayed over a fuzzy snapshot:
// txns carry absolute values (new version, new parent cversion), replay
// errors are returned rather than raised, and applying a txn twice
// converges. Stats are stored as Java stores them (the cversion counts
// child creations) and translated when a client-visible Stat is produced.
//
// Reads run under a shared lock and do not allocate beyond what they
// return; Apply takes the exclusive lock. Slices a read returns (data,
// ACLs) are shared with the tree and must never be modified.
//
// db knows nothing of requests, clients or watches: it reports which
// events fired, and the watch manager decides who hears them.
package db
