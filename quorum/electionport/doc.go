// Package electionport keeps the connections of the election port between
// the servers of an ensemble, as Apache ZooKeeper 3.8's QuorumCnxManager
// keeps them, so that gozk and Java servers reach each other for leader
// election.
//
// A Manager listens on this server's election address and holds at most
// one connection per peer:
//
//   - the server that opens a connection sends Java's initial message
//     first (protocol version, its id, its election addresses);
//   - only a connection opened by the larger id is kept: a server that
//     dials a larger id says hello and hangs up, and the server that is
//     dialled by a smaller id hangs up and dials back (to the address the
//     initial message gave, or the configured one);
//   - each peer has a send slot holding only the newest message, and a new
//     connection first re-sends the last message sent to that peer when
//     nothing newer waits, so a reconnect never loses the current vote;
//   - messages from every peer go to one receive queue of 100, the oldest
//     dropped when it is full; a message to this server itself is looped
//     straight back into it;
//   - with quorum SASL (Config.AuthLearner, Config.AuthServer, see package
//     quorumauth), the dialler authenticates right after its initial
//     message and the acceptor checks it, before the ids decide which
//     connection is kept; a failure closes that connection with a log
//     line, and an acceptor that refused a smaller id does not dial it
//     back, as in Java.
//
// Unlike Java, every handshake runs on its own goroutine with a deadline,
// so a peer that connects and says nothing cannot stall the listener, and
// a connection from a server using this server's own id is closed instead
// of left open. Anything malformed (an initial message or a frame) closes
// that one connection with a log line naming the peer; the Manager goes
// on.
//
// With Config.TLS (sslQuorum, portUnification; package quorumtls) the
// dialler runs the TLS handshake before its initial message, and the
// handshake goroutine of an accepted connection runs detection and TLS
// before reading it, both within HandshakeTimeout; a failed handshake is
// logged with the peer's address and the reason, and that peer is tried
// again at the next round like any peer that cannot be reached.
//
// The Manager carries bytes; what they mean (fle's notifications) and when
// to send them is the caller's, see package peer.
package electionport
