package certtest

import (
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ocsp"
)

// Revocations is the set's CA answering for its certificates: a CRL at
// CRLURL and an OCSP responder at OCSPURL, served over HTTP on loopback
// and signed with the CA's key, both made afresh for each request from
// the certificates revoked so far. Certificates issued with Extensions
// point at them.
type Revocations struct {
	CRLURL, OCSPURL string

	ca  *x509.Certificate
	key crypto.Signer

	mu       sync.Mutex
	revoked  map[string]time.Time // by serial, decimal
	crlDown  bool
	ocspDown bool
	stale    bool
	unknown  bool
	requests map[string]int // by path
}

// ServeRevocations starts the CA's CRL and OCSP server; it stops with
// the test.
func (s *Set) ServeRevocations(t testing.TB) *Revocations {
	t.Helper()
	ca, err := readCertFile(s.CA.CertPEM)
	if err != nil {
		t.Fatal(err)
	}
	key, err := readKey(s.ca.key)
	if err != nil {
		t.Fatal(err)
	}
	r := &Revocations{ca: ca, key: key, revoked: map[string]time.Time{}, requests: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.CRLURL, r.OCSPURL = srv.URL+"/ca.crl", srv.URL+"/ocsp"
	return r
}

// Extensions are the openssl extension lines that make a certificate
// name the CRL (crl) and the OCSP responder (ocsp), for IssueExt.
func (r *Revocations) Extensions(crl, ocsp bool) string {
	var ext string
	if crl {
		ext += "crlDistributionPoints=URI:" + r.CRLURL + "\n"
	}
	if ocsp {
		ext += "authorityInfoAccess=OCSP;URI:" + r.OCSPURL + "\n"
	}
	return ext
}

// Revoke lists b's certificate as revoked from now on.
func (r *Revocations) Revoke(t testing.TB, b Bundle) {
	t.Helper()
	c, err := readCertFile(b.CertPEM)
	if err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.revoked[c.SerialNumber.String()] = time.Now().Add(-time.Minute).Truncate(time.Second)
}

// SetCRLDown makes the CRL URL answer 503.
func (r *Revocations) SetCRLDown(down bool) { r.mu.Lock(); r.crlDown = down; r.mu.Unlock() }

// SetOCSPDown makes the OCSP responder answer 503.
func (r *Revocations) SetOCSPDown(down bool) { r.mu.Lock(); r.ocspDown = down; r.mu.Unlock() }

// SetStale makes the CRL and the OCSP answers ones whose next update was
// due a day ago.
func (r *Revocations) SetStale(stale bool) { r.mu.Lock(); r.stale = stale; r.mu.Unlock() }

// SetUnknown makes the OCSP responder answer "unknown" for every
// certificate.
func (r *Revocations) SetUnknown(unknown bool) { r.mu.Lock(); r.unknown = unknown; r.mu.Unlock() }

// Requests is how many requests the CRL (path "/ca.crl") or the
// responder ("/ocsp"; "GET /ocsp" and "POST /ocsp" by method) has had.
func (r *Revocations) Requests(path string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests[path]
}

func (r *Revocations) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	if strings.HasPrefix(req.URL.Path, "/ocsp") {
		r.requests["/ocsp"]++
		r.requests[req.Method+" /ocsp"]++
	} else {
		r.requests[req.URL.Path]++
	}
	crlDown, ocspDown, stale, unknown := r.crlDown, r.ocspDown, r.stale, r.unknown
	revoked := make(map[string]time.Time, len(r.revoked))
	for k, v := range r.revoked {
		revoked[k] = v
	}
	r.mu.Unlock()

	now := time.Now().Truncate(time.Second)
	this, next := now.Add(-time.Hour), now.Add(time.Hour)
	if stale {
		this, next = now.Add(-48*time.Hour), now.Add(-24*time.Hour)
	}
	path := req.URL.Path
	if strings.HasPrefix(path, "/ocsp/") {
		path = "/ocsp"
	}
	switch path {
	case "/ca.crl":
		if crlDown {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		tmpl := &x509.RevocationList{Number: big.NewInt(now.Unix()), ThisUpdate: this, NextUpdate: next}
		for serial, at := range revoked {
			n, _ := new(big.Int).SetString(serial, 10)
			tmpl.RevokedCertificateEntries = append(tmpl.RevokedCertificateEntries,
				x509.RevocationListEntry{SerialNumber: n, RevocationTime: at, ReasonCode: 1})
		}
		der, err := x509.CreateRevocationList(rand.Reader, tmpl, r.ca, r.key)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/pkix-crl")
		_, _ = w.Write(der)
	case "/ocsp":
		if ocspDown {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		// A POST carries the request; a GET (the JDK's choice for a
		// short one) has it base64 encoded after the responder's path.
		body, err := io.ReadAll(io.LimitReader(req.Body, 1<<16))
		if req.Method == http.MethodGet {
			body, err = base64.StdEncoding.DecodeString(strings.TrimPrefix(req.URL.Path, "/ocsp/"))
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		q, err := ocsp.ParseRequest(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		tmpl := ocsp.Response{Status: ocsp.Good, SerialNumber: q.SerialNumber, ThisUpdate: this, NextUpdate: next}
		if at, ok := revoked[q.SerialNumber.String()]; ok {
			tmpl.Status, tmpl.RevokedAt, tmpl.RevocationReason = ocsp.Revoked, at, ocsp.KeyCompromise
		}
		if unknown {
			tmpl.Status = ocsp.Unknown
		}
		der, err := ocsp.CreateResponse(r.ca, r.ca, tmpl, r.key)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/ocsp-response")
		_, _ = w.Write(der)
	default:
		http.NotFound(w, req)
	}
}

// IssueExt is Issue (the loopback SANs) with more extension lines in
// openssl's syntax, such as Revocations.Extensions.
func (s *Set) IssueExt(t testing.TB, name, subject, extensions string) Bundle {
	t.Helper()
	s.t = t
	b := s.issueWithExt(name, subject, *s.ca, "", "IP:127.0.0.1,DNS:localhost", extensions)
	s.wait()
	return b
}

func readCertFile(path string) (*x509.Certificate, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b, _ := pem.Decode(raw)
	if b == nil {
		return nil, fmt.Errorf("%s: no PEM certificate", path)
	}
	return x509.ParseCertificate(b.Bytes)
}

func readKey(path string) (crypto.Signer, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b, _ := pem.Decode(raw)
	if b == nil {
		return nil, fmt.Errorf("%s: no PEM key", path)
	}
	if k, err := x509.ParsePKCS8PrivateKey(b.Bytes); err == nil {
		if sg, ok := k.(crypto.Signer); ok {
			return sg, nil
		}
	}
	if k, err := x509.ParseECPrivateKey(b.Bytes); err == nil {
		return k, nil
	}
	if k, err := x509.ParsePKCS1PrivateKey(b.Bytes); err == nil {
		return k, nil
	}
	return nil, fmt.Errorf("%s: not a key this package reads", path)
}
