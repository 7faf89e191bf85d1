package certtest

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"strings"
	"testing"

	"github.com/pavlo-v-chernykh/keystore-go/v4"
	"software.sslmate.com/src/go-pkcs12"
)

func readCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(raw)
	if block == nil || block.Type != "CERTIFICATE" {
		t.Fatalf("%s: no certificate", path)
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNewMakesUsableStores(t *testing.T) {
	s := New(t, Options{ServerCN: "zk1", Clients: []string{"/O=acme/OU=ops/CN=alice", "/DC=org/DC=example/UID=b1/CN=bob"}})

	roots := x509.NewCertPool()
	roots.AddCert(readCert(t, s.Trust.PEM))
	verify := func(b Bundle) error {
		_, err := readCert(t, b.CertPEM).Verify(x509.VerifyOptions{Roots: roots, DNSName: "localhost", KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
		return err
	}
	for _, b := range append([]Bundle{s.Server}, s.Clients...) {
		if err := verify(b); err != nil {
			t.Errorf("%s does not verify against the CA: %v", b.CertPEM, err)
		}
	}
	if err := verify(s.Expired); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Errorf("expired certificate: got %v, want an expiry error", err)
	}
	if err := verify(s.Untrusted); err == nil {
		t.Error("untrusted certificate verified against the CA")
	}
	if ips := readCert(t, s.Server.CertPEM).IPAddresses; len(ips) != 1 || ips[0].String() != "127.0.0.1" {
		t.Errorf("server IP SANs = %v", ips)
	}

	wantDN := map[string]string{
		s.Server.CertPEM:     "CN=zk1,O=gozk test",
		s.Clients[0].CertPEM: "CN=alice,OU=ops,O=acme",
		s.Clients[1].CertPEM: "CN=bob,UID=b1,DC=example,DC=org",
	}
	for _, b := range append([]Bundle{s.Server}, s.Clients...) {
		if b.SubjectDN != wantDN[b.CertPEM] {
			t.Errorf("%s: SubjectDN %q, want %q", b.CertPEM, b.SubjectDN, wantDN[b.CertPEM])
		}
	}

	for _, b := range []Bundle{s.Server, s.Clients[0], s.Expired, s.Untrusted} {
		raw, err := os.ReadFile(b.P12)
		if err != nil {
			t.Fatal(err)
		}
		if _, cert, err := pkcs12.Decode(raw, s.Password); err != nil || cert.Subject.String() != readCert(t, b.CertPEM).Subject.String() {
			t.Errorf("%s: %v", b.P12, err)
		}
		ks := keystore.New()
		f, err := os.Open(b.JKS)
		if err != nil {
			t.Fatal(err)
		}
		err = ks.Load(f, []byte(s.Password))
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", b.JKS, err)
		}
		if _, err := ks.GetPrivateKeyEntry("key", []byte(s.Password)); err != nil {
			t.Errorf("%s: %v", b.JKS, err)
		}
		pemText, err := os.ReadFile(b.EncryptedPEM)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(pemText), "ENCRYPTED PRIVATE KEY") || !strings.Contains(string(pemText), "CERTIFICATE") {
			t.Errorf("%s lacks the encrypted key or the certificate", b.EncryptedPEM)
		}
	}
	for _, ts := range []TrustStores{s.Trust, s.UntrustedTrust} {
		raw, err := os.ReadFile(ts.P12)
		if err != nil {
			t.Fatal(err)
		}
		if certs, err := pkcs12.DecodeTrustStore(raw, s.Password); err != nil || len(certs) != 1 {
			t.Errorf("%s: %d certificates, %v", ts.P12, len(certs), err)
		}
		ks := keystore.New()
		f, err := os.Open(ts.JKS)
		if err != nil {
			t.Fatal(err)
		}
		err = ks.Load(f, []byte(s.Password))
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", ts.JKS, err)
		}
		if _, err := ks.GetTrustedCertificateEntry("ca"); err != nil {
			t.Errorf("%s: %v", ts.JKS, err)
		}
	}

	noSAN := s.IssueSAN(t, "nosan", "/CN=zk1.example", "")
	if c := readCert(t, noSAN.CertPEM); len(c.DNSNames)+len(c.IPAddresses) != 0 {
		t.Errorf("IssueSAN without SAN: %v %v", c.DNSNames, c.IPAddresses)
	}
	dnsOnly := s.IssueSAN(t, "dnsonly", "/CN=x", "DNS:zk1.example")
	if c := readCert(t, dnsOnly.CertPEM); len(c.DNSNames) != 1 || c.DNSNames[0] != "zk1.example" || len(c.IPAddresses) != 0 {
		t.Errorf("IssueSAN DNS:zk1.example: %v %v", c.DNSNames, c.IPAddresses)
	}
	extra := s.Issue(t, "carol", "/CN=carol")
	if extra.SubjectDN != "CN=carol" || verify(extra) != nil {
		t.Errorf("Issue: %q %v", extra.SubjectDN, verify(extra))
	}
}
