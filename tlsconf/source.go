package tlsconf

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gozk/gozk/conf"
	"github.com/rs/zerolog"
)

// Options are the parts of a Source that do not come from ssl.* keys.
type Options struct {
	// Quorum applies QuorumX509Util's rules (ssl.quorum.*): a server
	// also verifies the host names of the peers that connect to it when
	// ssl.quorum.hostnameVerification is on. Without it, ClientX509Util's:
	// a server never verifies a client's host name.
	Quorum bool
	// Logger receives the warnings of New and the reload results.
	Logger zerolog.Logger
	// PollInterval is how often WatchFiles looks at the files; 1s when
	// zero.
	PollInterval time.Duration
}

// Source is one set of ssl.* (or ssl.quorum.*) keys, loaded: the key
// store, the trust store and the handshake parameters. Its server and
// client configurations always use the stores last loaded, so a Reload
// reaches listeners and dialers already running.
type Source struct {
	cfg    conf.TLSConfig
	prefix string
	opts   Options
	log    zerolog.Logger

	versions   []uint16
	suites     []uint16
	clientAuth ClientAuth
	// verifyServerHost: a dialing side checks the server's host (when a
	// trust store is configured, as ZKTrustManager wraps only that).
	verifyServerHost bool
	// verifyClientHost: an accepting side checks the client's host.
	verifyClientHost bool
	// revocation checks the peer's path against CRLs and OCSP (ssl.crl,
	// ssl.ocsp); nil when both are off.
	revocation *revocationChecker

	reloadMu sync.Mutex
	cur      atomic.Pointer[stores]
}

// stores is what the files held at one load.
type stores struct {
	certs []tls.Certificate
	// roots is nil when no trust store is configured: the system's
	// roots then, as Java falls back to the JDK's cacerts.
	roots *x509.CertPool
	// zkTrust: a trust store was configured, so ZooKeeper's
	// ZKTrustManager (and its host name checks) is in the path.
	zkTrust bool
}

// New reads the stores and checks every ssl.* value, and fails with an
// error naming the key (and the file) on anything Java would refuse,
// and on what gozk cannot honour: BCFKS stores. keyPrefix is "ssl." or
// "ssl.quorum.".
func New(c conf.TLSConfig, keyPrefix string, opts Options) (*Source, error) {
	s := &Source{cfg: c, prefix: keyPrefix, opts: opts, log: opts.Logger}
	var err error
	if s.clientAuth, err = ParseClientAuth(c.ClientAuth); err != nil {
		return nil, fmt.Errorf("%sclientAuth: %v", keyPrefix, err)
	}
	if c.CRL || c.OCSP {
		// Java checks revocation only in the trust manager it builds
		// from a configured trust store.
		if c.TrustStoreLocation != "" {
			s.revocation = newRevocationChecker(c.OCSP)
		} else {
			s.log.Warn().Msgf("%scrl/%socsp: no trust store, so no revocation checking (as on Java)", keyPrefix, keyPrefix)
		}
	}
	var dropped []string
	if s.versions, dropped, err = versions(c.Protocol, c.EnabledProtocols, keyPrefix); err != nil {
		return nil, err
	}
	if len(dropped) > 0 {
		s.log.Warn().Strs("protocols", dropped).Msgf("%senabledProtocols: ignoring protocols a current JDK does not negotiate either", keyPrefix)
	}
	var tls13 bool
	if s.suites, tls13, dropped, err = cipherSuites(c.CipherSuites, keyPrefix+"ciphersuites"); err != nil {
		return nil, err
	}
	if len(dropped) > 0 {
		s.log.Warn().Strs("ciphersuites", dropped).Msgf("%sciphersuites: ignoring suites that Go's TLS does not implement or a JDK 17 does not negotiate", keyPrefix)
	}
	if s.versions, dropped, err = usableVersions(s.versions, s.suites, tls13, keyPrefix); err != nil {
		return nil, err
	}
	if len(dropped) > 0 && (len(c.EnabledProtocols) > 0 || c.Protocol != "") {
		s.log.Warn().Strs("protocols", dropped).Msgf("%sciphersuites lists no suite for these enabled protocols, so they are never negotiated (as on Java)", keyPrefix)
	}
	s.verifyServerHost = c.HostnameVerification
	s.verifyClientHost = c.HostnameVerification && opts.Quorum
	st, err := s.load()
	if err != nil {
		return nil, err
	}
	if c.KeyStoreLocation == "" {
		s.log.Warn().Msgf("%skeyStore.location not specified: no certificate to present", keyPrefix)
	}
	if c.TrustStoreLocation == "" {
		s.log.Warn().Msgf("%strustStore.location not specified: peers are checked against the system's root certificates, without host name verification", keyPrefix)
	}
	s.cur.Store(st)
	return s, nil
}

