package netio

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// testPKI is a CA with a server certificate for 127.0.0.1 and client
// certificates: trusted, expired, and one from a CA the server does not
// trust.
type testPKI struct {
	pool                   *x509.CertPool
	server                 tls.Certificate
	client, expired, rogue tls.Certificate
}

var (
	pkiOnce sync.Once
	pki     *testPKI
)

func newCert(t testing.TB, cn string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, isCA bool, notAfter time.Time) (*x509.Certificate, *ecdsa.PrivateKey, tls.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: cn, Organization: []string{"gozk test"}},
		NotBefore:             time.Now().Add(-2 * time.Hour),
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
		IsCA:                  isCA,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return cert, key, tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}
}

func getPKI(t testing.TB) *testPKI {
	pkiOnce.Do(func() {
		year := time.Now().Add(365 * 24 * time.Hour)
		ca, caKey, _ := newCert(t, "test CA", nil, nil, true, year)
		other, otherKey, _ := newCert(t, "rogue CA", nil, nil, true, year)
		p := &testPKI{pool: x509.NewCertPool()}
		p.pool.AddCert(ca)
		_, _, p.server = newCert(t, "server", ca, caKey, false, year)
		_, _, p.client = newCert(t, "client", ca, caKey, false, year)
		_, _, p.expired = newCert(t, "expired", ca, caKey, false, time.Now().Add(-time.Hour))
		_, _, p.rogue = newCert(t, "rogue", other, otherKey, false, year)
		pki = p
	})
	return pki
}

func serverTLS(t testing.TB, auth tls.ClientAuthType) *tls.Config {
	p := getPKI(t)
	return &tls.Config{Certificates: []tls.Certificate{p.server}, ClientCAs: p.pool, ClientAuth: auth, MinVersion: tls.VersionTLS12}
}

func startTLSServer(t testing.TB, cfg Config, h Handler) *Server {
	t.Helper()
	if cfg.TLS == nil {
		cfg.TLS = serverTLS(t, tls.RequireAndVerifyClientCert)
	}
	if cfg.SecureAddr == "" && !cfg.PortUnification {
		cfg.SecureAddr = "127.0.0.1:0"
	}
	return startServer(t, cfg, h)
}

// dialTLS connects to addr with cert (nil: none) and finishes the
// handshake, or returns its error.
func dialTLS(t testing.TB, addr net.Addr, cert *tls.Certificate, tweak func(*tls.Config)) (*tls.Conn, error) {
	t.Helper()
	cfg := &tls.Config{RootCAs: getPKI(t).pool, ServerName: "127.0.0.1"}
	if cert != nil {
		cfg.Certificates = []tls.Certificate{*cert}
	}
	if tweak != nil {
		tweak(cfg)
	}
	nc, err := net.Dial("tcp", addr.String())
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	_ = nc.SetDeadline(time.Now().Add(hangGuard))
	tc := tls.Client(nc, cfg)
	if err := tc.Handshake(); err != nil {
		return nil, err
	}
	return tc, nil
}

func mustDialTLS(t testing.TB, addr net.Addr) *tls.Conn {
	t.Helper()
	tc, err := dialTLS(t, addr, &getPKI(t).client, nil)
	if err != nil {
		t.Fatalf("TLS handshake: %v", err)
	}
	return tc
}

