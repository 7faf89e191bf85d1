package server

import (
	"net"

	"github.com/gozk/gozk/acl"
	"github.com/gozk/gozk/netio"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/tlsconf"
)

// tlsOpened gives a new connection what TLS says about it, before the
// server sees its first frame:
//
//   - a verified client certificate gives the connection the x509
//     identities of its subject (and super when it is
//     zookeeper.X509AuthenticationProvider.superUser), as Java's
//     X509AuthenticationProvider does when the handshake completes. With
//     ssl.clientAuth=want a client without a certificate is served with no
//     such identity, as on Java.
//   - a plain connection to the client port while TLS is configured is
//     counted as non-mTLS, local (loopback) or remote: Java's Netty
//     factory, which TLS requires, counts every connection of a port
//     without a TLS handler, so a unified port's TLS clients count as
//     well (the port's handler decides later).
func (s *Server) tlsOpened(c *connection) {
	nc := c.nc
	if s.cfg.ClientTLS != nil && !nc.OnSecurePort() {
		if ip := net.ParseIP(nc.RemoteIP()); ip != nil && ip.IsLoopback() {
			s.mon.stats.nonMTLSLocal.Add(1)
		} else {
			s.mon.stats.nonMTLSRemote.Add(1)
		}
	}
	ids := s.certificateIdentities(nc)
	if len(ids) == 0 {
		return
	}
	all := c.ids
	for _, id := range ids {
		all = acl.AddIdentity(all, id)
	}
	c.ids = all
	if ev := s.logger.Debug(); ev.Enabled() {
		ev.Str("remote", nc.RemoteAddr().String()).Interface("ids", ids).Msg("x509 identities from the client certificate")
	}
}

// certificateIdentities are the identities of a connection's verified
// client certificate, none without one.
func (s *Server) certificateIdentities(nc *netio.Conn) []proto.Id {
	certs := nc.PeerCertificates()
	if len(certs) == 0 {
		return nil
	}
	return s.acl.X509Identities(tlsconf.SubjectDN(certs[0]))
}

// x509AuthPacket answers an auth packet of the x509 scheme (addauth
// x509): Java's provider ignores the packet's data and looks at the
// connection's client certificate; with one, the connection (again) gets
// its identities, without one it fails (AuthFailed, and the connection is
// closed).
func (s *Server) x509AuthPacket(c *connection) ([]proto.Id, error) {
	ids := s.certificateIdentities(c.nc)
	if len(ids) == 0 {
		return nil, acl.ErrCertificateRequired
	}
	return ids, nil
}

// OnHandshakeFailure implements netio.HandshakeObserver: a TLS handshake
// that failed counts as a failed authentication and an unsuccessful
// handshake, as in Java (auth_failed_count, unsuccessful_handshake).
func (s *Server) OnHandshakeFailure() {
	s.mon.stats.authFailed.Add(1)
	s.mon.metrics.UnsuccessfulHandshake.Add(1)
}

// dropSecureBeforeHandshake is the client port's test for closing a
// secure-port connection before its handshake, with
// EarlyDropSecureHandshakes: the server does not serve, and the drop
// counts in cnxn_closed_without_zk_server_running, as in Java.
func (s *Server) dropSecureBeforeHandshake() func() bool {
	if !s.cfg.EarlyDropSecureHandshakes {
		return nil
	}
	return func() bool {
		if s.Serving() {
			return false
		}
		s.mon.metrics.CnxnClosedWithoutServer.Add(1)
		return true
	}
}

// OnHandshakeRefused implements netio.HandshakeObserver: a connection
// closed over zookeeper.netty.server.outstandingHandshake.limit counts in
// tls_handshake_exceeded, as in Java.
func (s *Server) OnHandshakeRefused() { s.mon.metrics.TLSHandshakeExceeded.Add(1) }
