// Package confdiff holds the differential test of zoo.cfg handling: every
// file of conf/conftest's table goes to Apache ZooKeeper 3.8.0's own
// parser (QuorumPeerConfig.parse, through the small ConfParse.java
// program compiled with javac against the installed zookeeper.jar) and to
// conf.Load, and the two must accept and refuse the same files. For a
// file both accept, the ensemble must be the same: Java's quorum verifier
// text (every server's addresses, role and client address, the groups,
// weights and version, and those of a .dynamic.next file) against
// conf.Ensemble.QuorumConfig, and the ensemble settings Java keeps
// (peerType after the server list's say, initLimit, syncLimit,
// connectToLearnerMasterLimit, observerMasterPort, quorumListenOnAllIPs,
// syncEnabled, reconfigEnabled, standaloneEnabled, the client port). For
// a file Java refuses, a case's JavaErr must be part of Java's message.
//
// TestJavaRewrittenConfig starts a Java ensemble with reconfigEnabled=true,
// which moves its server lines into a dynamic file it writes, and loads
// what Java left with conf.Load.
//
// Run them with `go test -tags interop ./compat/confdiff`.
package confdiff
