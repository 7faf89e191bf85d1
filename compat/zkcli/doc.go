// Package zkcli drives Apache ZooKeeper's own command line client,
// zkCli.sh, through scripted sessions against a server, and turns what it
// prints into a transcript that can be compared between servers: the
// same script against Apache ZooKeeper 3.8.0 and against gozk must print
// the same thing.
//
// zkCli is fed non-interactively in its two ways:
//
//   - a script on stdin: when stdin is not a terminal, zkCli reads one
//     command per line until end of file and exits (exit status 0);
//   - a single command after the server option (`zkCli.sh -server
//     host:port get /a`): zkCli connects, runs that command and exits
//     with 0, 1 for a failed command, or 127 for an unknown one.
//
// Its noise is removed, not silenced: Debian's zkCli has no SLF4J binding,
// so the only log output is SLF4J's own "no binding" notice; other
// installations may print log lines. Normalize drops both, drops the
// banner (Connecting to..., Welcome to ZooKeeper!, JLine support...), and
// replaces what legitimately differs between two runs: ctime/mtime dates
// (zkCli runs with TZ=UTC so the epoch stays readable), zxids (numbered by
// rank, so equal zxids stay equal and order is kept), session ids
// (numbered by first appearance) and the server address. Watch
// notifications are printed by zkCli's event thread, so their position
// among command output is a race; they are taken out into their own
// ordered list; the WatchRemoved events of one removewatches are sorted,
// since the Java client reports them in a per-run hash order. Lists in
// brackets (ls, getEphemerals) keep the server's order: Java's hash-set
// order, which gozk answers in too.
//
// A script can hold its next command back until zkCli has printed a text
// ("# await: <text>") or for a while ("# pause: 1s"): the event thread
// may fall commands behind the main one, and a command such as
// printwatches acts on whatever events it has not printed yet (see Step).
//
// zkCli.sh is found through $GOZK_ZKCLI, then zkCli.sh on $PATH, then the
// Debian location (DefaultZkCli). Tests skip when it is missing unless
// GOZK_REQUIRE_JAVA=1.
//
// The comparison tests are behind the interop build tag:
//
//	go test -tags interop ./compat/zkcli/
//	go test -tags interop ./compat/zkcli/ -run 'TestScripts/java' -update
//
// Every script in testdata/*.zk runs on a fresh server; its normalized
// Java transcript is kept in testdata/*.golden (-update rewrites it from
// Java), the java/ subtests check that Java still prints it, and the gozk/
// subtests check that gozk prints exactly the same. Together the scripts
// run every command of zkCli 3.8.0 with every option its usage lists
// (commands.zk holds those no other script needs); TestEveryCommandCovered,
// a plain unit test, checks that against the usage text in basic.golden.
package zkcli
