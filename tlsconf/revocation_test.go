package tlsconf

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
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

	t.Run("ocsp asks with a GET when the request is short, else a POST", func(t *testing.T) {
		cert, ca := readPEMCert(t, good.CertPEM), readPEMCert(t, set.CA.CertPEM)
		r := newRevocationChecker(true)
		gets, posts := rev.Requests("GET /ocsp"), rev.Requests("POST /ocsp")
		if err := r.checkOCSP(rev.OCSPURL, cert, ca); err != nil {
			t.Fatal(err)
		}
		// A responder URL long enough that the GET form passes 255
		// bytes (the test responder takes any path below /ocsp/).
		long := rev.OCSPURL + "/" + strings.Repeat("x", 200)
		if err := r.checkOCSP(long, cert, ca); err != nil {
			t.Fatal(err)
		}
		if g, p := rev.Requests("GET /ocsp")-gets, rev.Requests("POST /ocsp")-posts; g != 1 || p != 1 {
			t.Fatalf("%d GETs and %d POSTs, want one of each", g, p)
		}
	})

	t.Run("a failed CRL download is remembered for the recheck interval", func(t *testing.T) {
		r := newRevocationChecker(false)
		now := time.Now()
		r.now = func() time.Time { return now }
		chain := []*x509.Certificate{readPEMCert(t, good.CertPEM), readPEMCert(t, set.CA.CertPEM)}
		rev.SetCRLDown(true)
		if err := r.checkChain(chain); err == nil || !strings.Contains(err.Error(), "HTTP status 503") {
			t.Fatalf("CRL down: %v", err)
		}
		rev.SetCRLDown(false)
		fetched := rev.Requests("/ca.crl")
		now = now.Add(crlRecheck - time.Second)
		err := r.checkChain(chain)
		if err == nil || !strings.Contains(err.Error(), "HTTP status 503") || !strings.Contains(err.Error(), "the download 29s ago") {
			t.Fatalf("within the recheck interval of a failed download: %v, want that failure again", err)
		}
		if rev.Requests("/ca.crl") != fetched {
			t.Fatal("the CRL was downloaded again within the recheck interval of a failure")
		}
		now = now.Add(time.Second)
		if err := r.checkChain(chain); err != nil {
			t.Fatalf("once the interval is over: %v", err)
		}
		if rev.Requests("/ca.crl") != fetched+1 {
			t.Fatalf("%d downloads after the interval, want 1", rev.Requests("/ca.crl")-fetched)
		}
	})

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
	issuer, _ := newTestCA(t)
	impostor, impostorKey := newTestCA(t)
	list, err := x509.ParseRevocationList(newTestCRL(t, impostor, impostorKey))
	if err != nil {
		t.Fatal(err)
	}
	r := newRevocationChecker(false)
	done := make(chan struct{})
	close(done)
	r.crls["http://crl.invalid/ca.crl"] = &crlCheck{done: done, started: time.Now(), list: list, revoked: indexRevoked(list)}
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

// newTestCA is a self-signed CA named "same CA" with a fresh key.
func newTestCA(t testing.TB) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
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

// newTestCRL is an empty CRL (DER) signed by ca, current for an hour.
func newTestCRL(t testing.TB, ca *x509.Certificate, key *ecdsa.PrivateKey) []byte {
	t.Helper()
	der, err := x509.CreateRevocationList(rand.Reader, &x509.RevocationList{Number: big.NewInt(1),
		ThisUpdate: time.Now().Add(-time.Minute), NextUpdate: time.Now().Add(time.Hour)}, ca, key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// TestCRLDownloadedOnceAtATime: handshakes that need a CRL while it is
// being downloaded wait for that download; a distribution point is never
// asked twice at once.
func TestCRLDownloadedOnceAtATime(t *testing.T) {
	ca, key := newTestCA(t)
	crl := newTestCRL(t, ca, key)
	var requests atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		<-release
		_, _ = w.Write(crl)
	}))
	defer srv.Close()
	r := newRevocationChecker(false)
	const handshakes = 8
	errs := make(chan error, handshakes)
	for range handshakes {
		go func() {
			_, err := r.crl(srv.URL+"/ca.crl", ca)
			errs <- err
		}()
	}
	// Every handshake has asked for it once the first download is under
	// way and the others are waiting on it; then it ends.
	for deadline := time.Now().Add(10 * time.Second); requests.Load() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("no download began")
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	for range handshakes {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if n := requests.Load(); n != 1 {
		t.Fatalf("%d downloads, want 1", n)
	}
}

// TestCRLNotModified: a CRL is downloaded again after the recheck
// interval with If-Modified-Since, as the JDK asks; a 304, or a 200 with
// the same Last-Modified, keeps the CRL already checked, and a newer one
// replaces it.
func TestCRLNotModified(t *testing.T) {
	ca, key := newTestCA(t)
	first, second := newTestCRL(t, ca, key), newTestCRL(t, ca, key)
	lastModified := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	var mu sync.Mutex
	serve, answer304 := first, true
	var sinces []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		since := req.Header.Get("If-Modified-Since")
		sinces = append(sinces, since)
		if since != "" && answer304 {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Last-Modified", lastModified.Format(http.TimeFormat))
		_, _ = w.Write(serve)
	}))
	defer srv.Close()
	dp := srv.URL + "/ca.crl"
	r := newRevocationChecker(false)
	now := time.Now()
	r.now = func() time.Time { return now }
	get := func() *x509.RevocationList {
		t.Helper()
		c, err := r.crl(dp, ca)
		if err != nil {
			t.Fatal(err)
		}
		return c.list
	}
	a := get()
	now = now.Add(crlRecheck)
	if get() != a {
		t.Fatal("a 304 did not keep the CRL")
	}
	mu.Lock()
	answer304, serve = false, second
	mu.Unlock()
	now = now.Add(crlRecheck)
	if get() != a {
		t.Fatal("a 200 with the same Last-Modified did not keep the CRL")
	}
	mu.Lock()
	lastModified = lastModified.Add(time.Minute)
	mu.Unlock()
	now = now.Add(crlRecheck)
	b := get()
	if b == a || !bytes.Equal(b.Raw, second) {
		t.Fatal("a newer CRL did not replace the old one")
	}
	want := []string{"", lastModified.Add(-time.Minute).Format(http.TimeFormat),
		lastModified.Add(-time.Minute).Format(http.TimeFormat), lastModified.Add(-time.Minute).Format(http.TimeFormat)}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(sinces, "|") != strings.Join(want, "|") {
		t.Fatalf("If-Modified-Since sent: %q, want %q", sinces, want)
	}
}

