// Package acl decides who a connection is and what it may do, the way
// Apache ZooKeeper 3.8.0 does.
//
// A connection starts with one identity, its IP address (IPIdentity), and
// gains more from auth packets (Checker.Authenticate), from a verified TLS
// client certificate (Checker.X509Identities) and from a completed SASL
// exchange (Checker.SASLIdentities). AddIdentity keeps the set in the order
// Java's connection set iterates it, because that order is visible to
// clients: it is the order of whoAmI replies and of the entries an "auth"
// ACL expands to.
//
// A Checker holds the server's authentication configuration (skipACL,
// the super digest, the digest algorithm, the optional sasl, x509 and
// ensemble providers, enforced authentication) and answers the questions
// the request pipeline asks: may these identities do this to a node with
// that ACL (Allowed), what ACL does a create or setACL really store
// (FixupACL), what does whoAmI report (WhoAmI). A Checker is immutable and
// safe for concurrent use; Allowed does not allocate.
//
// Java quirks are reproduced on purpose, because clients can observe them:
// ACL ip addresses are parsed with Integer.parseInt (so "+10", "-0" and
// Arabic-Indic digits are accepted) and only IPv4 matches; digest ids are
// valid when String.split(":") yields two parts; x509 ids must parse as an
// X.500 name under the JDK's rules; auth data is decoded the way
// new String(bytes) decodes malformed UTF-8 before it is hashed.
//
// The TLS and SASL handshakes themselves live with the network code; this
// package only turns their results into identities and matches them.
package acl
