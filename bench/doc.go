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
// it treats every server identically. Client "go-zookeeper" runs the request
// workloads through github.com/go-zookeeper/zk instead (InFlight goroutines
// sharing each zk.Conn) as a cross-check with an off-the-shelf client; it
// spends several times more CPU per request, so at high in-flight counts it
// measures the client rather than the server.
//
// Replies are checked before a server is credited: the error code, the reply
// order, and the body's shape (a getData reply carries the data).
//
// Latency is measured per request from the moment the request is queued for
// writing until its reply has been read, and kept in an HDR-style
// histogram with microsecond resolution (1/64 relative precision above 128
// microseconds). Every run is bounded both in time and in the number of
// operations, and removes the znodes it created.
//
// The connect workload times session establishment (TCP connect and
// handshake) and, separately, the closeSession that follows; Sessions x
// InFlight loops run concurrently. The watch workload times fan-out rounds:
// Watchers sessions arm a data watch (getData with watch) on one node, a
// separate session sets the node's data, and the round ends when every
// watcher has read its notification. On Linux the watchers' sockets are
// read by one goroutine per CPU through epoll instances of their own
// rather than by a goroutine per watcher through Go's poller, which costs
// about half as much per notification; elsewhere each watcher has its
// goroutine. Either way the client code is the same for every server.
//
// Compare runs a grid of workloads against Apache ZooKeeper 3.8.0 and gozk
// started side by side with equivalent settings, and reports the ratios;
// `make bench-compare` runs it.
//
// RunEnsembles does the same for three-server ensembles, one at a time
// (gozk's, then Java's): it finds each member's role with srvr, runs each
// cell with its sessions spread over the followers (Config.Servers) and
// then all on the leader, reporting the CPU of the three members
// together, and times leader failovers: with one session per member
// writing in a loop, it kills the leader with SIGKILL and times the first
// acknowledged write issued after the kill on those sessions (reattached
// to another member by session id and password) and on a new session
// (connect and create), then restarts the killed member and waits for a
// leader and two followers again. `make bench-ensemble` runs it.
package bench
