// Package security holds the interop tests of TLS and SASL (build tag
// interop): gozk and Apache ZooKeeper 3.8.0 run side by side with the
// same zoo.cfg, system properties, JAAS files, key stores and keytabs,
// and real clients (the Java client, zkCli.sh, Curator, kazoo,
// go-zookeeper) and real Java servers must see the same outcome from
// both. Certificates and stores are made at test time (internal/certtest,
// with openssl and keytool); Kerberos runs against a private MIT KDC on
// loopback (internal/kdctest).
//
//   - tlsconf_test.go: gozk's TLS configurations against ZooKeeper's own
//     X509Util classes at the other end of the handshake, revocation
//     checking (ssl.crl, ssl.ocsp) against the test CA's CRL and OCSP
//     responder included.
//   - tlsport_test.go: the secure client port and client.portUnification
//     with every client, x509 ACLs and the x509 super user, the refusals
//     (untrusted, expired, revoked or missing certificate, plaintext on
//     the TLS port, TLS on a plain port).
//   - sasl_test.go: SASL DIGEST-MD5 on the client port with the Java
//     client and kazoo; wrong passwords, sasl ACLs, superUser,
//     sessionRequireClientSASLAuth, allowSaslFailedClients and JAAS
//     start-up errors.
//   - kerberos_test.go: GSSAPI with the Java client and kazoo, name
//     shaping (removeHost/removeRealm, auth_to_local) and stale keys.
//   - quorumtls_test.go: mixed ensembles with sslQuorum, Java's rolling
//     switch from plain to TLS, untrusted members kept out.
//   - quorumsasl_test.go: mixed ensembles with quorum SASL (DIGEST-MD5 and
//     Kerberos), a wrong password kept out, Java's rollout sequence.
//   - quorumtlssasl_test.go: a mixed ensemble with sslQuorum and quorum
//     SASL DIGEST-MD5 required at once, gozk leading and following.
//   - backends_test.go: what the SASL client tests share: a Java and a
//     gozk server started with the same -D flags, each client's outcome
//     lines compared on both, kazoo found or reported missing.
//   - ensemble_test.go: the mixed Java/gozk ensembles both quorum files
//     run: members laid out with zoo.cfg and myid, started and killed,
//     waited on for their roles and log lines, written through and
//     compared tree by tree.
//
// Debian's C client is built without OpenSSL, so it takes no part here.
// go-zookeeper has no SASL.
package security
