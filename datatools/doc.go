// Package datatools works on data directories offline, with no server
// running: it moves a data directory between Apache ZooKeeper 3.8 and
// gozk, and prints the txn logs and snapshots of either. `gozk data
// import`, `export`, `dump-log` and `dump-snapshot` are thin wrappers
// around it (flags to options, errors to exit statuses); other packages
// call it directly.
//
// # The API
//
// A Dirs names one data directory (dataDir, dataLogDir) with the settings
// that change how its files read and write: the tree options
// (extendedTypesEnabled, digest.enabled), the jute field limit and the
// snapshot compression. NewDirs gives zoo.cfg's defaults; DirsFromConfig
// takes them from a parsed zoo.cfg.
//
//   - Import(from, to, ImportOptions) reads Java's version-2/ as 3.8's
//     FileTxnSnapLog.restore does (the newest snapshot that loads, plain,
//     gz or snappy, then every later txn of the log files, with the same
//     digest checks) and writes gozk's store at the same zxid: Java's
//     snapshot and the txns after it (or, after digest mismatches, one
//     snapshot of the tree as replayed), and the epochs. It then recovers
//     the new store as the server will and checks the tree is the same.
//   - Export(from, to, ExportOptions) recovers gozk's store as the server
//     does and writes version-2/snapshot.<zxid> of the whole tree (Java's
//     checksums and digest section) and the epoch files, then reads them
//     back as Java's restore would and checks the tree is the same.
//
// # Epochs
//
// An ensemble member's acceptedEpoch and currentEpoch move with its data
// in both directions, so that it can change implementation and rejoin
// its ensemble. Import reads Java's files (and currentEpoch.tmp, which
// Java takes when currentEpoch is behind the last zxid), checks them by
// Java's own start-up rules (zab.EpochsAtStart) before it writes
// anything, and keeps in gozk's store the epochs the files hold; a
// refusal names the file. Export writes, atomically as Java does, the
// epochs the store has. A standalone server's directory has no epoch
// files and its store none: both directions then write none, and Java
// or gozk derive them from the last zxid when a member starts.
//   - DumpLog and DumpSnapshot print a file of Apache ZooKeeper's
//     (log.N, snapshot.N[.gz|.snappy]) or gozk's store (a directory) in the
//     layout of Java's TxnLogToolkit and SnapshotFormatter, byte for byte
//     (siblings and sessions of a snapshot aside, which Java prints in hash
//     order), or as JSON.
//   - WriteJavaSnapshot writes a tree in the record order of Java's
//     FileSnap.serialize.
//
// Every function returns its errors; progress lines go to the io.Writer
// of the options (nil discards them). A store that a running server holds
// fails with persistence's LockedError, which names the store and the
// server's pid. DumpSnapshot on a store that has no snapshot yet (every
// new store: the server takes its first after snapCount/2 to snapCount
// txns) returns an error matching ErrNoSnapshot. Messages name the flag
// of `gozk data` that changes the outcome (--force,
// --ignore-digest-mismatch), which is the option of the same name here.
//
// # Differences from Java
//
// Java's restore applies a txn whose zxid does not increase over the
// previous one; gozk's log keeps zxids strictly increasing, so Import
// refuses such a log. Java only logs a digest mismatch; Import stops on
// one unless later checks match again up to the last (what Java's own
// fuzzy snapshots cause) or ImportOptions.IgnoreDigestMismatch is set.
//
// Import refuses two kinds of epoch files Java starts with: a negative
// epoch, and a currentEpoch.tmp older than the last zxid's epoch that
// would replace currentEpoch (Java takes it, then refuses its next
// start). Java's Long.parseLong reads digits of any script; gozk reads
// ASCII ones. Export keeps an acceptedEpoch already in the destination
// when it is higher than the store's: lowering it would take back a
// promise that server made to a leader. Epoch files left in the
// destination that Java would refuse beside the export (the store
// having none to write over them) are refused unless ExportOptions.Force
// moves the directory aside.
package datatools
