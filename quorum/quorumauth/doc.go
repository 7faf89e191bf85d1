// Package quorumauth is SASL authentication between the servers of an
// ensemble (quorum.auth.*), as Apache ZooKeeper 3.8's
// org.apache.zookeeper.server.quorum.auth classes do it, so that gozk and
// Java servers with the same zoo.cfg and JAAS file admit each other and
// refuse the same peers.
//
// The exchange is a series of QuorumAuthPacket records (magic, status,
// token; packet.go) between a Learner, the side that connects, and a
// Server, the side connected to:
//
//   - the learner sends IN_PROGRESS with its first token (empty for
//     DIGEST-MD5), the server answers IN_PROGRESS with a challenge, and so
//     on, until the server says SUCCESS (with its last token) or ERROR;
//   - on an election connection (quorum/electionport) the exchange comes
//     right after the dialler's initial message, before the ids decide
//     which connection is kept; on the learner's connection to the
//     leader's quorum port (package peer) it comes before FOLLOWERINFO;
//   - the server peeks at the first eight bytes: a peer that does not
//     start with the magic is not authenticating, and its own protocol
//     goes on untouched.
//
// The three rollout settings behave as Java's: with only
// quorum.auth.enableSasl=true learners send nothing and servers admit
// everyone; quorum.auth.learnerRequireSasl=true makes learners
// authenticate (and give up the connection on anything but SUCCESS);
// quorum.auth.serverRequireSasl=true makes servers refuse a peer that does
// not authenticate or fails to. Without serverRequireSasl, a failed
// exchange is answered ERROR and logged, and the connection is kept.
//
// Mechanisms come from package sasl, chosen by the JAAS sections as Java
// chooses them (FromConfig): DIGEST-MD5 with digest-uri
// zookeeper-quorum/zk-quorum-sasl-md5, the QuorumServer section's
// user_NAME options and the QuorumLearner section's username and
// password; GSSAPI when a section logs in with Krb5LoginModule, the
// learner asking for quorum.auth.kerberos.servicePrincipal with _HOST
// replaced by the server's host name, and the server admitting only
// principals whose host is one of the ensemble's servers.
//
// Differences from Java: a token is bounded by jute.maxbuffer and a
// packet with the wrong magic or an unknown status ends the exchange as
// malformed; a server whose mechanism has not completed after five
// challenges refuses the peer when authentication is required (Java lets
// it through); a learner's null token is refused before it reaches the
// mechanism.
package quorumauth
