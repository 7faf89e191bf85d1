package main

import (
	"fmt"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/tlsconf"
)

// clientTLS loads the ssl.* stores when the configuration serves TLS
// clients (secureClientPort, or client.portUnification on clientPort),
// nil otherwise. A store that cannot be read, a wrong password or a
// value Java would refuse stops start-up with the key and file named
// (tlsconf's errors), where Java would only fail each TLS connection.
func clientTLS(cfg *conf.Config, logger zerolog.Logger) (*tlsconf.Source, error) {
	if cfg.SecureClientPort == 0 && !cfg.ClientPortUnification {
		return nil, nil
	}
	if p := cfg.ClientTLS.AuthProvider; p != "" && p != "x509" {
		// Java needs zookeeper.authProvider.<p> naming an
		// X509AuthenticationProvider whose scheme is <p>; the only one it
		// ships (and the only one gozk has) is x509's.
		return nil, fmt.Errorf("ssl.authProvider=%s: no x509 authentication provider has the scheme %q; "+
			"gozk has only org.apache.zookeeper.server.auth.X509AuthenticationProvider (scheme x509): remove ssl.authProvider or set it to x509", p, p)
	}
	src, err := tlsconf.New(cfg.ClientTLS, "ssl.", tlsconf.Options{Logger: logger})
	if err != nil {
		return nil, err
	}
	return src, nil
}
