//go:build interop

package security

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/javazk"
	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/internal/certtest"
	"github.com/gozk/gozk/tlsconf"
	"github.com/rs/zerolog"
)

// The tlsconf interop tests put gozk's tlsconf on one end of a TLS
// connection and ZooKeeper 3.8.0's own X509Util (QuorumX509Util or
// ClientX509Util, in testdata/tlsconf/X509Peer.java) on the other, with
// the same stores, and check that both accept what the other presents
// and that they refuse the same certificates on host name grounds.

const tlsconfWait = 2 * time.Minute

// x509Peer is the compiled Java side.
type x509Peer struct {
	java, classpath string
}

func newX509Peer(t *testing.T) *x509Peer {
	t.Helper()
	inst, err := javazk.Lookup()
	if err != nil {
		if javazk.JavaRequired() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	javac := filepath.Join(filepath.Dir(inst.Java), "javac")
	if _, err := exec.LookPath(javac); err != nil {
		if javac, err = exec.LookPath("javac"); err != nil {
			t.Skip("javac is not installed: it compiles testdata/tlsconf/X509Peer.java")
		}
	}
	classes := t.TempDir()
	cp := strings.Join(inst.Classpath, string(filepath.ListSeparator))
	src, err := filepath.Abs(filepath.Join("testdata", "tlsconf", "X509Peer.java"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(javac, "-d", classes, "-cp", cp, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	return &x509Peer{java: inst.Java, classpath: cp + string(filepath.ListSeparator) + classes}
}

// props are the -D flags for one side's stores, in X509Util's names.
func x509Props(prefix string, key certtest.Bundle, trustPath, password, protocol, enabled, suites string) []string {
	p := "-Dzookeeper." + prefix
	props := []string{
		p + "keyStore.location=" + key.JKS, p + "keyStore.password=" + password,
		p + "trustStore.location=" + trustPath, p + "trustStore.password=" + password,
	}
	for k, v := range map[string]string{"protocol": protocol, "enabledProtocols": enabled, "ciphersuites": suites} {
		if v != "" {
			props = append(props, p+k+"="+v)
		}
	}
	return props
}

// run starts the Java side; for "accept" it returns once the port is
// known. wait returns its verdict line.
func (p *x509Peer) run(t *testing.T, props []string, args ...string) (port string, wait func() string) {
	t.Helper()
	cmd := exec.Command(p.java, append(append([]string{"-Xmx128m"}, props...), append([]string{"-cp", p.classpath, "X509Peer"}, args...)...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func() string {
		select {
		case l, ok := <-lines:
			if !ok {
				return "error: the Java side ended without a verdict"
			}
			return l
		case <-time.After(tlsconfWait):
			t.Fatal("the Java side did not answer")
			return ""
		}
	}
	if args[1] == "accept" {
		l := next()
		if !strings.HasPrefix(l, "port ") {
			t.Fatalf("Java side: %q", l)
		}
		port = strings.TrimPrefix(l, "port ")
	}
	return port, next
}

// gozkSide finishes a handshake as the Java side does: one byte each
// way. It returns "ok PEER-DN" or "error ...".
func gozkSide(tc *tls.Conn) string {
	_ = tc.SetDeadline(time.Now().Add(tlsconfWait))
	defer tc.Close()
	if err := tc.Handshake(); err != nil {
		return "error " + err.Error()
	}
	peer := "none"
	if pc := tc.ConnectionState().PeerCertificates; len(pc) > 0 {
		peer = tlsconf.SubjectDN(pc[0])
	}
	if _, err := tc.Write([]byte{1}); err != nil {
		return "error " + err.Error()
	}
	if _, err := io.ReadFull(tc, make([]byte, 1)); err != nil {
		return "error " + err.Error()
	}
	return "ok " + peer
}

func gozkSource(t *testing.T, prefix string, key certtest.Bundle, trustPath, password string, quorum bool, protocol, enabled, suites string, rc revocationCheck) *tlsconf.Source {
	t.Helper()
	c := conf.Defaults().ClientTLS
	c.CRL, c.OCSP = rc.crl, rc.ocsp
	c.KeyStoreLocation, c.KeyStorePassword = key.JKS, password
	c.TrustStoreLocation, c.TrustStorePassword = trustPath, password
	c.Protocol = protocol
	if enabled != "" {
		c.EnabledProtocols = strings.Split(enabled, ",")
	}
	if suites != "" {
		c.CipherSuites = strings.Split(suites, ",")
	}
	src, err := tlsconf.New(c, prefix, tlsconf.Options{Quorum: quorum, Logger: zerolog.New(zerolog.NewTestWriter(t))})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// revocationCheck is ssl.crl and ssl.ocsp, the same on both ends.
type revocationCheck struct{ crl, ocsp bool }

func (rc revocationCheck) props(prefix string) []string {
	return []string{
		"-Dzookeeper." + prefix + "crl=" + strconv.FormatBool(rc.crl),
		"-Dzookeeper." + prefix + "ocsp=" + strconv.FormatBool(rc.ocsp),
	}
}

// TestTLSConfAgainstX509Util runs each case twice, once with Java
// dialing and gozk accepting and once the other way round, and checks
// both verdicts. In "quorum" mode both ends apply the quorum rules
// (the accepting side checks the dialer's host), in "client" mode the
// client port's (it does not).
func TestTLSConfAgainstX509Util(t *testing.T) {
	peer := newX509Peer(t)
	set := certtest.New(t, certtest.Options{})
	// localhost is what 127.0.0.1 reverse-resolves to on a test machine.
	dnsLocalhost := set.IssueSAN(t, "dns-localhost", "/O=gozk test/CN=dns-localhost", "DNS:localhost")
	elsewhere := set.IssueSAN(t, "elsewhere", "/O=gozk test/CN=elsewhere", "DNS:nowhere.invalid")
	cnOnly := set.IssueSAN(t, "cn-only", "/O=gozk test/CN=127.0.0.1", "")
	multi := set.Issue(t, "multi", "/O=acme/OU=ops+UID=u1/CN=Smith, Jr. <#1>")
	// Revocation: the CA's CRL and OCSP responder on loopback, and
	// certificates that name them.
	rev := set.ServeRevocations(t)
	good := set.IssueExt(t, "rev-good", "/O=gozk test/CN=rev-good", rev.Extensions(true, true))
	revoked := set.IssueExt(t, "rev-revoked", "/O=gozk test/CN=rev-revoked", rev.Extensions(true, true))
	revokedOCSP := set.IssueExt(t, "rev-revoked-ocsp", "/O=gozk test/CN=rev-revoked-ocsp", rev.Extensions(false, true))
	goodOCSP := set.IssueExt(t, "rev-good-ocsp", "/O=gozk test/CN=rev-good-ocsp", rev.Extensions(false, true))
	goodCRL := set.IssueExt(t, "rev-good-crl", "/O=gozk test/CN=rev-good-crl", rev.Extensions(true, false))
	rev.Revoke(t, revoked)
	rev.Revoke(t, revokedOCSP)
	crl, ocsp := revocationCheck{crl: true}, revocationCheck{ocsp: true}

	cases := []struct {
		name     string
		mode     string // quorum or client
		server   certtest.Bundle
		client   certtest.Bundle
		okServer bool // the dialer accepts the server
		okClient bool // the acceptor accepts the dialer
		// protocol settings of both ends: protocol, enabledProtocols,
		// ciphersuites (comma-separated); empty: the defaults.
		protocol, enabled, suites string
		// revocation checks on both ends, and a fault of the CA's
		// revocation server for the case's length.
		rc    revocationCheck
		fault func(bool)
	}{
		{"loopback SANs", "quorum", set.Server, set.Clients[0], true, true, "", "", "", revocationCheck{}, nil},
		{"DNS SAN by reverse lookup", "quorum", dnsLocalhost, dnsLocalhost, true, true, "", "", "", revocationCheck{}, nil},
		{"CN fallback without SAN", "quorum", cnOnly, cnOnly, true, true, "", "", "", revocationCheck{}, nil},
		{"server elsewhere", "quorum", elsewhere, set.Clients[0], false, true, "", "", "", revocationCheck{}, nil},
		{"dialer elsewhere", "quorum", set.Server, elsewhere, true, false, "", "", "", revocationCheck{}, nil},
		{"client port ignores the dialer's host", "client", set.Server, elsewhere, true, true, "", "", "", revocationCheck{}, nil},
		{"x509 name with escapes and a multi-valued RDN", "quorum", set.Server, multi, true, true, "", "", "", revocationCheck{}, nil},
		{"TLSv1.3", "quorum", set.Server, set.Clients[0], true, true,
			"TLSv1.3", "TLSv1.3", "TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384", revocationCheck{}, nil},
		{"one cipher suite", "client", set.Server, set.Clients[0], true, true,
			"", "", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", revocationCheck{}, nil},
		{"crl: both good", "client", good, goodCRL, true, true, "", "", "", crl, nil},
		{"crl: the dialer revoked", "client", good, revoked, true, false, "", "", "", crl, nil},
		{"crl: the server revoked", "quorum", revoked, good, false, true, "", "", "", crl, nil},
		{"crl: no distribution point", "client", good, goodOCSP, true, false, "", "", "", crl, nil},
		{"crl: the CRL cannot be fetched", "quorum", good, set.Clients[0], false, false, "", "", "", crl, rev.SetCRLDown},
		{"crl: a stale CRL", "client", good, good, false, false, "", "", "", crl, rev.SetStale},
		{"ocsp: both good", "quorum", goodOCSP, good, true, true, "", "", "", ocsp, nil},
		{"ocsp: the dialer revoked", "client", goodOCSP, revokedOCSP, true, false, "", "", "", ocsp, nil},
		{"ocsp: the server revoked", "client", revokedOCSP, goodOCSP, false, true, "", "", "", ocsp, nil},
		{"ocsp: the responder down, the CRL decides", "client", good, revoked, true, false, "", "", "", ocsp, rev.SetOCSPDown},
		{"ocsp: unknown to the responder, no CRL", "client", goodOCSP, goodOCSP, false, false, "", "", "", ocsp, rev.SetUnknown},
	}
	for _, tc := range cases {
		prefix := "ssl."
		if tc.mode == "quorum" {
			prefix = "ssl.quorum."
		}
		quorum := tc.mode == "quorum"
		fault := func(t *testing.T) {
			if tc.fault != nil {
				tc.fault(true)
				t.Cleanup(func() { tc.fault(false) })
			}
		}
		javaProps := func(key certtest.Bundle) []string {
			return append(x509Props(prefix, key, set.Trust.JKS, set.Password, tc.protocol, tc.enabled, tc.suites), tc.rc.props(prefix)...)
		}
		t.Run(tc.name+"/java dials gozk", func(t *testing.T) {
			fault(t)
			src := gozkSource(t, prefix, tc.server, set.Trust.JKS, set.Password, quorum, tc.protocol, tc.enabled, tc.suites, tc.rc)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			gozk := make(chan string, 1)
			go func() {
				c, err := ln.Accept()
				if err != nil {
					gozk <- "error " + err.Error()
					return
				}
				gozk <- gozkSide(tls.Server(c, src.ServerConfig()))
			}()
			port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
			_, wait := peer.run(t, javaProps(tc.client), tc.mode, "connect", "127.0.0.1", port)
			javaVerdict, gozkVerdict := wait(), <-gozk
			t.Logf("java %q, gozk %q", javaVerdict, gozkVerdict)
			checkVerdicts(t, javaVerdict, gozkVerdict, tc.okServer, tc.okClient, tc.server, tc.client)
		})
		t.Run(tc.name+"/gozk dials java", func(t *testing.T) {
			fault(t)
			src := gozkSource(t, prefix, tc.client, set.Trust.JKS, set.Password, quorum, tc.protocol, tc.enabled, tc.suites, tc.rc)
			port, wait := peer.run(t, javaProps(tc.server), tc.mode, "accept")
			conn, err := net.Dial("tcp", "127.0.0.1:"+port)
			if err != nil {
				t.Fatal(err)
			}
			gozkVerdict := gozkSide(src.Client(conn, "127.0.0.1"))
			javaVerdict := wait()
			t.Logf("gozk %q, java %q", gozkVerdict, javaVerdict)
			checkVerdicts(t, gozkVerdict, javaVerdict, tc.okServer, tc.okClient, tc.server, tc.client)
		})
	}
}

// checkVerdicts: with both certificates acceptable, dialer and
// acceptor both succeed and name each other as Java's
// X500Principal.getName() does; otherwise the side that must refuse
// does (and the connection fails for the other).
func checkVerdicts(t *testing.T, dialer, acceptor string, okServer, okClient bool, server, client certtest.Bundle) {
	t.Helper()
	switch {
	case !okServer:
		if strings.HasPrefix(dialer, "ok") {
			t.Fatalf("the dialer accepted the server's certificate: dialer %q, acceptor %q", dialer, acceptor)
		}
	case !okClient:
		if strings.HasPrefix(acceptor, "ok") {
			t.Fatalf("the acceptor accepted the dialer's certificate: dialer %q, acceptor %q", dialer, acceptor)
		}
	default:
		serverDN, clientDN := dnOf(t, server), dnOf(t, client)
		if dialer != "ok "+serverDN || acceptor != "ok "+clientDN {
			t.Fatalf("dialer %q (want ok %s), acceptor %q (want ok %s)", dialer, serverDN, acceptor, clientDN)
		}
	}
}

// dnOf is the bundle's subject as tlsconf.SubjectDN prints it; Java's
// verdict line must carry the same text.
func dnOf(t *testing.T, b certtest.Bundle) string {
	t.Helper()
	c, err := tls.LoadX509KeyPair(b.CertPEM, b.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return tlsconf.SubjectDN(c.Leaf)
}
