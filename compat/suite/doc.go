// Package suite is what the interop suites under compat/ share: the two
// servers every client is run against (Apache ZooKeeper 3.8.0 as "java",
// gozk as "gozk"), the rule for a client that is not installed (skip, or
// fail when GOZK_REQUIRE_JAVA=1), the runner for a check program that
// prints one JSON result per check and whose facts must equal those of
// the Java run (kazoo, node-zookeeper-client), and the renaming of zxids
// and session ids that makes two servers' transcripts comparable.
//
// A suite names its subtests <backend>/<check>, so `-run 'X/java'` runs
// only the Java side, which is the side -update records goldens from.
package suite
