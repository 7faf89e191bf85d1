package tlsconf

import (
	"crypto/tls"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/internal/certtest"
)

func dialer(s *Source, host string) func(net.Conn) *tls.Conn {
	return func(c net.Conn) *tls.Conn { return s.Client(c, host) }
}

func testClientAuth(t *testing.T, set *certtest.Set) {
	withCert := mustNew(t, tlsConfig(set.Clients[0].JKS, set.Trust.JKS, set.Password), Options{})
	noCert := mustNew(t, tlsConfig("", set.Trust.JKS, set.Password), Options{})
	untrusted := mustNew(t, tlsConfig(set.Untrusted.JKS, set.Trust.JKS, set.Password), Options{})
	expired := mustNew(t, tlsConfig(set.Expired.JKS, set.Trust.JKS, set.Password), Options{})
	cases := []struct {
		auth     string
		client   *Source
		name     string
		ok       bool
		seesCert bool
	}{
		{"need", withCert, "cert", true, true},
		{"", withCert, "cert (default need)", true, true},
		{"NeEd", noCert, "no cert", false, false},
		{"need", untrusted, "untrusted cert", false, false},
		{"need", expired, "expired cert", false, false},
		{"want", withCert, "cert", true, true},
		{"Want", noCert, "no cert", true, false},
		{"want", untrusted, "untrusted cert", false, false},
		{"none", withCert, "cert", true, false},
		{"NONE", noCert, "no cert", true, false},
	}
	for _, tc := range cases {
		t.Run(tc.auth+" "+tc.name, func(t *testing.T) {
			c := tlsConfig(set.Server.JKS, set.Trust.JKS, set.Password)
			c.ClientAuth = tc.auth
			server := mustNew(t, c, Options{})
			serr, cerr, _, seen := handshake(t, server.ServerConfig(), dialer(tc.client, "127.0.0.1"))
			if tc.ok != (serr == nil && cerr == nil) {
				t.Fatalf("server %v, client %v; want success %v", serr, cerr, tc.ok)
			}
			if tc.ok && (seen != nil) != tc.seesCert {
				t.Errorf("server saw a client certificate: %v, want %v", seen != nil, tc.seesCert)
			}
		})
	}
}

func testServerCertificateRejected(t *testing.T, set *certtest.Set) {
	client := mustNew(t, tlsConfig(set.Clients[0].JKS, set.Trust.JKS, set.Password), Options{})
	for name, key := range map[string]string{"expired": set.Expired.JKS, "untrusted": set.Untrusted.JKS} {
		t.Run(name, func(t *testing.T) {
			server := mustNew(t, tlsConfig(key, set.Trust.JKS, set.Password), Options{})
			_, cerr, _, _ := handshake(t, server.ServerConfig(), dialer(client, "127.0.0.1"))
			if cerr == nil {
				t.Fatal("the client accepted the server's certificate")
			}
			want := map[string]string{"expired": "expired", "untrusted": "unknown authority"}[name]
			if !strings.Contains(cerr.Error(), want) {
				t.Errorf("client error %v, want it to mention %q", cerr, want)
			}
		})
	}
}

// stubLookup makes the reverse lookup of 127.0.0.1 answer name.
func stubLookup(t *testing.T, name string) {
	old := lookupAddr
	lookupAddr = func(ip string) string {
		if ip == "127.0.0.1" && name != "" {
			return name
		}
		return ip
	}
	t.Cleanup(func() { lookupAddr = old })
}

