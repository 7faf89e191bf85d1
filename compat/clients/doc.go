// Package clients is the compatibility suite for the go-zookeeper client
// (github.com/go-zookeeper/zk): one set of test bodies, run against Apache
// ZooKeeper 3.8.0 (through compat/javazk) and against gozk (through
// compat/gozkproc), so that every expectation in it has been checked
// against the oracle and the same expectation then holds gozk to it.
//
// The suite is behind the interop build tag, so that a plain `go test
// ./...` needs neither Java nor a long run:
//
//	go test -tags interop ./compat/clients/
//	go test -tags interop ./compat/clients/ -run 'TestGoZookeeper/java/'
//	go test -tags interop ./compat/clients/ -run 'TestGoZookeeper/gozk/Watch'
//
// Subtests are named java/<case> and gozk/<case>. The Java side is skipped
// when Java or the ZooKeeper jars are missing (GOZK_REQUIRE_JAVA=1 makes
// that a failure); the gozk side fails when ./cmd/gozk does not build
// (GOZK_BIN=<binary> runs a prebuilt server instead).
//
// What it covers: every operation of go-zookeeper, every error path it can
// reach with the exact zk.Err* value, Stat fields after each kind of change,
// sequence numbering, ephemerals on close and on expiry, one-shot watches
// and the order of notifications and replies on the wire, multi, ACLs and
// digest auth, containers and TTL nodes, resuming a session after the TCP
// connection drops, and a restart on the same data directory.
// TestKill9Durability (gozk only) kills the server with SIGKILL under a
// stream of acknowledged writes and checks that every one of them survives.
//
// Cases that need exact zxid arithmetic or a pristine tree run on a fresh
// server of their own; the others share one server per backend and work
// under a root node named after the case.
package clients
