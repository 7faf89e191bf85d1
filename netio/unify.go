package netio

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/gozk/gozk/internal/ratelog"
	"github.com/gozk/gozk/tlsconf"
)

// tlsRecordHandshake is the content type of the record that opens every
// TLS connection (RFC 8446 5.1).
const tlsRecordHandshake = 0x16

// looksLikeTLS says whether the first bytes of a connection open a TLS
// record, as Java's unified port (Netty's OptionalSslHandler behind
// ZooKeeper's DualModeSslHandler) decides: with five bytes, Netty's
// record test (tlsconf.LooksLikeTLS); with fewer,
// the connection is plain unless the first byte is the handshake type,
// in which case the caller waits for more. A ZooKeeper frame starts with
// its length, whose first byte is 0 for any frame a server accepts, and
// no four-letter word starts with 0x16.
func looksLikeTLS(head []byte) (isTLS, decided bool) {
	if len(head) == 0 {
		return false, false
	}
	if len(head) < 5 {
		if head[0] != tlsRecordHandshake {
			return false, true
		}
		return false, false
	}
	return tlsconf.LooksLikeTLS(head), true
}

// route decides whether a connection to the plain port of a unified
// server is TLS, by peeking at its first bytes without taking them from
// the socket, and hands it to the TLS transport or to an event loop. The
// wait is bounded by HandshakeDetectionTimeout
// (ssl.handshakeDetectionTimeoutMillis); a connection that has sent
// nothing by then is served as plain, where the sessionless timeout
// applies. Java waits without a bound.
func (s *Server) route(nc *net.TCPConn, p *peer) {
	defer s.secureWG.Done()
	throttled := s.cfg.MaxTLSHandshakes > 0
	if throttled && s.handshakes.Add(1) > int64(s.cfg.MaxTLSHandshakes) {
		s.handshakes.Add(-1)
		s.refuseOverHandshakeLimit(nc)
		return
	}
	isTLS, err := peekIsTLS(nc, s.cfg.HandshakeDetectionTimeout)
	s.secureMu.Lock()
	delete(s.routing, nc)
	closed := s.secureClosed
	s.secureMu.Unlock()
	if throttled && (err != nil || closed || !isTLS) {
		s.handshakes.Add(-1)
	}
	if err != nil || closed {
		// The client left before saying anything, or the server is
		// closing.
		s.releaseIn(remoteAddrPort(nc.RemoteAddr()).Addr(), s.perIP)
		_ = nc.Close()
		return
	}
	if isTLS {
		// Counted in secureWG already: serveSecure's Done is this
		// goroutine's.
		s.secureWG.Add(1)
		s.serveSecure(nc, p, true, throttled)
		return
	}
	s.enrollAdmitted(nc, p)
}

// refuseOverHandshakeLimit closes a connection to a unified port that
// arrived while MaxTLSHandshakes connections were being told apart or
// were in their handshakes: Java's handshake throttling, which serves a
// crowd of reconnecting clients a few at a time instead of letting all
// their handshakes time out together.
func (s *Server) refuseOverHandshakeLimit(nc *net.TCPConn) {
	s.secureMu.Lock()
	delete(s.routing, nc)
	s.secureMu.Unlock()
	remote := remoteAddrPort(nc.RemoteAddr())
	s.releaseIn(remote.Addr(), s.perIP)
	_ = nc.Close()
	s.handshakesRefused.Add(1)
	s.handshakeLog.refused(s.log, remote, s.cfg.MaxTLSHandshakes)
	if o, ok := s.handler.(HandshakeObserver); ok {
		o.OnHandshakeRefused()
	}
}

// startRoute starts route for a connection to a unified plain port. The
// limits apply first, at accept time as Java's channelActive applies
// them, so that connections waiting to be told TLS or plain are counted
// like any other.
func (s *Server) startRoute(nc *net.TCPConn) {
	s.admitAndStart(nc, s.perIP, true, func(p *peer) { s.route(nc, p) })
}

