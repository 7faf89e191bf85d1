// Package stallfs holds a server's txn-log fsyncs for tests that need a
// write to be on its way to the disk at a chosen moment: a role ending,
// or a leader lost, with an append still in flight.
//
// A LogSyncs wraps the file system a server's stores are opened on
// (server.Config.FS). While armed, every fsync of a file of gozk's txn
// log (a .log file in a directory named gozk) announces itself on
// Entered and waits for a Release; other fsyncs, and every fsync while
// disarmed, go straight through.
package stallfs
