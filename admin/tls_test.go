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

	"github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/server"
)

// selfSigned is a server certificate for 127.0.0.1 and a pool that trusts
// it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "server"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

// TestSecurePortInCommands: conf names the secure port, the AdminServer
// lists its connections as secure_connections, and mntr counts the plain
// connections as non-mTLS.
func TestSecurePortInCommands(t *testing.T) {
	cert, pool := selfSigned(t)
	s, cmds := startWithCommands(t, Options{Version: FullVersion("test", time.Now()), InitialConfig: "tickTime=2000\n"}, func(cfg *server.Config) {
		cfg.SecureClientAddr = "127.0.0.1:0"
		cfg.ClientTLS = &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.NoClientCert}
	})
	dialer := func(network, address string, timeout time.Duration) (net.Conn, error) {
		return tls.DialWithDialer(&net.Dialer{Timeout: timeout}, network, address, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
	}
	c, _, err := zk.Connect([]string{s.SecureAddr().String()}, 10*time.Second, zk.WithLogInfo(false), zk.WithDialer(dialer))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if _, _, err := c.Exists("/"); err != nil {
		t.Fatal(err)
	}

	_, port, _ := net.SplitHostPort(s.SecureAddr().String())
	if out := ask(t, s, "conf"); !strings.Contains(out, "\nsecureClientPort="+port+"\n") {
		t.Errorf("conf does not name the secure port %s:\n%s", port, out)
	}
	if out := ask(t, s, "mntr"); !strings.Contains(out, "zk_non_mtls_local_conn_count\t2\n") || !strings.Contains(out, "zk_outstanding_tls_handshake\t0\n") {
		// conf and mntr themselves: two plain connections from loopback.
		t.Errorf("mntr non-mTLS counts:\n%s", out)
	}
	h, err := cmds.StartAdminServer(AdminServerConfig{Address: "127.0.0.1", Port: 0})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	resp, err := http.Get("http://" + h.Addr().String() + "/commands/connections")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := string(b)
	if !strings.Contains(out, `"connections" : [ ],`) || !strings.Contains(out, `"secure_connections" : [ {`) {
		t.Errorf("connections:\n%s", out)
	}
}

// TestHandshakeCountersInMntr: with
// zookeeper.netty.server.outstandingHandshake.limit on a unified port, a
// connection over the limit counts in zk_tls_handshake_exceeded alone; a
// failed handshake in zk_unsuccessful_handshake and zk_auth_failed_count,
// as on Java; srst zeroes the first two.
func TestHandshakeCountersInMntr(t *testing.T) {
	cert, pool := selfSigned(t)
	s, _ := startWithCommands(t, Options{Version: FullVersion("test", time.Now()), InitialConfig: "tickTime=2000\n"}, func(cfg *server.Config) {
		cfg.PortUnification = true
		cfg.ClientTLS = &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.NoClientCert}
		cfg.TLSHandshakeLimit = 1
	})
	mntrHas := func(what string, lines ...string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			out := ask(t, s, "mntr")
			missing := ""
			for _, l := range lines {
				if !strings.Contains(out, "\n"+l+"\n") {
					missing = l
				}
			}
			if missing == "" {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: mntr has no %q:\n%s", what, missing, out)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// waitUncounted waits until the server has seen the last connection
	// through (a closed one, or under TLS 1.3 the end of a handshake the
	// client is already done with): until then it counts against the
	// limit, and the test's next four-letter word would be refused.
	waitUncounted := func() {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); s.Stats().OutstandingTLSHandshakes != 0; {
			if time.Now().After(deadline) {
				t.Fatal("a connection is still counted")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	dialTLS := func() (*tls.Conn, error) {
		return tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", s.Addr().String(),
			&tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
	}

	held, err := net.Dial("tcp", s.Addr().String()) // says nothing: not yet told TLS or plain
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	time.Sleep(200 * time.Millisecond)
	if over, err := dialTLS(); err == nil {
		over.Close()
		t.Fatal("a TLS client over the handshake limit was served")
	}
	_ = held.Close()
	waitUncounted()
	mntrHas("over the limit", "zk_tls_handshake_exceeded\t1", "zk_unsuccessful_handshake\t0", "zk_auth_failed_count\t0",
		"zk_outstanding_tls_handshake\t0")

	// A client that is not TLS after all fails its handshake.
	bad, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	_, _ = bad.Write([]byte{0x16, 0x03, 0x01, 0x00, 0x05, 'h', 'e', 'l', 'l', 'o'})
	_, _ = io.ReadAll(bad)
	bad.Close()
	waitUncounted()
	mntrHas("a failed handshake", "zk_tls_handshake_exceeded\t1", "zk_unsuccessful_handshake\t1", "zk_auth_failed_count\t1")
	if c, err := dialTLS(); err != nil {
		t.Fatalf("a TLS client under the limit: %v", err)
	} else {
		c.Close()
	}
	waitUncounted()
	if out := ask(t, s, "srst"); !strings.Contains(out, "reset") {
		t.Fatalf("srst: %s", out)
	}
	// Java's srst resets the metrics but not auth_failed_count.
	mntrHas("after srst", "zk_tls_handshake_exceeded\t0", "zk_unsuccessful_handshake\t0", "zk_auth_failed_count\t1")
}
