//go:build interop

package security

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/javaprog"
	"github.com/gozk/gozk/internal/kdctest"
	"github.com/gozk/gozk/sasl"
)

// The Kerberos interop tests: one private KDC (internal/kdctest), one
// JAAS file, keytabs and krb5.conf, used alike by gozk and by Apache
// ZooKeeper 3.8.0, with the JDK's GSSAPI client (the ZooKeeper Java
// client, and the bare SaslClient/SaslServer) and kazoo (pure-sasl over
// MIT's libgssapi via python3-kerberos) on the other side.

// krbLimit bounds one client program run: a guard against a hung
// program, not a performance check.
const krbLimit = 3 * time.Minute

// kerberosEnv is a realm plus the JAAS file every party reads.
type kerberosEnv struct {
	kdc  *kdctest.KDC
	jaas string
	prog *javaprog.Program
}

func startKerberos(t *testing.T) *kerberosEnv {
	t.Helper()
	k := kdctest.Start(t)
	entry := func(name string) string {
		return fmt.Sprintf(`com.sun.security.auth.module.Krb5LoginModule required
  useKeyTab=true
  keyTab="%s"
  storeKey=true
  useTicketCache=false
  principal="%s";`, k.Keytab(name), kdctest.Principal(name))
	}
	jaas := fmt.Sprintf("Server {\n  %s\n};\nClient {\n  %s\n};\nAlice {\n  %s\n};\nHostClient {\n  %s\n};\n",
		entry(kdctest.ServicePrincipal), entry(kdctest.ClientPrincipal), entry(kdctest.OtherPrincipal), entry(kdctest.QuorumPrincipal))
	path := filepath.Join(k.Dir, "jaas.conf")
	if err := os.WriteFile(path, []byte(jaas), 0o600); err != nil {
		t.Fatal(err)
	}
	return &kerberosEnv{kdc: k, jaas: path}
}

