// Package quorumtls puts TLS on the connections between ensemble members
// (the election port and the quorum port) as Apache ZooKeeper 3.8.0 does
// with sslQuorum and portUnification, so that gozk and Java members
// configured with the same ssl.quorum.* stores reach each other.
//
// A Config says how both ends behave:
//
//   - a dialler uses TLS when sslQuorum is set, plain otherwise; it
//     verifies the listener's certificate (and its hostname or address,
//     as the TLS configuration for that host decides) before sending
//     anything;
//   - a listener with neither setting takes plain connections only; with
//     sslQuorum alone it takes TLS only and closes a plain connection
//     ("blocked insecure connection attempt", as Java's
//     UnifiedServerSocket does); with portUnification it takes both,
//     telling them apart by the first bytes the dialler sends, waited for
//     at most ssl.quorum.handshakeDetectionTimeoutMillis (nothing within
//     that time counts as plain, as in Java).
//
// The TLS configurations are asked for on every connection, so a
// certificate reloaded from its store (sslQuorumReloadCertFiles) serves
// the next connection while those already up keep theirs.
//
// A handshake that fails only fails that connection: the caller logs the
// error, which names the peer's address and the reason, and goes on with
// the other members.
package quorumtls
