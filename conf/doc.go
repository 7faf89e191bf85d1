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
// against Java itself by compat/confdiff. Whether the server can run a
// loaded configuration (an ensemble, say) is for the caller to decide.
package conf
