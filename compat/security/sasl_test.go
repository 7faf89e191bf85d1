//go:build interop

package security

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/javaprog"
	"github.com/gozk/gozk/compat/javazk"
)

// The DIGEST-MD5 interop tests: one JAAS file with the server's accounts
// and the clients' sections, read alike by gozk, Apache ZooKeeper 3.8.0,
// the ZooKeeper Java client and kazoo. go-zookeeper (github.com/go-zookeeper/zk)
// has no SASL, so it is not among the clients.

// digestLimit bounds one client run: a guard against a hung client, not
// a performance check.
const digestLimit = 2 * time.Minute

const digestJAAS = `Server {
    org.apache.zookeeper.server.auth.DigestLoginModule required
    user_super="adminsecret"
    user_bob="bobsecret"
    user_alice="alicesecret";
};
Client {
    org.apache.zookeeper.server.auth.DigestLoginModule required
    username="bob"
    password="bobsecret";
};
Alice {
    org.apache.zookeeper.server.auth.DigestLoginModule required
    username="alice"
    password="alicesecret";
};
WrongPassword {
    org.apache.zookeeper.server.auth.DigestLoginModule required
    username="bob"
    password="not-bobs";
};
`

type digestEnv struct {
	jaas string
	prog *javaprog.Program
}

func newDigestEnv(t *testing.T) *digestEnv {
	t.Helper()
	path := filepath.Join(t.TempDir(), "jaas.conf")
	if err := os.WriteFile(path, []byte(digestJAAS), 0o600); err != nil {
		t.Fatal(err)
	}
	prog := javaprog.Compile(t, "DigestProbe", javaprog.ZooKeeperJars, filepath.Join("testdata", "sasl", "DigestProbe.java"))
	return &digestEnv{jaas: path, prog: prog}
}

// startDigestBackends starts Java and gozk with the same JAAS file and
// -D flags (the sasl provider on unless extra sets it to "").
func (e *digestEnv) startDigestBackends(t *testing.T, extra map[string]string) []backend {
	t.Helper()
	props := map[string]string{
		"java.security.auth.login.config": e.jaas,
		"zookeeper.authProvider.1":        "org.apache.zookeeper.server.auth.SASLAuthenticationProvider",
	}
	for k, v := range extra {
		if v == "" {
			delete(props, k)
		} else {
			props[k] = v
		}
	}
	return startBackends(t, "127.0.0.1", props)
}

// runJava runs the ZooKeeper Java client logging in with section.
func (e *digestEnv) runJava(t *testing.T, section, addr, path, aclID string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), digestLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.prog.Java, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx256m",
		"-Djava.security.auth.login.config="+e.jaas,
		"-Dzookeeper.sasl.clientconfig="+section,
		"-cp", strings.Join(e.prog.Classpath, ":"), e.prog.Main, addr, path, aclID)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("java %s %s: %v\n%s", addr, path, err, out)
	}
	return digestProbeLines(string(out))
}

func digestProbeLines(out string) []string {
	return probeLines(out, "EVENT ", "WHOAMI ", "CREATE ", "READ ")
}

// digestKazooScript logs in with DIGEST-MD5 through kazoo (pure-sasl):
// the session is connected before the login, and a failed login shows
// as AuthFailedError on the first request. It
// then creates PATH with a sasl ACL or reads it, printing lines as the
// Java probe does.
const digestKazooScript = kazooStartSASL + `
import sys
from kazoo.client import KazooClient
from kazoo.security import make_acl
from kazoo.exceptions import NoAuthError, KazooException
hosts, user, password, path, acl_id = sys.argv[1:6]
zk = KazooClient(hosts=hosts, timeout=10, connection_retry={'max_tries': 1},
                 sasl_options={'mechanism': 'DIGEST-MD5', 'username': user, 'password': password})
if not startSeeingConnected(zk, 30):
    print('EVENT Timeout')
    sys.exit(0)
print('EVENT Connected')
try:
    if acl_id == '-':
        zk.get(path)
        print('READ ok')
    else:
        zk.create(path, b'\x01', acl=[make_acl('sasl', acl_id, all=True)])
        print('CREATE ok')
except NoAuthError:
    print(('READ' if acl_id == '-' else 'CREATE') + ' NOAUTH')
except KazooException as e:
    print(('READ ' if acl_id == '-' else 'CREATE ') + type(e).__name__)
zk.stop()
`

