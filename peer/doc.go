// Package peer is gozk's ensemble member, Apache ZooKeeper's QuorumPeer:
// a server that looks for a leader, then leads, follows or observes, and
// looks again when that role ends.
//
// What it holds so far is the election driver: an Elector runs fle's pure
// election over the election port (quorum/electionport), owning the
// timers Java's FastLeaderElection runs (the finalize wait, and the
// notification interval that doubles up to its maximum while nothing
// arrives, after which the vote is sent again or the connections
// re-opened). Between elections it goes on answering the servers still
// looking with the outcome, and with the epoch this server synced to once
// UpdatePeerEpoch says so, so that a restarted server finds the leader.
package peer
