package server

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/rs/zerolog"

	"github.com/gozk/gozk/acl"
	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/tlsconf"
)

// testCA issues certificates for TLS tests of the server.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	ca := &testCA{}
	ca.cert, ca.key, _ = ca.issue(t, "test CA", true)
	ca.pool = x509.NewCertPool()
	ca.pool.AddCert(ca.cert)
	return ca
}

// issue makes a certificate for cn signed by the CA (self-signed for the
// CA itself).
func (ca *testCA) issue(t *testing.T, cn string, isCA bool) (*x509.Certificate, *ecdsa.PrivateKey, tls.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: cn, Organization: []string{"gozk"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
		IsCA:                  isCA,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	parent, parentKey := tmpl, key
	if ca.cert != nil {
		parent, parentKey = ca.cert, ca.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return cert, key, tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}
}

// startTLSTestServer serves a secure client port next to the plain one,
// with the x509 provider registered as for a configured secure port.
func startTLSTestServer(t *testing.T, ca *testCA, auth tls.ClientAuthType, tweak func(*Config)) *Server {
	t.Helper()
	_, _, serverCert := ca.issue(t, "server", false)
	return startTestServer(t, t.TempDir(), func(c *Config) {
		c.SecureClientAddr = "127.0.0.1:0"
		c.ClientTLS = &tls.Config{Certificates: []tls.Certificate{serverCert}, ClientCAs: ca.pool, ClientAuth: auth}
		c.ACL.ExtraProviders = []string{acl.ClassX509Provider}
		if tweak != nil {
			tweak(c)
		}
	})
}

// connectTLS opens a session over TLS with cert (nil: none) through
// go-zookeeper's dialer hook.
func connectTLS(t *testing.T, addr net.Addr, ca *testCA, cert *tls.Certificate) *zk.Conn {
	t.Helper()
	cfg := &tls.Config{RootCAs: ca.pool, ServerName: "127.0.0.1"}
	if cert != nil {
		cfg.Certificates = []tls.Certificate{*cert}
	}
	dialer := func(network, address string, timeout time.Duration) (net.Conn, error) {
		return tls.DialWithDialer(&net.Dialer{Timeout: timeout}, network, address, cfg)
	}
	c, ev, err := zk.Connect([]string{addr.String()}, 4*time.Second, zk.WithLogInfo(false), zk.WithDialer(dialer))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	deadline := time.After(10 * time.Second)
	for c.State() != zk.StateHasSession {
		select {
		case <-ev:
		case <-deadline:
			t.Fatal("no session over TLS")
		}
	}
	return c
}

func TestX509IdentitiesAndACLs(t *testing.T) {
	ca := newTestCA(t)
	aliceCert, _, alice := ca.issue(t, "alice", false)
	_, _, bob := ca.issue(t, "bob", false)
	adminCert, _, admin := ca.issue(t, "admin", false)
	s := startTLSTestServer(t, ca, tls.RequireAndVerifyClientCert, func(c *Config) {
		c.ACL.X509SuperUser = tlsconf.SubjectDN(adminCert)
	})
	if s.SecureAddr() == nil {
		t.Fatal("no secure port")
	}
	aliceDN := tlsconf.SubjectDN(aliceCert)

	a := connectTLS(t, s.SecureAddr(), ca, &alice)
	if _, err := a.Create("/x509", []byte("v"), 0, []zk.ACL{{Perms: zk.PermAll, Scheme: "x509", ID: aliceDN}}); err != nil {
		t.Fatalf("create with ACL x509:%s: %v", aliceDN, err)
	}
	if data, _, err := a.Get("/x509"); err != nil || string(data) != "v" {
		t.Fatalf("alice reads her node: %q, %v", data, err)
	}
	// The "auth" ACL expands to the connection's x509 identity.
	if _, err := a.Create("/auth", nil, 0, zk.AuthACL(zk.PermAll)); err != nil {
		t.Fatalf("auth ACL on a connection with a certificate: %v", err)
	}
	if acls, _, err := a.GetACL("/auth"); err != nil || len(acls) != 1 || acls[0].Scheme != "x509" || acls[0].ID != aliceDN {
		t.Fatalf("auth ACL = %v, %v; want x509:%s", acls, err, aliceDN)
	}

	b := connectTLS(t, s.SecureAddr(), ca, &bob)
	if _, _, err := b.Get("/x509"); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("bob reads alice's node: %v, want NoAuth", err)
	}
	// addauth x509 looks at the certificate, not at the data: bob stays bob.
	if err := b.AddAuth("x509", []byte(aliceDN)); err != nil {
		t.Fatalf("addauth x509 with a certificate: %v", err)
	}
	if _, _, err := b.Get("/x509"); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("bob after addauth x509: %v, want NoAuth", err)
	}

	su := connectTLS(t, s.SecureAddr(), ca, &admin)
	if data, _, err := su.Get("/x509"); err != nil || string(data) != "v" {
		t.Fatalf("the x509 super user reads alice's node: %q, %v", data, err)
	}

	// A plain connection has no certificate: addauth x509 fails and the
	// connection is closed, as in Java.
	p, _ := connect(t, s)
	if _, _, err := p.Get("/x509"); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("plain client reads alice's node: %v", err)
	}
	if err := p.AddAuth("x509", nil); err == nil {
		t.Fatal("addauth x509 without a certificate succeeded")
	}
	// Java counts only refused handshakes and certificates, not a
	// failed auth packet.
	if st := s.Stats(); st.AuthFailed != 0 {
		t.Fatalf("auth_failed_count = %d after a failed auth packet, want 0", st.AuthFailed)
	}
}