// TestServerHostnameVerification: the dialing side checks the server's
// certificate against the address, then the name, as ZKTrustManager.
func testServerHostnameVerification(t *testing.T, set *certtest.Set) {
	loop := []net.IP{net.ParseIP("127.0.0.1").To4()}
	cases := []struct {
		name    string
		spec    leafSpec
		host    string // as dialed
		reverse string // reverse lookup answer for 127.0.0.1
		verify  bool   // ssl.hostnameVerification
		ok      bool
	}{
		{"IP SAN matches", leafSpec{cn: "x", ips: loop}, "127.0.0.1", "", true, true},
		{"IP SAN matches, dialed by name", leafSpec{cn: "x", ips: loop}, "zk1.example", "", true, true},
		{"DNS SAN by reverse lookup", leafSpec{cn: "x", dns: []string{"zk1.example"}}, "127.0.0.1", "zk1.example", true, true},
		{"DNS SAN, reverse lookup differs", leafSpec{cn: "x", dns: []string{"zk1.example"}}, "127.0.0.1", "zk2.example", true, false},
		{"DNS SAN by dialed name, no lookup", leafSpec{cn: "x", dns: []string{"ZK1.example"}}, "zk1.example", "zk2.example", true, true},
		{"wildcard SAN", leafSpec{cn: "x", dns: []string{"*.example"}}, "127.0.0.1", "zk1.example", true, true},
		{"wildcard spans one label only", leafSpec{cn: "x", dns: []string{"*.example"}}, "127.0.0.1", "a.zk1.example", true, false},
		{"CN only when no SAN", leafSpec{cn: "127.0.0.1"}, "127.0.0.1", "", true, true},
		{"CN ignored when a SAN exists", leafSpec{cn: "127.0.0.1", dns: []string{"zk1.example"}}, "127.0.0.1", "", true, false},
		{"mismatch accepted without verification", leafSpec{cn: "x", dns: []string{"zk1.example"}}, "127.0.0.1", "", false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stubLookup(t, tc.reverse)
			key := signLeaf(t, set, "leaf", tc.spec)
			server := mustNew(t, tlsConfig(key, set.Trust.PEM, ""), Options{Quorum: true})
			c := tlsConfig(set.Clients[0].JKS, set.Trust.JKS, set.Password)
			c.HostnameVerification = tc.verify
			client := mustNew(t, c, Options{Quorum: true})
			_, cerr, _, _ := handshake(t, server.ServerConfig(), dialer(client, tc.host))
			if (cerr == nil) != tc.ok {
				t.Fatalf("client error %v, want success %v", cerr, tc.ok)
			}
			if tc.host == "127.0.0.1" || tc.spec.ips == nil {
				// ClientConfig, knowing only host, decides the same.
				_, cerr, _, _ = handshake(t, server.ServerConfig(), func(c net.Conn) *tls.Conn { return tls.Client(c, client.ClientConfig(tc.host)) })
				if (cerr == nil) != tc.ok {
					t.Fatalf("ClientConfig: client error %v, want success %v", cerr, tc.ok)
				}
			}
		})
	}
}

// TestClientHostnameVerification: only a quorum server checks the
// connecting peer's host, and only with hostnameVerification.
func testClientHostnameVerification(t *testing.T, set *certtest.Set) {
	cases := []struct {
		name    string
		quorum  bool
		verify  bool
		spec    leafSpec
		reverse string
		ok      bool
	}{
		{"quorum, IP SAN", true, true, leafSpec{cn: "peer", ips: []net.IP{net.ParseIP("127.0.0.1")}}, "", true},
		{"quorum, DNS SAN by reverse lookup", true, true, leafSpec{cn: "peer", dns: []string{"peer.example"}}, "peer.example", true},
		{"quorum, mismatch", true, true, leafSpec{cn: "peer", dns: []string{"peer.example"}}, "other.example", false},
		{"quorum, mismatch, verification off", true, false, leafSpec{cn: "peer", dns: []string{"peer.example"}}, "", true},
		{"client port never checks", false, true, leafSpec{cn: "peer", dns: []string{"peer.example"}}, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stubLookup(t, tc.reverse)
			sc := tlsConfig(set.Server.JKS, set.Trust.JKS, set.Password)
			sc.HostnameVerification = tc.verify
			server := mustNew(t, sc, Options{Quorum: tc.quorum})
			cc := tlsConfig(signLeaf(t, set, "peer", tc.spec), set.Trust.JKS, set.Password)
			cc.KeyStorePassword = ""
			client := mustNew(t, cc, Options{Quorum: tc.quorum})
			serr, cerr, _, _ := handshake(t, server.ServerConfig(), dialer(client, "127.0.0.1"))
			if (serr == nil && cerr == nil) != tc.ok {
				t.Fatalf("server %v, client %v; want success %v", serr, cerr, tc.ok)
			}
		})
	}
}