func runDigestKazoo(t *testing.T, addr, user, password, path, aclID string) []string {
	t.Helper()
	py := kazooPython(t, []string{"kazoo", "puresasl"}, "python3-kazoo python3-pure-sasl")
	ctx, cancel := context.WithTimeout(context.Background(), digestLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "-c", digestKazooScript, addr, user, password, path, aclID)
	var stderr strings.Builder
	cmd.Stderr = &stderr // kazoo's threads print tracebacks there; keep them out of the lines
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kazoo %s %s: %v\n%s%s", addr, path, err, out, stderr.String())
	}
	if strings.Contains(string(out), "Timeout") {
		t.Logf("kazoo's stderr:\n%s", tailBytes(stderr.String(), 4000))
	}
	return digestProbeLines(string(out))
}

// TestDigestClientsOnBothServers: the Java client and kazoo log in with
// DIGEST-MD5 on gozk and on Java with the same files; identities, sasl
// ACLs (another user refused) and a wrong password end alike.
func TestDigestClientsOnBothServers(t *testing.T) {
	e := newDigestEnv(t)
	onEach(t, e.startDigestBackends(t, map[string]string{"zookeeper.superUser": "alice"}), "", func(t *testing.T, b backend) {
		expectLines(t, "java client creates",
			e.runJava(t, "Client", b.addr, "/digest-java", "bob"),
			"EVENT SaslAuthenticated", "WHOAMI ip:127.0.0.1 sasl:bob", "CREATE ok")
		expectLines(t, "java client reads its node",
			e.runJava(t, "Client", b.addr, "/digest-java", "-"),
			"EVENT SaslAuthenticated", "WHOAMI ip:127.0.0.1 sasl:bob", "READ ok")
		expectLines(t, "kazoo as bob reads it",
			runDigestKazoo(t, b.addr, "bob", "bobsecret", "/digest-java", "-"),
			"EVENT Connected", "READ ok")
		expectLines(t, "kazoo creates for bob",
			runDigestKazoo(t, b.addr, "bob", "bobsecret", "/digest-kazoo", "bob"),
			"EVENT Connected", "CREATE ok")
		expectLines(t, "alice, a zookeeper.superUser, reads bob's node",
			e.runJava(t, "Alice", b.addr, "/digest-kazoo", "-"),
			"EVENT SaslAuthenticated", "WHOAMI ip:127.0.0.1 sasl:alice super:", "READ ok")
		expectLines(t, "java client with a wrong password",
			e.runJava(t, "WrongPassword", b.addr, "/digest-java", "-"),
			"EVENT AuthFailed")
		expectLines(t, "kazoo with a wrong password",
			runDigestKazoo(t, b.addr, "bob", "not-bobs", "/digest-java", "-"),
			"EVENT Connected", "READ AuthFailedError")
		expectLines(t, "kazoo with an unknown user",
			runDigestKazoo(t, b.addr, "mallory", "x", "/digest-java", "-"),
			"EVENT Connected", "READ AuthFailedError")
	})
}

// TestDigestACLOtherUser: without zookeeper.superUser, alice is refused
// bob's sasl ACL on both servers; without the sasl provider a sasl ACL
// is invalid.
func TestDigestACLOtherUser(t *testing.T) {
	e := newDigestEnv(t)
	onEach(t, e.startDigestBackends(t, nil), "", func(t *testing.T, b backend) {
		expectLines(t, "bob creates",
			e.runJava(t, "Client", b.addr, "/bobs", "bob"),
			"EVENT SaslAuthenticated", "WHOAMI ip:127.0.0.1 sasl:bob", "CREATE ok")
		expectLines(t, "alice reads",
			e.runJava(t, "Alice", b.addr, "/bobs", "-"),
			"EVENT SaslAuthenticated", "WHOAMI ip:127.0.0.1 sasl:alice", "READ NOAUTH")
		expectLines(t, "kazoo as alice reads",
			runDigestKazoo(t, b.addr, "alice", "alicesecret", "/bobs", "-"),
			"EVENT Connected", "READ NOAUTH")
	})
	onEach(t, e.startDigestBackends(t, map[string]string{"zookeeper.authProvider.1": ""}), "no-provider", func(t *testing.T, b backend) {
		// whoAmI names a user through its scheme's provider: without
		// the sasl provider the id shows empty on both servers.
		expectLines(t, "sasl ACL without the provider",
			e.runJava(t, "Client", b.addr, "/bobs", "bob"),
			"EVENT SaslAuthenticated", "WHOAMI ip:127.0.0.1 sasl:", "CREATE INVALIDACL")
	})
}

