// Package certtest makes the certificates and key stores that TLS tests
// need, at test time, with the same tools an operator of Apache ZooKeeper
// uses: openssl for keys and certificates, keytool for JKS and for
// PKCS12 trust stores. The files are therefore the ones Java's
// X509Util reads, and a test can hand the same paths to gozk and to a
// Java server or client.
//
// New writes into t.TempDir():
//
//   - a CA, and its certificate as trust stores (PEM, PKCS12, JKS);
//   - a server certificate (SAN IP:127.0.0.1 and DNS:localhost, CN as
//     asked) signed by the CA;
//   - one client certificate per requested subject, signed by the CA;
//   - an expired certificate signed by the CA;
//   - a certificate signed by a second CA that the trust stores do not
//     hold, and that second CA's trust stores.
//
// Each certificate (a Bundle) is written as a PEM file holding the
// private key and the certificate chain (the form Java's PEM key store
// reads), the same with the key as encrypted PKCS#8, a PKCS12 key store
// and a JKS key store; every store and encrypted key uses Set.Password.
// Leaf certificates carry both the serverAuth and clientAuth extended
// key usages and the loopback SANs, so any of them can serve either end
// of a handshake.
//
// Set.Issue and Set.IssueSAN add certificates signed by the CA later,
// the latter with any subjectAltName (or none).
//
// When openssl or keytool is missing New skips the test with the reason.
// keytool starts a JVM per store, so New takes seconds; it runs the
// keytool calls in parallel, and a test that needs several certificates
// should ask one New for all of them.
package certtest
