//go:build interop

package security

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gozk/gozk/internal/kdctest"
)

// The quorum SASL interop tests run ensembles of Java 3.8.0 and gozk
// members on loopback with quorum.auth.* in the same zoo.cfg text and the
// same JAAS file (-Djava.security.auth.login.config, SERVER_JVMFLAGS for
// gozk), and check that they admit each other, serve writes through
// every member with identical trees, keep out a member with a wrong
// password whatever its kind, and go through Java's rollout sequence
// mixed. At most two JVMs run at once.

const qsJAAS = `QuorumServer {
    org.apache.zookeeper.server.auth.DigestLoginModule required
    user_zkquorum="quorum-secret";
};
QuorumLearner {
    org.apache.zookeeper.server.auth.DigestLoginModule required
    username="zkquorum"
    password="%s";
};
`

// The three quorum.auth settings of Java's rollout, cumulative.
var (
	qsEnable        = []string{"quorum.auth.enableSasl=true"}
	qsLearnerRequre = append(qsEnable[:1:1], "quorum.auth.learnerRequireSasl=true")
	qsRequireAll    = append(qsLearnerRequre[:2:2], "quorum.auth.serverRequireSasl=true")
)

// qsEnsemble lays out members of the given kinds (server 1 first), all
// with the DIGEST-MD5 JAAS file whose learner password is right.
func qsEnsemble(t *testing.T, kinds ...memberKind) []*member {
	t.Helper()
	ms := newEnsemble(t, "127.0.0.1", kinds...)
	good := qsWriteJAAS(t, filepath.Dir(ms[0].dir), "jaas.conf", "quorum-secret")
	for _, m := range ms {
		m.jaas = good
	}
	return ms
}

