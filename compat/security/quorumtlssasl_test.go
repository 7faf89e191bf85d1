//go:build interop

package security

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/gozk/gozk/internal/certtest"
)

// TestQuorumTLSAndSASLMixed: Java servers 1 and 2 and gozk server 3 with
// sslQuorum (the JKS stores of the quorum TLS tests) and quorum SASL
// DIGEST-MD5 required (the JAAS file of the quorum SASL tests) at once,
// so every quorum connection is a TLS handshake and then a SASL exchange
// inside it. gozk 3 leads first, Java 2 once 3 is gone, and 3 follows
// Java 2 when back; writes go through every member and the trees are
// identical. gozk 3's log shows both steps on its quorum port as the
// leader and on its connection to the Java leader as a follower.
func TestQuorumTLSAndSASLMixed(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	settings := append(append([]string{"sslQuorum=true"}, qtStores(set, set.Server)...), qsRequireAll...)
	ms := qsEnsemble(t, kindJava, kindJava, kindGozk)
	for _, m := range ms {
		m.configure(settings...)
	}
	java1, java2, gozk3 := ms[0], ms[1], ms[2]
	// 3 and 2 first: they both vote for the larger id.
	gozk3.start()
	java2.start()
	gozk3.waitServing("leader")
	java2.waitServing("follower")
	java1.start()
	java1.waitServing("follower")
	writeThrough(t, "gozk-leads", ms...)
	identicalTrees(t, ms...)
	// Each learner's quorum connection, named by its address, went
	// through TLS and then SASL on gozk 3's quorum port (the election
	// port's SASL lines name the peer by its id first).
	if n := qtsAdmitted(gozk3); n < 2 {
		t.Fatalf("%v admitted %d learners through TLS and SASL, want both Java servers", gozk3, n)
	}
	java1.requireLog("a TLS election connection", "SSL handshake complete")
	java1.requireLog("a SASL exchange", qsJavaAuthenticated)

	gozk3.kill()
	if leader := waitLeader(t, java1, java2); leader != java2 {
		t.Fatalf("%v leads, want the Java server 2", leader)
	}
	writeThrough(t, "java-leads", java1, java2)
	gozk3.start()
	gozk3.waitServing("follower")
	gozk3.waitLog("connected to the leader: TLS handshake complete")
	gozk3.waitLog(fmt.Sprintf("%s mechanism=DIGEST-MD5 server=127.0.0.1:%d", qsGozkAuthenticated, java2.quorum))
	writeThrough(t, "gozk-back", ms...)
	identicalTrees(t, ms...)
}

var (
	qtsTLSAccepted = regexp.MustCompile(`quorum connection accepted: TLS handshake complete .*remote=(\S+)`)
	qtsSASLLearner = regexp.MustCompile(`quorum learner authenticated with SASL .*learner=(\S+)`)
)

// qtsAdmitted counts the learner connections m's quorum port logged both
// a TLS handshake and then a SASL exchange for, matched by address.
func qtsAdmitted(m *member) int {
	handshakes := map[string]bool{}
	n := 0
	for _, line := range strings.Split(m.log(), "\n") {
		if g := qtsTLSAccepted.FindStringSubmatch(line); g != nil {
			handshakes[g[1]] = true
		} else if g := qtsSASLLearner.FindStringSubmatch(line); g != nil && handshakes[g[1]] {
			n++
		}
	}
	return n
}
