// Package zkfiles reads and writes Apache ZooKeeper's own data directory
// files, byte-compatible with ZooKeeper 3.8: snapshot streams
// (snapshot.<zxid>, plain, .gz or .snappy), txn log files (log.<zxid>) and
// the acceptedEpoch / currentEpoch files. It is pure: files and streams
// in, records out, no network and no knowledge of gozk's own store.
//
// # Snapshots
//
// A snapshot stream is a FileHeader ("ZKSN", version 2, dbid -1), the
// session table, the ACL cache, the nodes in pre-order (the root under the
// path ""), the terminator "/", an Adler32 of everything so far and a "/"
// seal; ZooKeeper 3.6+ then appends a ZxidDigest with a second cumulative
// Adler32 and seal (DecodeSnapshot accepts the 3.9 lastProcessedZxid
// section after it too). The checksums are over the uncompressed bytes;
// .gz files are gzip streams and .snappy files are snappy-java's
// SnappyOutputStream framing (see xerial.go). DecodeSnapshot (and
// ReadSnapshotFile for a file) streams a snapshot through callbacks so that
// a tree of any size is never held in memory twice; SnapshotWriter writes
// one the way FileSnap.serialize does, byte for byte (the tests rewrite
// snapshots Java 3.8.0 made and compare).
//
// A leader streams the same session table, ACL cache and nodes to a
// learner after a SNAP packet, without the header, seals or digest, and
// ends them with the string "BenWasHere"; DecodeSnapStream reads that
// from the connection's reader and leaves the packets after it unread
// (checked against the bytes Java 3.8.0's SerializeUtils writes,
// testdata/java-snapstream.bin, from `make snapstream-oracle`).
//
// # Txn logs
//
// A log file is a FileHeader ("ZKLG", version 2, dbid 0) followed by
// records {Adler32, length, txn bytes, 'B'} and a zero tail up to the
// preallocated size. LogFileReader reads one file with Java's end rules
// (EOF, a zero length or a missing 'B' end the file; a checksum mismatch
// is an error); ReadLogs walks a directory from a zxid with
// FileTxnIterator's file selection; LogWriter writes a file as FileTxnLog
// does, zero tail included.
//
// # Epochs
//
// ReadEpoch and WriteEpoch read and write acceptedEpoch and currentEpoch:
// a decimal long (the first line when read), written through a .tmp file
// and a rename. Epochs is the pair as gozk's store, zab and the data
// tools all hold it, with the currentEpoch.tmp a Java write cut short can
// leave; ReadEpochs and WriteEpochs read and write a snapshot
// directory's files.
//
// # Restore
//
// Restore picks the newest snapshot that fully decodes (FileSnap's
// findNValidSnapshots: at most 100 candidates, the tail check for plain
// files, the magic for compressed ones) and then replays every later txn,
// as FileTxnSnapLog.restore does; the caller supplies the data tree (see
// cmd/gozk's data import, which also makes Java's digest checks).
package zkfiles