func TestTLSWantWithoutCertificateHasNoX509Identity(t *testing.T) {
	ca := newTestCA(t)
	s := startTLSTestServer(t, ca, tls.VerifyClientCertIfGiven, nil)
	c := connectTLS(t, s.SecureAddr(), ca, nil)
	if _, err := c.Create("/a", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatalf("a client without a certificate (clientAuth=want) is served: %v", err)
	}
	if _, err := c.Create("/b", nil, 0, zk.AuthACL(zk.PermAll)); !errors.Is(err, zk.ErrInvalidACL) {
		t.Fatalf("auth ACL without a certificate: %v, want InvalidACL (no identity)", err)
	}
}

func TestTLSCountersAndSecureConnections(t *testing.T) {
	ca := newTestCA(t)
	_, _, alice := ca.issue(t, "alice", false)
	s := startTLSTestServer(t, ca, tls.RequireAndVerifyClientCert, nil)
	connectTLS(t, s.SecureAddr(), ca, &alice)
	connect(t, s)
	var secure, plain int
	for _, ci := range s.Connections() {
		if ci.SecurePort {
			secure++
		} else {
			plain++
		}
	}
	if secure != 1 || plain != 1 {
		t.Fatalf("connections: %d on the secure port, %d plain; want 1 and 1", secure, plain)
	}
	st := s.Stats()
	if st.NonMTLSLocal != 1 || st.NonMTLSRemote != 0 {
		t.Fatalf("non-mTLS local/remote = %d/%d, want 1/0", st.NonMTLSLocal, st.NonMTLSRemote)
	}
	// A failed handshake counts as a failed authentication, as in Java.
	_, err := tls.Dial("tcp", s.SecureAddr().String(), &tls.Config{RootCAs: ca.pool, ServerName: "127.0.0.1"})
	if err == nil {
		t.Log("handshake without a certificate finished on the client side (TLS 1.3); the server refuses it")
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.Stats().AuthFailed != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("auth_failed_count = %d after a refused handshake, want 1", s.Stats().AuthFailed)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestFromConfSecurePort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "zoo.cfg")
	text := "dataDir=" + dir + "\nsecureClientPort=2281\nsecureClientPortAddress=127.0.0.2\n" +
		"X509AuthenticationProvider.superUser=CN=admin\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := conf.Load(path, "-Dzookeeper.client.portUnification=true -Dzookeeper.ssl.handshakeDetectionTimeoutMillis=700")
	if err != nil {
		t.Fatal(err)
	}
	sc := FromConf(c, zerolog.Nop())
	if sc.ClientAddr != "" || sc.SecureClientAddr != "127.0.0.2:2281" {
		t.Fatalf("addresses %q and %q, want none and 127.0.0.2:2281", sc.ClientAddr, sc.SecureClientAddr)
	}
	if !sc.PortUnification || sc.HandshakeDetectionTimeout != 700*time.Millisecond {
		t.Fatalf("unification %v, detection %v", sc.PortUnification, sc.HandshakeDetectionTimeout)
	}
	if sc.ACL.X509SuperUser != "CN=admin" || !slices.Contains(sc.ACL.ExtraProviders, acl.ClassX509Provider) {
		t.Fatalf("x509 super user %q, providers %v", sc.ACL.X509SuperUser, sc.ACL.ExtraProviders)
	}
	// Without TLS the x509 scheme stays unregistered, as in Java.
	plain := conf.Defaults()
	plain.DataDir = dir
	if sc := FromConf(plain, zerolog.Nop()); slices.Contains(sc.ACL.ExtraProviders, acl.ClassX509Provider) || sc.SecureClientAddr != "" {
		t.Fatalf("x509 registered or secure port set without TLS: %v %q", sc.ACL.ExtraProviders, sc.SecureClientAddr)
	}
}