func qsWriteJAAS(t *testing.T, dir, name, password string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(fmt.Sprintf(qsJAAS, password)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The gozk side's lines that show a successful exchange, and Java's.
const (
	qsGozkAuthenticated = "authenticated to a quorum server with SASL"
	qsJavaAuthenticated = "Successfully completed the authentication using SASL"
)

// qsGozkLeads starts Java servers 1 and 2 and gozk server 3 requiring
// quorum SASL so that gozk 3 leads, then writes through every member
// (nodes named after tag) and compares their trees.
func qsGozkLeads(t *testing.T, tag string, ms []*member) {
	t.Helper()
	// 3 and 1 first: they both vote for the larger id.
	ms[2].startWith(qsRequireAll...)
	ms[0].startWith(qsRequireAll...)
	waitLeader(t, ms[0], ms[2])
	ms[1].startWith(qsRequireAll...)
	if leader := waitLeader(t, ms...); leader != ms[2] {
		t.Fatalf("%v leads, want the gozk server 3", leader)
	}
	writeThrough(t, tag, ms...)
	identicalTrees(t, ms...)
}

// TestQuorumSASLMixedDigest: Java servers 1 and 2 and gozk server 3, all
// requiring DIGEST-MD5 with the same JAAS file: gozk 3 leads first, then
// Java 2 once 3 is gone; writes go through every member and the trees
// are identical; both kinds log successful exchanges.
func TestQuorumSASLMixedDigest(t *testing.T) {
	ms := qsEnsemble(t, kindJava, kindJava, kindGozk)
	qsGozkLeads(t, "gozk-leads", ms)
	ms[2].waitLog("quorum learner authenticated with SASL")
	ms[2].waitLog(qsGozkAuthenticated)
	ms[0].waitLog(qsJavaAuthenticated)

	ms[2].kill()
	if leader := waitLeader(t, ms[:2]...); leader != ms[1] {
		t.Fatalf("%v leads, want the Java server 2", leader)
	}
	ms[2].startWith(qsRequireAll...)
	ms[2].waitServing("follower")
	writeThrough(t, "java-leads", ms...)
	identicalTrees(t, ms...)
}

// TestQuorumSASLWrongPasswordKeptOut: with Java 1 and gozk 2 requiring
// DIGEST-MD5, a server 3 whose learner password is wrong is refused on
// every connection it opens, first as a gozk server and then as a Java
// one; it never serves, and the ensemble serves without it.
func TestQuorumSASLWrongPasswordKeptOut(t *testing.T) {
	ms := qsEnsemble(t, kindJava, kindGozk, kindGozk)
	bad := qsWriteJAAS(t, filepath.Dir(ms[0].dir), "bad-jaas.conf", "wrong")
	ms[0].startWith(qsRequireAll...)
	ms[1].startWith(qsRequireAll...)
	waitLeader(t, ms[:2]...)

	ms[2].jaas = bad
	ms[2].startWith(qsRequireAll...)
	ms[2].waitLog("server 1 (127.0.0.1:")
	ms[2].waitLog(`answered ERROR`)
	ms[0].waitLog("Failed to authenticate using SASL")
	ms[1].waitLog("closing an election connection: quorum authentication failed")
	writeThrough(t, "without-gozk-3", ms[:2]...)
	if mode := ms[2].mode(); mode != "" {
		t.Fatalf("gozk server 3 with a wrong password serves as %s", mode)
	}
	ms[2].kill()

	// The same server 3 (ports, wrong JAAS file) as a Java server, in a
	// directory of its own.
	java3 := ms[2].twin(kindJava)
	java3.startWith(qsRequireAll...)
	java3.waitLog("Authentication failed against server addr")
	writeThrough(t, "without-java-3", ms[:2]...)
	if mode := java3.mode(); mode != "" {
		t.Fatalf("Java server 3 with a wrong password serves as %s", mode)
	}
	identicalTrees(t, ms[:2]...)
}

// TestQuorumSASLRollout: Java's rollout with Java servers 1 and 3 and
// gozk server 2, one member restarted at a time, the ensemble serving
// writes through every member after each restart: quorum.auth.enableSasl
// everywhere, then learnerRequireSasl, then serverRequireSasl.
func TestQuorumSASLRollout(t *testing.T) {
	ms := qsEnsemble(t, kindJava, kindGozk, kindJava)
	for _, m := range ms {
		m.startWith()
	}
	waitLeader(t, ms...)
	writeThrough(t, "plain", ms...)
	for s, settings := range [][]string{qsEnable, qsLearnerRequre, qsRequireAll} {
		for _, m := range ms {
			m.kill()
			m.startWith(settings...)
			waitLeader(t, ms...)
			writeThrough(t, fmt.Sprintf("step%d-%d", s+1, m.id), ms...)
		}
	}
	identicalTrees(t, ms...)
	ms[1].waitLog(qsGozkAuthenticated)
	ms[0].waitLog(qsJavaAuthenticated)
}

// TestQuorumSASLMixedKerberos: Java servers 1 and 2 and gozk server 3
// requiring Kerberos against a private KDC, every member logging in as
// zkquorum/localhost from one JAAS file, the server lines naming
// localhost (a principal's host must be a server of the ensemble): gozk
// 3 leads Java followers that authenticated with GSSAPI, and the reverse.
func TestQuorumSASLMixedKerberos(t *testing.T) {
	kdc := kdctest.Start(t)
	ms := newEnsemble(t, "localhost", kindJava, kindJava, kindGozk)
	kt := kdc.Keytab(kdctest.QuorumPrincipal)
	jaas := filepath.Join(filepath.Dir(ms[0].dir), "krb-jaas.conf")
	entry := fmt.Sprintf(`    com.sun.security.auth.module.Krb5LoginModule required
    useKeyTab=true keyTab="%s" storeKey=true useTicketCache=false
    principal="%s";`, kt, kdctest.Principal(kdctest.QuorumPrincipal))
	text := "QuorumServer {\n" + entry + "\n};\nQuorumLearner {\n" + entry + "\n};\n"
	if err := os.WriteFile(jaas, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		m.jaas = jaas
		m.flags = []string{"-Djava.security.krb5.conf=" + kdc.Krb5Conf}
	}
	qsGozkLeads(t, "kerberos", ms)
	ms[2].waitLog("mechanism=GSSAPI")
	ms[2].waitLog("quorum learner authenticated with SASL")
	ms[2].waitLog(qsGozkAuthenticated)
	ms[0].waitLog(qsJavaAuthenticated)
}
