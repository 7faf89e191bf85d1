package peer

import (
	"crypto/tls"
	"net"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/quorum/quorumtls"
	"github.com/gozk/gozk/tlsconf"
)

// quorumTLS is the TLS of the member's quorum and election ports from
// sslQuorum, portUnification and the ssl.quorum.* stores: nil when both
// are off. Stores that cannot be read are an error with sslQuorum (the
// member could reach no one); with portUnification alone, as in Java,
// the member starts and only TLS connections to it fail. With
// sslQuorumReloadCertFiles the stores are watched until stop is closed,
// and new connections use what they hold then.
func quorumTLS(c *conf.Config, log zerolog.Logger, stop <-chan struct{}) (*quorumtls.Config, error) {
	q := &c.Quorum
	if !q.SSLQuorum && !q.PortUnification {
		log.Info().Msg("quorum connections: plain (sslQuorum=false)")
		return nil, nil
	}
	qc := &quorumtls.Config{
		TLS:             q.SSLQuorum,
		PortUnification: q.PortUnification,
		DetectTimeout:   c.QuorumTLS.HandshakeDetectionTimeout,
	}
	src, err := tlsconf.New(c.QuorumTLS, "ssl.quorum.", tlsconf.Options{Quorum: true, Logger: log})
	if err != nil {
		if q.SSLQuorum {
			return nil, err
		}
		log.Warn().Err(err).Msg("portUnification: the ssl.quorum.* stores cannot be read; TLS connections to this member will fail")
		qc.Server = &tls.Config{}
		qc.Client = func(conn net.Conn, _ string) *tls.Conn { return tls.Client(conn, &tls.Config{}) }
	} else {
		qc.Server = src.ServerConfig()
		qc.Client = src.Client
		if q.SSLQuorumReloadCertFiles {
			src.WatchFiles(stop)
		}
	}
	log.Info().Str("mode", qc.Mode()).Bool("sslQuorum", q.SSLQuorum).Bool("portUnification", q.PortUnification).
		Bool("sslQuorumReloadCertFiles", q.SSLQuorumReloadCertFiles).Msg("quorum connections")
	return qc, nil
}
