package peer

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/internal/certtest"
	"github.com/gozk/gozk/internal/kdctest"
	"github.com/gozk/gozk/quorum/electionport"
	"github.com/gozk/gozk/quorum/quorumauth"
	"github.com/gozk/gozk/sasl"
	"github.com/gozk/gozk/server"
)

// The quorum SASL ensembles of these tests: members in process, each with
// its own zoo.cfg lines and -D flags, and its log kept for the lines a
// refusal must leave.

const digestJAAS = `QuorumServer {
    org.apache.zookeeper.server.auth.DigestLoginModule required
    user_test="test";
};
QuorumLearner {
    org.apache.zookeeper.server.auth.DigestLoginModule required
    username="test"
    password="%s";
};
`

// writeJAAS writes a JAAS file and returns the -D flag naming it.
func writeJAAS(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return "-Djava.security.auth.login.config=" + p
}

type saslEnsemble struct {
	root    string
	host    string
	servers []string // the server.N lines
	clients []int
}

func newSASLEnsemble(t *testing.T, n int, host string) *saslEnsemble {
	e := &saslEnsemble{root: t.TempDir(), host: host}
	for i := 1; i <= n; i++ {
		e.servers = append(e.servers, fmt.Sprintf("server.%d=%s:%d:%d", i, host, freeLoopbackPort(t), freeLoopbackPort(t)))
		e.clients = append(e.clients, freeLoopbackPort(t))
	}
	return e
}

// configure writes member id's zoo.cfg with extra lines.
func (e *saslEnsemble) configure(t *testing.T, id int, extra ...string) string {
	t.Helper()
	dir := filepath.Join(e.root, fmt.Sprint(id))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "myid"), []byte(fmt.Sprint(id)), 0o644)
	text := fmt.Sprintf("tickTime=100\ninitLimit=20\nsyncLimit=10\ndataDir=%s\nclientPort=%d\n%s\n%s\n",
		dir, e.clients[id-1], strings.Join(e.servers, "\n"), strings.Join(extra, "\n"))
	p := filepath.Join(dir, "zoo.cfg")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// saslMember is a member whose log lines are kept.
type saslMember struct {
	*gozkMember
	log *logLines
}

type logLines struct {
	mu    sync.Mutex
	lines strings.Builder
}

func newLogLines() *logLines { return &logLines{} }

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lines.Write(p)
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lines.String()
}

// startSASLMember starts the member of zoo.cfg path with the -D flags
// jvmFlags.
func startSASLMember(t *testing.T, path, jvmFlags string) *saslMember {
	t.Helper()
	lines := newLogLines()
	return &saslMember{gozkMember: startMemberWith(t, path, jvmFlags, lines), log: lines}
}

