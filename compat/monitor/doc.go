// Package monitor compares gozk's monitoring surface with Apache
// ZooKeeper 3.8.0's (tests only, build tag interop): every four-letter
// word, every AdminServer command and the Prometheus names, after the same
// load on both servers (two sessions, ephemerals, data, exist, child,
// persistent and recursive watches, reads and writes, more than 128 txns).
// Values may differ; keys, their order, the line layout and the JSON types
// may not, except where 3.8.0's order is that of a hash map of objects
// (connections, sessions), which no server can reproduce.
//
// Known differences, checked as such: the expiry-bucket counts of dump
// differ because Java keeps empty buckets; Java's system properties are
// the JVM's.
package monitor
