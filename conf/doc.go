// Package conf reads zoo.cfg the way Apache ZooKeeper 3.8.0's
// QuorumPeerConfig does.
//
//   - Java properties syntax (properties.go), duplicate keys last-wins.
//   - The keys of Java's config parser (tickTime, dataDir, clientPort,
//     initLimit, the quorum.auth.* keys, metricsProvider.*, ...) are parsed
//     strictly: a bad number or boolean is an *Error naming the file, the
//     line and the key.
//   - Every other key becomes the system property "zookeeper.<key>"
//     (Config.System), over the -D flags of SERVER_JVMFLAGS / JVMFLAGS.
//     Those are read as leniently as Java reads them (Integer.getInteger,
//     Boolean.parseBoolean, "yes"/"no"): a bad value keeps the default and
//     adds a warning to Config.Warnings. Settings Java takes only as -D
//     flags (jute.maxbuffer, znode.container.*) are also accepted in
//     zoo.cfg, as an extension.
//   - server.N, group.N and weight.N lines (from zoo.cfg or from
//     dynamicConfigFile, plus <zoo.cfg>.dynamic.next) become a typed
//     Ensemble with Java's checks; <dataDir>/myid is read whenever it
//     exists, and a distributed configuration needs it, initLimit and
//     syncLimit (QuorumConfig).
//
// A file Java refuses is refused; the table in conf/conftest is checked
// against Java itself by compat/confdiff, which also holds every server's
// addresses, role, client address, groups and weights to Java's. Whether
// the server can run a loaded configuration (an ensemble, say) is for the
// caller to decide.
//
// # What an ensemble member reads
//
// QuorumConfig.Self is this server's line; Ensemble.Servers every line:
// ServerSpec.Addrs (one QuorumAddr per address, QuorumHostPort for the
// leader's quorum port, ElectionHostPort for the election port),
// ClientAddr, Type (participant or observer); Ensemble.WeightOf and
// GroupOf the hierarchical verifier's view; QuorumConfig's InitLimit,
// SyncLimit, ConnectToLearnerMasterLimit, ObserverMasterPort,
// QuorumListenOnAllIPs and ElectionPortBindRetry the rest.
// Config.ReconfigWarning is the line to log when reconfigEnabled=true:
// gozk runs the membership it reads and never rewrites zoo.cfg or writes
// dynamic files, as Java does when it first starts with reconfiguration
// on (it moves the server lines into zoo.cfg.dynamic.<version>; gozk
// reads such a file through dynamicConfigFile).
//
// # Differences from Java
//
// Java fails with a NullPointerException on a grouped observer without a
// weight; gozk names the server and the missing weight.N. Two keys that
// name one server, weight or group (server.1 and server.01) are refused:
// Java keeps one of them in its hash table's order, or for groups merges
// them and counts the group twice, so that no set is a quorum. Java's
// Long.parseLong and InetAddress read a few forms gozk does not: digits
// of other scripts, IPv4 shorthands such as 127.1 (a host name to gozk),
// IPv6 zones. ServerSpec.String writes IP literals as Java does
// (uncompressed IPv6) but keeps the Host as written for dialing; an empty
// host is localhost, as Java resolves it.
package conf
