// Package admin is gozk's monitoring surface, shaped like Apache
// ZooKeeper 3.8.0's so that existing tools keep working:
//
//   - the four-letter words (conf, cons, crst, dump, envi, ruok, srst,
//     srvr, stat, wchs, wchc, wchp, mntr, isro, hash, dirs, gtmk, stmk)
//     with Java's line formats, answered on the client port through
//     server.Config.FourLetterWords (the server applies
//     4lw.commands.whitelist first);
//   - the AdminServer: GET <commandURL> lists the commands, GET
//     <commandURL>/<name or alias> runs one and answers Jackson-style
//     pretty JSON with the same keys, value types and order as 3.8.0,
//     ending with "command" and "error"; over HTTPS as well with
//     admin.portUnification, or only with admin.forceHttps (https.go);
//   - Prometheus metrics on metricsProvider.httpHost:httpPort/metrics when
//     metricsProvider.className names the Prometheus provider, with the
//     metric names, types, labels and summary quantiles of 3.8.0's
//     PrometheusMetricsProvider (simpleclient 0.9: counters without a
//     _total suffix), plus Go runtime and process metrics, and the Go heap
//     under the JVM's memory metric names (jvm.go).
//
// The names and the mntr order of Java's metrics are in catalog.go. mntr
// always prints them as the default metrics provider does, whatever the
// provider; a metric gozk does not record is printed as zero.
//
// In an ensemble the commands follow the server's role (server.Role):
// srvr and stat print "Mode: follower", "observer" or "leader" (a leader
// adds "Proposal sizes last/min/max"); mntr adds zk_peer_state (and an
// observer zk_observer_master_id, its leader's id) after zk_server_state,
// and the gauges Java registers for the role: zk_quorum_size for every
// member, the learner figures and proposal sizes for a leader; conf adds
// serverId, initLimit, syncLimit, electionAlg, electionPort, quorumPort,
// peerType and the membership block (QuorumView, built from zoo.cfg by
// the gozk command); the AdminServer's leader, voting_view, zabstate and
// observers answer with 3.8.0's fields. While a member looks for a leader
// or syncs with one (server.Server.Serving is false), every command that
// needs a running server answers "This ZooKeeper instance is not
// currently serving requests" as Java's does, the AdminServer naming the
// command as it was asked for. Prometheus exports a role's gauges only
// while the server has that role. testdata/java-3.8.0-ensemble holds
// 3.8.0's own answers as follower, observer and leader, which the tests
// compare with gozk's.
//
// The version string is "<ZooKeeperVersion>-gozk-<gozk version>, built on
// <yyyy-MM-dd HH:mm> UTC": tools that parse the x.y.z in front of the
// first '-' (zkServer.sh, version checks in clients and exporters) read
// 3.8.0, and the rest names the gozk build. srvr, stat, mntr, envi and the
// AdminServer print the same string (see FullVersion).
//
// Where 3.8.0's order comes from a hash map of strings or longs (wchp's
// paths, the paths of a session in wchc and dump, dump's sessions with
// ephemerals), gozk emulates Java's HashMap iteration order; where it
// comes from a map of objects (connections, watchers), no order is
// promised, as in Java.
//
// Known differences from 3.8.0, seen with its own server as the oracle
// (compat/monitor):
//
//   - mntr with the Prometheus provider: Java then prints the Prometheus
//     samples (zk_readlatency{quantile="0.5"}, JVM metrics, ...); gozk keeps
//     the default provider's keys, which every mntr consumer parses.
//   - Per-namespace summaries (zk_*_<ns>_read_per_namespace,
//     ..._write_per_namespace) count requests from the start; Java also
//     counts the txns it replays at startup. A namespace's figures are
//     dropped when its top-level znode is deleted, so they start from zero
//     if it is created again; Java keeps them until the server restarts.
//     The quota gauge sets (quota_*_per_namespace) are not exported.
//   - Metrics of Java's own pipeline stages (prep_processor_queue_time_ms,
//     commit processor, response caches, ...) read 0, and so do the
//     ensemble's until its code records them (server.Metrics lists them).
//   - Prometheus quantiles of the summary sets (per namespace, per
//     learner) cover everything recorded, not the last 10 minutes.
//   - The AdminServer's monitor while the server is not serving: Java
//     fails with HTTP 500 and a Jetty error page (its command has no
//     server to read); gozk answers the not-serving error as JSON.
//   - zabstate's quorum_address and election_address are Jackson's
//     rendering of Java's MultipleAddresses, its getters in the order a
//     3.8.0 run wrote them (Jackson takes the JVM's method order, which
//     may vary between runs, as the server_stats bean's does); gozk fills
//     the reachability fields with the configured addresses, without
//     probing them.
//   - dump drops empty expiry buckets (Java prints them as "0 expire at").
//   - envi: the JVM keys carry Go's values or <NA> (java.version is the Go
//     version, java.class.path the executable); os.memory.* are the Go
//     heap's idle bytes and the memory obtained from the OS.
//   - conf and configuration name <dataDir>/version-2 as Java does;
//     dataDirSize and dataLogSize are the sizes of everything under
//     dataDir and dataLogDir (gozk's store is beside version-2/).
//
// The package only reads the server through its exported accessors and
// renders: the server owns what it records (counters, and summaries as
// counts, sums, extremes and histogram buckets), and this package owns how
// they are shown: which summaries are advanced, Java's averages, the
// quantiles and the window Prometheus quantiles cover (summary.go).
package admin
