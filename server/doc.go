// Package server is gozk's ZooKeeper server: the session tracker, the
// connection protocol (handshake, request decoding, replies and
// notifications in the order Java sends them) and the request pipeline,
// standalone or as the data side of an ensemble member.
//
// Every write flows prep -> sync -> final, as in Apache ZooKeeper, one
// batch at a time on one goroutine (writeLoop; writes arriving meanwhile
// form the next batch):
//
//   - prep, in strict arrival order, validates a write against the data
//     tree plus the changes still in flight, assigns its zxid and builds
//     the txn in ZooKeeper's own encoding, or an ErrorTxn;
//   - sync appends the batch's txns to the Pebble log with one fsync and
//     passes them on only once they are durable;
//   - final applies txns to the tree in zxid order, fires watches and
//     answers.
//
// A txn log that fails (a write or fsync error) stops the server, as
// Java's does: no batch from the failed one on is applied or answered,
// every client is dropped, the client port closes, Failed closes and Err
// names the failed operation and the disk's error (`gozk server` exits
// with it, status 1). The fsync is never retried; a restart replays what
// reached the disk, which holds every write acknowledged. A snapshot that
// fails is logged and counted (gozk_snapshot_failures, Prometheus) and
// the server goes on: the log keeps every txn after the newest complete
// snapshot, and a failed one is never used. Java 3.8.0 exits there.
//
// Reads skip the pipeline. A read from a session with nothing in flight is
// answered at once on the connection's event loop; a read behind one of the
// session's writes waits in that session's queue and runs when the write
// has been applied, so every session sees its replies in request order. A
// reader/writer lock around "apply and trigger watches" on one side and
// "read and register a watch" on the other makes every notification caused
// by a txn reach a connection before any reply that reflects the txn.
//
// In an ensemble (Config.Ensemble) the server loads its data and serves
// nothing until its peer (package peer) starts a role; role.go keeps the
// role, Zab phase and sync mode that srvr and mntr report. As a follower or
// observer (learner.go, StartLearning) it prepares nothing: forwardLoop
// sends each write, sync, createSession and closeSession to the leader
// through a LeaderLink, registered first in its session's forwarded
// queue; the leader's txns are logged as they come (LogTxn, group commit,
// durability reported in order on Logged) and applied in zxid order as
// they are committed (CommitTxn), answering the local request of the same
// session and cxid when there is one. Reconnects are revalidated with the
// leader; learners expire no session and reap no container. StopServing
// closes every client, waits until every txn the role handed to the log
// is durable (a leader's write loop ends only once its fsync waiter has
// waited for every batch), and makes the tree hold every logged txn
// (reloading it from the log unless it was in sync); TruncateLog and
// LoadSnapStream carry out TRUNC and SNAP; both drop the logged txns and
// the snapshots past the leader's zxid (Java 3.8.0's learner keeps them on
// a SNAP, and a restart may load such a snapshot of another history). A
// SNAP's tree may hold effects
// of txns after its zxid (the leader walks it while applying), as may a
// tree recovered from a snapshot without a digest: until its digest
// matches one the leader sent with a txn, or the first PING of the
// broadcast, the learner reports no digest mismatch and its snapshots
// record no digest.
//
// As the leader (leader.go, StartLeading) the write loop runs as it does
// standalone with another commit source: each batch is proposed through
// the peer's LeaderSink as it goes to the log, the leader's own ACK is its
// fsync (LeaderSink.Logged), and a batch is applied and answered once
// Committed covers it. Learners' requests (SubmitLearnerRequest) are
// prepared in arrival order with the local writes, with their clients'
// identities; prep checks every client request's session as Java does
// (SESSIONEXPIRED, SESSIONMOVED against its owner); the leader expires
// and reaps for the whole ensemble. snapstream.go writes the SNAP stream
// of the live tree and reads logged txns for a DIFF from the log.
//
// SASL on the client port (sasl.go) follows Java's processSasl: each
// connection gets one exchange of the mechanism the JAAS Server section
// selects (package sasl), stepped by opcode-102 packets answered like
// reads, in session order, and not counted as session activity. A completed
// exchange adds sasl:<id> (and super for a zookeeper.superUser); a failed
// one is answered AuthFailed, or SessionClosedRequireSaslAuth when sasl is
// enforced, with a null token, and the connection closes unless
// zookeeper.allowSaslFailedClients keeps it. A JAAS file that cannot be
// read stops Open, as it stops Java's start-up; a file without the
// section leaves SASL off.
//
// TLS clients (tls.go) reach the server through the same netio.Handler;
// a connection whose client certificate the handshake verified starts
// with the x509 identities of its subject (Java's
// X509AuthenticationProvider), an x509 auth packet is answered from that
// certificate, and a failed handshake counts as a failed authentication.
package server
