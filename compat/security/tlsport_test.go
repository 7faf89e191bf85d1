//go:build interop

package security

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/javaprog"
	"github.com/gozk/gozk/compat/javazk"
	"github.com/gozk/gozk/compat/suite"
	"github.com/gozk/gozk/compat/zkcli"
	"github.com/gozk/gozk/internal/certtest"
	"github.com/gozk/gozk/internal/testport"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// The TLS tests of the client port run Apache ZooKeeper 3.8.0
// (ZooKeeperServerMain with NettyServerCnxnFactory, which its secure port
// needs) and gozk with the same zoo.cfg lines and the same stores, and
// have the Java client, Curator, kazoo and go-zookeeper do the same
// things against both: the facts they report must be equal.

// tlsportSubjects are the client certificates: alice owns nodes, bob is
// someone else, admin is the x509 super user.
var tlsportSubjects = []string{
	"/O=gozk test/OU=clients/CN=alice",
	"/O=gozk test/OU=clients/CN=bob",
	"/O=gozk test/OU=clients/CN=admin",
}

// tlsportServer is one server under test, its plain and TLS addresses.
type tlsportServer struct {
	name       string
	plain, tls string
}

// tlsportServers starts Java and gozk with the same extra zoo.cfg lines
// and a secure client port each (unless secure is false).
func tlsportServers(t *testing.T, certs *certtest.Set, secure bool, extra ...string) []tlsportServer {
	t.Helper()
	lines := []string{
		"serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory",
		"ssl.keyStore.location=" + certs.Server.P12,
		"ssl.keyStore.password=" + certs.Password,
		"ssl.trustStore.location=" + certs.Trust.P12,
		"ssl.trustStore.password=" + certs.Password,
		"X509AuthenticationProvider.superUser=" + certs.Clients[2].SubjectDN,
	}
	lines = append(lines, extra...)
	tlsportJavaClasspath(t)
	var out []tlsportServer
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, name := range []string{"java", "gozk"} {
		cfg := slices.Clone(lines)
		port := 0
		if secure {
			port = testport.MustFree(t)
			cfg = append(cfg, "secureClientPort="+strconv.Itoa(port), "secureClientPortAddress=127.0.0.1")
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var plain string
			if name == "java" {
				plain = javazk.Start(t, javazk.Options{Config: cfg, Log: true}).Addr
			} else {
				plain = gozkproc.Start(t, gozkproc.Options{Config: cfg}).Addr()
			}
			s := tlsportServer{name: name, plain: plain}
			if secure {
				s.tls = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
			}
			mu.Lock()
			out = append(out, s)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if t.Failed() || len(out) != 2 {
		t.FailNow()
	}
	slices.SortFunc(out, func(a, b tlsportServer) int { return strings.Compare(b.name, a.name) }) // java first
	return out
}

// tlsportNettyJars are the Netty jars Java's TLS (its Netty server
// factory and client socket) needs besides those zookeeper.jar's manifest
// names: Debian's manifest leaves out netty-codec and netty-resolver.
var tlsportNettyJars = []string{"netty-codec.jar", "netty-resolver.jar"}

// tlsportClientJars are the Java client's and Curator's jars with Netty's.
func tlsportClientJars() []string {
	return append(append(slices.Clone(javaprog.CuratorJars), javaprog.ZooKeeperJars...), tlsportNettyJars...)
}

// tlsportJavaClasspath gives the Java server the Netty jars its manifest
// leaves out (and SLF4J's simple binding, for its log).
func tlsportJavaClasspath(t *testing.T) {
	if os.Getenv(javazk.EnvClasspath) != "" {
		return
	}
	dir := os.Getenv(javazk.EnvLibDir)
	if dir == "" {
		dir = javazk.DefaultLibDir
	}
	cp := []string{filepath.Join(dir, "zookeeper.jar"), filepath.Join(dir, "slf4j-simple.jar")}
	for _, j := range tlsportNettyJars {
		cp = append(cp, filepath.Join(dir, j))
	}
	t.Setenv(javazk.EnvClasspath, strings.Join(cp, string(os.PathListSeparator)))
}

// tlsportSame fails unless every server reported the same facts.
func tlsportSame(t *testing.T, what string, facts map[string][]string) {
	t.Helper()
	java, gozk := facts["java"], facts["gozk"]
	if diff := suite.DiffFacts(java, gozk); diff != "" || len(java) == 0 {
		t.Errorf("%s: gozk differs from Java 3.8.0:\n%s\njava: %q\ngozk: %q", what, diff, java, gozk)
		return
	}
	t.Logf("%s: java and gozk agree: %q", what, java)
}

func tlsportCerts(t *testing.T) *certtest.Set {
	return certtest.New(t, certtest.Options{Clients: tlsportSubjects})
}

// TestTLSJavaClientsAndX509 has the Java client, Curator and kazoo use
// the secure port: a session, a node with an x509 ACL for alice, bob
// refused with NoAuth, the super user allowed, addauth x509, whoami.
func TestTLSJavaClientsAndX509(t *testing.T) {
	certs := tlsportCerts(t)
	servers := tlsportServers(t, certs, true)
	prog := javaprog.Compile(t, "TlsClient", tlsportClientJars(), "testdata/TlsClient.java")
	alice, bob, admin := certs.Clients[0], certs.Clients[1], certs.Clients[2]
	java := func(addr, api string, b *certtest.Bundle, ops ...string) []string {
		ks := "-"
		if b != nil {
			ks = b.P12
		}
		args := append([]string{addr, api, ks, certs.Trust.P12, certs.Password, "15"}, ops...)
		run := prog.Run(t, 2*time.Minute, nil, args...)
		return tlsportFacts(run.Log)
	}
	cases := []struct {
		name string
		run  func(s tlsportServer) []string
	}{
		{"java client alice", func(s tlsportServer) []string {
			return java(s.tls, "zk", &alice, "create:/tls", "get:/tls", "create:/x509:"+alice.SubjectDN, "get:/x509", "whoami", "addauth", "whoami")
		}},
		{"java client bob", func(s tlsportServer) []string { return java(s.tls, "zk", &bob, "get:/x509", "get:/tls") }},
		{"java client super user", func(s tlsportServer) []string { return java(s.tls, "zk", &admin, "get:/x509", "whoami") }},
		{"java client plain port addauth x509", func(s tlsportServer) []string { return java(s.plain, "plain", nil, "get:/tls", "addauth") }},
		{"zkCli.sh alice", func(s tlsportServer) []string {
			return tlsportZkCli(t, s.tls, certs, &alice, "create /zkcli v", "get /zkcli", "getAcl /x509", "get /x509", "whoami")
		}},
		{"zkCli.sh bob", func(s tlsportServer) []string {
			return tlsportZkCli(t, s.tls, certs, &bob, "get /x509", "get /zkcli")
		}},
		{"curator alice", func(s tlsportServer) []string {
			return java(s.tls, "curator", &alice, "create:/curator", "get:/curator", "get:/x509")
		}},
		{"kazoo alice and bob", func(s tlsportServer) []string {
			out := tlsportKazoo(t, s.tls, certs, &alice, "create:/kazoo:"+alice.SubjectDN, "get:/kazoo")
			return append(out, tlsportKazoo(t, s.tls, certs, &bob, "get:/kazoo", "get:/tls")...)
		}},
		{"go-zookeeper alice and bob", func(s tlsportServer) []string {
			return append(tlsportGoZK(t, s.tls, certs, &alice, alice.SubjectDN), tlsportGoZK(t, s.tls, certs, &bob, alice.SubjectDN)...)
		}},
	}
	for _, c := range cases {
		facts := map[string][]string{}
		for _, s := range servers {
			facts[s.name] = c.run(s)
		}
		tlsportSame(t, c.name, facts)
	}
}

// TestTLSRefusals checks that what Java refuses gozk refuses, for the
// Java client and for a bare TLS client: an untrusted or expired
// certificate, none with ssl.clientAuth=need, a plaintext client on the
// secure port, a TLS client on a plain port without unification.
func TestTLSRefusals(t *testing.T) {
	certs := tlsportCerts(t)
	servers := tlsportServers(t, certs, true)
	prog := javaprog.Compile(t, "TlsClient", tlsportClientJars(), "testdata/TlsClient.java")
	javaConnects := func(addr, api, ks string) []string {
		run := prog.Run(t, 2*time.Minute, nil, addr, api, ks, certs.Trust.P12, certs.Password, "8", "get:/")
		return tlsportFacts(run.Log)
	}
	cases := []struct {
		name string
		run  func(s tlsportServer) []string
	}{
		{"java client untrusted certificate", func(s tlsportServer) []string { return javaConnects(s.tls, "zk", certs.Untrusted.P12) }},
		{"java client expired certificate", func(s tlsportServer) []string { return javaConnects(s.tls, "zk", certs.Expired.P12) }},
		{"java client no certificate", func(s tlsportServer) []string { return javaConnects(s.tls, "zk", "-") }},
		{"java plaintext client on the TLS port", func(s tlsportServer) []string { return javaConnects(s.tls, "plain", "-") }},
		{"java TLS client on the plain port", func(s tlsportServer) []string { return javaConnects(s.plain, "zk", certs.Clients[0].P12) }},
		{"bare TLS untrusted", func(s tlsportServer) []string { return tlsportBare(t, s.tls, certs, &certs.Untrusted, true) }},
		{"bare TLS expired", func(s tlsportServer) []string { return tlsportBare(t, s.tls, certs, &certs.Expired, true) }},
		{"bare TLS no certificate", func(s tlsportServer) []string { return tlsportBare(t, s.tls, certs, nil, true) }},
		{"bare plaintext on the TLS port", func(s tlsportServer) []string { return tlsportBare(t, s.tls, certs, nil, false) }},
		{"bare TLS on the plain port", func(s tlsportServer) []string { return tlsportBare(t, s.plain, certs, &certs.Clients[0], true) }},
		{"bare TLS trusted", func(s tlsportServer) []string { return tlsportBare(t, s.tls, certs, &certs.Clients[0], true) }},
		{"kazoo untrusted", func(s tlsportServer) []string { return tlsportKazoo(t, s.tls, certs, &certs.Untrusted, "get:/") }},
		{"go-zookeeper expired", func(s tlsportServer) []string {
			return tlsportGoZK(t, s.tls, certs, &certs.Expired, certs.Clients[0].SubjectDN)
		}},
	}
	for _, c := range cases {
		facts := map[string][]string{}
		for _, s := range servers {
			facts[s.name] = c.run(s)
		}
		tlsportSame(t, c.name, facts)
	}
}

// TestTLSPortUnification serves plain and TLS clients on one port
// (client.portUnification), four-letter words included.
func TestTLSPortUnification(t *testing.T) {
	certs := tlsportCerts(t)
	// Java 3.8.0 standalone registers the x509 provider for a unified
	// port too late (after its provider registry has been read): without
	// this line it closes every TLS client ("X509 Auth provider not
	// found: x509"). gozk registers it by itself either way.
	servers := tlsportServers(t, certs, false, "client.portUnification=true", "4lw.commands.whitelist=*",
		"authProvider.x509=org.apache.zookeeper.server.auth.X509AuthenticationProvider")
	prog := javaprog.Compile(t, "TlsClient", tlsportClientJars(), "testdata/TlsClient.java")
	alice := certs.Clients[0]
	cases := []struct {
		name string
		run  func(s tlsportServer) []string
	}{
		{"java TLS client", func(s tlsportServer) []string {
			run := prog.Run(t, 2*time.Minute, nil, s.plain, "zk", alice.P12, certs.Trust.P12, certs.Password, "15", "create:/u:"+alice.SubjectDN, "get:/u", "whoami")
			return tlsportFacts(run.Log)
		}},
		{"java plain client", func(s tlsportServer) []string {
			run := prog.Run(t, 2*time.Minute, nil, s.plain, "plain", "-", certs.Trust.P12, certs.Password, "15", "get:/u", "create:/p")
			return tlsportFacts(run.Log)
		}},
		{"bare TLS and plain", func(s tlsportServer) []string {
			return append(tlsportBare(t, s.plain, certs, &alice, true), tlsportBare(t, s.plain, certs, nil, false)...)
		}},
		{"plain ruok", func(s tlsportServer) []string {
			out, err := javazk.FourLetterWord(s.plain, "ruok")
			return []string{fmt.Sprintf("ruok %q %v", out, err)}
		}},
	}
	for _, c := range cases {
		facts := map[string][]string{}
		for _, s := range servers {
			facts[s.name] = c.run(s)
		}
		tlsportSame(t, c.name, facts)
	}
}

// tlsportFacts picks the FACT lines out of a program's output.
func tlsportFacts(log string) []string {
	var facts []string
	for _, l := range strings.Split(log, "\n") {
		if f, ok := strings.CutPrefix(l, "FACT "); ok {
			facts = append(facts, f)
		}
	}
	return facts
}

// tlsportZkCli runs Debian's zkCli.sh over TLS with b's key store, the
// commands on its standard input, and returns its normalized transcript.
// Debian's zkCli.sh puts only zookeeper.jar on the class path, whose
// manifest lacks netty-codec and netty-resolver, without which the Netty
// client socket that TLS needs cannot load: the class path is given again
// in CLIENT_JVMFLAGS (java takes the last -cp).
func tlsportZkCli(t *testing.T, addr string, certs *certtest.Set, b *certtest.Bundle, commands ...string) []string {
	t.Helper()
	cli, err := zkcli.Find()
	if err != nil {
		suite.Unavailable(t, err.Error())
	}
	dir := os.Getenv(javazk.EnvLibDir)
	if dir == "" {
		dir = javazk.DefaultLibDir
	}
	cp := []string{"/etc/zookeeper/conf", filepath.Join(dir, "zookeeper.jar")}
	for _, j := range tlsportNettyJars {
		cp = append(cp, filepath.Join(dir, j))
	}
	flags := []string{
		"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-cp", strings.Join(cp, ":"),
		"-Dzookeeper.client.secure=true",
		"-Dzookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty",
		"-Dzookeeper.ssl.keyStore.location=" + b.P12,
		"-Dzookeeper.ssl.keyStore.password=" + certs.Password,
		"-Dzookeeper.ssl.trustStore.location=" + certs.Trust.P12,
		"-Dzookeeper.ssl.trustStore.password=" + certs.Password,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cli, "-server", addr)
	cmd.Env = append(os.Environ(), "TZ=UTC", "CLIENT_JVMFLAGS="+strings.Join(flags, " "), "JVMFLAGS=")
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader(strings.Join(commands, "\n") + "\n")
	out, _ := cmd.CombinedOutput()
	lines := zkcli.Normalize(string(out), addr).Lines
	if len(lines) == 0 {
		t.Logf("zkCli printed nothing we keep:\n%s", out)
	}
	return lines
}

// tlsportKazoo runs testdata/kazoo_tls.py with Debian's python3-kazoo.
func tlsportKazoo(t *testing.T, addr string, certs *certtest.Set, b *certtest.Bundle, ops ...string) []string {
	t.Helper()
	py := "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import kazoo").CombinedOutput(); err != nil {
		suite.Unavailable(t, fmt.Sprintf("%s cannot import kazoo (%v: %s); apt-get install -y python3-kazoo", py, err, out))
	}
	cert, key := "-", "-"
	if b != nil {
		cert, key = b.CertPEM, b.KeyPEM
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{filepath.Join("testdata", "kazoo_tls.py"), addr, cert, key, certs.Trust.PEM, "8"}, ops...)
	out, _ := exec.CommandContext(ctx, py, args...).CombinedOutput()
	facts := tlsportFacts(string(out))
	if len(facts) == 0 {
		t.Logf("kazoo printed no facts:\n%s", out)
	}
	return facts
}

// tlsportClientTLS is a Go client's TLS configuration with b's
// certificate (nil: none).
func tlsportClientTLS(t *testing.T, certs *certtest.Set, b *certtest.Bundle) *tls.Config {
	t.Helper()
	ca, err := os.ReadFile(certs.Trust.PEM)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	cfg := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}
	if b != nil {
		pair, err := tls.LoadX509KeyPair(b.CertPEM, b.KeyPEM)
		if err != nil {
			t.Fatal(err)
		}
		// Sent whatever CA the server asks for, as Java's client does.
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &pair, nil }
	}
	return cfg
}

