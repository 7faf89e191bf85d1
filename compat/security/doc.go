// Package security holds the interop tests of TLS and SASL (build tag
// interop): gozk and Apache ZooKeeper 3.8.0 run side by side with the
// same zoo.cfg, system properties, JAAS files and stores, and real
// clients (the Java client, kazoo) must see the same outcome from both.
package security
