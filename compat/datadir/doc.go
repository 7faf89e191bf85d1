// Package datadir tests `gozk data import` and `gozk data export` end to
// end against Apache ZooKeeper 3.8.0 (Debian's Java server), and keeps the
// generator of the Java-made fixtures that `go test` reads without Java.
//
// The tests (build tag interop) build a tree with every node kind on one
// server (persistent, sequential, ephemeral and ephemeral-sequential of a
// live session, container, TTL and sequential TTL, ACLs of several
// schemes, quotas, sequence counters advanced by deletes, values close to
// 1 MiB, empty and null data, deep paths, many children), stop it, move the
// data directory across with gozk's tools, start the other server on the
// result and compare every node's data, ACL, children and full Stat, the
// last zxid and the live session through a raw client (compat/zkwire):
//
//   - Java -> gozk, with Java stopped after a snapshot, SIGKILLed so the
//     newest state is only in its log files, and with gz and snappy
//     snapshot compression;
//   - gozk -> Java (export);
//   - Java -> gozk -> Java, which must give back exactly the same tree;
//   - an ensemble member's directory (three Java members on loopback):
//     Java -> gozk -> Java with its acceptedEpoch and currentEpoch, the
//     member rejoining its ensemble from the exported directory, and back
//     to gozk after the ensemble moved to a new epoch.
//
// TestGenerateFixtures rewrites the small data directories under
// persistence/zkfiles/testdata/java-3.8.0, made by Java 3.8.0 itself, and
// the outputs of Java's TxnLogToolkit and SnapshotFormatter on them that
// the dump tests of package datatools compare against:
//
//	GOZK_UPDATE_FIXTURES=1 go test -tags interop -run TestGenerateFixtures ./compat/datadir
//
// TestGenerateEnsembleFixture likewise rewrites the ensemble/ fixture, an
// ensemble member's directory in its second epoch.
//
// TestDumpToolsMatchJava runs both of Java's tools and gozk's dumps
// (datatools.DumpLog and DumpSnapshot) on a fresh, larger data directory
// and compares them.
package datadir
