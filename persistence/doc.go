// Package persistence keeps gozk's durable state: the txn log, snapshots
// of the data tree and sessions, and ZooKeeper's acceptedEpoch and
// currentEpoch. Store (OpenStore) is the whole of it for one server; the
// readers and writers of Apache ZooKeeper's snapshot.N and log.N files are
// in persistence/zkfiles.
//
// # Layout
//
// As in ZooKeeper, the txn log lives under dataLogDir and snapshots under
// dataDir (dataLogDir defaults to dataDir), each in its own Pebble store:
//
//	<dataLogDir>/gozk/        the txn log (TxnLog); one WAL fsync per batch
//	<dataDir>/gozk-snap/      snapshots and the epochs (Store)
//
// Two stores even when the directories are the same: the txn log is the
// latency-critical, fsync-per-batch store and should be alone on its
// device when an operator gives it one (the point of dataLogDir), and a
// snapshot, written as one ingested sstable, never passes through the
// log's WAL or memtables. Apache ZooKeeper's version-2/ directories can
// sit beside both.
//
// Recovery needs both stores: the newest valid snapshot, then the txns
// after its zxid (TxnLog.PurgedBefore says whether the log still has them
// all). Writes keep that true at every instant: a snapshot is ingested
// (atomically, synced) before any txn it makes unnecessary is purged, and
// purging never drops the txns that the oldest retained snapshot needs.
//
// # Snapshots
//
// Snapshot keys and chunk format are described in snapshot.go. Each chunk
// of records carries a CRC32C over its key and payload, and a trailer
// counts the chunks and records, so damage is reported as a
// CorruptionError naming the snapshot's zxid, the key, the chunk and, for
// nodes, the last node read intact. SnapshotWriter takes the records of
// Java's snapshot format (ACL cache entries, nodes with their ACL id and
// StatPersisted, sessions, the ZxidDigest), so converting a Java
// snapshot.N is a loop over its records, and ReadSnapshot hands them back
// in Java's order.
//
// # Taking snapshots, recovery, purging
//
// The server (server/snapshot.go) asks for a snapshot when the sync stage
// has logged snapCount/2 + random(snapCount/2) txns since the last one, as
// Java does, and on demand (Server.TakeSnapshot). It copies the tree with
// db.FuzzyWalk, which holds the tree's read lock for about a thousand
// nodes at a time (well under a millisecond), so writes go on while a big
// tree is written; the snapshot's zxid is the tree's at the start of the
// walk, and its ZxidDigest the tree digest at the end. Replaying the txns
// after the zxid makes the tree exact (db's Apply converges on txns already
// reflected, as Java's does).
//
// Recovery (server.Recover, also run by `gozk data verify`) loads the
// newest snapshot that reads back intact, replays the txns after it and
// compares the snapshot's digest when replay reaches its zxid, then every
// txn digest after that (txns imported from Java carry them). A damaged
// snapshot is skipped for an older one only while the log still holds
// every txn after the older one (PurgedBefore <= its zxid + 1); otherwise,
// and for a damaged txn or a digest mismatch, the server refuses to start
// with a message naming the snapshot, the key or the zxid. Java would also
// fall back, but without checking that the log still has what the older
// snapshot needs, and only logs digest mismatches.
//
// Purge (autopurge.snapRetainCount, at least 3, every
// autopurge.purgeInterval hours, 0 = never, as in Java) keeps the newest
// complete snapshots and every txn after the oldest kept one.
//
// # The txn log
//
// The sync stage hands TxnLog.Append a batch of txns, each the exact bytes
// ZooKeeper logs (TxnHeader, record, optional TxnDigest; see
// proto.TxnEntry). The batch becomes one Pebble batch, committed with one
// WAL fsync when Options.ForceSync is set, so a group of client writes
// costs one disk flush, as in Java's SyncRequestProcessor. Append returns
// only after that fsync: an acknowledged txn survives kill -9 and power
// loss. Recovery reads the txns back in zxid order with Replay.
//
// A write or fsync of the WAL that fails fails the batch waiting for it
// and every batch queued behind it, and from then on the log refuses
// every write, with an error wrapping a *WALError that names the
// operation, the file and what the file system said, until it is
// reopened. The failed fsync is never retried: after one, whether the
// file's dirty pages reached the disk, were dropped or are still to be
// written is unknown, and a retry that succeeds proves nothing. Reopening
// replays what did reach the disk; the server stops instead of going on.
//
// # Keys
//
// The txn log's Pebble store lives in <Options.Dir>/gozk (StoreDirName);
// its WAL is in the same directory so one fsync covers everything a commit
// needs. A WAL file is as large as its preallocation (about 1.1 times a
// memtable) from its second write on, its records at the start and zeros
// after them, so the fsync of a commit writes data and no new file size
// (sizedWALFS; Pebble alone would grow the file with each write). In both
// stores keys start with a one-byte prefix that names what
// they hold:
//
//	'm' + name               metadata: "mformat" holds the store format (uint32 BE, now 1);
//	                         "mpurgedBefore" (log), "macceptedEpoch", "mcurrentEpoch"
//	                         (snapshots) hold an int64 after its CRC32C
//	's' + zxid + kind + seq  a chunk of a snapshot (snapshot store)
//	't' + zxid (8 bytes BE)  one txn (txn log); keys sort by zxid because zxids are positive
//
// A txn value is the CRC32C (Castagnoli) of the txn bytes, 4 bytes big
// endian, followed by the txn bytes themselves. Pebble checksums its own
// blocks and WAL records; the per-txn checksum is there as well so that a
// value damaged anywhere between Append and Replay (a bug, bad memory, a
// tool writing into the store) is caught and reported with the exact zxid
// (CorruptionError), which `gozk data verify` can show. Replay also checks
// that the zxid in the stored TxnHeader matches its key.
//
// # Differences from ZooKeeper worth knowing
//
// LastZxid returns 0, not Java's -1, for an empty log: zxid 0 is never the
// zxid of a txn, and a fresh server starts at lastProcessedZxid 0.
//
// With ForceSync false, Java still writes each batch to the OS before
// going on, so it survives kill -9 (not power loss). Pebble without Sync
// may still hold the tail of its WAL in process memory, so without
// ForceSync the last batches can also be lost on kill -9. ForceSync false
// is for tests and benchmarks.
//
// Java stops with an error at any log record whose checksum fails. Pebble
// does so for damage in tables and in the synced part of its WAL when a
// later WAL block proves that part was synced; damage within the last
// 32 KiB block of the live WAL looks like a torn write after a crash and
// Pebble replays the log only up to it.
package persistence
