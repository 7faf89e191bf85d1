package tlsconf

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ocsp"
)

// Revocation checking as ssl.crl and ssl.ocsp turn it on in Java: the
// JDK's PKIX checker with revocation enabled, CRL distribution points
// followed (com.sun.security.enableCRLDP) and, with ssl.ocsp, OCSP asked
// first (ocsp.enable). Every certificate of the peer's path but the trust
// anchor must be shown not revoked: OCSP's "good" (when enabled and the
// certificate names a responder), else a current CRL signed by the issuer
// that does not list it. A revoked certificate is refused, and so is one
// whose status cannot be determined (no distribution point, a CRL that
// cannot be fetched, is stale or is not the issuer's): the JDK fails hard
// unless told otherwise, and so does gozk.

const (
	// fetchTimeout bounds one CRL download or OCSP exchange, the JDK's
	// com.sun.security.crl.timeout and com.sun.security.ocsp.timeout
	// (15 s by default).
	fetchTimeout = 15 * time.Second
	// crlRecheck is how long a downloaded CRL is used before it is
	// fetched again, the JDK's URICertStore check interval (30 s), so a
	// new revocation takes effect soon without a download per handshake.
	crlRecheck = 30 * time.Second
	// clockSkew is how far the JDK lets a CRL's or OCSP response's
	// validity dates miss the clock (15 minutes).
	clockSkew = 15 * time.Minute
	// maxRevocationBody bounds a CRL or OCSP response read from the
	// network.
	maxRevocationBody = 32 << 20
)

// revocationChecker checks certificates against CRLs and OCSP. It is
// shared by every handshake of one Source.
type revocationChecker struct {
	ocsp   bool
	client *http.Client
	now    func() time.Time

	mu   sync.Mutex
	crls map[string]*crlCheck // the latest check of each distribution point, by URL
}

// crlCheck is one download of a distribution point's CRL and what came
// of it, kept for crlRecheck as the JDK's URICertStore keeps it: the
// CRL, or the failure, which is remembered too (the JDK forgets its CRL
// when a download fails and does not try again for 30 s), so that a
// distribution point that is down costs one download per interval and
// not one per handshake. Handshakes that need the CRL while it is being
// downloaded wait for that download instead of starting their own.
type crlCheck struct {
	done    chan struct{} // closed once the fields below are set
	started time.Time

	list    *x509.RevocationList
	revoked map[string]int // serial number (appendSerialKey) to its entry in list
	err     error
	// lastModified is the response's Last-Modified (a file's
	// modification time), sent as If-Modified-Since on the next download;
	// a CRL not modified since is not downloaded or parsed again.
	lastModified string

	// signedBy is the issuer certificate (DER) whose key the CRL's
	// signature was checked with, so that a cached CRL is not hashed and
	// verified again on every handshake. Guarded by the checker's mu.
	signedBy []byte
}

func newRevocationChecker(useOCSP bool) *revocationChecker {
	return &revocationChecker{
		ocsp:   useOCSP,
		client: &http.Client{Timeout: fetchTimeout},
		now:    time.Now,
		crls:   map[string]*crlCheck{},
	}
}

// errRevoked marks a certificate that is revoked, as opposed to one whose
// status could not be learnt.
var errRevoked = errors.New("revoked")