// tlsportGoZK uses go-zookeeper over TLS (zk.WithDialer): a session, and
// what it may do with a node whose ACL is x509:<owner>.
func tlsportGoZK(t *testing.T, addr string, certs *certtest.Set, b *certtest.Bundle, owner string) []string {
	t.Helper()
	cfg := tlsportClientTLS(t, certs, b)
	dialer := func(network, address string, timeout time.Duration) (net.Conn, error) {
		return tls.DialWithDialer(&net.Dialer{Timeout: timeout}, network, address, cfg)
	}
	c, ev, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogInfo(false), zk.WithDialer(dialer))
	if err != nil {
		return []string{"connect " + err.Error()}
	}
	defer c.Close()
	deadline := time.After(8 * time.Second)
	for c.State() != zk.StateHasSession {
		select {
		case <-ev:
		case <-deadline:
			return []string{"go-zookeeper session false"}
		}
	}
	facts := []string{"go-zookeeper session true"}
	_, err = c.Create("/gozk-x509", []byte("v"), 0, []zk.ACL{{Perms: zk.PermAll, Scheme: "x509", ID: owner}})
	facts = append(facts, fmt.Sprintf("create x509 ACL: %v", errOrOK(err)))
	_, _, err = c.Get("/gozk-x509")
	facts = append(facts, fmt.Sprintf("get: %v", errOrOK(err)))
	return facts
}

