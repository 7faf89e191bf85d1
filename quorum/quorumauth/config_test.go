package quorumauth

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/conf"
)

func saslConfig(t *testing.T, jaas string) *conf.Config {
	t.Helper()
	c := conf.Defaults()
	c.Quorum.AuthEnableSASL = true
	c.Quorum.AuthLearnerRequireSASL = true
	c.Quorum.AuthServerRequireSASL = true
	c.Quorum.Ensemble.Servers[1] = &conf.ServerSpec{ID: 1, Addrs: []conf.QuorumAddr{{Host: "127.0.0.1", QuorumPort: 1, ElectionPort: 2}}}
	c.System = map[string]conf.Property{}
	if jaas != "" {
		p := filepath.Join(t.TempDir(), "jaas.conf")
		if err := os.WriteFile(p, []byte(jaas), 0o644); err != nil {
			t.Fatal(err)
		}
		c.System[JAASProperty] = conf.Property{Key: JAASProperty, Value: p}
	}
	return c
}

const testJAAS = `QuorumServer {
    org.apache.zookeeper.server.auth.DigestLoginModule required
    user_test="test";
};
QuorumLearner {
    org.apache.zookeeper.server.auth.DigestLoginModule required
    username="test"
    password="test";
};
`

func TestFromConfigDisabled(t *testing.T) {
	c := saslConfig(t, "")
	c.Quorum.AuthEnableSASL = false
	s, l, err := FromConfig(c, 1024, zerolog.Nop())
	if s != nil || l != nil || err != nil {
		t.Fatalf("%v %v %v", s, l, err)
	}
}

// Java does not start without both sections, whatever the require
// settings; gozk says which file, section and key.
func TestFromConfigRefusesMissingSections(t *testing.T) {
	cases := map[string]struct{ jaas, want string }{
		"no JAAS file": {"", "-Djava.security.auth.login.config"},
		"no server section": {`QuorumLearner { org.apache.zookeeper.server.auth.DigestLoginModule required username="a" password="b"; };`,
			`no section "QuorumServer" (quorum.auth.server.saslLoginContext)`},
		"no learner section": {`QuorumServer { org.apache.zookeeper.server.auth.DigestLoginModule required user_a="b"; };`,
			`no section "QuorumLearner" (quorum.auth.learner.saslLoginContext)`},
	}
	for name, c := range cases {
		cfg := saslConfig(t, c.jaas)
		cfg.Quorum.AuthLearnerRequireSASL, cfg.Quorum.AuthServerRequireSASL = false, false
		_, _, err := FromConfig(cfg, 1024, zerolog.Nop())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	cfg := saslConfig(t, testJAAS)
	cfg.Quorum.AuthServerLoginContext = "Other"
	if _, _, err := FromConfig(cfg, 1024, zerolog.Nop()); err == nil || !strings.Contains(err.Error(), `"Other"`) {
		t.Errorf("renamed server section: %v", err)
	}
}

// DIGEST-MD5 from one JAAS file, both sides, over a real exchange; a
// learner section without credentials starts but fails each exchange.
func TestFromConfigDigest(t *testing.T) {
	s, l, err := FromConfig(saslConfig(t, testJAAS), 1024, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	out := exchange(t, l, s)
	if out.learner != nil || out.server != nil || out.after != "hello..." {
		t.Fatalf("%+v", out)
	}
	noPassword := strings.Replace(testJAAS, `password="test";`, ";", 1)
	_, l, err = FromConfig(saslConfig(t, noPassword), 1024, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	a, b := net.Pipe()
	defer b.Close()
	a.SetDeadline(time.Now().Add(5 * time.Second))
	go bufio.NewReader(b).ReadByte()
	err = l.Authenticate(a, "127.0.0.1", "server")
	if err == nil || !strings.Contains(err.Error(), "no username and password") {
		t.Fatalf("learner without a password: %v", err)
	}
}
