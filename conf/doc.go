// Package conf reads zoo.cfg the way Apache ZooKeeper does: Java
// properties syntax, keys the config parser knows, and every other key
// taken as the system property "zookeeper.<key>". Settings that Java only
// takes as JVM system properties (jute.maxbuffer, znode.container.*) are
// read from -D flags in SERVER_JVMFLAGS / JVMFLAGS and, as a gozk
// extension, from zoo.cfg too.
//
// A mistake names the file, the line and the key, and a config that Java
// would reject is rejected.
package conf
