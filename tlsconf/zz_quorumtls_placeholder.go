// Placeholder for package tlsconf's API until its branch is merged: PEM
// stores only. This file is deleted at that merge.
package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/conf"
)

const Placeholder = true

type Options struct {
	Quorum bool
	Logger zerolog.Logger
}

type Source struct {
	cert tls.Certificate
	pool *x509.CertPool
}

func New(c conf.TLSConfig, keyPrefix string, opts Options) (*Source, error) {
	cert, err := tls.LoadX509KeyPair(c.KeyStoreLocation, c.KeyStoreLocation)
	if err != nil {
		return nil, fmt.Errorf("%skeyStore.location %s: %w", keyPrefix, c.KeyStoreLocation, err)
	}
	ca, err := os.ReadFile(c.TrustStoreLocation)
	if err != nil {
		return nil, fmt.Errorf("%strustStore.location %s: %w", keyPrefix, c.TrustStoreLocation, err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	return &Source{cert: cert, pool: pool}, nil
}

func (s *Source) ServerConfig() *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{s.cert}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: s.pool}
}

func (s *Source) ClientConfig(host string) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{s.cert}, RootCAs: s.pool, ServerName: host}
}

func (s *Source) WatchFiles(stop <-chan struct{}) { <-stop }

func LooksLikeTLS(first []byte) bool {
	return len(first) >= 3 && first[0] == 0x16 && first[1] == 3
}
