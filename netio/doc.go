// Package netio is gozk's client-port network layer: it accepts TCP
// connections on gnet event loops, cuts the byte stream into ZooKeeper
// frames (a 4-byte big-endian length and a payload), recognises
// four-letter-word probes, and queues outgoing frames with write
// coalescing and per-connection backpressure. It knows frames and
// connections, not ZooKeeper: the server package decodes payloads and
// answers through a Handler.
//
// # Accepting
//
// The client port is a Go listener of netio's own, not gnet's: a
// goroutine accepts connections and hands each to an event loop
// (Engine.Register), and the connection is then served and closed on
// that loop. gnet ends every event loop, and so drops every client, when
// an accept fails, which running out of file descriptors (EMFILE) makes
// it do; netio's accept loop instead logs the failure (warn, at most
// every 10 s, naming RLIMIT_NOFILE) and tries again after 10 ms, as
// Java's accept thread does: open connections go on being served, new
// ones wait in the listen backlog and are accepted once descriptors are
// free ("accepting client connections again"). gnet is given a Unix
// socket to listen on that is unlinked at once (a loopback port when
// there is no temporary directory, whose connections are closed
// unserved), so it never accepts a client itself. The hand-off costs a
// descriptor duplication and a worker-goroutine hop per connection: 33
// more allocations per session (mostly gnet's) and a few more system
// calls than gnet accepting on SO_REUSEPORT listeners did. At the limit
// itself, a connection accepted with the last free descriptor cannot be
// duplicated and is closed at once, where Java's would still wait in the
// backlog; its client reconnects. The listen backlog is the kernel's
// maximum (net.core.somaxconn), not Java's 50, so bursts of connections
// are not dropped. The per-IP (maxClientCnxns) and global limits are
// applied as each connection reaches its loop.
//
// Should the event loops ever stop other than through Close, the port is
// closed and Failed reports it, so that the process can stop instead of
// looking alive with nobody serving.
//
// A connection must send its first frame (the ConnectRequest) or a
// four-letter word within Config.SessionlessTimeout of being accepted
// (Java's zookeeper.nio.sessionlessCnxnTimeout, 10 s); otherwise it is
// closed (ErrSessionlessTimeout, logged at debug), which frees its
// buffer and its maxClientCnxns slot. Silent sockets, and frames sent
// only in part, therefore cannot lock an IP out or hold memory. Unlike
// Java, each byte received does not restart the clock.
//
// # Inbound
//
// A connection's first four bytes are checked once against the
// four-letter words (ruok, stat, ...). If they are one, the Handler's
// OnFourLetterWord produces the answer, which is written unframed, and the
// connection is closed after the write, as Java does; anything else the
// peer sent is ignored. An answer the socket cannot take at once is
// finished by a goroutine (for at most 30 s), and the connection keeps
// its place under the limits until then. stmk's 8-byte mask must arrive
// with the word, as Java reads it at once: the handler is told when it
// did not. Otherwise
// every frame is delivered whole to OnFrame, in arrival order, straight
// out of gnet's read buffer: a length below zero or above Config.MaxFrame
// closes the connection without a reply (Java's "Len error").
//
// PauseReading stops delivery; already-buffered frames wait and are
// delivered in order after ResumeReading. gnet has no way to stop reading a
// socket, so while delivery is paused the bytes a client keeps sending pile
// up in its inbound buffer; past Config.MaxPausedInput the connection is
// closed rather than letting one client grow server memory.
//
// # Outbound
//
// Send and SendFunc append a frame to the connection's pending buffer under
// a small mutex and, unless a flush is already due, schedule one on the
// connection's event loop. A flush hands everything pending to the socket
// in one write, so a burst of replies and notifications costs few system
// calls. A Send made while the loop is delivering frames to that same
// connection (a read answered on the loop) needs no wake-up at all: the
// loop flushes when delivery ends.
//
// Queued bytes are those pending plus those gnet still holds because the
// socket was full. Above Config.MaxPendingOutput reading from the client
// pauses (it cannot push more requests while it does not read its
// replies); above four times that the connection is closed, so a client
// that never reads cannot grow server memory without bound. gnet does not
// report when its buffer drains, so a connection in that state is looked
// at again on a short backoff timer until it has drained or been closed;
// CloseAfterFlush uses the same mechanism.
//
// # TLS
//
// gnet cannot encrypt, so TLS connections (Config.SecureAddr, the
// secure client port, and TLS clients of a unified plain port) are
// served by a transport of goroutines: a reader per connection does the
// handshake (bounded by Config.HandshakeTimeout, 10 s as Netty's
// SslHandler on Java's secure port) and then cuts frames out of the
// decrypted stream with the same framing code (the byteQueue interface),
// the same four-letter words (after the handshake, as Java) and the same
// Handler; a writer per connection hands everything queued to crypto/tls
// in one write, as a flush of an event loop does. Send, SendFunc, Hold,
// Release, PauseReading, MaxPendingOutput and CloseAfterFlush behave as on
// the plain port, with one difference that favours TLS: a paused TLS
// connection is not read at all (as Java's), so MaxPausedInput does not
// apply. A write blocks while the client does not read; what is queued
// meanwhile counts against the output caps. OnOpen comes after a
// successful handshake, so that Conn.TLS and Conn.PeerCertificates (the
// verified client chain) are there for the server to derive identities
// from.
//
// The limits apply before the handshake, at accept time, as in Java's
// channelActive: the global limit (MaxCnxns) counts both ports, and the
// secure port counts connections per IP on its own (it is a listener of
// its own in Java), while TLS clients of a unified port count with its
// plain ones. A failed handshake (an untrusted, expired or missing client
// certificate, a plaintext client, no protocol or cipher suite in
// common, a stall) closes the connection, is counted
// (Server.TLSHandshakeFailures) and logged at warn with the remote
// address and a reason in an operator's words ("TLS handshake failed;
// connection closed"): the first at once, then at most one line every
// 10 s, which counts those not logged.
//
// With Config.PortUnification (client.portUnification), the plain
// port's accept loop applies the limits at once (a connection still being
// told TLS or plain holds its place), then peeks at its first bytes (MSG_PEEK,
// so nothing is taken from the socket) for at most
// HandshakeDetectionTimeout and hands TLS to the TLS transport, plain
// connections to an event loop. The test is Java's: five bytes that are
// a TLS record header, or fewer whose first byte is not the handshake
// record type (a four-letter word is plain). A connection that has sent
// nothing by the deadline is served as plain, where the sessionless
// timeout takes over; Java waits without a bound. A TLS client of a
// plain port without unification is closed at its first four bytes, a
// length beyond MaxFrame ("Len error"), as on Java. With
// Config.MaxTLSHandshakes (zookeeper.netty.server.outstandingHandshake.limit)
// the unified port also counts its connections from accept until they
// are told plain or end their handshake, and closes at once one that
// would pass the limit (Server.TLSHandshakesRefused, logged as the
// failures are): Java's handshake throttling, which ZooKeeper 3.8 applies
// to a unified port only. Config.DropSecureBeforeHandshake lets the
// caller close a secure-port connection before its handshake
// (zookeeper.netty.server.earlyDropSecureConnectionHandshakes while an
// ensemble member does not serve).
package netio