func waitLog(t *testing.T, m *saslMember, what string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(m.log.String(), what) {
		if time.Now().After(deadline) {
			t.Fatalf("member %d never logged %q; its log:\n%s", m.id, what, m.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func gozkMembers(ms []*saslMember) []*gozkMember {
	out := make([]*gozkMember, len(ms))
	for i, m := range ms {
		out[i] = m.gozkMember
	}
	return out
}

// writeThroughEach creates one node through each member and checks that
// every member then sees all of them.
func writeThroughEach(t *testing.T, ms []*saslMember, tag string) {
	t.Helper()
	var want []string
	for _, m := range ms {
		c := clientOf(t, m.gozkMember)
		p := fmt.Sprintf("/%s-%d", tag, m.id)
		if _, err := c.Create(p, []byte(tag), 0, gozk.WorldACL(gozk.PermAll)); err != nil {
			t.Fatalf("create %s through member %d: %v", p, m.id, err)
		}
		want = append(want, p)
		c.Close()
	}
	for _, m := range ms {
		c := clientOf(t, m.gozkMember)
		if _, _, err := c.Get("/zookeeper"); err != nil { // a read after the writes' commits
			t.Fatal(err)
		}
		if _, err := c.Sync("/"); err != nil {
			t.Fatal(err)
		}
		for _, p := range want {
			if ok, _, err := c.Exists(p); err != nil || !ok {
				t.Fatalf("member %d does not have %s: %v", m.id, p, err)
			}
		}
		c.Close()
	}
}

var requireAll = []string{"quorum.auth.enableSasl=true", "quorum.auth.learnerRequireSasl=true", "quorum.auth.serverRequireSasl=true"}

// TestQuorumSASLDigestEnsemble: three members requiring DIGEST-MD5
// authenticate every election connection and every learner connection,
// elect, and serve writes through each member.
func TestQuorumSASLDigestEnsemble(t *testing.T) {
	e := newSASLEnsemble(t, 3, "127.0.0.1")
	flags := writeJAAS(t, e.root, "jaas.conf", fmt.Sprintf(digestJAAS, "test"))
	var ms []*saslMember
	for id := 1; id <= 3; id++ {
		ms = append(ms, startSASLMember(t, e.configure(t, id, requireAll...), flags))
	}
	leader := waitRoles(t, gozkMembers(ms)...)
	writeThroughEach(t, ms, "digest")
	for _, m := range ms {
		if m.gozkMember != leader {
			waitLog(t, m, "authenticated to a quorum server with SASL")
		}
	}
	waitLog(t, ms[0], `"mechanism":"DIGEST-MD5"`)
}

// startOneWrongPassword starts members 1, 2 and 3 in that order, all
// requiring quorum SASL, member bad with a wrong learner password.
func startOneWrongPassword(t *testing.T, bad int) (m1, m2, m3 *saslMember) {
	t.Helper()
	e := newSASLEnsemble(t, 3, "127.0.0.1")
	good := writeJAAS(t, e.root, "jaas.conf", fmt.Sprintf(digestJAAS, "test"))
	wrong := writeJAAS(t, e.root, "bad.conf", fmt.Sprintf(digestJAAS, "wrong"))
	ms := make([]*saslMember, 3)
	for id := 1; id <= 3; id++ {
		flags := good
		if id == bad {
			flags = wrong
		}
		ms[id-1] = startSASLMember(t, e.configure(t, id, requireAll...), flags)
	}
	return ms[0], ms[1], ms[2]
}

// TestQuorumSASLWrongPasswordKeptOut: a member whose learner password is
// wrong is refused on every connection it opens, with a log line naming
// it; the other two elect and serve without it.
func TestQuorumSASLWrongPasswordKeptOut(t *testing.T) {
	m1, m2, m3 := startOneWrongPassword(t, 3)
	waitRoles(t, m1.gozkMember, m2.gozkMember)
	// Member 3 has the largest id: the others only ever hear of it by
	// its own connections, which they refuse.
	waitLog(t, m1, "quorum authentication failed")
	if l := m1.log.String(); !strings.Contains(l, `"server":3`) {
		t.Fatalf("member 1's refusal does not name member 3:\n%s", l)
	}
	waitLog(t, m3, "answered ERROR")
	writeThroughEach(t, []*saslMember{m1, m2}, "without-3")
	if m3.srv.Serving() {
		t.Fatal("member 3 serves with a wrong password")
	}
}

// TestQuorumSASLWrongPasswordSmallestID: with the smallest id the bad
// member is dialled by the others, whose connections it admits (its own
// server section is right), so it learns the leader; the leader then
// refuses it on the quorum port.
func TestQuorumSASLWrongPasswordSmallestID(t *testing.T) {
	m1, m2, m3 := startOneWrongPassword(t, 1)
	leader := waitRoles(t, m2.gozkMember, m3.gozkMember)
	lm := m2
	if leader == m3.gozkMember {
		lm = m3
	}
	waitLog(t, lm, "closing a quorum port connection: quorum authentication failed")
	waitLog(t, m1, "connecting to the leader")
	writeThroughEach(t, []*saslMember{m2, m3}, "without-1")
	if m1.srv.Serving() {
		t.Fatal("member 1 serves with a wrong password")
	}
}

// TestQuorumSASLRollout: Java's documented rollout, one member at a
// time, the ensemble serving writes after every restart: enableSasl,
// then learnerRequireSasl, then serverRequireSasl.
func TestQuorumSASLRollout(t *testing.T) {
	e := newSASLEnsemble(t, 3, "127.0.0.1")
	flags := writeJAAS(t, e.root, "jaas.conf", fmt.Sprintf(digestJAAS, "test"))
	ms := make([]*saslMember, 3)
	for id := 1; id <= 3; id++ {
		ms[id-1] = startSASLMember(t, e.configure(t, id), flags)
	}
	waitRoles(t, gozkMembers(ms)...)
	steps := [][]string{requireAll[:1], requireAll[:2], requireAll}
	for s, lines := range steps {
		for i := range ms {
			ms[i].stop()
			ms[i] = startSASLMember(t, e.configure(t, i+1, lines...), flags)
			waitRoles(t, gozkMembers(ms)...)
			writeThroughEach(t, ms, fmt.Sprintf("step%d-member%d", s, i+1))
		}
	}
	// Since its last start, each member took part in an exchange, on one
	// side or the other.
	for _, m := range ms {
		waitLog(t, m, "with SASL")
	}
}

// TestQuorumSASLRequiredRefusesUnauthenticated: a member that requires
// SASL refuses one that does not authenticate; with only enableSasl it
// lets it in.
func TestQuorumSASLRequiredRefusesUnauthenticated(t *testing.T) {
	e := newSASLEnsemble(t, 2, "127.0.0.1")
	flags := writeJAAS(t, e.root, "jaas.conf", fmt.Sprintf(digestJAAS, "test"))
	m2 := startSASLMember(t, e.configure(t, 2, requireAll...), flags)
	m1 := startSASLMember(t, e.configure(t, 1, requireAll[:1]...), flags)
	// 2 dials 1 and authenticates (1 admits it); 1 never dials 2 on a
	// connection 2 keeps, but its connection to 2 is checked: refused.
	waitLog(t, m2, "does not authenticate")
	if m1.srv.Serving() || m2.srv.Serving() {
		t.Fatal("a two-member ensemble serves with one member refused")
	}
}

// TestQuorumSASLKerberosEnsemble: the same with GSSAPI against a private
// KDC: the quorum principal zkquorum/localhost, the learner asking for
// the default quorum.auth.kerberos.servicePrincipal.
func TestQuorumSASLKerberosEnsemble(t *testing.T) {
	kdc := kdctest.Start(t)
	kt := kdc.Keytab(kdctest.QuorumPrincipal)
	jaas := fmt.Sprintf(`QuorumServer {
    com.sun.security.auth.module.Krb5LoginModule required
    useKeyTab=true keyTab="%[1]s" storeKey=true useTicketCache=false
    principal="%[2]s";
};
QuorumLearner {
    com.sun.security.auth.module.Krb5LoginModule required
    useKeyTab=true keyTab="%[1]s" storeKey=true useTicketCache=false
    principal="%[2]s";
};
`, kt, kdctest.Principal(kdctest.QuorumPrincipal))
	e := newSASLEnsemble(t, 3, "localhost")
	flags := writeJAAS(t, e.root, "jaas.conf", jaas) + " -Djava.security.krb5.conf=" + kdc.Krb5Conf
	var ms []*saslMember
	for id := 1; id <= 3; id++ {
		ms = append(ms, startSASLMember(t, e.configure(t, id, requireAll...), flags))
	}
	waitRoles(t, gozkMembers(ms)...)
	writeThroughEach(t, ms, "kerberos")
	waitLog(t, ms[0], `"mechanism":"GSSAPI"`)
}

// TestQuorumSASLElectionAuthenticatesToVotersOnly: as Java looks the
// peer up in the voting view, a server opening an election connection
// authenticates to voters and not to observers.
func TestQuorumSASLElectionAuthenticatesToVotersOnly(t *testing.T) {
	e := newSASLEnsemble(t, 3, "127.0.0.1")
	e.servers[2] += ":observer"
	c, err := conf.Load(e.configure(t, 1), "")
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	l := &quorumauth.Learner{Require: true, NewSASL: func(host string) (sasl.Client, error) {
		asked = append(asked, host)
		return nil, errors.New("no mechanism here")
	}}
	var pc electionport.Config
	authenticateElection(&pc, c, &quorumauth.Server{}, l)
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if err := pc.AuthLearner(a, 2); err == nil || len(asked) != 1 || asked[0] != "127.0.0.1" {
		t.Fatalf("to voter 2: %v, asked %v", err, asked)
	}
	if err := pc.AuthLearner(a, 3); err != nil || len(asked) != 1 {
		t.Fatalf("to observer 3: %v, asked %v", err, asked)
	}
}

// TestQuorumSASLObserver: an observer (the largest id, as usual)
// requiring SASL authenticates to the voters on its election connections
// and to its leader, and serves.
func TestQuorumSASLObserver(t *testing.T) {
	e := newSASLEnsemble(t, 3, "127.0.0.1")
	e.servers[2] += ":observer"
	flags := writeJAAS(t, e.root, "jaas.conf", fmt.Sprintf(digestJAAS, "test"))
	m1 := startSASLMember(t, e.configure(t, 1, requireAll...), flags)
	m2 := startSASLMember(t, e.configure(t, 2, requireAll...), flags)
	m3 := startSASLMember(t, e.configure(t, 3, append([]string{"peerType=observer"}, requireAll...)...), flags)
	waitRoles(t, m1.gozkMember, m2.gozkMember)
	deadline := time.Now().Add(60 * time.Second)
	for !(m3.srv.Role() == server.RoleObserver && m3.srv.Serving()) {
		if time.Now().After(deadline) {
			t.Fatalf("the observer does not serve: %s\n%s", m3.srv.PeerState(), m3.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	waitLog(t, m3, "authenticated to a quorum server with SASL")
	writeThroughEach(t, []*saslMember{m1, m2, m3}, "observed")
}

// TestQuorumSASLOverTLS: with sslQuorum and quorum SASL together, as an
// operator securing both would run them, each election and learner
// connection is first TLS, then the SASL exchange inside it (Java runs
// its authServer and authLearner on the SSL socket); the members elect
// and serve, and a member whose password is wrong is still kept out
// although its certificate is trusted.
func TestQuorumSASLOverTLS(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	e := newSASLEnsemble(t, 3, "127.0.0.1")
	good := writeJAAS(t, e.root, "jaas.conf", fmt.Sprintf(digestJAAS, "test"))
	bad := writeJAAS(t, e.root, "bad.conf", fmt.Sprintf(digestJAAS, "wrong"))
	lines := append(append([]string{"sslQuorum=true"}, quorumStores(set, set.Server)...), requireAll...)
	m1 := startSASLMember(t, e.configure(t, 1, lines...), good)
	m2 := startSASLMember(t, e.configure(t, 2, lines...), good)
	m3 := startSASLMember(t, e.configure(t, 3, lines...), bad)
	leader := waitRoles(t, m1.gozkMember, m2.gozkMember)
	writeThroughEach(t, []*saslMember{m1, m2}, "tls-sasl")
	for _, m := range []*saslMember{m1, m2} {
		if m.gozkMember != leader {
			waitLog(t, m, "connected to the leader: TLS handshake complete")
			waitLog(t, m, "authenticated to a quorum server with SASL")
		}
	}
	waitLog(t, m1, "quorum authentication failed")
	if m3.srv.Serving() {
		t.Fatal("member 3 serves with a wrong password over TLS")
	}
}
