// Package cclient is the compatibility suite for ZooKeeper's C client
// (Debian's libzookeeper-mt 3.8.0 and zookeeper-bin): the same runs against
// Apache ZooKeeper 3.8.0 (compat/javazk) and against gozk
// (compat/gozkproc), with subtests java/... and gozk/....
//
//   - TestCliMt feeds each testdata/*.cli script to cli_mt, one command at
//     a time on stdin, each followed by a sync of a barrier path: the
//     session answers in order, so when the barrier's completion is
//     printed everything the command caused (completions, watch events)
//     has been printed too, and the transcript's order is fixed. The
//     normalized transcript must equal testdata/<script>.cli.golden,
//     recorded from Java (-update rewrites it from the java subtests).
//   - TestCheckProgram compiles testdata/zkcheck.c with gcc against
//     libzookeeper_mt into a temporary directory and runs it: the
//     asynchronous API (zoo_acreate/2/_ttl, zoo_aget, zoo_aset,
//     zoo_adelete, zoo_aexists, zoo_aget_children/2, zoo_amulti with
//     failing ops, zoo_async, zoo_aget_acl/zoo_aset_acl, zoo_add_auth,
//     zoo_aremove_watches, zoo_agetconfig/zoo_areconfig), the global
//     watcher and per-call watchers (created, deleted, changed, child,
//     session events), pipelining, a 1 MB value, ephemerals on close and
//     on expiry, session takeover by id and password, SetWatches after a
//     dropped connection, odd auth schemes and an oversize request. It
//     prints one line per check; each becomes a subtest that
//     must match the line in testdata/zkcheck.golden.
//   - TestLoadGen runs load_gen (create/write/read/delete cycles over 500
//     children; it exits on a read that misses a write) for three whole
//     cycles, then its clean mode, and checks that nothing failed.
//
// Debian ships cli_mt and load_gen in /usr/lib/zookeeper/bin
// ($GOZK_ZK_C_BIN overrides the directory); it does not package cli_st,
// the single-threaded shell, nor libzookeeper-st's programs, so cli_st is
// not covered. The tests skip when a piece is missing unless
// GOZK_REQUIRE_JAVA=1.
//
//	go test -tags interop ./compat/cclient/
//	go test -tags interop ./compat/cclient/ -run 'Test.*/java' -update
package cclient