// checkChains passes when one of the verified chains (leaf first, trust
// anchor last) has no certificate revoked or of unknown status; the
// error is the first chain's otherwise.
func (r *revocationChecker) checkChains(chains [][]*x509.Certificate) error {
	var first error
	for _, chain := range chains {
		err := r.checkChain(chain)
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	if first == nil {
		first = errors.New("no certificate path to check for revocation")
	}
	return first
}

func (r *revocationChecker) checkChain(chain []*x509.Certificate) error {
	for i := 0; i+1 < len(chain); i++ {
		if err := r.checkCert(chain[i], chain[i+1]); err != nil {
			return fmt.Errorf("certificate %q: %w", SubjectDN(chain[i]), err)
		}
	}
	return nil
}

// checkCert finds the status of cert, issued by issuer: OCSP first when
// enabled, the CRLs when OCSP says neither good nor revoked.
func (r *revocationChecker) checkCert(cert, issuer *x509.Certificate) error {
	var reasons []string
	if r.ocsp {
		if len(cert.OCSPServer) == 0 {
			reasons = append(reasons, "OCSP: the certificate names no responder")
		}
		for _, responder := range cert.OCSPServer {
			err := r.checkOCSP(responder, cert, issuer)
			if err == nil || errors.Is(err, errRevoked) {
				return err
			}
			reasons = append(reasons, fmt.Sprintf("OCSP %s: %v", responder, err))
		}
	}
	if len(cert.CRLDistributionPoints) == 0 {
		reasons = append(reasons, "the certificate names no CRL distribution point")
	}
	for _, dp := range cert.CRLDistributionPoints {
		err := r.checkCRL(dp, cert, issuer)
		if err == nil || errors.Is(err, errRevoked) {
			return err
		}
		reasons = append(reasons, fmt.Sprintf("CRL %s: %v", dp, err))
	}
	return fmt.Errorf("could not determine revocation status (%s)", strings.Join(reasons, "; "))
}

func (r *revocationChecker) checkCRL(dp string, cert, issuer *x509.Certificate) error {
	c, err := r.crl(dp, issuer)
	if err != nil {
		return err
	}
	var buf [24]byte // a serial number is at most 20 bytes
	if i, ok := c.revoked[string(appendSerialKey(buf[:0], cert.SerialNumber))]; ok {
		e := c.list.RevokedCertificateEntries[i]
		return fmt.Errorf("%w (CRL %s: reason %s, since %s)", errRevoked, dp,
			reasonName(e.ReasonCode), e.RevocationTime.UTC().Format(time.RFC3339))
	}
	return nil
}

// indexRevoked maps the serial numbers a CRL lists to their entries: a
// CA's CRL can list hundreds of thousands, and every handshake looks one
// up (the JDK's CRL keeps such a map too).
func indexRevoked(list *x509.RevocationList) map[string]int {
	idx := make(map[string]int, len(list.RevokedCertificateEntries))
	for i, e := range list.RevokedCertificateEntries {
		if e.SerialNumber == nil {
			continue
		}
		key := string(appendSerialKey(nil, e.SerialNumber))
		if _, dup := idx[key]; !dup {
			idx[key] = i
		}
	}
	return idx
}

// appendSerialKey appends n's key in the index to dst: its sign, then its
// magnitude's big-endian bytes. A lookup with a stack buffer allocates
// nothing.
func appendSerialKey(dst []byte, n *big.Int) []byte {
	if n == nil {
		return dst
	}
	if n.Sign() < 0 {
		dst = append(dst, '-')
	}
	size := (n.BitLen() + 7) / 8
	dst = slices.Grow(dst, size)[:len(dst)+size]
	n.FillBytes(dst[len(dst)-size:])
	return dst
}

// crl is the distribution point's CRL, from the latest download while it
// is recent, checked as the JDK checks it: issued by the certificate's
// issuer, signed with its key, and current.
func (r *revocationChecker) crl(dp string, issuer *x509.Certificate) (*crlCheck, error) {
	now := r.now()
	c := r.latestCRL(dp, now)
	if c.err != nil {
		if c.started.Equal(now) {
			return nil, c.err
		}
		return nil, fmt.Errorf("%w (the download %s ago; the next is not tried before %s have passed)",
			c.err, now.Sub(c.started).Round(time.Second), crlRecheck)
	}
	list := c.list
	if !bytes.Equal(list.RawIssuer, issuer.RawSubject) {
		return nil, fmt.Errorf("the CRL is issued by %q, not by the certificate's issuer %q", list.Issuer, issuer.Subject)
	}
	r.mu.Lock()
	checked := bytes.Equal(c.signedBy, issuer.Raw)
	r.mu.Unlock()
	if !checked {
		if err := list.CheckSignatureFrom(issuer); err != nil {
			return nil, fmt.Errorf("the CRL's signature: %v", err)
		}
		r.mu.Lock()
		c.signedBy = issuer.Raw
		r.mu.Unlock()
	}
	if list.ThisUpdate.After(now.Add(clockSkew)) {
		return nil, fmt.Errorf("the CRL is not valid before %s", list.ThisUpdate.UTC().Format(time.RFC3339))
	}
	if !list.NextUpdate.IsZero() && list.NextUpdate.Before(now.Add(-clockSkew)) {
		return nil, fmt.Errorf("the CRL is stale (next update was due %s)", list.NextUpdate.UTC().Format(time.RFC3339))
	}
	return c, nil
}

// latestCRL is the distribution point's latest download once it has
// ended: the one in progress, the last one while it is recent, or a new
// one.
func (r *revocationChecker) latestCRL(dp string, now time.Time) *crlCheck {
	r.mu.Lock()
	prev := r.crls[dp]
	if prev != nil {
		select {
		case <-prev.done:
			if age := now.Sub(prev.started); age >= 0 && age < crlRecheck {
				r.mu.Unlock()
				return prev
			}
		default: // another handshake is downloading it
			r.mu.Unlock()
			<-prev.done
			return prev
		}
	}
	c := &crlCheck{done: make(chan struct{}), started: now}
	r.crls[dp] = c
	r.mu.Unlock()

	var since string
	if prev != nil && prev.list != nil {
		since = prev.lastModified
	}
	raw, modified, err := r.fetch(dp, since)
	switch {
	case err != nil:
		c.err = err
	case since != "" && (raw == nil || modified == since):
		// Not modified: the CRL already checked is kept, its
		// signature check too.
		c.list, c.revoked, c.lastModified = prev.list, prev.revoked, since
		r.mu.Lock()
		c.signedBy = prev.signedBy
		r.mu.Unlock()
	default:
		c.list, c.err = parseCRL(raw)
		if c.err == nil {
			c.revoked, c.lastModified = indexRevoked(c.list), modified
		}
	}
	close(c.done)
	return c
}

// parseCRL takes a CRL in DER, as distribution points serve it, or in
// PEM, which the JDK reads too.
func parseCRL(raw []byte) (*x509.RevocationList, error) {
	if b, _ := pem.Decode(raw); b != nil && b.Type == "X509 CRL" {
		raw = b.Bytes
	}
	list, err := x509.ParseRevocationList(raw)
	if err != nil {
		return nil, fmt.Errorf("not a CRL: %v", err)
	}
	return list, nil
}

// fetch reads a distribution point: http, https or file URLs, as the
// JDK's URICertStore reads them (it also takes ldap, which gozk does not).
// modified is the response's Last-Modified (a file's modification time).
// With since set, the request is conditional and a 304 answer is a nil
// body with modified = since.
func (r *revocationChecker) fetch(dp, since string) (body []byte, modified string, err error) {
	u, err := url.Parse(dp)
	if err != nil {
		return nil, "", fmt.Errorf("not a URL: %v", err)
	}
	switch u.Scheme {
	case "http", "https":
		req, err := http.NewRequest(http.MethodGet, dp, nil)
		if err != nil {
			return nil, "", err
		}
		if since != "" {
			req.Header.Set("If-Modified-Since", since)
		}
		resp, err := r.client.Do(req)
		if err != nil {
			return nil, "", err
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusNotModified && since != "" {
			return nil, since, nil
		}
		if resp.StatusCode != http.StatusOK {
			return nil, "", fmt.Errorf("HTTP status %s", resp.Status)
		}
		body, err := readBounded(resp.Body)
		return body, resp.Header.Get("Last-Modified"), err
	case "file":
		f, err := os.Open(u.Path)
		if err != nil {
			return nil, "", err
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil {
			// Compared, never sent: to the nanosecond, so that a CRL
			// replaced within the second is read.
			modified = fi.ModTime().UTC().Format(time.RFC3339Nano)
		}
		body, err := readBounded(f)
		return body, modified, err
	}
	return nil, "", fmt.Errorf("the %q scheme is not supported (http, https and file are)", u.Scheme)
}

func readBounded(rd io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(rd, maxRevocationBody+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxRevocationBody {
		return nil, fmt.Errorf("larger than %d bytes", maxRevocationBody)
	}
	return b, nil
}

// maxOCSPGetURL is the longest URL the JDK sends an OCSP request in as a
// GET (RFC 5019's 255 bytes); longer requests are POSTed.
const maxOCSPGetURL = 255

// checkOCSP asks the responder as the JDK asks it (a GET of the base64
// request after the responder's URL when that is short enough, else a
// POST of the DER request), and checks that the answer is signed by the
// issuer or a responder it delegated to, is about this certificate and is
// current.
func (r *revocationChecker) checkOCSP(responder string, cert, issuer *x509.Certificate) error {
	req, err := ocsp.CreateRequest(cert, issuer, nil)
	if err != nil {
		return err
	}
	if u, err := url.Parse(responder); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return errors.New("not an http or https URL")
	}
	var resp *http.Response
	if get := ocspGetURL(responder, req); len(get) <= maxOCSPGetURL {
		resp, err = r.client.Get(get)
	} else {
		resp, err = r.client.Post(responder, "application/ocsp-request", bytes.NewReader(req))
	}
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP status %s", resp.Status)
	}
	raw, err := readBounded(resp.Body)
	if err != nil {
		return err
	}
	ans, err := ocsp.ParseResponseForCert(raw, cert, issuer)
	if err != nil {
		return fmt.Errorf("the response: %v", err)
	}
	now := r.now()
	if ans.ThisUpdate.After(now.Add(clockSkew)) {
		return fmt.Errorf("the response is not valid before %s", ans.ThisUpdate.UTC().Format(time.RFC3339))
	}
	if !ans.NextUpdate.IsZero() && ans.NextUpdate.Before(now.Add(-clockSkew)) {
		return fmt.Errorf("the response is stale (next update was due %s)", ans.NextUpdate.UTC().Format(time.RFC3339))
	}
	switch ans.Status {
	case ocsp.Good:
		return nil
	case ocsp.Revoked:
		return fmt.Errorf("%w (OCSP %s: reason %s, since %s)", errRevoked, responder,
			reasonName(ans.RevocationReason), ans.RevokedAt.UTC().Format(time.RFC3339))
	}
	return errors.New("the responder does not know the certificate")
}

// ocspGetURL is the GET form of an OCSP request (RFC 6960, appendix A):
// the responder's URL, a slash, and the request in base64, URL-encoded.
func ocspGetURL(responder string, req []byte) string {
	if !strings.HasSuffix(responder, "/") {
		responder += "/"
	}
	return responder + url.QueryEscape(base64.StdEncoding.EncodeToString(req))
}

// reasonNames are the CRL reason codes (RFC 5280) as the JDK prints them.
var reasonNames = [...]string{"UNSPECIFIED", "KEY_COMPROMISE", "CA_COMPROMISE", "AFFILIATION_CHANGED",
	"SUPERSEDED", "CESSATION_OF_OPERATION", "CERTIFICATE_HOLD", "UNUSED", "REMOVE_FROM_CRL",
	"PRIVILEGE_WITHDRAWN", "AA_COMPROMISE"}

func reasonName(code int) string {
	if code >= 0 && code < len(reasonNames) {
		return reasonNames[code]
	}
	return fmt.Sprint(code)
}
