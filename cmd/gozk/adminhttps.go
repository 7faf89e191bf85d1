package main

import (
	"crypto/tls"
	"errors"

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
	// Java's JettyAdminServer loads both stores and fails without
	// either, which leaves the server without an AdminServer.
	if m.cfg.QuorumTLS.KeyStoreLocation == "" {
		return nil, errors.New("ssl.quorum.keyStore.location is not set: the AdminServer's HTTPS needs the quorum key store")
	}
	if m.cfg.QuorumTLS.TrustStoreLocation == "" {
		return nil, errors.New("ssl.quorum.trustStore.location is not set: the AdminServer's HTTPS loads the quorum trust store, as Java's does")
	}
	src, err := tlsconf.New(m.cfg.QuorumTLS, "ssl.quorum.", tlsconf.Options{Quorum: true, Logger: m.logger})
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		GetCertificate: src.GetCertificate,
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