// TestEarlyDropSecureHandshakes: a member that does not serve (an
// ensemble member before its role) closes a secure-port client: with
// zookeeper.netty.server.earlyDropSecureConnectionHandshakes before the
// TLS handshake, without it at the ConnectRequest after the handshake;
// both count in cnxn_closed_without_zk_server_running, as in Java.
func TestEarlyDropSecureHandshakes(t *testing.T) {
	ca := newTestCA(t)
	_, _, alice := ca.issue(t, "alice", false)
	for _, early := range []bool{true, false} {
		s := startTLSTestServer(t, ca, tls.RequireAndVerifyClientCert, func(c *Config) {
			c.Ensemble = true
			c.ServerID = 2
			c.EarlyDropSecureHandshakes = early
		})
		nc, err := net.Dial("tcp", s.SecureAddr().String())
		if err != nil {
			t.Fatal(err)
		}
		_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
		tc := tls.Client(nc, &tls.Config{RootCAs: ca.pool, ServerName: "127.0.0.1", Certificates: []tls.Certificate{alice}})
		herr := tc.Handshake()
		switch {
		case early && herr == nil:
			t.Fatal("early drop: the handshake finished with a server that does not serve")
		case !early && herr != nil:
			t.Fatalf("no early drop: handshake %v", herr)
		case !early:
			h := proto.Handshake{ConnectRequest: proto.ConnectRequest{TimeOut: 4000, Passwd: make([]byte, proto.PasswordLength)}}
			sendFrame(t, tc, jute.Marshal(&h))
			if n, err := tc.Read(make([]byte, 64)); err == nil {
				t.Fatalf("no early drop: the ConnectRequest got %d bytes from a server that does not serve", n)
			}
		}
		nc.Close()
		deadline := time.Now().Add(10 * time.Second)
		for s.Metrics().CnxnClosedWithoutServer.Load() != 1 {
			if time.Now().After(deadline) {
				t.Fatalf("early=%v: cnxn_closed_without_zk_server_running = %d, want 1", early, s.Metrics().CnxnClosedWithoutServer.Load())
			}
			time.Sleep(time.Millisecond)
		}
		if early && s.Stats().AuthFailed != 0 {
			t.Fatal("a connection dropped before its handshake counted as a failed authentication")
		}
	}
	// A standalone server serves: nothing is dropped.
	s := startTLSTestServer(t, ca, tls.RequireAndVerifyClientCert, func(c *Config) { c.EarlyDropSecureHandshakes = true })
	connectTLS(t, s.SecureAddr(), ca, &alice)
	if n := s.Metrics().CnxnClosedWithoutServer.Load(); n != 0 {
		t.Fatalf("a serving server dropped %d", n)
	}
}