// password is the *.password value, or the contents of *.passwordPath
// when that is set (the file wins, as in Java; one trailing newline is
// not part of it).
func (s *Source) password(value, path, pathKey string) (string, error) {
	if path == "" {
		return value, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s: %v", pathKey, err)
	}
	return strings.TrimSuffix(string(raw), "\n"), nil
}

func (s *Source) load() (*stores, error) {
	c, p := s.cfg, s.prefix
	st := &stores{}
	if c.KeyStoreLocation != "" {
		typ, err := storeType(c.KeyStoreType, p+"keyStore.type", c.KeyStoreLocation, p+"keyStore.location")
		if err != nil {
			return nil, err
		}
		pw, err := s.password(c.KeyStorePassword, c.KeyStorePasswordPath, p+"keyStore.passwordPath")
		if err != nil {
			return nil, err
		}
		if st.certs, err = loadKeyStore(c.KeyStoreLocation, typ, pw); err != nil {
			return nil, fmt.Errorf("%skeyStore.location: %s: %v", p, c.KeyStoreLocation, unwrapPathError(err))
		}
	}
	if c.TrustStoreLocation != "" {
		typ, err := storeType(c.TrustStoreType, p+"trustStore.type", c.TrustStoreLocation, p+"trustStore.location")
		if err != nil {
			return nil, err
		}
		pw, err := s.password(c.TrustStorePassword, c.TrustStorePasswordPath, p+"trustStore.passwordPath")
		if err != nil {
			return nil, err
		}
		if st.roots, err = loadTrustStore(c.TrustStoreLocation, typ, pw); err != nil {
			return nil, fmt.Errorf("%strustStore.location: %s: %v", p, c.TrustStoreLocation, unwrapPathError(err))
		}
		st.zkTrust = true
	}
	return st, nil
}

// unwrapPathError drops the path an *os.PathError repeats.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Reload re-reads both stores (and password files). On success the
// next handshakes use them; on failure the stores loaded before stay in
// use, the reason is logged and returned.
func (s *Source) Reload() error {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	st, err := s.load()
	if err != nil {
		s.log.Error().Err(err).Msgf("%s stores not reloaded; keeping the certificates loaded before", strings.TrimSuffix(s.prefix, "."))
		return err
	}
	s.cur.Store(st)
	s.log.Info().Str("keyStore", s.cfg.KeyStoreLocation).Str("trustStore", s.cfg.TrustStoreLocation).Msgf("%s stores reloaded", strings.TrimSuffix(s.prefix, "."))
	return nil
}

// WatchFiles starts a goroutine that reloads the stores whenever the
// key store or trust store file is written or replaced, as Java's
// FileChangeWatcher does with client.certReload and
// sslQuorumReloadCertFiles, until stop is closed. It polls the files'
// modification time, size and identity every Options.PollInterval. A
// file removed is not a change (Java ignores deletions too); a file
// caught half-written fails to load, keeps the old stores, and is
// loaded on the next change.
func (s *Source) WatchFiles(stop <-chan struct{}) {
	interval := s.opts.PollInterval
	if interval <= 0 {
		interval = time.Second
	}
	var files []string
	for _, f := range []string{s.cfg.KeyStoreLocation, s.cfg.TrustStoreLocation} {
		if f != "" {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return
	}
	last := make([]os.FileInfo, len(files))
	for i, f := range files {
		last[i], _ = os.Stat(f)
	}
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			changed := false
			for i, f := range files {
				fi, err := os.Stat(f)
				if err != nil {
					continue
				}
				if last[i] == nil || !os.SameFile(fi, last[i]) || !fi.ModTime().Equal(last[i].ModTime()) || fi.Size() != last[i].Size() {
					changed = true
				}
				last[i] = fi
			}
			if changed {
				_ = s.Reload() // logged by Reload
			}
		}
	}()
}

// ClientAuth is the parsed ssl.clientAuth.
func (s *Source) ClientAuth() ClientAuth { return s.clientAuth }

func (s *Source) base() *tls.Config {
	return &tls.Config{
		MinVersion:             slices.Min(s.versions),
		MaxVersion:             slices.Max(s.versions),
		CipherSuites:           s.suites,
		SessionTicketsDisabled: true,
	}
}

// ServerConfig is the configuration for a listener. Each handshake
// takes the stores loaded last, so a Reload applies to the next
// connection without restarting the listener. A client certificate is
// asked for as ssl.clientAuth says and checked against the trust store;
// with Options.Quorum and ssl.quorum.hostnameVerification the client's
// address (or its reverse-resolved name) must match its certificate.
func (s *Source) ServerConfig() *tls.Config {
	cfg := s.base()
	cfg.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
		return s.serverConfigFor(hello.Conn), nil
	}
	return cfg
}