// peekIsTLS waits for the first bytes of nc and tells TLS from plain
// with MSG_PEEK, leaving them in the socket for whichever side reads it.
func peekIsTLS(nc *net.TCPConn, timeout time.Duration) (bool, error) {
	rc, err := nc.SyscallConn()
	if err != nil {
		return false, err
	}
	deadline := time.Now().Add(timeout)
	_ = nc.SetReadDeadline(deadline)
	defer func() { _ = nc.SetReadDeadline(time.Time{}) }()
	var head [5]byte
	for {
		var n int
		var rerr error
		err := rc.Read(func(fd uintptr) bool {
			for {
				n, _, rerr = unix.Recvfrom(int(fd), head[:], unix.MSG_PEEK)
				if rerr != unix.EINTR {
					return rerr != unix.EAGAIN
				}
			}
		})
		var ne net.Error
		switch {
		case errors.As(err, &ne) && ne.Timeout():
			return false, nil // nothing yet: plain
		case err != nil:
			return false, err
		case rerr != nil:
			return false, rerr
		case n == 0:
			return false, io.EOF
		}
		if isTLS, decided := looksLikeTLS(head[:n]); decided {
			return isTLS, nil
		}
		// Part of a record header: the rest follows at once from a
		// TLS client. The bytes stay readable, so poll for them.
		if time.Now().After(deadline) {
			return false, nil
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// handshakeLogInterval is the least time between two log lines of one
// kind about TLS connections closed before the handler saw them: a
// misconfigured client retries every second or so, and a scan of the
// port fails by the thousand.
const handshakeLogInterval = 10 * time.Second

// handshakeLog writes the TLS connections that never reach the handler
// to the log, each kind at most once per handshakeLogInterval with the
// number held back since its last line: a crowd of clients, a port scan
// or an ensemble's clients retrying during an election would repeat them
// by the thousand.
type handshakeLog struct {
	failures ratelog.Every
	refusals ratelog.Every
	drops    ratelog.Every
}

func (h *handshakeLog) failed(log zerolog.Logger, remote netip.AddrPort, unified bool, err error) {
	port := "secureClientPort"
	if unified {
		port = "clientPort (client.portUnification)"
	}
	h.failures.Event(handshakeLogInterval, log.Warn).Str("remote", remote.String()).Str("port", port).
		Str("reason", HandshakeFailureReason(err)).Err(err).Msg("TLS handshake failed; connection closed")
}

// refused logs a connection to a unified port closed over the handshake
// limit, before it was told TLS or plain.
func (h *handshakeLog) refused(log zerolog.Logger, remote netip.AddrPort, limit int) {
	h.refusals.Event(handshakeLogInterval, log.Warn).Str("remote", remote.String()).Int("limit", limit).
		Msg("connection closed at once: zookeeper.netty.server.outstandingHandshake.limit connections are in their TLS handshakes")
}

// dropped logs a secure-port connection closed before its handshake
// because the server does not serve (DropSecureBeforeHandshake).
func (h *handshakeLog) dropped(log zerolog.Logger, remote netip.AddrPort) {
	h.drops.Event(handshakeLogInterval, log.Info).Str("remote", remote.String()).
		Msg("not serving clients: TLS connection closed before its handshake (zookeeper.netty.server.earlyDropSecureConnectionHandshakes)")
}

// HandshakeFailureReason names why a TLS handshake failed, in the terms an
// operator checks: the client's certificate (untrusted, expired, missing),
// a client that does not speak TLS, protocols or cipher suites in common,
// a handshake that stalled.
func HandshakeFailureReason(err error) string {
	var (
		recHdr   tls.RecordHeaderError
		unknown  x509.UnknownAuthorityError
		invalid  x509.CertificateInvalidError
		hostname x509.HostnameError
		ne       net.Error
	)
	msg := err.Error()
	switch {
	case errors.As(err, &recHdr):
		return "the client does not speak TLS (plaintext on the TLS port?)"
	case errors.As(err, &unknown):
		return "the client's certificate is not trusted (signed by an authority the trust store does not hold)"
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return "the client's certificate is expired or not yet valid"
	case errors.As(err, &invalid):
		return "the client's certificate is not valid: " + invalid.Error()
	case errors.As(err, &hostname):
		return "the client's certificate does not name its host"
	case errors.As(err, &ne) && ne.Timeout():
		return "the handshake did not finish in time"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, unix.ECONNRESET):
		return "the client closed the connection during the handshake (it may not trust the server's certificate)"
	case strings.Contains(msg, "didn't provide a certificate"):
		return "the client sent no certificate and ssl.clientAuth=need"
	case strings.Contains(msg, "protocol version"), strings.Contains(msg, "no supported versions"),
		strings.Contains(msg, "unsupported versions"):
		return "no TLS protocol version in common (ssl.enabledProtocols)"
	case strings.Contains(msg, "cipher suite"), strings.Contains(msg, "no cipher"):
		return "no cipher suite in common (ssl.ciphersuites)"
	case strings.Contains(msg, "bad certificate"), strings.Contains(msg, "unknown certificate authority"),
		strings.Contains(msg, "certificate required"):
		return "the client refused the server's certificate"
	}
	return "TLS error"
}
