// Package confdiff holds the differential test of zoo.cfg handling: every
// file of conf/conftest's table goes to Apache ZooKeeper 3.8.0's own
// parser (QuorumPeerConfig.parse, through the small ConfParse.java
// program compiled with javac against the installed zookeeper.jar) and to
// conf.Load, and the two must accept and refuse the same files. Run it
// with `go test -tags interop ./compat/confdiff`.
package confdiff
