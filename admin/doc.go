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
//     ending with "command" and "error";
//   - Prometheus metrics on metricsProvider.httpHost:httpPort/metrics when
//     metricsProvider.className names the Prometheus provider, with the
//     metric names, types, labels and summary quantiles of 3.8.0's
//     PrometheusMetricsProvider (simpleclient 0.9: counters without a
//     _total suffix), plus Go runtime and process metrics in place of the
//     JVM's.
//
// The names and the mntr order of Java's metrics are in catalog.go. mntr
// always prints them as the default metrics provider does, whatever the
// provider; a metric gozk does not record is printed as zero.
//
// The version string is "<ZooKeeperVersion>-gozk-<gozk version>, built on
// <yyyy-MM-dd HH:mm> UTC": tools that parse the x.y.z in front of the
// first '-' (zkServer.sh, version checks in clients and exporters) read
// 3.8.0, and the rest names the gozk build. srvr, stat, mntr, envi and the
// AdminServer print the same string (see FullVersion).
//
// The package only reads the server through its exported accessors and
// renders; the server owns the statistics.
package admin