func TestTLSFramesArriveWholeAndInOrder(t *testing.T) {
	h := newTestHandler()
	s := startTLSServer(t, Config{}, h)
	tc := mustDialTLS(t, s.SecureAddr())
	frames, stream := testStream()
	// Byte by byte at first: frames cut anywhere, records of one byte.
	for i := range 7 {
		if _, err := tc.Write(stream[i : i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tc.Write(stream[7:]); err != nil {
		t.Fatal(err)
	}
	expectFrames(t, h, frames)
	c := recv(t, h.opened)
	if !c.Secure() || c.TLS() == nil || !c.OnSecurePort() {
		t.Fatalf("Secure() = %v, TLS() = %v on a TLS connection", c.Secure(), c.TLS())
	}
	if certs := c.PeerCertificates(); len(certs) == 0 || certs[0].Subject.CommonName != "client" {
		t.Fatalf("PeerCertificates = %v, want the client's", certs)
	}
	// Replies come back framed, in order.
	for i := range 3 {
		if err := c.Send([]byte{byte(i), 'x'}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		got, err := readFrame(tc)
		if err != nil || !bytes.Equal(got, []byte{byte(i), 'x'}) {
			t.Fatalf("reply %d = %q, %v", i, got, err)
		}
	}
	// A large frame, far beyond the reader's first buffer.
	big := bytes.Repeat([]byte{7}, 300_000)
	if _, err := tc.Write(appendFrame(nil, big)); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, h.frames); !bytes.Equal(got.payload, big) {
		t.Fatalf("large frame: %d bytes, want %d", len(got.payload), len(big))
	}
	_ = tc.Close()
	ev := recv(t, h.closed)
	if !errors.Is(ev.err, io.EOF) {
		t.Fatalf("OnClose err = %v, want EOF", ev.err)
	}
	waitFor(t, "the limits to forget the connection", func() bool { return s.ConnCount() == 0 })
}

func TestTLSPlainConnHasNoTLSState(t *testing.T) {
	h := newTestHandler()
	s := startTLSServer(t, Config{}, h)
	nc := dial(t, s)
	_, _ = nc.Write(appendFrame(nil, []byte("hi")))
	c := recv(t, h.opened)
	if c.Secure() || c.TLS() != nil || c.PeerCertificates() != nil {
		t.Fatalf("plain connection reports TLS: %v %v", c.Secure(), c.TLS())
	}
}

func TestTLSFourLetterWords(t *testing.T) {
	h := newTestHandler()
	var mask int64
	var maskOK bool
	h.onWord = func(c *Conn, cmd string) []byte {
		if cmd == "stmk" {
			mask, maskOK = c.FourLetterWordArgument()
			return []byte("250\n")
		}
		return []byte("imok")
	}
	s := startTLSServer(t, Config{}, h)
	tc := mustDialTLS(t, s.SecureAddr())
	_, _ = tc.Write([]byte("ruok"))
	got, err := io.ReadAll(tc)
	if err != nil || string(got) != "imok" {
		t.Fatalf("ruok over TLS = %q, %v; want imok then EOF", got, err)
	}
	if w := recv(t, h.words); w != "ruok" {
		t.Fatalf("word = %q", w)
	}
	tc = mustDialTLS(t, s.SecureAddr())
	_, _ = tc.Write([]byte{'s', 't', 'm', 'k', 0, 0, 0, 0, 0, 0, 0, 0xfa})
	if got, _ := io.ReadAll(tc); string(got) != "250\n" {
		t.Fatalf("stmk answer %q", got)
	}
	if !maskOK || mask != 0xfa {
		t.Fatalf("stmk mask = %x, %v", mask, maskOK)
	}
}

func TestTLSBadLengthClosesWithoutReply(t *testing.T) {
	h := newTestHandler()
	s := startTLSServer(t, Config{MaxFrame: 100}, h)
	tc := mustDialTLS(t, s.SecureAddr())
	_, _ = tc.Write(appendFrame(nil, make([]byte, 101)))
	if got, _ := io.ReadAll(tc); len(got) != 0 {
		t.Fatalf("server answered a bad length with %q", got)
	}
	if ev := recv(t, h.closed); !errors.Is(ev.err, ErrFrameLength) {
		t.Fatalf("OnClose err = %v, want ErrFrameLength", ev.err)
	}
}

// The secure port counts connections per IP on its own, as Java's second
// listener does, and the global limit counts both ports.
func TestTLSLimits(t *testing.T) {
	h := newTestHandler()
	s := startTLSServer(t, Config{MaxClientCnxns: 1, MaxCnxns: 3}, h)
	mustDialTLS(t, s.SecureAddr())
	recv(t, h.opened)
	// Over the per-IP limit of the secure port: closed before the
	// handshake.
	if _, err := dialTLS(t, s.SecureAddr(), &getPKI(t).client, nil); err == nil {
		t.Fatal("second TLS connection from one IP was served with maxClientCnxns=1")
	}
	// The plain port has its own count.
	nc := dial(t, s)
	_, _ = nc.Write(appendFrame(nil, []byte("p")))
	recv(t, h.opened)
	waitFor(t, "two connections", func() bool { return s.ConnCount() == 2 })

	s2 := startTLSServer(t, Config{MaxCnxns: 2}, newTestHandler())
	mustDialTLS(t, s2.SecureAddr())
	nc2 := dial(t, s2)
	_, _ = nc2.Write(appendFrame(nil, []byte("p")))
	waitFor(t, "two connections", func() bool { return s2.ConnCount() == 2 })
	if _, err := dialTLS(t, s2.SecureAddr(), &getPKI(t).client, nil); err == nil {
		t.Fatal("a TLS connection beyond the global limit (shared with the plain port) was served")
	}
}

func TestTLSSlowReaderIsPausedThenClosed(t *testing.T) {
	h := newTestHandler()
	s := startTLSServer(t, Config{MaxPendingOutput: 64 << 10}, h)
	tc := mustDialTLS(t, s.SecureAddr())
	_, _ = tc.Write(appendFrame(nil, []byte("go")))
	c := recv(t, h.opened)
	recv(t, h.frames)
	payload := make([]byte, 8<<10)
	var err error
	paused := false
	for i := 0; i < 100_000 && err == nil; i++ {
		err = c.Send(payload)
		paused = paused || c.ReadingPaused()
	}
	if !paused {
		t.Fatal("reading was never paused while replies piled up")
	}
	if !errors.Is(err, ErrSlowConsumer) {
		t.Fatalf("Send = %v, want ErrSlowConsumer", err)
	}
	if ev := recv(t, h.closed); !errors.Is(ev.err, ErrSlowConsumer) {
		t.Fatalf("OnClose err = %v", ev.err)
	}
}

func TestTLSOutputBackpressureResumes(t *testing.T) {
	h := newTestHandler()
	s := startTLSServer(t, Config{MaxPendingOutput: 64 << 10}, h)
	tc := mustDialTLS(t, s.SecureAddr())
	_, _ = tc.Write(appendFrame(nil, []byte("go")))
	c := recv(t, h.opened)
	recv(t, h.frames)
	payload := make([]byte, 8<<10)
	sent := 0
	for !c.ReadingPaused() {
		if err := c.Send(payload); err != nil {
			t.Fatal(err)
		}
		sent++
	}
	// A request sent now waits until the client has read its replies.
	_, _ = tc.Write(appendFrame(nil, []byte("next")))
	for range sent {
		if _, err := readFrame(tc); err != nil {
			t.Fatal(err)
		}
	}
	if got := recv(t, h.frames); string(got.payload) != "next" {
		t.Fatalf("frame after resuming = %q", got.payload)
	}
}

func TestTLSPauseResumeKeepsOrder(t *testing.T) {
	h := newTestHandler()
	h.onFrame = func(c *Conn, p []byte) {
		if string(p) == "1" {
			c.PauseReading()
		}
	}
	s := startTLSServer(t, Config{}, h)
	tc := mustDialTLS(t, s.SecureAddr())
	var b []byte
	for _, p := range []string{"1", "2", "3"} {
		b = appendFrame(b, []byte(p))
	}
	_, _ = tc.Write(b)
	first := recv(t, h.frames)
	select {
	case f := <-h.frames:
		t.Fatalf("frame %q delivered while paused", f.payload)
	case <-time.After(100 * time.Millisecond):
	}
	first.conn.ResumeReading()
	for _, want := range []string{"2", "3"} {
		if got := recv(t, h.frames); string(got.payload) != want {
			t.Fatalf("got %q, want %q", got.payload, want)
		}
	}
}

func TestTLSCloseAfterFlushDeliversTheLastFrame(t *testing.T) {
	h := newTestHandler()
	h.onFrame = func(c *Conn, p []byte) {
		_ = c.Send([]byte("bye"))
		c.CloseAfterFlush()
		if err := c.Send([]byte("late")); !errors.Is(err, ErrClosed) {
			t.Errorf("Send after CloseAfterFlush = %v", err)
		}
	}
	s := startTLSServer(t, Config{}, h)
	tc := mustDialTLS(t, s.SecureAddr())
	_, _ = tc.Write(appendFrame(nil, []byte("close")))
	got, err := readFrame(tc)
	if err != nil || string(got) != "bye" {
		t.Fatalf("last frame = %q, %v", got, err)
	}
	if rest, err := io.ReadAll(tc); len(rest) != 0 || err != nil {
		t.Fatalf("after the last frame: %q, %v; want a clean close", rest, err)
	}
	if ev := recv(t, h.closed); ev.err != nil {
		t.Fatalf("OnClose err = %v, want nil", ev.err)
	}
}

func TestTLSServerCloseClosesConnections(t *testing.T) {
	h := newTestHandler()
	s := startTLSServer(t, Config{}, h)
	tc := mustDialTLS(t, s.SecureAddr())
	_, _ = tc.Write(appendFrame(nil, []byte("x")))
	recv(t, h.frames)
	// One stuck in its handshake as well.
	raw, err := net.Dial("tcp", s.SecureAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	waitFor(t, "the handshake to start", func() bool { return s.TLSHandshakesInProgress() == 1 })
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if ev := recv(t, h.closed); !errors.Is(ev.err, ErrServerClosed) {
		t.Fatalf("OnClose err = %v, want ErrServerClosed", ev.err)
	}
	if s.TLSHandshakeFailures() != 0 {
		t.Fatalf("closing counted %d failed handshakes", s.TLSHandshakeFailures())
	}
}

// logBuffer collects log lines from several goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestTLSHandshakeFailures(t *testing.T) {
	p := getPKI(t)
	cases := []struct {
		name   string
		cert   *tls.Certificate
		tweak  func(*tls.Config)
		plain  bool
		reason string
	}{
		// Go's client would send no certificate the server's CA list
		// does not name; Java's sends what its key store holds.
		{name: "untrusted", tweak: func(c *tls.Config) {
			c.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &p.rogue, nil }
		}, reason: "not trusted"},
		{name: "expired", cert: &p.expired, reason: "expired"},
		{name: "no certificate", reason: "sent no certificate"},
		{name: "protocol", cert: &p.client, tweak: func(c *tls.Config) { c.MaxVersion = tls.VersionTLS11; c.MinVersion = tls.VersionTLS10 }, reason: "protocol version"},
		{name: "plaintext", plain: true, reason: "does not speak TLS"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestHandler()
			logs := &logBuffer{}
			s := startTLSServer(t, Config{Logger: zerolog.New(logs)}, h)
			if tc.plain {
				nc, err := net.Dial("tcp", s.SecureAddr().String())
				if err != nil {
					t.Fatal(err)
				}
				defer nc.Close()
				_ = nc.SetDeadline(time.Now().Add(hangGuard))
				_, _ = nc.Write(appendFrame(nil, make([]byte, 44)))
				_, _ = io.ReadAll(nc)
			} else if conn, err := dialTLS(t, s.SecureAddr(), tc.cert, tc.tweak); err == nil {
				// TLS 1.3: the client learns of the refusal on its
				// first read.
				_, _ = conn.Write(appendFrame(nil, []byte("x")))
				if _, err := conn.Read(make([]byte, 1)); err == nil {
					t.Fatal("refused client could read")
				}
			}
			waitFor(t, "the failure to be counted", func() bool { return s.TLSHandshakeFailures() == 1 })
			select {
			case c := <-h.opened:
				t.Fatalf("handler saw a connection that failed its handshake: %v", c.RemoteAddr())
			default:
			}
			waitFor(t, "the log line", func() bool { return strings.Contains(logs.String(), "TLS handshake failed") })
			line := logs.String()
			if !strings.Contains(line, tc.reason) || !strings.Contains(line, `"remote":"127.0.0.1:`) {
				t.Fatalf("log %s does not say %q with the remote address", line, tc.reason)
			}
			waitFor(t, "the place under the limits", func() bool { return s.ConnCount() == 0 })
		})
	}
}

func TestTLSHandshakeTimeout(t *testing.T) {
	logs := &logBuffer{}
	s := startTLSServer(t, Config{HandshakeTimeout: 50 * time.Millisecond, Logger: zerolog.New(logs)}, newTestHandler())
	nc, err := net.Dial("tcp", s.SecureAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(hangGuard))
	if _, err := io.ReadAll(nc); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the log line", func() bool { return strings.Contains(logs.String(), "did not finish in time") })
	if s.TLSHandshakeFailures() != 1 {
		t.Fatalf("%d failures counted, want 1", s.TLSHandshakeFailures())
	}
}

func TestHandshakeLogIsRateLimited(t *testing.T) {
	logs := &logBuffer{}
	log := zerolog.New(logs)
	var hl handshakeLog
	err := errors.New("boom")
	for range 5 {
		hl.failed(log, netip.MustParseAddrPort("127.0.0.1:1"), false, err)
	}
	if n := strings.Count(logs.String(), "\n"); n != 1 {
		t.Fatalf("%d lines for 5 failures within the interval, want 1", n)
	}
	hl.failures.Now = func() time.Time { return time.Now().Add(2 * handshakeLogInterval) }
	hl.failed(log, netip.MustParseAddrPort("127.0.0.1:1"), false, err)
	if !strings.Contains(logs.String(), `"notLogged":4`) {
		t.Fatalf("the next line does not count those left out: %s", logs.String())
	}
}

func TestUnifiedPortRoutesTLSAndPlain(t *testing.T) {
	h := newTestHandler()
	h.onWord = func(*Conn, string) []byte { return []byte("imok") }
	s := startTLSServer(t, Config{PortUnification: true, MaxClientCnxns: 2}, h)
	if s.SecureAddr() != nil {
		t.Fatal("a unified server opened a secure port of its own")
	}
	// Plain four-letter words still work on the unified port (four bytes,
	// none of them a TLS record header).
	w := dial(t, s)
	_, _ = w.Write([]byte("ruok"))
	if got, _ := io.ReadAll(w); string(got) != "imok" {
		t.Fatalf("ruok on the unified port = %q", got)
	}
	waitFor(t, "the four-letter-word connection to go", func() bool { return s.ConnCount() == 0 })
	nc := dial(t, s)
	_, _ = nc.Write(appendFrame(nil, []byte("plain")))
	if f := recv(t, h.frames); string(f.payload) != "plain" || f.conn.Secure() {
		t.Fatalf("plain frame %q secure=%v", f.payload, f.conn.Secure())
	}
	tc := mustDialTLS(t, s.Addr())
	_, _ = tc.Write(appendFrame(nil, []byte("tls")))
	if f := recv(t, h.frames); string(f.payload) != "tls" || !f.conn.Secure() || f.conn.OnSecurePort() {
		t.Fatalf("TLS frame %q secure=%v", f.payload, f.conn.Secure())
	}
	// TLS and plain clients of the unified port share its per-IP count.
	waitFor(t, "two connections", func() bool { return s.ConnCount() == 2 })
	if _, err := dialTLS(t, s.Addr(), &getPKI(t).client, nil); err == nil {
		t.Fatal("third connection from one IP served with maxClientCnxns=2")
	}
}

func TestTLSClientOnPlainPortWithoutUnification(t *testing.T) {
	h := newTestHandler()
	s := startTLSServer(t, Config{}, h)
	if _, err := dialTLS(t, s.Addr(), &getPKI(t).client, nil); err == nil {
		t.Fatal("TLS handshake succeeded on the plain port")
	}
	if ev := recv(t, h.closed); !errors.Is(ev.err, ErrFrameLength) {
		t.Fatalf("OnClose err = %v, want ErrFrameLength (Len error, as Java)", ev.err)
	}
}

func TestLooksLikeTLS(t *testing.T) {
	for _, tc := range []struct {
		head           []byte
		isTLS, decided bool
	}{
		{nil, false, false},
		{[]byte{0x16}, false, false},
		{[]byte{0x16, 3, 1, 0}, false, false},
		{[]byte{0, 0, 0, 44}, false, true},
		{[]byte("ruok"), false, true},
		{[]byte{0x16, 3, 1, 2, 0}, true, true},
		{[]byte{0x16, 2, 1, 2, 0}, false, true},
		{[]byte{0, 0, 0, 44, 0}, false, true},
	} {
		isTLS, decided := looksLikeTLS(tc.head)
		if isTLS != tc.isTLS || decided != tc.decided {
			t.Errorf("looksLikeTLS(%v) = %v, %v; want %v, %v", tc.head, isTLS, decided, tc.isTLS, tc.decided)
		}
	}
}

func TestSecureOnlyServer(t *testing.T) {
	h := newTestHandler()
	s, err := Listen(Config{SecureAddr: "127.0.0.1:0", TLS: serverTLS(t, tls.RequireAndVerifyClientCert)}, h)
	if err != nil {
		t.Fatal(err)
	}
	tc := mustDialTLS(t, s.Addr())
	_, _ = tc.Write(appendFrame(nil, []byte("x")))
	recv(t, h.frames)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(Config{SecureAddr: "127.0.0.1:0"}, h); err == nil {
		t.Fatal("Listen accepted a secure port without a TLS configuration")
	}
}

// The sessionless timeout starts once the handshake is done: a TLS client
// that then sends nothing is closed as a plain one would be.
func TestTLSSessionlessTimeout(t *testing.T) {
	h := newTestHandler()
	s := startTLSServer(t, Config{SessionlessTimeout: 50 * time.Millisecond}, h)
	tc := mustDialTLS(t, s.SecureAddr())
	if got, _ := io.ReadAll(tc); len(got) != 0 {
		t.Fatalf("server wrote %q", got)
	}
	if ev := recv(t, h.closed); !errors.Is(ev.err, ErrSessionlessTimeout) {
		t.Fatalf("OnClose err = %v, want ErrSessionlessTimeout", ev.err)
	}
	waitFor(t, "the place under the limits", func() bool { return s.ConnCount() == 0 })
}

// TestUnifiedPortCountsConnectionsBeingRouted: on a unified port the
// limits apply at accept time, as Java's channelActive applies them, not
// once the first bytes have told TLS from plain: silent connections still
// waiting to be routed hold their places, and a further connection from
// the same IP is refused.
func TestUnifiedPortCountsConnectionsBeingRouted(t *testing.T) {
	h := newTestHandler()
	s := startTLSServer(t, Config{PortUnification: true, MaxClientCnxns: 2, HandshakeDetectionTimeout: time.Minute}, h)
	dial(t, s)
	dial(t, s)
	waitFor(t, "two silent connections counted while being routed", func() bool { return s.ConnCount() == 2 })
	nc := dial(t, s)
	_, _ = nc.Write(appendFrame(nil, []byte("third")))
	_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := nc.Read(make([]byte, 1)); err == nil {
		t.Fatal("the third connection from one IP got an answer with maxClientCnxns=2")
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the third connection from one IP was kept open with maxClientCnxns=2")
	}
	select {
	case f := <-h.frames:
		t.Fatalf("the third connection was served: %q", f.payload)
	default:
	}
	if n := s.ConnCount(); n != 2 {
		t.Fatalf("%d connections counted, want 2", n)
	}
}

// handshakeCounter is a test handler that observes handshakes.
type handshakeCounter struct {
	*testHandler
	failed, refused atomic.Int32
}

func (h *handshakeCounter) OnHandshakeFailure() { h.failed.Add(1) }
func (h *handshakeCounter) OnHandshakeRefused() { h.refused.Add(1) }

// TestTLSHandshakeLimit: with MaxTLSHandshakes on a unified port, a
// connection that arrives while that many are being told apart or are
// in their handshakes is closed at once, counted and logged, and gives
// its place back; once the one held open goes, the next is served. The
// secure port is not throttled (ZooKeeper 3.8 never throttles it).
func TestTLSHandshakeLimit(t *testing.T) {
	h := &handshakeCounter{testHandler: newTestHandler()}
	logs := &logBuffer{}
	s := startTLSServer(t, Config{PortUnification: true, SecureAddr: "127.0.0.1:0", MaxTLSHandshakes: 1,
		HandshakeDetectionTimeout: time.Minute, Logger: zerolog.New(logs)}, h)
	held, err := net.Dial("tcp", s.Addr().String()) // sends nothing: not yet told apart
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	waitFor(t, "the held connection to be counted", func() bool { return s.TLSHandshakesInProgress() == 1 })

	if conn, err := dialTLS(t, s.Addr(), &getPKI(t).client, nil); err == nil {
		_, _ = conn.Write(appendFrame(nil, []byte("x")))
		if _, err := conn.Read(make([]byte, 1)); err == nil {
			t.Fatal("a connection over the limit could read")
		}
	}
	waitFor(t, "the refusal to be counted", func() bool { return s.TLSHandshakesRefused() == 1 && h.refused.Load() == 1 })
	waitFor(t, "the log line", func() bool { return strings.Contains(logs.String(), "outstandingHandshake.limit") })
	waitFor(t, "the refused connection's place", func() bool { return s.ConnCount() == 1 })
	if s.TLSHandshakeFailures() != 0 || h.failed.Load() != 0 {
		t.Fatal("a refusal was counted as a failed handshake")
	}

	// The secure port takes TLS clients whatever the count.
	sec := mustDialTLS(t, s.SecureAddr())
	_, _ = sec.Write(appendFrame(nil, []byte("secure port")))
	if ev := recv(t, h.frames); string(ev.payload) != "secure port" {
		t.Fatalf("frame %q", ev.payload)
	}

	_ = held.Close()
	waitFor(t, "the held connection to go", func() bool { return s.TLSHandshakesInProgress() == 0 })
	tc := mustDialTLS(t, s.Addr())
	_, _ = tc.Write(appendFrame(nil, []byte("served")))
	if ev := recv(t, h.frames); string(ev.payload) != "served" {
		t.Fatalf("frame %q", ev.payload)
	}
	plain := dial(t, s)
	_, _ = plain.Write(appendFrame(nil, []byte("plain")))
	if ev := recv(t, h.frames); string(ev.payload) != "plain" {
		t.Fatalf("frame %q", ev.payload)
	}
	if s.TLSHandshakesRefused() != 1 || s.TLSHandshakesInProgress() != 0 {
		t.Fatalf("%d refused and %d in progress, want 1 and 0", s.TLSHandshakesRefused(), s.TLSHandshakesInProgress())
	}
}

// TestTLSHandshakeLimitUnderACrowd: many clients of every kind at once
// on a throttled unified port (TLS, plain, silent ones that leave, TLS
// that stops halfway, garbage). Whatever the interleaving, every
// connection ends counted once, the handshakes in progress and the
// connections held return to zero, and the port still serves.
func TestTLSHandshakeLimitUnderACrowd(t *testing.T) {
	h := &handshakeCounter{testHandler: newTestHandler()}
	h.onWord = func(*Conn, string) []byte { return []byte("imok") }
	s := startTLSServer(t, Config{PortUnification: true, MaxTLSHandshakes: 3, HandshakeDetectionTimeout: 200 * time.Millisecond}, h)
	addr := s.Addr().String()
	kinds := []func(i int){
		func(int) { // a TLS client that sends a frame if it gets through
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				return
			}
			defer nc.Close()
			_ = nc.SetDeadline(time.Now().Add(hangGuard))
			tc := tls.Client(nc, &tls.Config{RootCAs: getPKI(t).pool, ServerName: "127.0.0.1", Certificates: []tls.Certificate{getPKI(t).client}})
			if tc.Handshake() == nil {
				_, _ = tc.Write(appendFrame(nil, []byte("tls")))
			}
		},
		func(int) { // a four-letter word
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				return
			}
			defer nc.Close()
			_ = nc.SetDeadline(time.Now().Add(hangGuard))
			_, _ = nc.Write([]byte("ruok"))
			_, _ = io.ReadAll(nc)
		},
		func(i int) { // silent, leaving before or after the detection timeout
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				return
			}
			time.Sleep(time.Duration(i%5) * 100 * time.Millisecond)
			nc.Close()
		},
		func(int) { // a TLS record header, then nothing
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				return
			}
			_, _ = nc.Write([]byte{0x16, 0x03, 0x01, 0x01, 0x00})
			time.Sleep(50 * time.Millisecond)
			nc.Close()
		},
		func(int) { // garbage after a record header
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				return
			}
			defer nc.Close()
			_ = nc.SetDeadline(time.Now().Add(hangGuard))
			_, _ = nc.Write([]byte{0x16, 0x03, 0x01, 0x00, 0x04, 0xde, 0xad, 0xbe, 0xef})
			_, _ = io.ReadAll(nc)
		},
	}
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			kinds[i%len(kinds)](i)
		}()
	}
	wg.Wait()
	waitFor(t, "every connection to end", func() bool { return s.ConnCount() == 0 && s.TLSHandshakesInProgress() == 0 })
	if s.TLSHandshakesRefused() != uint64(h.refused.Load()) || s.TLSHandshakeFailures() != uint64(h.failed.Load()) {
		t.Fatalf("server counted %d refused and %d failed, the handler %d and %d",
			s.TLSHandshakesRefused(), s.TLSHandshakeFailures(), h.refused.Load(), h.failed.Load())
	}
	t.Logf("%d refused over the limit, %d failed handshakes", s.TLSHandshakesRefused(), s.TLSHandshakeFailures())
	tc := mustDialTLS(t, s.Addr())
	_, _ = tc.Write(appendFrame(nil, []byte("after")))
	for {
		if ev := recv(t, h.frames); string(ev.payload) == "after" {
			break
		}
	}
}
