// Package peer is gozk's ensemble member, Apache ZooKeeper's QuorumPeer:
// a server that looks for a leader, then leads, follows or observes, and
// looks again when that role ends.
//
// Member is the whole member: it elects through an Elector, then follows
// or observes the leader elected with FollowLeader, carrying out the
// learner's actions on the server (server.Server's learner methods behind
// serverStore), or leads (lead, leader.go): it listens on the quorum port
// and drives zab.Leader from one loop, whose inputs are the learners'
// packets (each learner link has a reader and a writer goroutine and an
// unbounded send queue, leaderconn.go), the server's proposals and log
// reports (the server's LeaderSink), and ticks every half tickTime; its
// outputs go to the links (packets, SNAP streams of the live tree), to the
// server (commits, learners' requests, session touches and
// revalidations) and to the epoch files. When a role ends the member stops
// the server's serving (which reloads the tree from the log) and elects
// again.
//
// The Elector runs fle's pure election over the election port
// (quorum/electionport), owning the timers Java's FastLeaderElection runs
// (the finalize wait, and the notification interval that doubles up to
// its maximum while nothing arrives, after which the vote is sent again
// or the connections re-opened). Between elections it goes on answering
// the servers still looking with the outcome, and with the epoch this
// server synced to once UpdatePeerEpoch says so, so that a restarted
// server finds the leader.
//
// FollowLeader is the learner's connection to its leader: it runs
// zab.Learner over the quorum port and carries out its actions in order
// on a LearnerStore (epochs, log, tree, snapshots, serving) and
// LearnerHooks (election vote, session touch table, revalidations,
// syncs, statistics). Each read is bounded by initLimit until NEWLEADER
// and by syncLimit after it, as Java bounds them; the leader is dialled up
// to five times within initLimit; a SNAP's tree is read from the
// connection by the store; ACKs wait for the store to report the txns
// durable. While serving, the server's requests, revalidations and syncs
// go out on the same connection (leaderLink), one packet at a time. Tests
// play a Java leader's packet sequences against it, with a recording store
// and with a real server.
//
// The quorum port binds each of the member's quorum addresses; a learner
// dials every address of its leader at once (multi-address server lines)
// and keeps the first connection. A member that follows or observes
// closes the learners waiting on its quorum port, which decided for it in
// an election that split.
//
// With observerMasterPort a follower, once synced, is an observer master
// (observermaster.go, Java's ObserverMaster): the leader's loop in relay
// mode (zab.LeaderConfig.Relay) on that port, fed by the learner's
// Proposed and Committed hooks, syncs observers from the follower's own
// database and sends them an INFORM of each commit; their requests,
// revalidations and touches go on to the leader through the follower's
// connection, their syncs in line with the follower's own. An observer
// then takes the voters' observer masters in turn instead of the leader.
// An observer pauses as Java's does: a random wait below
// zookeeper.observer.election.DelayMs before electing again, and below
// zookeeper.observer.reconnectDelayMs before dialling the leader or after
// trying every master.
//
// With sslQuorum or portUnification (tls.go) the quorum port, the
// learner's dial and the election port go through quorum/quorumtls with
// the ssl.quorum.* stores loaded by tlsconf (a store that cannot be read
// stops NewMember when sslQuorum is set); the quorum port runs each
// learner's handshake on its own goroutine, bounded by initLimit, and a
// learner refused by TLS is closed and logged while the others go on.
//
// With quorum SASL (quorum.auth.*, package quorum/quorumauth), NewMember
// builds both sides from zoo.cfg and the JAAS file: the election port runs
// them on every connection, the learner authenticates to its leader right
// after connecting, and the quorum port authenticates each connection
// after TLS, before holding it for the leader; a connection that fails is closed with
// a log line naming the peer.
//
// The I/O steps at Zab's dangerous moments (a proposal durable and not yet
// acknowledged, NEWLEADER acknowledged, the current epoch written, part of
// a SNAP sent, the leader's own log durable) call internal/failpoint's Hit,
// so that a fault-injection test can crash or fail a member exactly there;
// zab/ itself has none.
package peer
