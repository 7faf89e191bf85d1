// Package bench is gozk's load generator: it drives a ZooKeeper server
// (gozk or Apache ZooKeeper, the client cannot tell them apart) with a
// chosen workload and reports throughput, a latency histogram, errors and,
// given the server's process id, its CPU time per operation and memory.
//
// The load is closed-loop: Sessions connections, each keeping InFlight
// requests outstanding. The client is the package's own: one goroutine per
// connection that pipelines requests encoded with the project's proto and
// jute records, coalesces the requests it issues between two reads into one
// write, and reads replies through a buffer. ZooKeeper answers a session's
// requests in order, so a connection's outstanding requests are a FIFO.
// The client spends far less CPU per request than a general-purpose one,
// which matters when it shares a small machine with the server under test;
// it treats every server identically.
//
// Latency is measured per request from the moment the request is queued for
// writing until its reply has been read, and kept in an HDR-style
// histogram with microsecond resolution (1/64 relative precision above 128
// microseconds). Every run is bounded both in time and in the number of
// operations, and removes the znodes it created.
//
// Compare runs a grid of workloads against Apache ZooKeeper 3.8.0 and gozk
// started side by side with equivalent settings, and reports the ratios;
// `make bench-compare` runs it.
package bench
