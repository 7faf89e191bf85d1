// Package ensemble tests gozk's ensemble members with Apache ZooKeeper
// 3.8.0 servers in the same ensemble, on loopback ports (tag interop).
//
// So far that is the leader election: gozk's election port and election
// driver (packages quorum/electionport and peer) run in the test process
// beside Java QuorumPeerMain processes started by compat/javazk, and must
// reach the same decision Java reaches, whichever kind of server wins,
// whether gozk starts with the others or joins an ensemble that already
// has its leader, and as an observer. Java's logs are checked too: Java must take
// every notification gozk sends (its configuration text included) without
// an error.
package ensemble
