// Package diff runs protocol scenarios against ZooKeeper servers and
// compares what they answer, to prove that gozk answers like Apache
// ZooKeeper 3.8.0.
//
// A Scenario is a list of steps written in Go (see scenarios.go): open
// connection N (new session, resumed session, odd handshakes, requests
// pipelined behind the ConnectRequest), send a request on connection N
// and wait for its reply, pipeline several requests in one write, write
// raw bytes, wait for K more frames (notifications) or for the server to
// close the connection, drop a connection, remember a zxid for a later
// SetWatches. Every wait is for a frame, never for time to pass: a
// scenario ends by pinging every open connection, and because replies
// come in order and notifications precede later replies, the transcript
// is complete when the pings are answered.
//
// RunAgainst turns a run into a Transcript: every request sent and every
// frame received, one line each, decoded and normalised so that two runs
// against the same server are identical (see normalizer for what is
// renumbered and what is kept). Compare gives a line diff of two
// transcripts; Differential is the test helper that runs a scenario
// against a Java and a gozk server and fails on any difference.
//
// Every scenario assumes a fresh server started with its ServerConfig
// (the default one, extended types for TTL nodes, reconfigEnabled, a super
// digest). StartJava starts Apache ZooKeeper through package javazk;
// gozk is started by StartGozk when another package registers it, or from
// the binary named by $GOZK_BIN ("gozk server --config zoo.cfg").
//
// testdata/java holds the transcripts recorded from Java 3.8.0, one file
// per scenario; they document what the oracle answers, and let gozk be
// compared without Java. TestGozkMatchesRecordedJavaInProcess, which needs
// no build tag (so `go test ./...` and `make test` run it, in a few
// seconds), replays every scenario against a fresh gozk started in the
// test process (the zoo.cfg read by package conf, server.FromConf,
// server.Start) and compares the transcripts; a scenario without a
// recording fails it.
//
// The tests that need Java or a gozk binary are behind the build tag
// "interop":
//
//	go test -tags interop ./compat/...                  # Java twice, and gozk if available
//	go test -tags interop ./compat/diff -args -update   # re-record testdata/java
//
// TestGozkMatchesRecordedJava does the same comparison as the in-process
// test against the binary named by $GOZK_BIN.
package diff
