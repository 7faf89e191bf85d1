package electionport

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/internal/certtest"
	"github.com/gozk/gozk/quorum/quorumtls"
)

// memberTLS is one member's sslQuorum/portUnification with the
// certificate b, trusting the set's CA (Go's own verification stands in
// for the stores package here).
func memberTLS(t *testing.T, set *certtest.Set, b certtest.Bundle, sslQuorum, unify bool) *quorumtls.Config {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(b.CertPEM, b.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(set.Trust.PEM)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	return &quorumtls.Config{
		TLS: sslQuorum, PortUnification: unify, DetectTimeout: time.Second,
		Server: &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool},
		Client: func(conn net.Conn, host string) *tls.Conn {
			return tls.Client(conn, &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool, ServerName: host})
		},
	}
}

// tlsEnsemble starts a Manager per id with the TLS cfgs gives it.
func tlsEnsemble(t *testing.T, cfgs map[int64]*quorumtls.Config, ids ...int64) (map[int64]*Manager, map[int64]*logBuffer) {
	t.Helper()
	addrs := freeAddrs(t, len(ids))
	peers := map[int64][]string{}
	for i, id := range ids {
		peers[id] = []string{addrs[i]}
	}
	ms := map[int64]*Manager{}
	logs := map[int64]*logBuffer{}
	for i, id := range ids {
		logs[id] = &logBuffer{}
		m, err := Start(Config{
			ID: id, ListenAddrs: []string{addrs[i]}, Advertise: []string{addrs[i]}, Peers: peers,
			ConnectTimeout: 2 * time.Second, HandshakeTimeout: 2 * time.Second,
			TLS: cfgs[id], Logger: zerolog.New(logs[id]),
		})
		if err != nil {
			t.Fatal(err)
		}
		ms[id] = m
		t.Cleanup(m.Close)
	}
	return ms, logs
}

// allExchange has every server send to every other and waits until each
// got a message from each of want.
func allExchange(t *testing.T, ms map[int64]*Manager, want map[int64][]int64) {
	t.Helper()
	for from, m := range ms {
		for to := range ms {
			if to != from {
				m.Send(to, []byte{byte(from), byte(to)})
			}
		}
	}
	for id, senders := range want {
		got := map[int64]bool{}
		deadline := time.Now().Add(20 * time.Second)
		for len(got) < len(senders) {
			select {
			case msg := <-ms[id].Messages():
				got[msg.From] = true
			case <-time.After(100 * time.Millisecond):
				// Servers not reached yet are dialled again, as the
				// election does when its round times out.
				ms[id].ConnectAll()
			}
			if time.Now().After(deadline) {
				t.Fatalf("server %d heard from %v, want %v", id, got, senders)
			}
		}
	}
}

func TestTLSElectionConnections(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	cfgs := map[int64]*quorumtls.Config{}
	for _, id := range []int64{1, 2, 3} {
		cfgs[id] = memberTLS(t, set, set.Server, true, false)
	}
	ms, logs := tlsEnsemble(t, cfgs, 1, 2, 3)
	allExchange(t, ms, map[int64][]int64{1: {2, 3}, 2: {1, 3}, 3: {1, 2}})
	for id, l := range logs {
		if !strings.Contains(l.String(), "TLS handshake complete") {
			t.Fatalf("server %d logged no TLS handshake:\n%s", id, l)
		}
	}
}

// TestUntrustedMemberIsKeptOut: server 3's certificate is signed by a CA
// the others do not trust. 1 and 2 still reach each other; 3 reaches
// no one, and the refusals are logged with the peer's address and why.
func TestUntrustedMemberIsKeptOut(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	cfgs := map[int64]*quorumtls.Config{
		1: memberTLS(t, set, set.Server, true, false),
		2: memberTLS(t, set, set.Server, true, false),
		3: memberTLS(t, set, set.Untrusted, true, false),
	}
	ms, logs := tlsEnsemble(t, cfgs, 1, 2, 3)
	allExchange(t, ms, map[int64][]int64{1: {2}, 2: {1}})
	for range 3 {
		ms[3].ConnectAll()
		ms[1].ConnectAll()
		time.Sleep(100 * time.Millisecond)
	}
	for _, id := range []int64{1, 2} {
		if ms[id].Connected(3) {
			t.Fatalf("server %d is connected to the untrusted server 3", id)
		}
		// 3's own view may lag: under TLS 1.3 a client's handshake is
		// over before the server has checked the client's certificate,
		// so 3 may count a connection until it reads the refusal.
		waitFor(t, fmt.Sprintf("the untrusted server 3 to drop its connection to %d", id), func() bool { return !ms[3].Connected(id) })
	}
	select {
	case msg := <-ms[3].Messages():
		t.Fatalf("the untrusted server got %+v", msg)
	default:
	}
	// 3 dials 1 and 2 (it has the larger id): they refuse its client
	// certificate; 1 and 2 dialling 3 refuse its server certificate.
	waitFor(t, "server 1 to log the refusal", func() bool {
		s := logs[1].String()
		return strings.Contains(s, "closing an election connection: refused by TLS") && strings.Contains(s, "TLS handshake failed")
	})
	waitFor(t, "server 2 to log the refused server certificate", func() bool {
		s := logs[2].String()
		return strings.Contains(s, "TLS handshake with "+ms[3].Addrs()[0].String()+" failed") && strings.Contains(s, "unknown authority")
	})
}

// TestPlainDiallerRefusedWithoutUnification: with sslQuorum alone a
// plain server is not let in (Java's blocked insecure connection).
func TestPlainDiallerRefusedWithoutUnification(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	cfgs := map[int64]*quorumtls.Config{
		1: memberTLS(t, set, set.Server, true, false),
		2: memberTLS(t, set, set.Server, true, false),
		3: nil,
	}
	ms, logs := tlsEnsemble(t, cfgs, 1, 2, 3)
	allExchange(t, ms, map[int64][]int64{1: {2}, 2: {1}})
	waitFor(t, "server 1 to block the plain server", func() bool {
		return strings.Contains(logs[1].String(), "blocked insecure connection attempt")
	})
	if ms[1].Connected(3) || ms[2].Connected(3) {
		t.Fatal("the plain server 3 got connected")
	}
}

// TestPortUnificationRollingUpgrade is the middle of Java's procedure:
// every server has portUnification, and only some have sslQuorum yet.
// Each listener takes what each dialler speaks, so all talk.
func TestPortUnificationRollingUpgrade(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	for _, plain := range []int64{1, 3} {
		t.Run(fmt.Sprintf("plain%d", plain), func(t *testing.T) {
			cfgs := map[int64]*quorumtls.Config{}
			for _, id := range []int64{1, 2, 3} {
				cfgs[id] = memberTLS(t, set, set.Server, id != plain, true)
			}
			ms, logs := tlsEnsemble(t, cfgs, 1, 2, 3)
			allExchange(t, ms, map[int64][]int64{1: {2, 3}, 2: {1, 3}, 3: {1, 2}})
			// The plain server dials in plain; the others' dials are TLS.
			for id, l := range logs {
				dialledTLS := strings.Contains(l.String(), "election connection: TLS handshake complete")
				if id == 1 {
					continue // it keeps no connection it dials, and may not log one
				}
				if dialledTLS != (id != plain) {
					t.Fatalf("server %d (sslQuorum %v) dialled with TLS: %v\n%s", id, id != plain, dialledTLS, l)
				}
			}
		})
	}
}
