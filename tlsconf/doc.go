// Package tlsconf turns one set of ssl.* (or ssl.quorum.*) keys into
// TLS configurations, deciding as Apache ZooKeeper 3.8.0's X509Util,
// ClientX509Util, QuorumX509Util, ZKTrustManager, KeyStoreFileType and
// PemReader do, so that the stores and values that work on Java work
// here and what Java refuses is refused here, with an error naming the
// key and the file.
//
// Use:
//
//	src, err := tlsconf.New(cfg.ClientTLS, "ssl.", tlsconf.Options{Logger: log})
//	ln := tls.NewListener(tcp, src.ServerConfig()) // follows reloads
//	src.WatchFiles(stop)                          // when reloading is on
//
//	q, err := tlsconf.New(cfg.QuorumTLS, "ssl.quorum.", tlsconf.Options{Quorum: true, Logger: log})
//	tc := q.Client(conn, host) // or tls.Client(conn, q.ClientConfig(host))
//
// # Stores
//
// A store's type is *.type (JKS, PKCS12 or PEM, any case), else the
// file name's extension (.jks, .p12, .pem, case-sensitive, as Java);
// neither deciding is an error that asks for *.type. BCFKS is refused.
// JKS and PKCS12 are told apart by content, as a JDK 9+ does
// (keystore.type.compat). The password is *.password, or the contents
// of *.passwordPath when set (the file wins; one trailing newline is
// dropped). Key entries must open with the store password, as Java's
// KeyManagerFactory requires. A PEM key store is a PKCS#8 private key
// and its certificate chain in one file; with a password the key must
// be an ENCRYPTED PRIVATE KEY (PBEWithSHA1AndDESede, which Java reads,
// or PBES2, which Java 3.8 on JDK 17 does not). Only trusted-certificate
// entries of a trust store are anchors; in a PEM trust store, of
// certificates with the same subject only the last, as Java files them
// by subject name. An unreadable store, a wrong
// password, a key store without a key and a trust store without a
// certificate are errors at New (Java starts with an empty key store
// and fails the handshakes; gozk says so at start).
//
// No key store: no certificate is presented (a warning at New). No
// trust store: peers are checked against the system's roots and no
// host name is checked, as Java falls back to the JDK's default trust
// manager, which ZKTrustManager does not wrap.
//
// # Handshake parameters
//
// ssl.protocol (default TLSv1.2) must be a name Java's SSLContext
// knows; ssl.enabledProtocols defaults to the ssl.protocol value alone.
// TLSv1.2 and TLSv1.3 are enabled; TLSv1, TLSv1.1, SSLv3 and
// SSLv2Hello, which a JDK 17 accepts but never negotiates, are dropped
// with a warning; other names are errors. ssl.ciphersuites defaults to
// X509Util's list; IANA names map to Go's suites, names Go lacks or a
// JDK 17 disables are dropped with a warning, unknown names are errors.
// A protocol no listed suite can serve is not enabled, as on Java: TLS
// 1.3 needs a TLS_AES_* suite in the list (Java's default has none). Go
// picks among the TLS 1.3 suites itself. ssl.clientAuth is none, want
// or need in any case (default need).
//
// # Certificate checks
//
// The peer's chain must lead to a trust anchor, be within its validity
// and carry the extended key usage of its role. Host names are checked
// as ZKTrustManager does: a dialing side, with ssl.hostnameVerification
// (default true), checks the server's certificate against the address
// dialed, then against the peer's name (the name dialed, or the reverse
// lookup of the address). With a SAN of type DNS or IP present only
// SANs count (IPv4 as text, IPv6 as an address, DNS names
// case-insensitively with one "*" matching within a label); otherwise
// the subject's most specific CN. A server checks a client's host only
// under Options.Quorum (QuorumX509Util) and with hostnameVerification;
// the client port never does. ssl.clientHostnameVerification is not a
// ZooKeeper 3.8.0 key and is ignored.
//
// ssl.crl and ssl.ocsp turn on revocation checking as the JDK's PKIX
// checker does it under them (with a trust store only): each certificate
// of the peer's path but the anchor is checked by OCSP first (ssl.ocsp,
// when the certificate names a responder), else by the CRLs at its
// distribution points; revoked or undetermined is refused (revocation.go).
// A distribution point is downloaded at most once per 30 s, success or
// failure, and once at a time, as the JDK's URICertStore does.
//
// # Reload
//
// Reload re-reads both stores and password files; the next handshake
// of every configuration handed out uses them. A store that fails to
// load leaves the previous ones in use and is logged. WatchFiles polls
// the two files and reloads on any change, as Java's FileChangeWatcher
// does under sslQuorumReloadCertFiles.
//
// # Names and detection
//
// SubjectDN prints a certificate's subject exactly as Java's
// X500Principal.getName() does (checked against Java in
// testdata/subjectdn). LooksLikeTLS is Netty's SslHandler.isEncrypted,
// which port unification uses to tell TLS from plaintext.
//
// The stores are operator files, not input from the network, so the
// loaders are not fuzzed.
package tlsconf
