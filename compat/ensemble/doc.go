// Package ensemble tests gozk's ensemble members with Apache ZooKeeper
// 3.8.0 servers in the same ensemble, on loopback ports (tag interop).
//
// The leader election (election_interop_test.go): gozk's election port
// and election driver (packages quorum/electionport and peer) run in the
// test process beside Java QuorumPeerMain processes started by
// compat/javazk, and must reach the same decision Java reaches, whichever
// kind of server wins, whether gozk starts with the others or joins an
// ensemble that already has its leader, and as an observer. Java's logs
// are checked too: Java must take every notification gozk sends (its
// configuration text included) without an error.
//
// The data path (datapath_interop_test.go): whole ensembles of processes,
// `gozk server` binaries (compat/gozkproc builds it, or $GOZK_BIN) and
// Java QuorumPeerMain JVMs in any mix, three voters and optionally an
// observer, each with its own data directory and its client, quorum and
// election ports on 127.0.0.1, all reading the same zoo.cfg text
// (tickTime=200, every four-letter word allowed, peerType=observer for an
// observer). Members are started, stopped (SIGTERM), killed (SIGKILL),
// wiped and restarted one by one; a member serves when srvr's Mode line
// says leader, follower or observer. Server 3 leads: it starts first with
// server 1, and both vote for the larger id. In datapath_interop_test.go
// it is a Java server; in leader_interop_test.go a gozk one. The
// scenarios:
//
//   - writes of every kind (each create mode, setData, setACL, delete,
//     multi, a failing multi) through every member, from go-zookeeper,
//     zkCli.sh and kazoo, reach every member;
//   - a follower catches up by DIFF after missing a few writes, by SNAP
//     after missing more than the leader's committed log (500 txns) or
//     with its data directory wiped, and by SNAP whatever it missed when
//     the Java leader runs with -Dzookeeper.forceSnapshotSync=true;
//   - a follower that logged a proposal the ensemble never committed is
//     made to truncate it (TRUNC): a proxy on its link to the leader
//     (quorumProxy) drops its ACKs, which makes this deterministic; the
//     test's comment tells the whole sequence;
//   - a session moves between a Java follower and the other kind and back,
//     keeping its ephemerals and watches, and its ephemerals leave every
//     member when it expires;
//   - a follower killed with SIGKILL in the middle of writes, over and
//     over, rejoins each time holding every write the leader acknowledged.
//
// With a gozk leader (leader_interop_test.go) the writes scenario runs
// on Java followers, all-gozk, Java and gozk followers with a Java
// observer, and a gozk observer; the TRUNC scenario has gozk servers 3
// and then 2 lead; a session moves from a Java follower to a gozk one and
// then to the gozk leader, which expires it. Besides, the gozk leader
// syncs a Java and a gozk follower by DIFF from its committed log (5
// missed writes), by DIFF from its txn log (600, past
// zookeeper.commitLogCount, with a snapshot large enough), by SNAP with
// -Dzookeeper.snapshotSizeFactor=-1 and with
// -Dzookeeper.forceSnapshotSync=true; a restarted leader still syncs a
// follower that missed 100 writes by DIFF from its committed log, as
// Java's does (TestDiffAfterLeaderRestart, with its all-Java run); the
// leader is killed with SIGKILL in the middle of writes twenty times all
// gozk and five times with gozk and Java leaders in turn, and every write
// acknowledged is then on every member (the time from each kill to the
// first acknowledged write is logged); and a client still connected to
// the leader after its session moved to a follower is disconnected at
// its next write, as Java's leader does (checked all-Java too).
//
// In rejoin_interop_test.go a gozk observer stopped for a few writes
// catches up by DIFF, and with its data directory wiped by SNAP, from a
// Java and from a gozk leader; and with
// -Dzookeeper.testingonly.initialZxid near the counter's end a gozk and
// a Java leader give up their epoch each time the counter runs out, the
// ensemble goes on in a new one, and no acknowledged write is lost.
//
// The writes scenario also checks the leader's mntr (zk_learners,
// zk_synced_followers, zk_synced_observers, ... as Java's leader counts
// them), zk_digest_mismatches_count 0 on every Java member, and that the
// Java learners logged every txn with the tree digest their leader sent
// with it (a learner compares digests only when the proposal carries
// one).
//
// After each, every running member's whole tree is read through
// go-zookeeper after a sync (Dump) and compared (DiffTrees): data, every
// Stat field and the ACL of every znode, /zookeeper's included (except
// /zookeeper/config's mtime, which each server sets from its own clock).
// The sync mode is read from the learner's log (GozkSyncModes for gozk,
// JavaLearnerSyncModes for Java) and from the Java leader's
// (JavaLeaderSyncModes; the Java members log LearnerHandler at debug,
// where Java logs a TRUNC past its committed log).
//
// The rolling migration (migration_interop_test.go): an all-Java
// ensemble under load from Curator's recipes (testdata/MigrationLoad.java),
// kazoo (testdata/migration_kazoo.py) and go-zookeeper writers is moved
// to gozk one server at a time, followers first and the leader last
// (SIGTERM, `gozk data import`, `gozk server` on the same zoo.cfg, then
// srvr and the leader's zk_synced_followers before the next), and back
// with `gozk data export`; a second run puts the same load through a
// rolling restart of the Java servers. No session may expire or change,
// the clients may see connection losses only (counted per client), every
// acknowledged write must be on every member, the trees identical, and
// the recipes' invariants hold (one lock holder, one latch leader, the
// counter's acknowledged increments). Each step's times (stop, convert,
// serve, quorum, election) and sync mode are logged; docs/migration.md
// has the procedure and the figures.
//
// Each scenario also runs all-Java (at most three JVMs: a layout may keep
// one voter down), which checks the scenario against the oracle. One
// check can fail there for Java's own reasons: Java 3.8.0's learner can
// log the txns of a DIFF after newer ones, and when it is killed at that
// moment it comes back without them (ZOOKEEPER-4785, fixed in 3.8.5 and
// 3.9.2); the kill storm then skips its all-Java run and says why.
//
// Tests skip when Java is missing (unless GOZK_REQUIRE_JAVA=1).
//
//	go test -tags interop ./compat/ensemble/
//	go test -tags interop ./compat/ensemble/ -run '/all-java'
package ensemble
