package quorumtls

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/internal/certtest"
)

// configFor builds the TLS of one member from a certtest bundle, trusting
// the set's CA, with Go's own verification: a stand-in for the stores
// package in these tests, which are about the ports, not the stores.
func configFor(t *testing.T, set *certtest.Set, b certtest.Bundle, trustPEM string) (server *tls.Config, client func(net.Conn, string) *tls.Conn) {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(b.CertPEM, b.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(trustPEM)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		t.Fatal("no CA certificate in " + trustPEM)
	}
	server = &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	client = func(conn net.Conn, host string) *tls.Conn {
		return tls.Client(conn, &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool, ServerName: host})
	}
	return server, client
}

// pair accepts one connection on a loopback listener through acc and
// dials it through dial, returning both ends' results.
func pair(t *testing.T, acc, dial *Config, rawDial bool, first []byte) (net.Conn, error, net.Conn, error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	type res struct {
		c   net.Conn
		err error
	}
	accepted := make(chan res, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			accepted <- res{nil, err}
			return
		}
		c, err = acc.Accept(context.Background(), c, time.Now().Add(10*time.Second))
		accepted <- res{c, err}
	}()
	raw, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	var dc net.Conn = raw
	var derr error
	if !rawDial {
		dc, derr = dial.Dial(context.Background(), raw, ln.Addr().String(), time.Now().Add(10*time.Second))
	}
	if derr == nil && first != nil {
		dc.Write(first)
	}
	r := <-accepted
	if r.c != nil {
		t.Cleanup(func() { r.c.Close() })
	}
	if dc != nil {
		t.Cleanup(func() { dc.Close() })
	}
	return r.c, r.err, dc, derr
}

func readN(t *testing.T, c net.Conn, n int) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	b := make([]byte, n)
	if _, err := io.ReadFull(c, b); err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTLSOnlyListener(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	srv, cli := configFor(t, set, set.Server, set.Trust.PEM)
	c := &Config{TLS: true, Server: srv, Client: cli, DetectTimeout: 5 * time.Second}

	// TLS both ways: the bytes get through, and the accepted end is TLS.
	a, aerr, d, derr := pair(t, c, c, false, []byte("hello world"))
	if aerr != nil || derr != nil {
		t.Fatalf("accept: %v, dial: %v", aerr, derr)
	}
	if _, _, ok := Describe(a); !ok {
		t.Fatal("the accepted connection is not TLS")
	}
	if got := readN(t, a, 11); got != "hello world" {
		t.Fatalf("read %q", got)
	}
	d.Write([]byte("!"))
	if got := readN(t, a, 1); got != "!" {
		t.Fatalf("read %q", got)
	}

	// A plain dialler is refused as Java refuses it.
	_, aerr, _, _ = pair(t, c, nil, true, []byte("plain bytes"))
	if !errors.Is(aerr, ErrInsecure) {
		t.Fatalf("a plain connection to a TLS-only listener: %v, want ErrInsecure", aerr)
	}
}

func TestUnifiedListenerTakesBoth(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	srv, cli := configFor(t, set, set.Server, set.Trust.PEM)
	unified := &Config{PortUnification: true, Server: srv, Client: cli, DetectTimeout: 200 * time.Millisecond}
	tlsDialer := &Config{TLS: true, Server: srv, Client: cli}

	a, aerr, _, derr := pair(t, unified, tlsDialer, false, []byte("over tls"))
	if aerr != nil || derr != nil {
		t.Fatalf("accept: %v, dial: %v", aerr, derr)
	}
	if _, _, ok := Describe(a); !ok {
		t.Fatal("a TLS dialler was taken as plain")
	}
	if got := readN(t, a, 8); got != "over tls" {
		t.Fatalf("read %q", got)
	}

	// A plain dialler's first bytes, read to decide, are read again.
	a, aerr, _, _ = pair(t, unified, unified, false, []byte("\xff\xff\xff\xff\xff\xff\x00\x00plain"))
	if aerr != nil {
		t.Fatal(aerr)
	}
	if _, _, ok := Describe(a); ok {
		t.Fatal("a plain dialler was taken as TLS")
	}
	if got := readN(t, a, 13); got != "\xff\xff\xff\xff\xff\xff\x00\x00plain" {
		t.Fatalf("read %q", got)
	}

	// Saying nothing within the detection time counts as plain (Java's
	// rule); what comes later is still read.
	a, aerr, d, _ := pair(t, unified, nil, true, nil)
	if aerr != nil {
		t.Fatal(aerr)
	}
	d.Write([]byte("late"))
	if got := readN(t, a, 4); got != "late" {
		t.Fatalf("read %q", got)
	}
}

func TestHandshakeFailures(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	srv, cli := configFor(t, set, set.Server, set.Trust.PEM)
	good := &Config{TLS: true, Server: srv, Client: cli}
	// A member whose certificate the others' CA did not sign (it trusts
	// them, so only its own certificate is at fault).
	usrv, ucli := configFor(t, set, set.Untrusted, set.Trust.PEM)
	untrusted := &Config{TLS: true, Server: usrv, Client: ucli}

	// It dials: the listener refuses its client certificate.
	_, aerr, _, _ := pair(t, good, untrusted, false, []byte("x"))
	if aerr == nil || !strings.Contains(aerr.Error(), "TLS handshake failed") || !strings.Contains(aerr.Error(), "127.0.0.1:") {
		t.Fatalf("accepting an untrusted client: %v", aerr)
	}
	// It listens: the dialler refuses its server certificate, and says
	// where it dialled.
	_, _, _, derr := pair(t, untrusted, good, false, nil)
	var unknown x509.UnknownAuthorityError
	if !errors.As(derr, &unknown) || !strings.Contains(derr.Error(), "TLS handshake with 127.0.0.1:") {
		t.Fatalf("dialling an untrusted server: %v", derr)
	}

	// The server's certificate is valid for 127.0.0.1 and localhost, not
	// for the name dialled.
	elsewhere := &Config{TLS: true, Server: srv, Client: func(conn net.Conn, _ string) *tls.Conn { return cli(conn, "gozk.invalid") }}
	_, _, _, derr = pair(t, good, elsewhere, false, nil)
	var host x509.HostnameError
	if !errors.As(derr, &host) {
		t.Fatalf("dialling a server whose certificate names another host: %v", derr)
	}
}

func TestPlainConfigs(t *testing.T) {
	var none *Config
	if none.DialsTLS() || none.Mode() != "plain" {
		t.Fatal("a nil Config is not plain")
	}
	a, aerr, _, derr := pair(t, none, none, false, []byte("abc"))
	if aerr != nil || derr != nil {
		t.Fatal(aerr, derr)
	}
	if got := readN(t, a, 3); got != "abc" {
		t.Fatalf("read %q", got)
	}
}
