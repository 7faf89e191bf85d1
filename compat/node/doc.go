// Package node is the compatibility suite for node-zookeeper-client, the
// Node.js client, at the version pinned in package.json and
// package-lock.json (installed into node_modules, which git ignores, by
// `make interop-deps`, which runs `npm ci` here when node_modules is
// missing). client.js runs the basic operations (create in each mode and
// with flags the plain create must refuse, getData, setData, exists,
// getChildren, remove, getACL/setACL, transactions, addAuthInfo with a
// known and an unknown scheme), data, children and exists watches,
// odd paths, ephemerals on close, and, through a loopback proxy that cuts
// the connection, SetWatches on reconnect and session expiry; it prints
// one JSON line per check.
//
// TestClient runs it against Apache ZooKeeper 3.8.0 and against gozk (both
// with extendedTypesEnabled); each check is a subtest java/<check> or
// gozk/<check> that fails on any error the script saw and compares its
// facts with the Java run's in testdata/client.golden (-update rewrites
// them from the java subtests).
//
//	go test -tags interop ./compat/node/
//	go test -tags interop ./compat/node/ -run 'TestClient/java' -update
//
// The test skips when node or the installed client is missing, unless
// GOZK_REQUIRE_JAVA=1.
package node
