package quorumtls

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/gozk/gozk/tlsconf"
)

// DefaultDetectTimeout is Java's default
// ssl.quorum.handshakeDetectionTimeoutMillis.
const DefaultDetectTimeout = 5 * time.Second

// Config is the TLS of the quorum and election ports. A nil *Config is
// plain TCP both ways.
type Config struct {
	// TLS is sslQuorum: dialled connections use TLS, and a listener takes
	// only TLS unless PortUnification is set too.
	TLS bool
	// PortUnification is portUnification: listeners take TLS and plain
	// connections on the same port.
	PortUnification bool
	// Server is the listeners' TLS configuration (tlsconf's
	// ServerConfig, which takes reloaded certificates for each new
	// connection by itself).
	Server *tls.Config
	// Client wraps conn, dialled to host (an address or a name, as
	// configured), in TLS; the handshake verifies the server's
	// certificate, and its host when hostname verification is on
	// (tlsconf.Source.Client: the address dialled first, then the name,
	// as Java's ZKTrustManager).
	Client func(conn net.Conn, host string) *tls.Conn
	// DetectTimeout bounds the wait for the first bytes that tell TLS
	// from plain on a unified port (ssl.quorum.handshakeDetectionTimeoutMillis).
	DetectTimeout time.Duration
}

// recordHeaderLen is the length of a TLS record header, the bytes Java's
// UnifiedServerSocket reads to decide.
const recordHeaderLen = 5

// ErrInsecure is wrapped by Accept's error when a plain connection
// reaches a listener that takes only TLS.
var ErrInsecure = errors.New("blocked insecure connection attempt (sslQuorum without portUnification takes only TLS)")

// DialsTLS reports whether dialled connections use TLS.
func (c *Config) DialsTLS() bool { return c != nil && c.TLS }

// detects reports whether a listener looks at the first bytes of each
// connection (TLS only, or TLS and plain).
func (c *Config) detects() bool { return c != nil && (c.TLS || c.PortUnification) }

// Mode names what the listeners and diallers do, for the start-up log.
func (c *Config) Mode() string {
	switch {
	case c.DialsTLS() && c.PortUnification:
		return "TLS, listeners also take plain connections (portUnification)"
	case c.DialsTLS():
		return "TLS"
	case c.detects():
		return "plain, listeners also take TLS connections (portUnification)"
	}
	return "plain"
}

// Accept prepares a connection a listener took: it returns conn itself
// when the port is plain, or, once the first bytes show what the dialler
// speaks, the TLS connection after its handshake or the plain connection
// with those bytes still to be read. The handshake ends by deadline. On
// error conn is closed; the error names the remote address and the
// reason.
func (c *Config) Accept(ctx context.Context, conn net.Conn, deadline time.Time) (net.Conn, error) {
	if !c.detects() {
		return conn, nil
	}
	remote := conn.RemoteAddr().String()
	fail := func(err error) (net.Conn, error) {
		conn.Close()
		return nil, fmt.Errorf("connection from %s: %w", remote, err)
	}
	detect := c.DetectTimeout
	if detect <= 0 {
		detect = DefaultDetectTimeout
	}
	detectBy := time.Now().Add(detect)
	if !deadline.IsZero() && deadline.Before(detectBy) {
		detectBy = deadline
	}
	conn.SetReadDeadline(detectBy)
	var head [recordHeaderLen]byte
	n, err := io.ReadFull(conn, head[:])
	conn.SetReadDeadline(time.Time{})
	switch {
	case err == nil || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
	case errors.Is(err, os.ErrDeadlineExceeded):
		// Java assumes plain when the dialler says nothing in time.
	default:
		return fail(err)
	}
	pc := tlsconf.WithHead(conn, head[:n])
	if n == len(head) && tlsconf.LooksLikeTLS(head[:]) {
		tc := tls.Server(pc, c.Server)
		if err := handshake(ctx, tc, deadline); err != nil {
			return fail(fmt.Errorf("TLS handshake failed: %w", err))
		}
		return tc, nil
	}
	if !c.PortUnification {
		return fail(ErrInsecure)
	}
	return pc, nil
}

// Dial prepares a connection this member opened to addr: with TLS, it
// runs the client handshake (verifying the server for addr's host) by
// deadline and returns the TLS connection; otherwise conn itself. On
// error conn is closed.
func (c *Config) Dial(ctx context.Context, conn net.Conn, addr string, deadline time.Time) (net.Conn, error) {
	if !c.DialsTLS() {
		return conn, nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	tc := c.Client(conn, host)
	if err := handshake(ctx, tc, deadline); err != nil {
		conn.Close()
		return nil, fmt.Errorf("TLS handshake with %s failed: %w", addr, err)
	}
	return tc, nil
}

func handshake(ctx context.Context, tc *tls.Conn, deadline time.Time) error {
	if !deadline.IsZero() {
		ctx2, cancel := context.WithDeadline(ctx, deadline)
		defer cancel()
		ctx = ctx2
	}
	return tc.HandshakeContext(ctx)
}

// Describe returns the TLS version and cipher suite of conn, for the log
// line that says a connection is up; ok is false for a plain connection.
func Describe(conn net.Conn) (version, cipher string, ok bool) {
	tc, isTLS := conn.(*tls.Conn)
	if !isTLS {
		return "", "", false
	}
	st := tc.ConnectionState()
	return tls.VersionName(st.Version), tls.CipherSuiteName(st.CipherSuite), true
}