// TestDigestRequiredSASL: with zookeeper.sessionRequireClientSASLAuth a
// wrong password ends alike on both servers: the Java client sees
// AuthFailed; kazoo 2.8 does not know the error code
// SessionClosedRequireSaslAuth (-124), its connection thread dies and
// the request ends in ConnectionLoss.
func TestDigestRequiredSASL(t *testing.T) {
	e := newDigestEnv(t)
	onEach(t, e.startDigestBackends(t, map[string]string{"zookeeper.sessionRequireClientSASLAuth": "true"}), "", func(t *testing.T, b backend) {
		expectLines(t, "java client with the right password",
			e.runJava(t, "Client", b.addr, "/req", "bob"),
			"EVENT SaslAuthenticated", "WHOAMI ip:127.0.0.1 sasl:bob", "CREATE ok")
		expectLines(t, "java client with a wrong password",
			e.runJava(t, "WrongPassword", b.addr, "/req", "-"),
			"EVENT AuthFailed")
		expectLines(t, "kazoo with a wrong password",
			runDigestKazoo(t, b.addr, "bob", "not-bobs", "/req", "-"),
			"EVENT Connected", "READ ConnectionLoss")
	})
}

// TestDigestAllowFailedClients: with zookeeper.allowSaslFailedClients the
// server keeps the connection of a failed login and answers it with a
// null token; both clients still end in authentication failure, from
// either server alike (server TestSASLFailureOutcomes checks the
// connection is kept).
func TestDigestAllowFailedClients(t *testing.T) {
	e := newDigestEnv(t)
	onEach(t, e.startDigestBackends(t, map[string]string{"zookeeper.allowSaslFailedClients": "true"}), "", func(t *testing.T, b backend) {
		expectLines(t, "java client with a wrong password",
			e.runJava(t, "WrongPassword", b.addr, "/", "-"),
			"EVENT AuthFailed")
		expectLines(t, "kazoo with a wrong password",
			runDigestKazoo(t, b.addr, "bob", "not-bobs", "/", "-"),
			"EVENT Connected", "READ AuthFailedError")
	})
}

// TestDigestJAASAtStartUp: a JAAS file that is missing or malformed stops
// both servers at start-up (exit status 1); a file without the Server
// section leaves SASL off on both: SASL packets get an empty token, kazoo
// keeps asking until its session expires (SASL is not session activity)
// and ends in AuthFailedError on both.
func TestDigestJAASAtStartUp(t *testing.T) {
	dir := t.TempDir()
	malformed := filepath.Join(dir, "malformed.conf")
	noSection := filepath.Join(dir, "nosection.conf")
	if err := os.WriteFile(malformed, []byte("Server {\n  org.apache.zookeeper.server.auth.DigestLoginModule mandatory;\n};\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(noSection, []byte("Client {\n  org.apache.zookeeper.server.auth.DigestLoginModule required username=\"bob\" password=\"bobsecret\";\n};\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bin, err := gozkproc.Binary()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, jaas, gozkSays string }{
		{"missing", filepath.Join(dir, "missing.conf"), "missing.conf: no such file or directory"},
		{"malformed", malformed, `malformed.conf:2: invalid control flag "mandatory"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), digestLimit)
			defer cancel()
			if js, err := javazk.StartServer(ctx, javazk.Options{SystemProperties: map[string]string{"java.security.auth.login.config": c.jaas}}); err == nil {
				js.Stop()
				t.Errorf("Java started with %s", c.jaas)
			}
			port, err := javazk.FreePort()
			if err != nil {
				t.Fatal(err)
			}
			cfg := filepath.Join(t.TempDir(), "zoo.cfg")
			body := fmt.Sprintf("tickTime=2000\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\nadmin.enableServer=false\n", filepath.Join(filepath.Dir(cfg), "data"), port)
			if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.CommandContext(ctx, bin, "server", "--config", cfg)
			cmd.Env = append(os.Environ(), "SERVER_JVMFLAGS=-Djava.security.auth.login.config="+c.jaas, "JVMFLAGS=")
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("gozk: %v, want exit status 1\n%s", err, out)
			}
			if !strings.Contains(string(out), c.gozkSays) {
				t.Errorf("gozk's message does not say %q:\n%s", c.gozkSays, out)
			}
		})
	}
	e := &digestEnv{jaas: noSection}
	onEach(t, e.startDigestBackends(t, nil), "no-section", func(t *testing.T, b backend) {
		expectLines(t, "kazoo against a server without SASL",
			runDigestKazoo(t, b.addr, "bob", "bobsecret", "/", "-"),
			"EVENT Connected", "READ AuthFailedError")
	})
}