func errOrOK(err error) string {
	if err == nil || errors.Is(err, zk.ErrNodeExists) {
		if err != nil {
			return "exists"
		}
		return "ok"
	}
	return err.Error()
}

// tlsportBare connects with nothing but crypto/tls (useTLS) or TCP, sends
// a ConnectRequest and says whether a session came back. Refusals differ
// in detail (the alert, when the close comes) between JDK's TLS and
// Go's, so the fact is only whether a session was made.
func tlsportBare(t *testing.T, addr string, certs *certtest.Set, b *certtest.Bundle, useTLS bool) []string {
	t.Helper()
	raw := tlsportDial(t, addr)
	defer raw.Close()
	var conn net.Conn = raw
	if useTLS {
		tc := tls.Client(raw, tlsportClientTLS(t, certs, b))
		if err := tc.Handshake(); err != nil {
			t.Logf("%s: handshake: %v", addr, err)
			return []string{"session false"}
		}
		conn = tc
	}
	h := proto.Handshake{ConnectRequest: proto.ConnectRequest{TimeOut: 10000, Passwd: make([]byte, proto.PasswordLength)}}
	payload := jute.Marshal(&h)
	frame := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
	if _, err := conn.Write(append(frame, payload...)); err != nil {
		t.Logf("%s: write: %v", addr, err)
		return []string{"session false"}
	}
	br := bufio.NewReader(conn)
	var head [4]byte
	if _, err := io.ReadFull(br, head[:]); err != nil {
		t.Logf("%s: read: %v", addr, err)
		return []string{"session false"}
	}
	reply := make([]byte, binary.BigEndian.Uint32(head[:]))
	if _, err := io.ReadFull(br, reply); err != nil {
		return []string{"session false"}
	}
	var hr proto.HandshakeReply
	r := jute.NewReader(reply)
	hr.Decode(r)
	return []string{fmt.Sprintf("session %v", r.Err() == nil && hr.TimeOut > 0)}
}

