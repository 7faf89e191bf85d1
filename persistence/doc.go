// Package persistence keeps gozk's durable state: the txn log now, and (in
// a later change) snapshots and the readers and writers of Apache
// ZooKeeper's snapshot.N and log.N files.
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
// # On-disk layout
//
// The Pebble store lives in <Options.Dir>/gozk (StoreDirName); its WAL is
// in the same directory so one fsync covers everything a commit needs.
// Apache ZooKeeper's own files (version-2/log.N, snapshot.N) are never
// written there, so a ZooKeeper data directory and a gozk store can sit
// side by side under the same dataLogDir.
//
// Keys start with a one-byte prefix that names what they hold:
//
//	'm' + name               metadata; "mformat" holds the store format (uint32 BE, now 1)
//	's' ...                  reserved for snapshots
//	't' + zxid (8 bytes BE)  one txn; keys sort by zxid because zxids are positive
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
