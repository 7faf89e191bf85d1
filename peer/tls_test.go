package peer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gozk "github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/internal/certtest"
	"github.com/gozk/gozk/server"
)

// writeHostsEnsemble writes a zoo.cfg and myid per member, member i+1
// living on hosts[i]; common goes to every zoo.cfg, own[i] to member
// i+1's only.
func writeHostsEnsemble(t *testing.T, hosts []string, common []string, own [][]string) []string {
	t.Helper()
	root := t.TempDir()
	var lines []string
	for i, h := range hosts {
		lines = append(lines, fmt.Sprintf("server.%d=%s:%d:%d", i+1, h, freeLoopbackPort(t), freeLoopbackPort(t)))
	}
	var paths []string
	for i := range hosts {
		dir := filepath.Join(root, fmt.Sprint(i+1))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "myid"), []byte(fmt.Sprint(i+1)), 0o644)
		var mine []string
		if i < len(own) {
			mine = own[i]
		}
		text := fmt.Sprintf("tickTime=100\ninitLimit=20\nsyncLimit=10\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n%s\n%s\n%s\n",
			dir, freeLoopbackPort(t), strings.Join(lines, "\n"), strings.Join(common, "\n"), strings.Join(mine, "\n"))
		p := filepath.Join(dir, "zoo.cfg")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// quorumStores are the ssl.quorum.* lines for key store b, trusting the
// set's CA, as PEM files (the interop tests use JKS).
func quorumStores(set *certtest.Set, b certtest.Bundle) []string {
	return []string{
		"ssl.quorum.keyStore.location=" + b.PEM,
		"ssl.quorum.trustStore.location=" + set.Trust.PEM,
	}
}

// writeThroughAll creates a node through each member and checks every
// member sees them all.
func writeThroughAll(t *testing.T, members ...*gozkMember) {
	t.Helper()
	var paths []string
	for _, m := range members {
		c := clientOf(t, m)
		p := fmt.Sprintf("/tls-%d", m.id)
		if _, err := c.Create(p, []byte("v"), 0, gozk.WorldACL(gozk.PermAll)); err != nil {
			t.Fatalf("create through member %d: %v", m.id, err)
		}
		paths = append(paths, p)
		c.Close()
	}
	for _, m := range members {
		c := clientOf(t, m)
		if _, err := c.Sync("/"); err != nil {
			t.Fatalf("sync on member %d: %v", m.id, err)
		}
		for _, p := range paths {
			if ok, _, err := c.Exists(p); err != nil || !ok {
				t.Fatalf("member %d does not have %s (%v)", m.id, p, err)
			}
		}
		c.Close()
	}
}

func startAll(t *testing.T, paths []string) []*gozkMember {
	t.Helper()
	var ms []*gozkMember
	for _, p := range paths {
		ms = append(ms, startMember(t, p))
	}
	return ms
}

// TestSSLQuorumEnsemble: with sslQuorum the members elect over TLS
// election connections and sync over TLS quorum connections (the
// listeners take nothing else), and serve writes through every member.
func TestSSLQuorumEnsemble(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	common := append([]string{"sslQuorum=true"}, quorumStores(set, set.Server)...)
	members := startAll(t, writeHostsEnsemble(t, []string{"127.0.0.1", "127.0.0.1", "127.0.0.1"}, common, nil))
	waitRoles(t, members...)
	writeThroughAll(t, members...)
}

// TestSSLQuorumUntrustedMemberKeptOut: member 3's certificate comes from
// a CA the others do not trust (and it trusts theirs): 1 and 2 elect and
// serve without it, and it never serves.
func TestSSLQuorumUntrustedMemberKeptOut(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	hosts := []string{"127.0.0.1", "127.0.0.1", "127.0.0.1"}
	own := [][]string{quorumStores(set, set.Server), quorumStores(set, set.Server), quorumStores(set, set.Untrusted)}
	members := startAll(t, writeHostsEnsemble(t, hosts, []string{"sslQuorum=true"}, own))
	waitRoles(t, members[0], members[1])
	writeThroughAll(t, members[0], members[1])
	if members[2].srv.Serving() {
		t.Fatalf("the untrusted member serves: %s", members[2].srv.PeerState())
	}
}

// TestSSLQuorumHostnameVerification: member 1 lives on 127.0.0.2, which
// its certificate (127.0.0.1, localhost) does not name. The others,
// dialling it, refuse it; with ssl.quorum.hostnameVerification=false
// they take it.
func TestSSLQuorumHostnameVerification(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	hosts := []string{"127.0.0.2", "127.0.0.1", "127.0.0.1"}
	stores := quorumStores(set, set.Server)
	t.Run("verified", func(t *testing.T) {
		members := startAll(t, writeHostsEnsemble(t, hosts, append([]string{"sslQuorum=true"}, stores...), nil))
		waitRoles(t, members[1], members[2])
		writeThroughAll(t, members[1], members[2])
		if members[0].srv.Serving() {
			t.Fatalf("the member whose certificate does not name its address serves: %s", members[0].srv.PeerState())
		}
	})
	t.Run("off", func(t *testing.T) {
		common := append([]string{"sslQuorum=true", "ssl.quorum.hostnameVerification=false"}, stores...)
		members := startAll(t, writeHostsEnsemble(t, hosts, common, nil))
		waitRoles(t, members...)
	})
}

// TestPortUnificationMixedEnsemble: the middle of a rolling upgrade.
// Every member has portUnification; member 3 (which leads: largest id,
// same history) has no sslQuorum yet, so it dials in plain and its
// quorum port takes the others' TLS; 1 and 2 dial with TLS.
func TestPortUnificationMixedEnsemble(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	common := append([]string{"portUnification=true"}, quorumStores(set, set.Server)...)
	own := [][]string{{"sslQuorum=true"}, {"sslQuorum=true"}, nil}
	members := startAll(t, writeHostsEnsemble(t, []string{"127.0.0.1", "127.0.0.1", "127.0.0.1"}, common, own))
	leader := waitRoles(t, members...)
	if leader.id != 3 || leader.srv.Role() != server.RoleLeader {
		t.Logf("member %d leads", leader.id)
	}
	writeThroughAll(t, members...)
}

// TestSSLQuorumReloadCertFiles: member 3 starts with a certificate the
// others refuse; with sslQuorumReloadCertFiles, putting a trusted one in
// its key store file lets it join without a restart (its next
// connections present the new certificate).
func TestSSLQuorumReloadCertFiles(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	keyStore := filepath.Join(t.TempDir(), "member3.pem")
	copyFile(t, set.Untrusted.PEM, keyStore)
	hosts := []string{"127.0.0.1", "127.0.0.1", "127.0.0.1"}
	own := [][]string{quorumStores(set, set.Server), quorumStores(set, set.Server), {
		"ssl.quorum.keyStore.location=" + keyStore,
		"ssl.quorum.trustStore.location=" + set.Trust.PEM,
	}}
	members := startAll(t, writeHostsEnsemble(t, hosts, []string{"sslQuorum=true", "sslQuorumReloadCertFiles=true"}, own))
	waitRoles(t, members[0], members[1])
	if members[2].srv.Serving() {
		t.Fatal("member 3 serves with a refused certificate")
	}
	copyFile(t, set.Server.PEM, keyStore)
	waitRoles(t, members...)
	writeThroughAll(t, members...)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	// Through a temporary file and a rename, so the watcher never reads
	// half a store.
	tmp := to + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, to); err != nil {
		t.Fatal(err)
	}
}