// TestTLSRevocation: with ssl.crl=true a client whose certificate the
// CA's CRL lists is refused by both servers, and one it does not list
// is served, for the Java client, kazoo and a bare TLS client; a client certificate that names no CRL is refused too (its
// status cannot be determined). The CRL is served on loopback by the
// test's CA.
func TestTLSRevocation(t *testing.T) {
	certs := tlsportCerts(t)
	rev := certs.ServeRevocations(t)
	good := certs.IssueExt(t, "crl-good", "/O=gozk test/OU=clients/CN=crl-good", rev.Extensions(true, false))
	revoked := certs.IssueExt(t, "crl-revoked", "/O=gozk test/OU=clients/CN=crl-revoked", rev.Extensions(true, false))
	rev.Revoke(t, revoked)
	servers := tlsportServers(t, certs, true, "ssl.crl=true")
	prog := javaprog.Compile(t, "TlsClient", tlsportClientJars(), "testdata/TlsClient.java")
	javaConnects := func(addr string, b certtest.Bundle) []string {
		run := prog.Run(t, 2*time.Minute, nil, addr, "zk", b.P12, certs.Trust.P12, certs.Password, "8", "get:/")
		return tlsportFacts(run.Log)
	}
	cases := []struct {
		name string
		run  func(s tlsportServer) []string
	}{
		{"java client not revoked", func(s tlsportServer) []string { return javaConnects(s.tls, good) }},
		{"java client revoked", func(s tlsportServer) []string { return javaConnects(s.tls, revoked) }},
		{"java client without a CRL distribution point", func(s tlsportServer) []string { return javaConnects(s.tls, certs.Clients[0]) }},
		{"kazoo revoked", func(s tlsportServer) []string { return tlsportKazoo(t, s.tls, certs, &revoked, "get:/") }},
		{"bare TLS not revoked", func(s tlsportServer) []string { return tlsportBare(t, s.tls, certs, &good, true) }},
		{"bare TLS revoked", func(s tlsportServer) []string { return tlsportBare(t, s.tls, certs, &revoked, true) }},
	}
	for _, c := range cases {
		facts := map[string][]string{}
		for _, s := range servers {
			facts[s.name] = c.run(s)
		}
		tlsportSame(t, c.name, facts)
	}
	if n := rev.Requests("/ca.crl"); n == 0 {
		t.Fatal("no server fetched the CRL")
	}
}

