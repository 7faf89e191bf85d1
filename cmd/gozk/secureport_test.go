package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/internal/certtest"
)

// TestSecureClientPort starts gozk with secureClientPort and PEM stores,
// asks ruok over TLS with a client certificate, and checks that stores
// that cannot be used stop start-up with the key and file named.
func TestSecureClientPort(t *testing.T) {
	certs := certtest.New(t, certtest.Options{})
	dir := t.TempDir()
	port, securePort := freePort(t), freePort(t)
	stores := "ssl.keyStore.location=" + certs.Server.PEM + "\nssl.trustStore.location=" + certs.Trust.PEM + "\n"
	cfg := writeFile(t, dir, "zoo.cfg", fmt.Sprintf("dataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n"+
		"secureClientPort=%d\nsecureClientPortAddress=127.0.0.1\nadmin.enableServer=false\n4lw.commands.whitelist=ruok\n%s", dir, port, securePort, stores))
	p := startServerProcess(t, os.Environ(), "server", "--config", cfg)
	p.waitRuok(t, fmt.Sprintf("127.0.0.1:%d", port))

	pair, err := tls.LoadX509KeyPair(certs.Clients[0].CertPEM, certs.Clients[0].KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	caText, err := os.ReadFile(certs.Trust.PEM)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caText)
	conn, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", securePort),
		&tls.Config{RootCAs: pool, ServerName: "127.0.0.1", Certificates: []tls.Certificate{pair}})
	if err != nil {
		t.Fatalf("TLS to the secure port: %v\nstderr: %s", err, p.stderr.String())
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(15 * time.Second))
	_, _ = conn.Write([]byte("ruok"))
	if got, _ := io.ReadAll(conn); string(got) != "imok" {
		t.Fatalf("ruok over TLS = %q", got)
	}

	// A secure port alone is enough, as in Java.
	onlyDir := t.TempDir()
	onlyPort := freePort(t)
	only := writeFile(t, onlyDir, "zoo.cfg", fmt.Sprintf("dataDir=%s\nsecureClientPort=%d\nsecureClientPortAddress=127.0.0.1\n"+
		"admin.enableServer=false\n4lw.commands.whitelist=ruok\n%s", onlyDir, onlyPort, stores))
	startServerProcess(t, os.Environ(), "server", "--config", only)
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", onlyPort), &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", Certificates: []tls.Certificate{pair}})
		if err == nil {
			_ = c.SetDeadline(time.Now().Add(15 * time.Second))
			_, _ = c.Write([]byte("ruok"))
			got, _ := io.ReadAll(c)
			c.Close()
			if string(got) != "imok" {
				t.Fatalf("ruok on a server with a secure port only = %q", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a server with a secure port only does not serve it: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}

	missing := dir + "/absent.p12"
	for _, c := range []struct{ name, extra, want string }{
		{"missing key store", "ssl.keyStore.location=" + missing + "\n", "ssl.keyStore.location"},
		{"wrong password", "ssl.keyStore.location=" + certs.Server.P12 + "\nssl.keyStore.password=wrong\n", "ssl.keyStore"},
		{"other auth provider", stores + "ssl.authProvider=foo\n", "ssl.authProvider=foo"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := writeFile(t, t.TempDir(), "zoo.cfg", fmt.Sprintf("dataDir=%s\nclientPort=%d\nsecureClientPort=%d\n%s",
				t.TempDir(), freePort(t), freePort(t), c.extra))
			_, stderr, code := gozk(t, nil, "server", "--config", bad)
			if code != exitBadConfig || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d (want %d), stderr %q, want it to name %q", code, exitBadConfig, stderr, c.want)
			}
		})
	}
}
