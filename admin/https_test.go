package admin

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// selfSigned is a certificate for 127.0.0.1 and a client that trusts it.
func selfSigned(t *testing.T) (*tls.Config, *http.Client) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "admin"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	t.Cleanup(client.CloseIdleConnections)
	return &tls.Config{Certificates: []tls.Certificate{cert}}, client
}

func get(t *testing.T, c *http.Client, url string) (*http.Response, string, error) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b), nil
}

func TestAdminServerHTTPS(t *testing.T) {
	_, cmds := startLoaded(t)
	cfg, client := selfSigned(t)
	plain := &http.Client{Timeout: 10 * time.Second}
	for _, c := range []struct {
		name                string
		tls                 *tls.Config
		force               bool
		wantHTTPS, wantHTTP bool
	}{
		{"plain", nil, false, false, true},
		{"forceHttps", cfg, true, true, false},
		{"portUnification", cfg, false, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, err := cmds.StartAdminServer(AdminServerConfig{Address: "127.0.0.1", TLS: c.tls, ForceHTTPS: c.force})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			addr := h.Addr().String()
			resp, body, err := get(t, client, "https://"+addr+"/commands/ruok")
			gotHTTPS := err == nil && resp.StatusCode == 200 && strings.Contains(body, `"command" : "ruok"`)
			if gotHTTPS != c.wantHTTPS {
				t.Fatalf("HTTPS served: %v, want %v (%v, %q)", gotHTTPS, c.wantHTTPS, err, body)
			}
			if gotHTTPS && resp.Header.Get("Strict-Transport-Security") != "max-age=86400; includeSubDomains" {
				t.Fatalf("HTTPS response headers: %v", resp.Header)
			}
			resp, body, err = get(t, plain, "http://"+addr+"/commands/ruok")
			gotHTTP := err == nil && resp.StatusCode == 200 && strings.Contains(body, `"command" : "ruok"`)
			if gotHTTP != c.wantHTTP {
				t.Fatalf("HTTP served: %v, want %v (%v, %q)", gotHTTP, c.wantHTTP, err, body)
			}
			if gotHTTP && resp.Header.Get("Strict-Transport-Security") != "" {
				t.Fatal("a plain HTTP response carries Strict-Transport-Security")
			}
		})
	}
}
