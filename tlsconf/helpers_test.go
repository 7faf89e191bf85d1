package tlsconf

import (
	"crypto"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/internal/certtest"
	"github.com/rs/zerolog"
)

// TestWithCertificates runs the tests that need certificates as
// subtests, sharing one certtest.Set: making one takes seconds of
// openssl and keytool.
func TestWithCertificates(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	for _, tc := range []struct {
		name string
		run  func(*testing.T, *certtest.Set)
	}{
		{"StoreTypes", testStoreTypes},
		{"StoreErrors", testStoreErrors},
		{"ClientAuth", testClientAuth},
		{"ServerCertificateRejected", testServerCertificateRejected},
		{"ServerHostnameVerification", testServerHostnameVerification},
		{"ClientHostnameVerification", testClientHostnameVerification},
		{"ProtocolMismatchFails", testProtocolMismatchFails},
		{"Reload", testReload},
		{"PEMTrustSameSubject", testPEMTrustSameSubject},
		{"WrongPasswordWithValidPadding", testWrongPasswordWithValidPadding},
		{"Revocation", testRevocation},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, set) })
	}
}

// tlsConfig is conf's defaults with the given stores.
func tlsConfig(key, trust, password string) conf.TLSConfig {
	c := conf.Defaults().ClientTLS
	c.KeyStoreLocation, c.KeyStorePassword = key, password
	c.TrustStoreLocation, c.TrustStorePassword = trust, password
	return c
}

func mustNew(t *testing.T, c conf.TLSConfig, opts Options) *Source {
	t.Helper()
	if opts.Logger.GetLevel() == zerolog.DebugLevel {
		opts.Logger = zerolog.New(zerolog.NewTestWriter(t))
	}
	s, err := New(c, "ssl.", opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// handshake runs one TLS handshake over loopback TCP between a server
// configured by server and a client configured by client, and returns
// both sides' errors and the certificate the client saw.
//
//lint:ignore ST1008 both sides' errors matter, the server's first
func handshake(t *testing.T, server *tls.Config, client func(net.Conn) *tls.Conn) (serverErr, clientErr error, serverCert *x509.Certificate, clientCert *x509.Certificate) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	type result struct {
		err  error
		peer *x509.Certificate
	}
	done := make(chan result, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- result{err: err}
			return
		}
		defer c.Close()
		tc := tls.Server(c, server)
		_ = tc.SetDeadline(time.Now().Add(30 * time.Second))
		err = tc.Handshake()
		var peer *x509.Certificate
		if err == nil {
			if pc := tc.ConnectionState().PeerCertificates; len(pc) > 0 {
				peer = pc[0]
			}
			// TLS 1.3: the client learns of a refused certificate only
			// on its first read, so answer one byte.
			_, _ = tc.Write([]byte{1})
		}
		done <- result{err, peer}
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tc := client(conn)
	_ = tc.SetDeadline(time.Now().Add(30 * time.Second))
	clientErr = tc.Handshake()
	if clientErr == nil {
		serverCert = tc.ConnectionState().PeerCertificates[0]
		if _, err := tc.Read(make([]byte, 1)); err != nil {
			clientErr = err
		}
	}
	tc.Close()
	r := <-done
	return r.err, clientErr, serverCert, r.peer
}

// leafSpec is a certificate signed in Go by the certtest CA, for SANs
// that certtest does not make.
type leafSpec struct {
	cn    string
	dns   []string
	ips   []net.IP
	usage []x509.ExtKeyUsage
}

// signLeaf writes a PEM key store (key then certificate) for spec,
// signed by set's CA, and returns its path.
func signLeaf(t *testing.T, set *certtest.Set, name string, spec leafSpec) string {
	t.Helper()
	caCert := readPEMCert(t, set.CA.CertPEM)
	caKeyPEM, err := os.ReadFile(set.CA.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(caKeyPEM)
	caKey, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	leafKey, err := x509.ParsePKCS8PrivateKey(mustKeyDER(t, set.Server.KeyPEM))
	if err != nil {
		t.Fatal(err)
	}
	usage := spec.usage
	if usage == nil {
		usage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		NotBefore:    time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		DNSNames: spec.dns, IPAddresses: spec.ips, ExtKeyUsage: usage,
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	tmpl.Subject.CommonName = spec.cn
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, leafKey.(crypto.Signer).Public(), caKey)
	if err != nil {
		t.Fatal(err)
	}
	out := append(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: mustKeyDER(t, set.Server.KeyPEM)}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	path := filepath.Join(t.TempDir(), name+".pem")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func mustKeyDER(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(raw)
	if block == nil {
		t.Fatalf("%s: no PEM", path)
	}
	return block.Bytes
}

func readPEMCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	c, err := x509.ParseCertificate(mustKeyDER(t, path))
	if err != nil {
		t.Fatal(err)
	}
	return c
}
