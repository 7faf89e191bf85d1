//go:build interop

package security

import (
	"fmt"
	"testing"

	"github.com/gozk/gozk/internal/certtest"
)

// The quorum TLS interop tests run ensembles of Java 3.8.0 and gozk
// members on loopback with sslQuorum, the same zoo.cfg text and the same
// key and trust stores on both kinds, and check that they elect, serve,
// agree on the tree, and refuse the same certificates.

// qtEnsemble lays out members of the given kinds (server 1 first); own
// gives each its zoo.cfg lines beyond the common ones.
func qtEnsemble(t *testing.T, kinds []memberKind, own func(id int64) []string) []*member {
	t.Helper()
	ms := newEnsemble(t, "127.0.0.1", kinds...)
	for _, m := range ms {
		m.configure(own(m.id)...)
	}
	return ms
}

// qtStores are the ssl.quorum.* lines for key store b (JKS, as a Java
// operator has them) trusting the set's CA.
func qtStores(set *certtest.Set, b certtest.Bundle) []string {
	return []string{
		"ssl.quorum.keyStore.location=" + b.JKS,
		"ssl.quorum.keyStore.password=" + set.Password,
		"ssl.quorum.trustStore.location=" + set.Trust.JKS,
		"ssl.quorum.trustStore.password=" + set.Password,
	}
}

// TestQuorumTLSMixedEnsemble: two Java members and one gozk with
// sslQuorum and the same JKS stores. gozk (server 3) leads first, Java
// once gozk is stopped, and gozk follows Java when back; writes go
// through every member and the trees agree.
func TestQuorumTLSMixedEnsemble(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	tlsLines := append([]string{"sslQuorum=true"}, qtStores(set, set.Server)...)
	ms := qtEnsemble(t, []memberKind{kindJava, kindJava, kindGozk}, func(int64) []string { return tlsLines })
	java1, java2, gozk3 := ms[0], ms[1], ms[2]
	gozk3.start()
	java2.start()
	gozk3.waitServing("leader")
	java2.waitServing("follower")
	java1.start()
	java1.waitServing("follower")
	writeThrough(t, "gozk-leads", ms...)
	identicalTrees(t, ms...)
	java1.requireLog("a TLS election connection", "SSL handshake complete")
	gozk3.requireLog("a TLS quorum connection", "quorum connection accepted: TLS handshake complete")

	gozk3.kill()
	java2.waitServing("leader")
	java1.waitServing("follower")
	writeThrough(t, "java-leads", java1, java2)
	gozk3.start()
	gozk3.waitServing("follower")
	gozk3.requireLog("a TLS connection to the Java leader", "connected to the leader: TLS handshake complete")
	writeThrough(t, "gozk-back", ms...)
	identicalTrees(t, ms...)
}

// TestQuorumTLSRollingSwitch follows Java's documented procedure from
// plain to TLS between running members, one restart at a time: first
// portUnification=true everywhere, then sslQuorum=true, then
// portUnification=false. The ensemble serves writes after every
// restart.
func TestQuorumTLSRollingSwitch(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	stores := qtStores(set, set.Server)
	ms := qtEnsemble(t, []memberKind{kindGozk, kindJava, kindGozk}, func(int64) []string { return nil })
	for _, m := range ms {
		m.start()
	}
	for _, m := range ms {
		m.waitServing("leader", "follower")
	}
	writeThrough(t, "plain", ms...)
	steps := []struct {
		name     string
		settings []string
	}{
		{"unified", append([]string{"portUnification=true"}, stores...)},
		{"tls", append([]string{"portUnification=true", "sslQuorum=true"}, stores...)},
		{"tls-only", append([]string{"sslQuorum=true"}, stores...)},
	}
	for _, step := range steps {
		for _, m := range ms {
			m.kill()
			m.configure(step.settings...)
			m.start()
			for _, o := range ms {
				o.waitServing("leader", "follower")
			}
			writeThrough(t, fmt.Sprintf("%s-%d", step.name, m.id), ms...)
		}
	}
	identicalTrees(t, ms...)
	ms[1].requireLog("Java taking TLS", "SSL handshake complete", "Accepted TLS connection")
}

// TestQuorumTLSUntrustedMemberRefused: a member whose certificate comes
// from a CA the others do not trust is kept out alike by both kinds: two
// Java members refuse a gozk, two gozk members refuse a Java; in each
// case the other two elect and serve and the refused one never serves.
func TestQuorumTLSUntrustedMemberRefused(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	for _, c := range []struct {
		name  string
		kinds []memberKind
	}{
		{"java-refuses-gozk", []memberKind{kindJava, kindJava, kindGozk}},
		{"gozk-refuses-java", []memberKind{kindGozk, kindGozk, kindJava}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ms := qtEnsemble(t, c.kinds, func(id int64) []string {
				b := set.Server
				if id == 3 {
					b = set.Untrusted
				}
				return append([]string{"sslQuorum=true"}, qtStores(set, b)...)
			})
			for _, m := range ms {
				m.start()
			}
			ms[1].waitServing("leader")
			ms[0].waitServing("follower")
			writeThrough(t, "without-3", ms[0], ms[1])
			identicalTrees(t, ms[0], ms[1])
			// The refused member tried, and each of the others said no:
			// Java logs the failed handshake as a TLS connection with no
			// cipher suite, gozk names the peer and the reason.
			for _, m := range ms[:2] {
				if m.kind == kindJava {
					m.requireLog("the failed handshake", "NONE - SSL_NULL_WITH_NULL_NULL")
				} else {
					m.requireLog("the refusal", "closing an election connection: refused by TLS")
				}
			}
			if ms[2].kind == kindGozk {
				ms[2].requireLog("being refused", "failed: remote error: tls: bad certificate")
			}
			if mode := ms[2].mode(); mode != "" {
				t.Fatalf("the untrusted %v serves as %s", ms[2], mode)
			}
		})
	}
}
