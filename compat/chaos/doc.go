// Package chaos runs ZooKeeper ensembles of gozk and Apache ZooKeeper
// 3.8.0 processes under faults and checks what clients saw.
//
// Workloads (workload.go) drive real clients and judge their histories;
// the harness starts ensembles, injects faults and runs the matrix of
// layouts and nemeses that `make chaos` reports.
//
// # Workloads
//
// Each workload (workloads_*.go, after Jepsen's ZooKeeper and ClickHouse
// Keeper suites and etcd's robustness tests) runs Env.Clients sessions
// with go-zookeeper, each spread over every member, under a fresh
// parent znode per run, at a modest rate (10 to 40 ms between a
// client's operations). Every operation is recorded (history.go) with
// its invocation and return times, the session and member it ran on,
// and an outcome: ok; failed, when the server refused it (ErrBadVersion,
// ErrNodeExists, ErrNoNode, ...) or go-zookeeper never sent it
// (ErrNoServer); indeterminate otherwise (ErrConnectionClosed,
// ErrSessionExpired or ErrClosing with the request in flight, or no
// reply within max(SessionTimeout, 2 s), since go-zookeeper holds a
// request while it reconnects).
//
//   - register: three znodes; a client reads one (at its member) and
//     writes it with setData conditional on the version read; three
//     operations in ten are a linearizable read on a session connected
//     to the member Env.Leader names: a sync, a barrier and a getData.
//     The sync alone would not do: Java's leader lets a client's sync
//     through like a read, so it can answer before applying a write it
//     has committed and a follower has acknowledged (gozk's leader did
//     the same until this workload caught it serving such stale reads;
//     it now answers a sync once every write before it is applied, but
//     Java members still need the barrier). The barrier is
//     a multi holding only a version check that any version passes: a
//     transaction, so the session's getData waits until it is applied,
//     and with it every write committed before it; a deposed leader
//     cannot commit it.
//   - counter: one znode holding a count; an increment is a multi of a
//     version check and a setData of count+1 at that version.
//   - unique-ids: sequential creates under one parent.
//   - set: creates of children with distinct names.
//   - queue: enqueue is a sequential create; dequeue lists, reads the
//     smallest child and deletes it; only an acknowledged delete is a
//     dequeue.
//   - ephemeral: one session holds an ephemeral for the whole run; the
//     other clients open sessions, create one or two ephemerals, and end
//     each session by closing it or by abandoning it (its connection cut
//     and no new one dialled, so the ensemble must expire it).
//
// Every write stores a tag no other write uses, so a value read names
// the write that made it. A workload instance (AllWorkloads) serves one
// Run and the Check after it; each run works under its own parent
// znode, so workloads may run at once on one ensemble, and again on it.
//
// # What Check checks
//
// Check runs after the faults are healed. It reads the final state
// through every member after a sync and a barrier there, retrying a
// member until the check's context ends (so give it a deadline), and
// then judges:
//
//   - Linearizability (register, counter), with porcupine: a model of a
//     register of data and version, one per znode, whose conditional
//     setData applies when the version matches and fails with
//     ErrBadVersion when it does not. The history holds the writes, the
//     leader reads (after sync and barrier) and the final reads. An
//     indeterminate write never returns (it may apply at any later
//     time); one whose data no read ever returned is left out, as every
//     later write is conditional on a read. Reads at other members are
//     not linearizable in ZooKeeper and are judged only per session
//     (below). A search porcupine cannot finish in 30 s is logged as
//     undecided, not failed.
//   - Atomicity and a single history (register, counter): a version of a
//     znode has the same data and mzxid at every member and in the
//     acknowledging stat; an acknowledged write's version is the one it
//     expected plus one; a read returns only data some client wrote.
//   - Counter: the final count at every member lies between the
//     acknowledged increments and those plus the indeterminate ones
//     (below: Lost; above: Duplicated), and equals the version.
//   - unique-ids and set: every member holds every acknowledged create,
//     under the name the server acknowledged, exactly once (else Lost
//     or Duplicated); nothing refused or never attempted; no name
//     acknowledged to two creates; indeterminate creates either way.
//   - queue: no element dequeued twice (by path or by tag); nothing
//     dequeued that was not enqueued (or whose enqueue was refused);
//     every acknowledged enqueue dequeued, perhaps dequeued (an
//     indeterminate delete), or still queued at the end, else Lost; no
//     dequeued element still queued.
//   - ephemeral: Check waits (up to three session timeouts and 20 s)
//     until no member serves an ephemeral of an ended session (closed,
//     abandoned, or replaced by go-zookeeper after expiry), then asks
//     the long session whether it still holds: if it answers in the
//     same session, every member must hold its acknowledged ephemeral
//     (else Lost). Each node's ephemeralOwner must be the session that
//     created it.
//   - All the members serve the same children after the sync.
//
// The per-session checks (every workload, check_session.go) take the
// operations acknowledged in a session that stayed the same across the
// operation (go-zookeeper silently opens a new session after an
// expiry), in invocation order. go-zookeeper does not expose the zxid
// of a reply's header, so the zxids come from the stats of replies: a
// read's or a write's mzxid, a list's pzxid.
//
//   - Monotonic reads: a znode's (mzxid, version) and a parent's
//     (pzxid, cversion) never go back within a session, whichever
//     member serves it; a child once listed stays listed unless some
//     client had issued a delete of it (or, for ephemerals, its session
//     ended).
//   - Read-your-writes: after an acknowledged setData a read of the
//     znode returns that version or a newer one; after an acknowledged
//     create a list of the parent has the child (unless deleted as
//     above); after an acknowledged delete it lacks it.
//   - Sequential consistency and single system image: once a session
//     has seen zxid Z, a read of a znode misses no acknowledged setData
//     of that znode with a zxid up to Z. A session that reconnects to
//     another member (the member refuses a client that saw a newer zxid
//     than its own) so never sees older state than it saw.
//   - Ordered updates: an acknowledged setData gets a zxid above every
//     zxid its session had seen when it was issued.
//
// Not checked: watch delivery, and the queue's order (the recipe does
// not promise first-in first-out to concurrent consumers).
//
// Table (check_report.go) renders a matrix of rows, one per layout and
// nemesis, as markdown: a line per workload with the faults injected,
// the time to recover, operations by outcome, anomalies, lost and
// duplicated, followed by every anomaly's text; Summary (matrix.go) has
// one line per cell.
//
// # The harness
//
// StartCluster (cluster.go) starts an ensemble of `gozk server` processes
// (compat/gozkproc's binary, or $GOZK_BIN) and Java QuorumPeerMain JVMs
// on loopback, one data directory each, tickTime 200 ms, syncLimit 10
// ticks, maxSessionTimeout 60 s and zookeeper.commitLogCount 5000 (see
// jvmFlags). Every connection between two members crosses a link
// (proxy.go): member i's zoo.cfg names, for member j, the ports of the
// election and quorum links from i to j. An election link rewrites the
// address in the initial message its dialer sends to the address of the
// opposite link, since the receiver dials that address back when it
// keeps the connection the other way round (the larger id's). Clients
// reach each member through a client link too (Cluster.Servers). A cut
// link is a partition, not a crash: bytes are dropped and connections
// stay open, so both ends find out through their own timeouts; healing
// closes the connections that lost bytes.
//
// The nemeses (nemesis.go): kill -9 of the leader or of a random member
// (down 2 s, then restarted); SIGSTOP of the leader for twice syncLimit;
// the leader cut off from its peers, or a random minority; a disk fault
// (a gozk member's every fsync stalled 300 ms, then restarted with its
// 30th fsync failing, which stops it, then restarted healthy); and each
// of gozk's Zab crash points (internal/failpoint, armed through
// GOZK_FAILPOINTS on the members it applies to, each restarted to arm
// it): the process kills itself at the point, is restarted without it,
// and the cell says how often the point fired. RunCell (matrix.go) runs
// every workload through every member, injects one fault after a
// second, waits for the ensemble to serve again, lets the load run on,
// checks the workloads, and compares every member's whole tree once the
// zxids settle. A probe writes through each member every 20 ms on
// sessions of its own; the longest gap between acknowledged probe
// writes after the fault began is the cell's write outage.
//
// TestChaos (tag chaos; `make chaos`) runs the matrix: Layouts (3 gozk,
// 5 gozk, 2 Java + 1 gozk, 1 Java + 2 gozk) and the all-Java control,
// every nemesis that applies. A finding fails the test except in the
// control, where it is logged as ZooKeeper's own.
package chaos
