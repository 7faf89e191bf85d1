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
//	                         "mpurgedBefore" (log), "macceptedEpoch", "mcurrentEpoch",
//	                         "mtxnLogWAL" (snapshots) hold an int64 after its CRC32C
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
// Java stops with an error at any log record whose checksum fails, except
// a last record without its end-of-record byte, which it takes for a write
// cut short. gozk does the same with Pebble's WAL; see below.
//
// # Damaged and torn WALs
//
// Pebble replays its newest WAL up to the first chunk that does not read
// back and drops the rest as the torn tail of a crash, unless a chunk in a
// later 32 KiB block carries a sync offset past the bad one (proof that it
// was synced). Alone, it would silently cut the log at a flipped byte in
// the last block (where a small log keeps everything), and replay nothing
// from a WAL truncated or zero-filled. So before Pebble reads a WAL,
// checkWAL reads it whole (walCheckFS sees Pebble open it, so the WALs
// checked are those Pebble replays) and stops the open with a
// CorruptionError naming the file, the offset and the last txn before the
// damage when:
//
//   - any later chunk that reads back, in the same block or after, says
//     the WAL was synced past the bad chunk (Pebble's rule, applied within
//     the block too), or past zeros where the records stop;
//   - the bad chunk is in a WAL Pebble had closed (those end with its EOF
//     trailer);
//   - the WAL holds no record but is not empty: Pebble writes before it
//     sizes a WAL, so zeros alone are what is left of records;
//   - the WAL holds no record but must: each writable open begins its WAL
//     with a synced record (startWAL, a LogData record, which adds no key
//     to the tables) and only then records that WAL's number in the
//     snapshot store (liveWALKey); a WAL so recorded that Pebble still
//     replays, truncated to nothing, is damage;
//   - the bad chunk is the last thing in the WAL, with no proof, but does
//     not look torn: a record is written over the zeros sizedWALFS
//     preallocates and a crash keeps whole sectors of it off the disk, so
//     a torn chunk has zeros (or the file's end) from some 512-byte
//     boundary inside it to its end. A chunk whose bytes are all there was
//     written whole; the sync stage waits for each batch's fsync before
//     writing the next, so it was acknowledged.
//
// Anything else after the records is a torn tail: it is dropped, as Pebble
// and Java do, and loses only the batch whose write never completed; a
// warning ("the txn log WAL ends with a write cut short by a crash") names
// the file, the offset and the last txn kept.
// Nothing of this costs a syscall per batch: the check runs at open, the
// first record at open, and Store.Close ends the WAL with one more synced
// record (sealWAL) whose sync offset proves the last batch complete, so
// after a clean stop even zeros over it are reported.
//
// What the check cannot see: after a crash (no sealing record), damage to
// the last batch that leaves it ending in zeros from a sector boundary on
// looks torn and is dropped; and a WAL Pebble created by switching
// memtables (not at open) is recorded nowhere else, so truncating that one
// to nothing goes unnoticed. sizedWALFS does not let Pebble recycle WAL
// files, so what follows the records is always zeros, never an older
// log's bytes; WALs recycled by an older gozk are still read (an unreadable
// chunk followed by an older log's intact chunks is taken for torn).
//
// # Creating a store, and a full disk
//
// A new Pebble store is created in <dir>.new, with its format record, and
// renamed to <dir> once whole (createPebble): a creation that fails (no
// space left, a crash) leaves no store, and the next start creates it
// afresh instead of finding one without a MANIFEST (damaged). A store
// directory holding only empty MANIFEST files, what Pebble leaves when it
// cannot write the first one, also counts as new.
//
// A write that fails while a store opens fails the open with that error
// (pebbleOpen): Pebble reports a MANIFEST or WAL it cannot write through
// Logger.Fatalf, which then unwinds to the open instead of ending the
// process, and it retries a failed flush without end (its Open would wait
// for the flush of the replayed WAL for ever), so the first background
// error during the open is taken as the open's error and the half-open DB
// is abandoned. A server starting on a full disk thus exits with one
// message naming the file and "no space left on device", and starts once
// space returns; Java exits with an error too.
package persistence
