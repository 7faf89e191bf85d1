// Package javazk starts Apache ZooKeeper 3.8.0, the project's oracle, as a
// standalone server on a loopback port for tests, and stops it again.
//
// The server runs org.apache.zookeeper.server.ZooKeeperServerMain directly
// (no zkServer.sh, so no pid files, no log directories and no shared
// configuration) with a zoo.cfg generated in a temporary directory:
// tickTime=2000, a fresh dataDir, clientPortAddress=127.0.0.1 on a free
// port, every four-letter word whitelisted and the AdminServer off unless
// asked for. Extra zoo.cfg keys and JVM system properties can be added, for
// example -Dzookeeper.extendedTypesEnabled=true for TTL nodes. Start waits
// until the server answers "ruok" with "imok".
//
// Where things are found:
//
//   - java: $GOZK_JAVA, else $JAVA_HOME/bin/java, else "java" on PATH;
//   - the ZooKeeper classes: $GOZK_ZOOKEEPER_CLASSPATH (a complete class
//     path) or the jars in $GOZK_ZOOKEEPER_LIB, which defaults to Debian's
//     /usr/share/java (there zookeeper.jar's manifest names its own
//     dependencies; in another directory, such as the lib/ of an Apache
//     binary release, every jar is used).
//
// When java or the jars are missing, Start skips the test with a message
// saying what to install, unless GOZK_REQUIRE_JAVA=1, in which case the
// test fails: CI that is meant to run the oracle must not pass silently.
//
// Options.AdminServer turns the AdminServer on (on Options.AdminPort or a
// free port); its Jetty needs the servlet API at run time, which Debian's
// zookeeper.jar manifest does not name, so /usr/share/java/servlet-api.jar
// is added to the class path for it.
//
// The server logs nothing by default (no SLF4J binding is on the class
// path). Set GOZK_JAVA_LOG=1, or Options.Log, to add slf4j-simple and keep
// the server's log in the temporary directory; its tail is printed when a
// test fails.
package javazk
