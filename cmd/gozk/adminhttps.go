package main

import (
	"crypto/tls"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/tlsconf"
)

// adminTLS is the AdminServer's HTTPS configuration from
// admin.forceHttps or admin.portUnification and the ssl.quorum.* key
// store, nil when neither is set. Like Java 3.8.0, whose
// JettyAdminServer serves HTTPS with the quorum stores and asks for no
// client certificate, it uses only the store's certificate.
func (m *monitoring) adminTLS() (*tls.Config, error) {
	if !m.cfg.AdminForceHTTPS && !m.cfg.AdminPortUnification {
		return nil, nil
	}
	src, err := tlsconf.New(m.cfg.QuorumTLS, "ssl.quorum.", tlsconf.Options{Quorum: true, Logger: m.logger})
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		GetCertificate: src.ServerConfig().GetCertificate,
		MinVersion:     tls.VersionTLS12,
	}, nil
}

// adminScheme names what the AdminServer serves, for its start-up line.
func adminScheme(c *conf.Config) string {
	switch {
	case c.AdminForceHTTPS:
		return "https"
	case c.AdminPortUnification:
		return "https+http"
	}
	return "http"
}
