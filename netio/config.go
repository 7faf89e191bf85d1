package netio

import (
	"crypto/tls"
	"math"
	"runtime"
	"time"

	"github.com/rs/zerolog"
)

// DefaultMaxFrame is jute.maxbuffer's default: the largest frame payload a
// server accepts.
const DefaultMaxFrame = 0xfffff

// DefaultMaxPendingOutput is the output queue size at which reading from a
// client pauses. Java has no such limit (its queue is only bounded by the
// requests it lets through), so the default is generous: with four times
// it as the hard cap, a client is cut off only after 64 MiB of replies it
// has not read.
const DefaultMaxPendingOutput = 16 << 20

// hardOutputFactor multiplies Config.MaxPendingOutput into the queue size
// at which a connection is closed.
const hardOutputFactor = 4

// DefaultSessionlessTimeout is zookeeper.nio.sessionlessCnxnTimeout's
// default.
const DefaultSessionlessTimeout = 10 * time.Second

// Config configures a client-port listener.
type Config struct {
	// Addr is clientPortAddress:clientPort, e.g. "127.0.0.1:2181" or
	// ":2181"; port 0 picks a free port (see Server.Addr).
	Addr string
	// MaxClientCnxns limits connections per remote IP; 0 = unlimited. A
	// connection over the limit is closed at once without writing
	// anything, as Java does.
	MaxClientCnxns int
	// MaxCnxns is the global limit (zookeeper.maxCnxns); 0 = unlimited.
	MaxCnxns int
	// MaxFrame is jute.maxbuffer: a frame length below 0 or above it
	// closes the connection without a reply. 0 means DefaultMaxFrame.
	MaxFrame int
	// Loops is the number of event loops; 0 means DefaultLoops().
	Loops int
	// MaxPendingOutput is the number of queued outgoing bytes above which
	// reading from the client pauses; above four times as many the
	// connection is closed. 0 means DefaultMaxPendingOutput.
	MaxPendingOutput int
	// MaxPausedInput bounds the input kept for a connection while reading
	// from it is paused (gnet keeps reading the socket); beyond it the
	// connection is closed. 0 means four maximum-size frames; it is never
	// less than one.
	MaxPausedInput int
	// SessionlessTimeout closes a connection that has sent neither a
	// complete first frame (the ConnectRequest) nor a four-letter word
	// that long after it was accepted: Java's
	// zookeeper.nio.sessionlessCnxnTimeout. 0 means
	// DefaultSessionlessTimeout; below 0 turns it off.
	SessionlessTimeout time.Duration
	// TLS is the server side of TLS (tlsconf's ServerConfig): with it,
	// SecureAddr is served, and with PortUnification TLS clients of Addr
	// too. Four-letter words work after the handshake, as on Java.
	TLS *tls.Config
	// SecureAddr is secureClientPortAddress:secureClientPort; "" opens
	// no secure port. Addr may then be "", for a server with a secure
	// port only.
	SecureAddr string
	// PortUnification is client.portUnification: Addr serves TLS and
	// plain clients alike, told apart by their first bytes.
	PortUnification bool
	// HandshakeDetectionTimeout bounds the wait for the first bytes of a
	// connection to a unified Addr (ssl.handshakeDetectionTimeoutMillis);
	// 0 means DefaultHandshakeDetectionTimeout.
	HandshakeDetectionTimeout time.Duration
	// HandshakeTimeout bounds a TLS handshake; 0 means
	// DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// MaxTLSHandshakes is zookeeper.netty.server.outstandingHandshake.limit:
	// above 0, and with PortUnification, a connection to Addr arriving
	// while that many are being told TLS or plain or are in their TLS
	// handshakes is closed at once; 0 or below, no limit. As in
	// ZooKeeper 3.8, whose factory decides on throttling before it knows
	// it serves a secure port, SecureAddr is never throttled.
	MaxTLSHandshakes int
	// DropSecureBeforeHandshake, when set, is asked for each connection
	// to SecureAddr before its handshake; true closes it there
	// (zookeeper.netty.server.earlyDropSecureConnectionHandshakes: an
	// ensemble member that is not serving spends no handshake on a
	// client it would close anyway). The caller counts what it drops.
	DropSecureBeforeHandshake func() bool
	// Logger receives connection-level events (limits, bad lengths, slow
	// consumers). The zero value logs nothing.
	Logger zerolog.Logger
}

func (cfg Config) withDefaults() Config {
	if cfg.MaxFrame <= 0 {
		cfg.MaxFrame = DefaultMaxFrame
	}
	if cfg.Loops <= 0 {
		cfg.Loops = DefaultLoops()
	}
	if cfg.MaxPendingOutput <= 0 {
		cfg.MaxPendingOutput = DefaultMaxPendingOutput
	}
	if cfg.SessionlessTimeout == 0 {
		cfg.SessionlessTimeout = DefaultSessionlessTimeout
	}
	if cfg.HandshakeDetectionTimeout <= 0 {
		cfg.HandshakeDetectionTimeout = DefaultHandshakeDetectionTimeout
	}
	if cfg.HandshakeTimeout <= 0 {
		cfg.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if cfg.MaxPausedInput <= 0 {
		cfg.MaxPausedInput = 4 * (cfg.MaxFrame + 4)
	}
	// A paused connection must at least be able to hold one whole frame.
	cfg.MaxPausedInput = max(cfg.MaxPausedInput, cfg.MaxFrame+frameLength)
	return cfg
}

// DefaultLoops is the number of event loops when none is configured: the
// square root of half the processors Go may use, at least one, which is
// Java's default number of NIO selector threads. A loop serves reads on
// its own thread and the write goroutine does the rest, so on a small
// machine more loops than that only take turns on the same cores. On two
// cores one loop answered 15% fewer gets a second at 64 connections with
// 4 in flight than two loops did, and 17% fewer at 16 with one, but with
// a third of the p99 latency at 16x1 (0.52 against 1.5-1.6 ms) and 10%
// less CPU per get.
func DefaultLoops() int {
	return DefaultLoopsFor(runtime.GOMAXPROCS(0))
}

// DefaultLoopsFor is DefaultLoops for a given number of processors.
func DefaultLoopsFor(procs int) int {
	return max(1, int(math.Sqrt(float64(procs)/2)))
}
