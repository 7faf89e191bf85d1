package tlsconf

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/internal/certtest"
)

// testRevocation: with ssl.crl or ssl.ocsp, a peer whose certificate is
// revoked is refused on both sides of a handshake, and so is one whose
// status cannot be learnt; a good one passes. The CA's CRL and OCSP
// responder run on loopback (certtest.Revocations).
func testRevocation(t *testing.T, set *certtest.Set) {
	rev := set.ServeRevocations(t)
	good := set.IssueExt(t, "rev-good", "/O=gozk test/CN=rev-good", rev.Extensions(true, true))
	revoked := set.IssueExt(t, "rev-revoked", "/O=gozk test/CN=rev-revoked", rev.Extensions(true, true))
	crlOnly := set.IssueExt(t, "rev-crl-only", "/O=gozk test/CN=rev-crl-only", rev.Extensions(true, false))
	ocspOnly := set.IssueExt(t, "rev-ocsp-only", "/O=gozk test/CN=rev-ocsp-only", rev.Extensions(false, true))
	revokedOCSPOnly := set.IssueExt(t, "rev-revoked-ocsp", "/O=gozk test/CN=rev-revoked-ocsp", rev.Extensions(false, true))
	rev.Revoke(t, revoked)
	rev.Revoke(t, revokedOCSPOnly)

	type fault func(bool)
	none := func(bool) {}
	cases := []struct {
		name      string
		crl, ocsp bool
		peer      certtest.Bundle
		fault     fault
		want      string // "" to pass, else part of the refusal
	}{
		{"crl good", true, false, good, none, ""},
		{"crl revoked", true, false, revoked, none, "revoked (CRL " + rev.CRLURL + ": reason KEY_COMPROMISE"},
		{"crl with no distribution point", true, false, ocspOnly, none, "could not determine revocation status"},
		{"crl without a certificate extension (the server's)", true, false, set.Clients[0], none, "names no CRL distribution point"},
		{"crl unreachable", true, false, good, rev.SetCRLDown, "HTTP status 503"},
		{"crl stale", true, false, good, rev.SetStale, "the CRL is stale"},
		{"ocsp good", false, true, good, none, ""},
		{"ocsp revoked", false, true, revokedOCSPOnly, none, "revoked (OCSP " + rev.OCSPURL + ": reason KEY_COMPROMISE"},
		{"ocsp down falls back to the CRL", false, true, good, rev.SetOCSPDown, ""},
		{"ocsp down, the CRL says revoked", false, true, revoked, rev.SetOCSPDown, "revoked (CRL"},
		{"ocsp unknown falls back to the CRL", true, true, crlOnly, rev.SetUnknown, ""},
		{"ocsp unknown and no CRL", false, true, ocspOnly, rev.SetUnknown, "does not know the certificate"},
		{"ocsp stale answer", false, true, ocspOnly, rev.SetStale, "the response is stale"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.fault(true)
			defer tc.fault(false)
			for _, side := range []string{"client checked by the server", "server checked by the client"} {
				sc := tlsConfig(set.Server.JKS, set.Trust.JKS, set.Password)
				cc := tlsConfig(tc.peer.JKS, set.Trust.JKS, set.Password)
				checker := &sc
				if side == "server checked by the client" {
					sc.KeyStoreLocation, cc.KeyStoreLocation = tc.peer.JKS, set.Clients[0].JKS
					checker = &cc
				}
				checker.CRL, checker.OCSP = tc.crl, tc.ocsp
				server, client := mustNew(t, sc, Options{}), mustNew(t, cc, Options{})
				// A fresh checker per side: the CRL cache must not carry
				// one case's answer into the next.
				serr, cerr, _, _ := handshake(t, server.ServerConfig(), dialer(client, "127.0.0.1"))
				refusal := serr
				if checker == &cc {
					refusal = cerr
				}
				switch {
				case tc.want == "" && (serr != nil || cerr != nil):
					t.Fatalf("%s: server %v, client %v; want success", side, serr, cerr)
				case tc.want != "" && (refusal == nil || !strings.Contains(refusal.Error(), tc.want)):
					t.Fatalf("%s: server %v, client %v; want a refusal containing %q", side, serr, cerr, tc.want)
				}
			}
		})
	}

	t.Run("a new revocation is seen once the cached CRL is rechecked", func(t *testing.T) {
		late := set.IssueExt(t, "rev-late", "/O=gozk test/CN=rev-late", rev.Extensions(true, false))
		r := newRevocationChecker(false)
		now := time.Now()
		r.now = func() time.Time { return now }
		chain := []*x509.Certificate{readPEMCert(t, late.CertPEM), readPEMCert(t, set.CA.CertPEM)}
		if err := r.checkChain(chain); err != nil {
			t.Fatal(err)
		}
		fetched := rev.Requests("/ca.crl")
		rev.Revoke(t, late)
		if err := r.checkChain(chain); err != nil {
			t.Fatalf("within the recheck interval the cached CRL answers: %v", err)
		}
		if rev.Requests("/ca.crl") != fetched {
			t.Fatal("the CRL was fetched again within the recheck interval")
		}
		now = now.Add(crlRecheck)
		if err := r.checkChain(chain); err == nil || !strings.Contains(err.Error(), "revoked") {
			t.Fatalf("after the recheck interval: %v, want revoked", err)
		}
	})
}

// TestCachedCRLSignatureChecked: a cached CRL that is not signed by the
// certificate's issuer (same name, another key) is refused on every
// use, not only when first fetched.
func TestCachedCRLSignatureChecked(t *testing.T) {
	newCA := func() (*x509.Certificate, *ecdsa.PrivateKey) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "same CA"},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
			BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign, SubjectKeyId: []byte{1}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			t.Fatal(err)
		}
		cert, err := x509.ParseCertificate(der)
		if err != nil {
			t.Fatal(err)
		}
		return cert, key
	}
	issuer, _ := newCA()
	impostor, impostorKey := newCA()
	der, err := x509.CreateRevocationList(rand.Reader, &x509.RevocationList{Number: big.NewInt(1),
		ThisUpdate: time.Now().Add(-time.Minute), NextUpdate: time.Now().Add(time.Hour)}, impostor, impostorKey)
	if err != nil {
		t.Fatal(err)
	}
	list, err := x509.ParseRevocationList(der)
	if err != nil {
		t.Fatal(err)
	}
	r := newRevocationChecker(false)
	r.crls["http://crl.invalid/ca.crl"] = cachedCRL{list: list, fetched: time.Now()}
	for i := range 2 {
		if _, err := r.crl("http://crl.invalid/ca.crl", issuer); err == nil || !strings.Contains(err.Error(), "the CRL's signature") {
			t.Fatalf("use %d: %v, want the signature refused", i+1, err)
		}
	}
	if _, err := r.crl("http://crl.invalid/ca.crl", impostor); err != nil {
		t.Fatalf("checked against the key that signed it: %v", err)
	}
	if !bytes.Equal(r.crls["http://crl.invalid/ca.crl"].signedBy, impostor.Raw) {
		t.Fatal("the checked signature was not remembered")
	}
}