// TestTLSHandshakeLimit: with zookeeper.netty.server.outstandingHandshake.limit=1
// on a unified client port and one connection held there before it has
// said TLS or plain, both servers close the next TLS client at once;
// once the held one is gone the next is served. The secure port is not
// throttled by either (ZooKeeper 3.8 decides on throttling before it
// knows the port is secure). mntr's handshake counters agree.
func TestTLSHandshakeLimit(t *testing.T) {
	certs := tlsportCerts(t)
	// gozk serves a unified port's silent connection as plain after
	// ssl.handshakeDetectionTimeoutMillis (Java waits): a minute keeps the
	// held connection counted however slow the machine.
	servers := tlsportServers(t, certs, true, "client.portUnification=true", "netty.server.outstandingHandshake.limit=1",
		"ssl.handshakeDetectionTimeoutMillis=60000",
		"4lw.commands.whitelist=*", "authProvider.x509=org.apache.zookeeper.server.auth.X509AuthenticationProvider")
	counters := func(s tlsportServer) []string {
		out, err := javazk.FourLetterWord(s.plain, "mntr")
		if err != nil {
			t.Fatalf("%s mntr: %v", s.name, err)
		}
		var facts []string
		for _, l := range strings.Split(out, "\n") {
			for _, k := range []string{"zk_tls_handshake_exceeded\t", "zk_unsuccessful_handshake\t", "zk_auth_failed_count\t"} {
				if strings.HasPrefix(l, k) {
					facts = append(facts, l)
				}
			}
		}
		return facts
	}
	// settle reads the counters once they stop changing: the servers
	// count a closed connection on their own threads.
	settle := func(s tlsportServer) []string {
		prev := counters(s)
		for range 50 {
			time.Sleep(100 * time.Millisecond)
			cur := counters(s)
			if slices.Equal(cur, prev) {
				return cur
			}
			prev = cur
		}
		return prev
	}
	facts := map[string][]string{}
	for _, s := range servers {
		// The start-up probes may have crossed the limit already:
		// counting starts here (srst zeroes the metrics on both).
		if _, err := javazk.FourLetterWord(s.plain, "srst"); err != nil {
			t.Fatalf("%s srst: %v", s.name, err)
		}
		held, err := net.DialTimeout("tcp", s.plain, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond) // the server has counted it
		f := append([]string{"unified port, over the limit:"}, tlsportBare(t, s.plain, certs, &certs.Clients[0], true)...)
		f = append(f, "secure port, over the limit:")
		f = append(f, tlsportBare(t, s.tls, certs, &certs.Clients[0], true)...)
		_ = held.Close()
		time.Sleep(500 * time.Millisecond)
		f = append(f, "unified port, after the held one closed:")
		f = append(f, tlsportBare(t, s.plain, certs, &certs.Clients[0], true)...)
		f = append(f, settle(s)...)
		facts[s.name] = f
	}
	tlsportSame(t, "handshake limit", facts)
}