func testProtocolMismatchFails(t *testing.T, set *certtest.Set) {
	tls13Suites := []string{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384"}
	sc := tlsConfig(set.Server.JKS, set.Trust.JKS, set.Password)
	sc.Protocol = "TLSv1.3"
	if _, err := New(sc, "ssl.", Options{}); err == nil || !strings.Contains(err.Error(), "ssl.ciphersuites has no suite for the enabled protocols [TLSv1.3]") {
		t.Fatalf("TLSv1.3 with Java's default suites: %v", err)
	}
	sc.CipherSuites = tls13Suites
	server := mustNew(t, sc, Options{})
	client := mustNew(t, tlsConfig(set.Clients[0].JKS, set.Trust.JKS, set.Password), Options{}) // TLSv1.2 only
	if serr, cerr, _, _ := handshake(t, server.ServerConfig(), dialer(client, "127.0.0.1")); serr == nil || cerr == nil {
		t.Fatalf("TLSv1.3-only server and TLSv1.2-only client agreed: server %v, client %v", serr, cerr)
	}
	cc := tlsConfig(set.Clients[0].JKS, set.Trust.JKS, set.Password)
	cc.EnabledProtocols = []string{"TLSv1.2", "TLSv1.3"}
	cc.CipherSuites = append([]string{"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"}, tls13Suites...)
	client = mustNew(t, cc, Options{})
	if serr, cerr, _, _ := handshake(t, server.ServerConfig(), dialer(client, "127.0.0.1")); serr != nil || cerr != nil {
		t.Fatalf("server %v, client %v", serr, cerr)
	}
}

// TestReload: Reload and WatchFiles swap the stores under a running
// server configuration; a bad file keeps the old ones.
func testReload(t *testing.T, set *certtest.Set) {
	keyFile := t.TempDir() + "/server.pem"
	put := func(src string) {
		t.Helper()
		b := mustRead(t, src)
		if err := os.WriteFile(keyFile+".tmp", b, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(keyFile+".tmp", keyFile); err != nil {
			t.Fatal(err)
		}
	}
	put(set.Server.PEM)
	c := tlsConfig(keyFile, set.Trust.PEM, "")
	server := mustNew(t, c, Options{PollInterval: 10 * time.Millisecond})
	client := mustNew(t, tlsConfig(set.Clients[0].JKS, set.Trust.JKS, set.Password), Options{})
	listenerConfig := server.ServerConfig() // one configuration for the whole test, as a listener keeps it
	seen := func() string {
		t.Helper()
		serr, cerr, cert, _ := handshake(t, listenerConfig, dialer(client, "127.0.0.1"))
		if serr != nil || cerr != nil {
			t.Fatalf("handshake: server %v, client %v", serr, cerr)
		}
		return SubjectDN(cert)
	}
	if got := seen(); got != set.Server.SubjectDN {
		t.Fatalf("before reload: %q", got)
	}
	put(set.Clients[0].PEM)
	if got := seen(); got != set.Server.SubjectDN {
		t.Fatalf("changed file used before Reload: %q", got)
	}
	if err := server.Reload(); err != nil {
		t.Fatal(err)
	}
	if got := seen(); got != set.Clients[0].SubjectDN {
		t.Fatalf("after Reload: %q, want %q", got, set.Clients[0].SubjectDN)
	}
	put(set.Trust.PEM) // a certificate without key: not a key store
	if err := server.Reload(); err == nil || !strings.Contains(err.Error(), "ssl.keyStore.location: "+keyFile) {
		t.Fatalf("Reload of a bad file: %v", err)
	}
	if got := seen(); got != set.Clients[0].SubjectDN {
		t.Fatalf("after a failed Reload: %q, want the previous %q", got, set.Clients[0].SubjectDN)
	}

	stop := make(chan struct{})
	defer close(stop)
	server.WatchFiles(stop)
	put(set.Server.PEM)
	deadline := time.Now().Add(30 * time.Second)
	for seen() != set.Server.SubjectDN {
		if time.Now().After(deadline) {
			t.Fatal("WatchFiles did not reload the changed key store")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// testPEMTrustSameSubject: of two certificates with the same subject in
// a PEM trust store only the last is trusted, as in Java's PemReader.
func testPEMTrustSameSubject(t *testing.T, set *certtest.Set) {
	shadow := set.IssueSAN(t, "shadow-ca", "/O=gozk test/CN=gozk test CA", "")
	dir := t.TempDir()
	server := mustNew(t, tlsConfig(set.Server.JKS, set.Trust.JKS, set.Password), Options{})
	for name, files := range map[string][]string{"shadowed": {set.Trust.PEM, shadow.CertPEM}, "last": {shadow.CertPEM, set.Trust.PEM}} {
		var pemText []byte
		for _, f := range files {
			pemText = append(pemText, mustRead(t, f)...)
		}
		trust := filepath.Join(dir, name+".pem")
		if err := os.WriteFile(trust, pemText, 0o600); err != nil {
			t.Fatal(err)
		}
		client := mustNew(t, tlsConfig(set.Clients[0].PEM, trust, ""), Options{})
		_, cerr, _, _ := handshake(t, server.ServerConfig(), dialer(client, "127.0.0.1"))
		if (cerr == nil) != (name == "last") {
			t.Errorf("%s: client error %v", name, cerr)
		}
	}
}