// TestCRLFromAFileIsReadWhenItChanges: a file distribution point is read
// again after the interval only when its modification time has changed.
func TestCRLFromAFileIsReadWhenItChanges(t *testing.T) {
	ca, key := newTestCA(t)
	path := filepath.Join(t.TempDir(), "ca.crl")
	if err := os.WriteFile(path, newTestCRL(t, ca, key), 0o600); err != nil {
		t.Fatal(err)
	}
	r := newRevocationChecker(false)
	now := time.Now()
	r.now = func() time.Time { return now }
	dp := "file://" + path
	a, err := r.crl(dp, ca)
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(crlRecheck)
	if b, err := r.crl(dp, ca); err != nil || b.list != a.list {
		t.Fatalf("unchanged file: %v, same CRL %v", err, b == a)
	}
	second := newTestCRL(t, ca, key)
	if err := os.WriteFile(path, second, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, time.Now(), time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	now = now.Add(crlRecheck)
	if b, err := r.crl(dp, ca); err != nil || !bytes.Equal(b.list.Raw, second) {
		t.Fatalf("rewritten file: %v, new CRL read %v", err, err == nil && bytes.Equal(b.list.Raw, second))
	}
}

func TestOCSPGetURL(t *testing.T) {
	req := []byte{0xfb, 0xff, 0xfe, 0x00} // base64 "+//+AA==" has every character that must be escaped
	for _, responder := range []string{"http://ocsp.example/", "http://ocsp.example"} {
		if got, want := ocspGetURL(responder, req), "http://ocsp.example/%2B%2F%2F%2BAA%3D%3D"; got != want {
			t.Errorf("%s: %s, want %s", responder, got, want)
		}
	}
}

// crlListing is a CRL signed by ca listing n serial numbers, 1000 to
// 1000+n-1, each revoked for key compromise.
func crlListing(b testing.TB, ca *x509.Certificate, key *ecdsa.PrivateKey, n int) []byte {
	b.Helper()
	tmpl := &x509.RevocationList{Number: big.NewInt(1), ThisUpdate: time.Now().Add(-time.Minute), NextUpdate: time.Now().Add(time.Hour)}
	for i := range n {
		tmpl.RevokedCertificateEntries = append(tmpl.RevokedCertificateEntries, x509.RevocationListEntry{
			SerialNumber: big.NewInt(int64(1000 + i)), RevocationTime: time.Now().Add(-time.Hour).Truncate(time.Second), ReasonCode: 1})
	}
	der, err := x509.CreateRevocationList(rand.Reader, tmpl, ca, key)
	if err != nil {
		b.Fatal(err)
	}
	return der
}

// TestCRLLookupBySerial: in a CRL of many entries, each listed serial is
// found and others are not.
func TestCRLLookupBySerial(t *testing.T) {
	ca, key := newTestCA(t)
	der := crlListing(t, ca, key, 500)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(der) }))
	defer srv.Close()
	r := newRevocationChecker(false)
	for _, serial := range []int64{1, 999, 1000, 1250, 1499, 1500} {
		cert := &x509.Certificate{SerialNumber: big.NewInt(serial)}
		err := r.checkCRL(srv.URL, cert, ca)
		if listed := serial >= 1000 && serial < 1500; listed != (err != nil) || (listed && !strings.Contains(err.Error(), "reason KEY_COMPROMISE")) {
			t.Errorf("serial %d: %v", serial, err)
		}
	}
}

// BenchmarkCRLCheckCached is the revocation check a handshake makes
// against a cached CRL of 100,000 entries.
func BenchmarkCRLCheckCached(b *testing.B) {
	ca, key := newTestCA(b)
	der := crlListing(b, ca, key, 100_000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(der) }))
	defer srv.Close()
	r := newRevocationChecker(false)
	now := time.Now()
	r.now = func() time.Time { return now }
	good := &x509.Certificate{SerialNumber: big.NewInt(1)}
	if err := r.checkCRL(srv.URL, good, ca); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := r.checkCRL(srv.URL, good, ca); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSerialKeysAreDistinct: the index keys of serial numbers differ
// when the numbers do, sign included.
func TestSerialKeysAreDistinct(t *testing.T) {
	seen := map[string]int64{}
	for _, v := range []int64{0, 1, -1, 255, 256, -256, 1 << 40} {
		k := string(appendSerialKey(nil, big.NewInt(v)))
		if prev, dup := seen[k]; dup {
			t.Fatalf("%d and %d share the key %q", prev, v, k)
		}
		seen[k] = v
	}
	var buf [24]byte
	if got := appendSerialKey(buf[:0], big.NewInt(1000)); string(got) != string(appendSerialKey(nil, big.NewInt(1000))) {
		t.Fatal("the key depends on the buffer")
	}
}
