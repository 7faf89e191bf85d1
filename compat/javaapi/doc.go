// Package javaapi is the compatibility suite for the ZooKeeper 3.8.0 Java
// client API (Debian's /usr/share/java/zookeeper.jar): a Java program,
// testdata/ApiCheck.java, is compiled with javac into a temporary directory
// and run against Apache ZooKeeper 3.8.0 (compat/javazk) and against gozk
// (compat/gozkproc). It reports one line per check; each becomes a subtest,
// java/<check> and gozk/<check>:
//
//	go test -tags interop ./compat/javaapi/
//	go test -tags interop ./compat/javaapi/ -run 'TestJavaAPI/gozk/'
//	GOZK_API_CHECKS='multi watch-data' go test -tags interop ./compat/javaapi/
//
// What it covers: the synchronous and callback variants of every operation
// (create in every mode, TTL and container included, with their Stat;
// delete, exists, getData, setData, getACL, setACL, getChildren with and
// without Stat, getAllChildrenNumber, getEphemerals, sync, multi and
// multiRead with per-op results, the transaction builder, whoAmI), digest
// auth and ACL checks, every kind of watch (one-shot data, exist and child
// watches, removeWatches and removeAllWatches, persistent and persistent
// recursive watches with their event streams), chroot connection strings,
// the readonly flag of the handshake, a second handle taking a session
// over, the classic session expiry, and a server restart under a connected
// handle (the program prints SIGNAL restart; the test restarts the server
// on the same port and data directory) whose session and watches survive.
// Edges too: session timeout negotiation, the /zookeeper nodes, the order
// of a multi's events, watch events withheld from connections without READ
// (Debian's 3.8.0 carries the CVE-2024-23944 fix), non-ASCII paths, partial
// removal of persistent watches, and the 1 MiB request limit.
//
// Every check was first seen to pass against Java; one that fails against
// Java is a wrong check.
package javaapi