// serverProps are the -D flags both servers run with.
func (e *kerberosEnv) serverProps(extra map[string]string) map[string]string {
	p := map[string]string{
		"java.security.auth.login.config": e.jaas,
		"java.security.krb5.conf":         e.kdc.Krb5Conf,
		"zookeeper.authProvider.1":        "org.apache.zookeeper.server.auth.SASLAuthenticationProvider",
	}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

// startKrbBackends starts both servers with the realm's -D flags,
// addressed as "localhost:<port>" so that clients ask for a ticket to
// zookeeper/localhost.
func startKrbBackends(t *testing.T, e *kerberosEnv, extra map[string]string) []backend {
	t.Helper()
	return startBackends(t, "localhost", e.serverProps(extra))
}

// compileProbe compiles the Java side once per realm (the classes live
// in the test's temporary directory).
func (e *kerberosEnv) compileProbe(t *testing.T) *javaprog.Program {
	t.Helper()
	if e.prog == nil {
		e.prog = javaprog.Compile(t, "KerberosProbe", javaprog.ZooKeeperJars, filepath.Join("testdata", "kerberos", "KerberosProbe.java"))
	}
	return e.prog
}

// javaCmd runs the probe with the realm's JAAS file and krb5.conf.
func (e *kerberosEnv) javaCmd(ctx context.Context, p *javaprog.Program, args ...string) *exec.Cmd {
	return e.javaCmdWith(ctx, p, nil, args...)
}

// javaCmdWith adds JVM flags (-D) before the main class.
func (e *kerberosEnv) javaCmdWith(ctx context.Context, p *javaprog.Program, flags []string, args ...string) *exec.Cmd {
	jvm := []string{"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx256m",
		"-Djava.security.auth.login.config=" + e.jaas,
		"-Djava.security.krb5.conf=" + e.kdc.Krb5Conf,
		"-Dzookeeper.sasl.client.canonicalize.hostname=false"}
	jvm = append(append(jvm, flags...), "-cp", strings.Join(p.Classpath, ":"), p.Main)
	cmd := exec.CommandContext(ctx, p.Java, append(jvm, args...)...)
	cmd.Env = os.Environ()
	return cmd
}

// runJavaZK runs the ZooKeeper Java client as the JAAS section's
// principal (the probe reads the section "Client"; another section is
// passed as zookeeper.sasl.clientconfig).
func (e *kerberosEnv) runJavaZK(t *testing.T, section, addr, path, aclID string) []string {
	t.Helper()
	p := e.compileProbe(t)
	ctx, cancel := context.WithTimeout(context.Background(), krbLimit)
	defer cancel()
	cmd := e.javaCmd(ctx, p, "zk", addr, path, aclID)
	cmd.Args = append(cmd.Args[:1], append([]string{"-Dzookeeper.sasl.clientconfig=" + section}, cmd.Args[1:]...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("java zk %s %s: %v\n%s", addr, path, err, out)
	}
	return krbProbeLines(string(out))
}

func krbProbeLines(out string) []string {
	return probeLines(out, "EVENT ", "WHOAMI", "CREATE ", "READ ", "START ", "SASL failed")
}

// krbKazooScript authenticates with GSSAPI through kazoo, then creates the
// path with a sasl ACL or reads it, and prints the outcome as the Java
// probe does.
const krbKazooScript = kazooStartSASL + `
import sys
from kazoo.client import KazooClient
from kazoo.security import make_acl
from kazoo.exceptions import NoAuthError, AuthFailedError
hosts, principal, path, acl_id = sys.argv[1:5]
zk = KazooClient(hosts=hosts, timeout=30, sasl_options={'mechanism': 'GSSAPI', 'principal': principal})
if not startSeeingConnected(zk, 60):
    print('START timeout')
    sys.exit(0)
try:
    print('START ok')
    if acl_id == '-':
        zk.get(path)
        print('READ ok')
    else:
        zk.create(path, b'\x01', acl=[make_acl('sasl', acl_id, all=True)])
        print('CREATE ok')
except NoAuthError:
    print(('READ' if acl_id == '-' else 'CREATE') + ' NOAUTH')
except AuthFailedError:
    print('SASL failed')
zk.stop()
`

// runKazoo runs kazoo as principal name, with its keytab as MIT's client
// keytab (KRB5_CLIENT_KTNAME): MIT gets the ticket itself.
func (e *kerberosEnv) runKazoo(t *testing.T, name, addr, path, aclID string) []string {
	t.Helper()
	py := kazooPython(t, []string{"kazoo", "puresasl", "kerberos"}, "python3-kazoo python3-pure-sasl python3-kerberos")
	ctx, cancel := context.WithTimeout(context.Background(), krbLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "-c", krbKazooScript, addr, kdctest.Principal(name), path, aclID)
	cmd.Env = append(append(os.Environ(), e.kdc.Env()...),
		"KRB5_CLIENT_KTNAME="+e.kdc.Keytab(name),
		"KRB5CCNAME=FILE:"+filepath.Join(t.TempDir(), "ccache"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kazoo %s %s: %v\n%s", addr, path, err, out)
	}
	return krbProbeLines(string(out))
}

// TestKerberosClientsOnBothServers runs the Java client and kazoo with
// GSSAPI against gozk and Java with the same files: the identity the
// server gives each principal (whoami), sasl ACLs on Kerberos names, and
// another principal refused by them.
func TestKerberosClientsOnBothServers(t *testing.T) {
	e := startKerberos(t)
	e.compileProbe(t)
	onEach(t, startKrbBackends(t, e, nil), "", func(t *testing.T, b backend) {
		expectLines(t, "java client creates",
			e.runJavaZK(t, "Client", b.addr, "/krb-java", "client@EXAMPLE.COM"),
			"EVENT SaslAuthenticated", "WHOAMI sasl:client@EXAMPLE.COM ip:127.0.0.1", "CREATE ok")
		expectLines(t, "java client reads its node",
			e.runJavaZK(t, "Client", b.addr, "/krb-java", "-"),
			"EVENT SaslAuthenticated", "WHOAMI sasl:client@EXAMPLE.COM ip:127.0.0.1", "READ ok")
		expectLines(t, "another principal reads it",
			e.runJavaZK(t, "Alice", b.addr, "/krb-java", "-"),
			"EVENT SaslAuthenticated", "WHOAMI sasl:alice@EXAMPLE.COM ip:127.0.0.1", "READ NOAUTH")
		expectLines(t, "kazoo reads the java client's node",
			e.runKazoo(t, kdctest.ClientPrincipal, b.addr, "/krb-java", "-"),
			"START ok", "READ ok")
		expectLines(t, "kazoo creates",
			e.runKazoo(t, kdctest.OtherPrincipal, b.addr, "/krb-kazoo", "alice@EXAMPLE.COM"),
			"START ok", "CREATE ok")
		expectLines(t, "java client as alice reads kazoo's node",
			e.runJavaZK(t, "Alice", b.addr, "/krb-kazoo", "-"),
			"EVENT SaslAuthenticated", "WHOAMI sasl:alice@EXAMPLE.COM ip:127.0.0.1", "READ ok")
		expectLines(t, "kazoo as client reads alice's node",
			e.runKazoo(t, kdctest.ClientPrincipal, b.addr, "/krb-kazoo", "-"),
			"START ok", "READ NOAUTH")
	})
}

// TestKerberosNameShaping checks zookeeper.kerberos.removeHostFromPrincipal,
// removeRealmFromPrincipal and zookeeper.security.auth_to_local with a
// principal that has a host part (zkquorum/localhost), on both servers.
func TestKerberosNameShaping(t *testing.T) {
	e := startKerberos(t)
	e.compileProbe(t)
	for _, tc := range []struct {
		props map[string]string
		id    string
	}{
		{nil, "zkquorum/localhost@EXAMPLE.COM"},
		{map[string]string{"zookeeper.kerberos.removeHostFromPrincipal": "true"}, "zkquorum@EXAMPLE.COM"},
		{map[string]string{"zookeeper.kerberos.removeRealmFromPrincipal": "true"}, "zkquorum/localhost"},
		{map[string]string{"zookeeper.kerberos.removeHostFromPrincipal": "true", "zookeeper.kerberos.removeRealmFromPrincipal": "true"}, "zkquorum"},
		// An auth_to_local rule (one, as gozkproc passes -D flags split
		// at spaces).
		{map[string]string{"zookeeper.security.auth_to_local": "RULE:[2:$1](zkquorum)s/zk/ZK/"}, "ZKquorum/localhost@EXAMPLE.COM"},
	} {
		onEach(t, startKrbBackends(t, e, tc.props), tc.id, func(t *testing.T, b backend) {
			expectLines(t, "java client",
				e.runJavaZK(t, "HostClient", b.addr, "/shaped", tc.id),
				"EVENT SaslAuthenticated", "WHOAMI sasl:"+tc.id+" ip:127.0.0.1", "CREATE ok")
			expectLines(t, "kazoo as the same principal",
				e.runKazoo(t, kdctest.QuorumPrincipal, b.addr, "/shaped", "-"),
				"START ok", "READ ok")
		})
	}
}

// TestKerberosStaleServiceKey gives the service a new key once both
// servers hold the old one: every client's new ticket is then refused,
// and each client must end as it ends on Java.
func TestKerberosStaleServiceKey(t *testing.T) {
	e := startKerberos(t)
	e.compileProbe(t)
	backends := startKrbBackends(t, e, nil)
	if _, err := e.kdc.Kadmin("ktadd -k " + filepath.Join(e.kdc.Dir, "rekeyed.keytab") + " " + kdctest.ServicePrincipal); err != nil {
		t.Fatal(err)
	}
	onEach(t, backends, "", func(t *testing.T, b backend) {
		expectLines(t, "java client",
			e.runJavaZK(t, "Client", b.addr, "/stale", "-"),
			"EVENT AuthFailed")
		expectLines(t, "kazoo",
			e.runKazoo(t, kdctest.ClientPrincipal, b.addr, "/stale", "-"),
			"START ok", "SASL failed")
	})
}

// krbTokenPeer exchanges "TOKEN <base64>" lines with the probe.
type krbTokenPeer struct {
	in  io.Writer
	out *bufio.Scanner
	log *strings.Builder
}

func (p *krbTokenPeer) send(b []byte) {
	fmt.Fprintf(p.in, "TOKEN %s\n", base64.StdEncoding.EncodeToString(b))
}

// next returns the probe's next TOKEN (or DONE line).
func (p *krbTokenPeer) next() (tok []byte, done string, err error) {
	for p.out.Scan() {
		l := p.out.Text()
		p.log.WriteString(l + "\n")
		if s, ok := strings.CutPrefix(l, "TOKEN"); ok {
			b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
			return b, "", err
		}
		if s, ok := strings.CutPrefix(l, "DONE"); ok {
			return nil, strings.TrimSpace(s), nil
		}
	}
	return nil, "", fmt.Errorf("the probe ended:\n%s", p.log.String())
}

func (e *kerberosEnv) startProbe(t *testing.T, flags []string, args ...string) *krbTokenPeer {
	t.Helper()
	p := e.compileProbe(t)
	ctx, cancel := context.WithTimeout(context.Background(), krbLimit)
	t.Cleanup(cancel)
	cmd := e.javaCmdWith(ctx, p, flags, args...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	log := &strings.Builder{}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	return &krbTokenPeer{in: in, out: sc, log: log}
}

// TestKerberosJDKSaslClientAgainstGozk runs the JDK's GssKrb5Client
// against gozk's GSSAPI server, token by token, with no ZooKeeper around
// them.
func TestKerberosJDKSaslClientAgainstGozk(t *testing.T) {
	e := startKerberos(t)
	f, err := sasl.NewGSSAPIServerFactory(sasl.GSSAPIServerConfig{
		Login: sasl.Krb5Login{Section: "Server", Principal: kdctest.Principal(kdctest.ServicePrincipal),
			KeyTab: e.kdc.Keytab(kdctest.ServicePrincipal), UseKeyTab: true, StoreKey: true, IsInitiator: true},
		Krb5Conf: e.kdc.Krb5Conf,
	})
	if err != nil {
		t.Fatal(err)
	}
	peer := e.startProbe(t, nil, "saslclient", "Client", "zookeeper", "localhost")
	s, _ := f.NewServer()
	for i := 0; !s.Complete(); i++ {
		if i > 5 {
			t.Fatal("no end after 5 rounds")
		}
		tok, done, err := peer.next()
		if err != nil || done != "" {
			t.Fatalf("probe: %v %q", err, done)
		}
		chal, err := s.Evaluate(tok)
		if err != nil {
			t.Fatalf("round %d: %v\n%s", i, err, peer.log)
		}
		peer.send(chal)
	}
	if got := s.AuthorizationID(); got != "client@EXAMPLE.COM" {
		t.Errorf("authorization id %q", got)
	}
	if _, done, err := peer.next(); err != nil || done != "" && done != "DONE" {
		// The JDK client is complete after its last token.
		t.Logf("probe after completion: %q %v", done, err)
	}
}

// TestKerberosGozkClientAgainstJDKServer runs gozk's GSSAPI client (what
// quorum SASL's learner uses) against the JDK's GssKrb5Server.
func TestKerberosGozkClientAgainstJDKServer(t *testing.T) {
	e := startKerberos(t)
	jaas, err := sasl.ParseJAASFile(e.jaas)
	if err != nil {
		t.Fatal(err)
	}
	section, _ := jaas.Section("HostClient")
	ini, err := sasl.NewGSSAPIInitiatorFromSection(section, func(name string) (string, bool) {
		if name == "java.security.krb5.conf" {
			return e.kdc.Krb5Conf, true
		}
		return "", false
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ini.Close()
	e.compileProbe(t)
	// The JDK's acceptor sends a subkey of its own in the AP-REP only
	// with sun.security.krb5.acceptor.subkey=true; the client must then
	// check the wrap tokens with it.
	for _, flags := range [][]string{nil, {"-Dsun.security.krb5.acceptor.subkey=true"}} {
		t.Run(strings.Join(append([]string{"default"}, flags...), " "), func(t *testing.T) {
			peer := e.startProbe(t, flags, "saslserver", "Server", "zookeeper", "localhost")
			c, err := ini.NewClient("zookeeper/localhost@EXAMPLE.COM")
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Evaluate(nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; ; i++ {
				if i > 5 {
					t.Fatal("no end after 5 rounds")
				}
				peer.send(resp)
				chal, done, err := peer.next()
				if err != nil {
					t.Fatal(err)
				}
				if done != "" {
					if !c.Complete() {
						t.Fatalf("the JDK server is done (%s), the client is not", done)
					}
					if done != "zkquorum/localhost@EXAMPLE.COM" {
						t.Errorf("JDK's authorization id %q", done)
					}
					if !strings.Contains(peer.log.String(), "AUTHENTICATED zkquorum/localhost@EXAMPLE.COM AS zkquorum/localhost@EXAMPLE.COM") {
						t.Errorf("JDK callback:\n%s", peer.log)
					}
					return
				}
				if resp, err = c.Evaluate(chal); err != nil {
					t.Fatalf("round %d: %v\n%s", i, err, peer.log)
				}
			}
		})
	}
}
