// Package sasl holds gozk's SASL mechanisms and the JAAS login
// configuration they are configured with, behaving as Apache ZooKeeper
// 3.8.0 on the JDK does.
//
// A mechanism exchange is a Server (the side that verifies) or a Client
// (the side that proves), stepped with Evaluate one token at a time, as
// Java's SaslServer.evaluateResponse and SaslClient.evaluateChallenge:
//
//	srv, _ := factory.NewServer()
//	challenge, err := srv.Evaluate(nil) // first token from the server
//	... send challenge, receive response ...
//	challenge, err = srv.Evaluate(response)
//	if srv.Complete() { id := srv.AuthorizationID() }
//
// The caller owns the transport (the client protocol's opcode 102 in
// package server, the quorum's auth packets); this package does no I/O
// except reading JAAS files.
//
// DIGEST-MD5 (RFC 2831) is implemented as the JDK's
// com.sun.security.sasl.digest classes do it for ZooKeeper: realm and
// server name "zk-sasl-md5", protocol "zookeeper", md5-sess, utf-8, a
// 40-character nonce, nc 00000001, qop auth. A Java ZooKeeper server
// hands the JDK no SASL properties, so it offers only auth whatever
// javax.security.sasl.qop says, and gozk does the same; auth-int and
// auth-conf can be offered through DigestServerConfig.QOP and are then
// negotiated as the JDK negotiates them, but no security layer follows,
// as ZooKeeper never wraps its packets. The identity is the
// authenticated user name (shaped as a Kerberos name when it holds '@'),
// never the authzid the client sends, as in Java's
// SaslServerCallbackHandler. Tokens are parsed with the JDK's grammar and
// bounds (4096 bytes for a response, 2048 for a challenge); a malformed,
// hostile, replayed or wrongly signed token ends the exchange with an
// error wrapping ErrAuthentication (and ErrUncaught where the JDK throws
// an unchecked exception instead), and an exchange that failed or
// completed refuses every later token. The tests replay exchanges
// recorded from the JDK (testdata/jdk) byte for byte.
//
// GSSAPI (Kerberos) plugs in through RegisterServerLoginModule keyed by
// the JAAS login module class (Krb5LoginModule); NewServerFactory picks a
// registered module when the section names one and DIGEST-MD5 otherwise,
// as a Java server does depending on whether its login subject holds a
// Kerberos principal.
//
// The JAAS parser (ParseJAAS, LoadJAAS) reads the syntax of the JDK's
// sun.security.provider.ConfigFile, quirks included: unquoted values that
// start with a digit, '.' or '-' are numbers and refused, single quotes
// are refused, a lone '/' comments out the rest of the line, a line end
// closes an open string, and ${name} is expanded from system properties
// (policy.expandProperties=false turns that off). Errors name the file and
// the line where the offending token starts; Java counts lines inside
// /* */ comments wrongly, gozk does not.
package sasl
