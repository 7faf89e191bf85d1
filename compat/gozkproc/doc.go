// Package gozkproc starts a real gozk server, the binary built from
// ./cmd/gozk, as a child process on a loopback port for tests, and stops
// it again.
//
// Start builds the binary once per test binary (go build -o <temp dir>/gozk
// github.com/gozk/gozk/cmd/gozk), or uses the prebuilt binary named by
// $GOZK_BIN, writes a zoo.cfg into a temporary directory (tickTime=2000, a
// fresh dataDir, clientPortAddress=127.0.0.1 on a free port, every
// four-letter word whitelisted, plus the caller's extra keys), runs
// `gozk server --config <file>` and waits until the port answers "ruok"
// with "imok". The server's stdout and stderr go to a file in the same
// directory; its tail is logged when the test fails. At the end of the
// test the server gets SIGTERM and, after a grace period, SIGKILL.
//
// Kill (SIGKILL) and Stop (SIGTERM) end the process without ending the
// test; Restart starts it again on the same dataDir and the same port, so
// durability and recovery can be checked from the outside.
//
// A build failure fails the test rather than skipping it: a compat suite
// that silently skips because the server does not compile would hide
// exactly what it is there to find.
//
// The build directory is removed by RunTests, for use in TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(gozkproc.RunTests(m)) }
package gozkproc