// GetCertificate presents the key store's certificate as loaded last,
// for a server that wants the certificate alone: the AdminServer's HTTPS
// asks for no client certificate, as Java's does.
func (s *Source) GetCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	certs := s.cur.Load().certs
	for i := range certs {
		if hello.SupportsCertificate(&certs[i]) == nil {
			return &certs[i], nil
		}
	}
	if len(certs) == 0 {
		return nil, fmt.Errorf("%skeyStore.location not specified: no certificate to present", s.prefix)
	}
	return &certs[0], nil
}

func (s *Source) serverConfigFor(conn net.Conn) *tls.Config {
	st := s.cur.Load()
	cfg := s.base()
	cfg.Certificates = st.certs
	cfg.ClientAuth = s.clientAuth.tlsClientAuth()
	cfg.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return nil // crypto/tls already refused it if ssl.clientAuth is need
		}
		if err := s.verifyChain(cs.PeerCertificates, st.roots, x509.ExtKeyUsageClientAuth); err != nil {
			return fmt.Errorf("client certificate %q: %v", SubjectDN(cs.PeerCertificates[0]), err)
		}
		if s.verifyClientHost && st.zkTrust {
			ip := remoteIP(conn)
			if ip == nil {
				return fmt.Errorf("client host name verification: no IP address for the connection from %v", conn.RemoteAddr())
			}
			if err := verifyPeerHost(ip, "", cs.PeerCertificates[0]); err != nil {
				return fmt.Errorf("client %s: %v", ip, err)
			}
		}
		return nil
	}
	return cfg
}

func remoteIP(conn net.Conn) net.IP {
	if conn == nil {
		return nil
	}
	switch a := conn.RemoteAddr().(type) {
	case *net.TCPAddr:
		return a.IP
	}
	host, _, err := net.SplitHostPort(conn.RemoteAddr().String())
	if err != nil {
		return nil
	}
	return net.ParseIP(host)
}

// ClientConfig is the configuration for dialing the peer at host (a
// name or an IP address, without port, as the configuration names the
// peer). The server's chain is checked against the trust store; with
// ssl.hostnameVerification (and a trust store configured) the server's
// certificate must match the peer as Java's ZKTrustManager matches it:
// the address first, then the name. Knowing only host, an IP literal
// is the address and its reverse lookup the name; a name is the name,
// and the addresses it resolves to stand for the one dialed. Client,
// given the connection, checks the address actually dialed.
func (s *Source) ClientConfig(host string) *tls.Config {
	return s.clientConfig(host, nil)
}

// Client wraps conn, a connection this side dialed to host, in TLS as
// ClientConfig(host) would, but checks the server's host against the
// address conn is connected to, as Java does.
func (s *Source) Client(conn net.Conn, host string) *tls.Conn {
	return tls.Client(conn, s.clientConfig(host, remoteIP(conn)))
}

func (s *Source) clientConfig(host string, dialed net.IP) *tls.Config {
	cfg := s.base()
	cfg.InsecureSkipVerify = true // verified below, by Java's rules
	if net.ParseIP(host) == nil {
		cfg.ServerName = host
	}
	cfg.GetClientCertificate = func(req *tls.CertificateRequestInfo) (*tls.Certificate, error) {
		for _, c := range s.cur.Load().certs {
			if req.SupportsCertificate(&c) == nil {
				return &c, nil
			}
		}
		return &tls.Certificate{}, nil
	}
	cfg.VerifyConnection = func(cs tls.ConnectionState) error {
		st := s.cur.Load()
		if err := s.verifyChain(cs.PeerCertificates, st.roots, x509.ExtKeyUsageServerAuth); err != nil {
			return fmt.Errorf("server certificate of %s: %v", host, err)
		}
		if !s.verifyServerHost || !st.zkTrust {
			return nil
		}
		leaf := cs.PeerCertificates[0]
		if dialed != nil {
			name := host
			if net.ParseIP(host) != nil {
				name = ""
			}
			if err := verifyPeerHost(dialed, name, leaf); err != nil {
				return fmt.Errorf("server %s: %v", host, err)
			}
			return nil
		}
		if ip := net.ParseIP(host); ip != nil {
			if err := verifyPeerHost(ip, "", leaf); err != nil {
				return fmt.Errorf("server %s: %v", host, err)
			}
			return nil
		}
		errName := verifyHostname(host, leaf)
		if errName == nil {
			return nil
		}
		addrs, _ := net.DefaultResolver.LookupIPAddr(context.Background(), host)
		for _, a := range addrs {
			if verifyHostname(javaHostAddress(a.IP), leaf) == nil {
				return nil
			}
		}
		return fmt.Errorf("server %s: %v", host, errName)
	}
	return cfg
}