// TestEarlyDropSecureHandshakes: a member of a three-server ensemble
// started alone stays electing and serves no client. On its secure
// client port, with zookeeper.netty.server.earlyDropSecureConnectionHandshakes
// both Java and gozk close a TLS client before the handshake; without it
// both finish the handshake and close the connection at its
// ConnectRequest.
func TestEarlyDropSecureHandshakes(t *testing.T) {
	certs := tlsportCerts(t)
	tlsportJavaClasspath(t)
	for _, early := range []bool{true, false} {
		facts := map[string][]string{}
		for _, kind := range []memberKind{kindJava, kindGozk} {
			ms := newEnsemble(t, "127.0.0.1", kind, kind, kind)
			secure := testport.MustFree(t)
			ms[0].startWith(
				"serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory",
				"secureClientPort="+strconv.Itoa(secure), "secureClientPortAddress=127.0.0.1",
				"ssl.keyStore.location="+certs.Server.P12, "ssl.keyStore.password="+certs.Password,
				"ssl.trustStore.location="+certs.Trust.P12, "ssl.trustStore.password="+certs.Password,
				"netty.server.earlyDropSecureConnectionHandshakes="+strconv.FormatBool(early))
			addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(secure))
			deadline := time.Now().Add(memberWait)
			for {
				c, err := net.DialTimeout("tcp", addr, time.Second)
				if err == nil {
					c.Close()
					break
				}
				if time.Now().After(deadline) || ms[0].exitedEarly() {
					t.Fatalf("%v never opened its secure port: %v\n%s", ms[0], err, tail(ms[0].log(), 4000))
				}
				time.Sleep(200 * time.Millisecond)
			}
			time.Sleep(time.Second) // electing, alone
			facts[string(kind)] = append(tlsportHandshakeOnly(t, addr, certs, &certs.Clients[0]), tlsportBare(t, addr, certs, &certs.Clients[0], true)...)
			ms[0].kill()
		}
		tlsportSame(t, fmt.Sprintf("earlyDropSecureConnectionHandshakes=%v on an electing member", early), facts)
	}
}

// tlsportDial opens a TCP connection to addr for a bare client, with 20 s
// for all it does.
func tlsportDial(t *testing.T, addr string) net.Conn {
	t.Helper()
	raw, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_ = raw.SetDeadline(time.Now().Add(20 * time.Second))
	return raw
}

// tlsportHandshakeOnly reports whether the client's side of a TLS
// handshake with addr finishes.
func tlsportHandshakeOnly(t *testing.T, addr string, certs *certtest.Set, b *certtest.Bundle) []string {
	t.Helper()
	raw := tlsportDial(t, addr)
	defer raw.Close()
	tc := tls.Client(raw, tlsportClientTLS(t, certs, b))
	if err := tc.Handshake(); err != nil {
		return []string{"handshake false"}
	}
	return []string{"handshake true"}
}
