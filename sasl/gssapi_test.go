package sasl

import (
	"errors"
	"strings"
	"testing"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/spnego"

	"github.com/gozk/gozk/internal/kdctest"
)

// keytabLogin is a JAAS Krb5LoginModule entry as ZooKeeper's docs write
// it for a keytab.
func keytabLogin(k *kdctest.KDC, name string) Krb5Login {
	l, err := Krb5LoginFromEntry("Test", JAASEntry{
		LoginModule: Krb5LoginModule,
		Flag:        "required",
		Options: map[string]string{
			"useKeyTab": "true", "keyTab": k.Keytab(name), "storeKey": "true",
			"useTicketCache": "false", "principal": kdctest.Principal(name),
		},
	})
	if err != nil {
		panic(err)
	}
	return l
}

func newServerFactory(t *testing.T, k *kdctest.KDC, cfg GSSAPIServerConfig) *GSSAPIServerFactory {
	t.Helper()
	if cfg.Login.Principal == "" {
		cfg.Login = keytabLogin(k, kdctest.ServicePrincipal)
	}
	cfg.Krb5Conf = k.Krb5Conf
	f, err := NewGSSAPIServerFactory(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func newInitiator(t *testing.T, k *kdctest.KDC, name string) *GSSAPIInitiator {
	t.Helper()
	i, err := NewGSSAPIInitiator(keytabLogin(k, name), k.Krb5Conf, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(i.Close)
	return i
}

// gssExchange runs a whole SASL exchange the way ZooKeeper's packets carry
// it: the client's initial response first, then challenge and response
// until both sides are complete.
func gssExchange(c Client, s Server) (rounds int, err error) {
	resp, err := c.Evaluate(nil)
	if err != nil {
		return 0, err
	}
	for rounds = 1; rounds < 10; rounds++ {
		chal, err := s.Evaluate(resp)
		if err != nil {
			return rounds, err
		}
		if s.Complete() {
			if !c.Complete() {
				return rounds, errors.New("server complete before the client")
			}
			return rounds, nil
		}
		resp, err = c.Evaluate(chal)
		if err != nil {
			return rounds, err
		}
	}
	return rounds, errors.New("no end after 10 rounds")
}

func TestGSSAPIClientAndServerWithKDC(t *testing.T) {
	k := kdctest.Start(t)
	f := newServerFactory(t, k, GSSAPIServerConfig{})
	if got := f.Principal(); got != "zookeeper/localhost@EXAMPLE.COM" {
		t.Fatalf("Principal() = %q", got)
	}
	for _, tc := range []struct {
		client                  string
		removeHost, removeRealm bool
		want                    string
	}{
		{kdctest.ClientPrincipal, false, false, "client@EXAMPLE.COM"},
		{kdctest.ClientPrincipal, false, true, "client"},
		{kdctest.QuorumPrincipal, false, false, "zkquorum/localhost@EXAMPLE.COM"},
		{kdctest.QuorumPrincipal, true, false, "zkquorum@EXAMPLE.COM"},
		{kdctest.QuorumPrincipal, false, true, "zkquorum/localhost"},
		{kdctest.QuorumPrincipal, true, true, "zkquorum"},
	} {
		f.cfg.RemoveHost, f.cfg.RemoveRealm = tc.removeHost, tc.removeRealm
		var logged []string
		f.cfg.Logf = func(level, format string, args ...any) { logged = append(logged, level+" "+format) }
		i := newInitiator(t, k, tc.client)
		c, err := i.NewClient("zookeeper/localhost")
		if err != nil {
			t.Fatal(err)
		}
		s, _ := f.NewServer()
		rounds, err := gssExchange(c, s)
		if err != nil {
			t.Fatalf("%s: %v", tc.client, err)
		}
		// AP-REQ/AP-REP, empty/layer offer, layer choice.
		if rounds != 3 {
			t.Errorf("%s: %d rounds, want 3", tc.client, rounds)
		}
		if got := s.AuthorizationID(); got != tc.want {
			t.Errorf("%s removeHost=%v removeRealm=%v: authorization id %q, want %q", tc.client, tc.removeHost, tc.removeRealm, got, tc.want)
		}
		if len(logged) != 2 || !strings.Contains(logged[1], "Setting authorizedID") {
			t.Errorf("log lines %q", logged)
		}
		if _, err := s.Evaluate(nil); err == nil {
			t.Error("Evaluate after completion succeeded")
		}
	}
}

// TestGSSAPIAuthToLocal maps the principal with
// zookeeper.security.auth_to_local before the host and realm are added
// back, and refuses bad rules at start.
func TestGSSAPIAuthToLocal(t *testing.T) {
	k := kdctest.Start(t)
	f := newServerFactory(t, k, GSSAPIServerConfig{AuthToLocal: "RULE:[1:$1](client)s/client/cli/ DEFAULT"})
	for name, want := range map[string]string{kdctest.ClientPrincipal: "cli@EXAMPLE.COM", kdctest.OtherPrincipal: "alice@EXAMPLE.COM"} {
		c, err := newInitiator(t, k, name).NewClient("zookeeper/localhost")
		if err != nil {
			t.Fatal(err)
		}
		s, _ := f.NewServer()
		if _, err := gssExchange(c, s); err != nil {
			t.Fatal(err)
		}
		if got := s.AuthorizationID(); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	_, err := NewGSSAPIServerFactory(GSSAPIServerConfig{Login: keytabLogin(k, kdctest.ServicePrincipal), Krb5Conf: k.Krb5Conf, AuthToLocal: "RULE:[x:$1]"})
	if err == nil || !strings.Contains(err.Error(), "zookeeper.security.auth_to_local") {
		t.Fatalf("bad rules: %v", err)
	}
}

// TestGSSAPIServerWithGokrb5Initiator drives the server with tokens that
// gokrb5 builds on its own (no subkey, no mutual authentication), so the
// server is checked against an initiator other than this package's.
func TestGSSAPIServerWithGokrb5Initiator(t *testing.T) {
	k := kdctest.Start(t)
	f := newServerFactory(t, k, GSSAPIServerConfig{})
	cfg, err := config.Load(k.Krb5Conf)
	if err != nil {
		t.Fatal(err)
	}
	kt, err := keytab.Load(k.Keytab(kdctest.OtherPrincipal))
	if err != nil {
		t.Fatal(err)
	}
	cl := client.NewWithKeytab(kdctest.OtherPrincipal, kdctest.Realm, kt, cfg, client.DisablePAFXFAST(true))
	if err := cl.Login(); err != nil {
		t.Fatal(err)
	}
	defer cl.Destroy()
	tkt, key, err := cl.GetServiceTicket(kdctest.ServicePrincipal)
	if err != nil {
		t.Fatal(err)
	}
	run := func() string {
		tok, err := spnego.NewKRB5TokenAPREQ(cl, tkt, key, []int{gssapi.ContextFlagInteg}, nil)
		if err != nil {
			t.Fatal(err)
		}
		first, err := tok.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if err := tok.APReq.DecryptAuthenticator(key); err != nil {
			t.Fatal(err)
		}
		s, _ := f.NewServer()
		// Without mutual authentication the layer offer is the first
		// challenge, numbered from the initiator's sequence number.
		offer, err := s.Evaluate(first)
		if err != nil {
			t.Fatal(err)
		}
		var wt gssapi.WrapToken
		if err := wt.Unmarshal(offer, true); err != nil {
			t.Fatal(err)
		}
		if wt.SndSeqNum != uint64(tok.APReq.Authenticator.SeqNumber) {
			t.Errorf("offer's sequence number %d, the initiator's is %d", wt.SndSeqNum, tok.APReq.Authenticator.SeqNumber)
		}
		if ok, err := wt.Verify(key, keyusage.GSSAPI_ACCEPTOR_SEAL); !ok {
			t.Fatalf("layer offer does not verify with gokrb5: %v", err)
		}
		if len(wt.Payload) != 4 || wt.Payload[0] != layerNone {
			t.Fatalf("layer offer %x", wt.Payload)
		}
		choice, err := gssapi.NewInitiatorWrapToken(layerMessage(layerNone, 0, "someone-else"), key)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := choice.Marshal()
		if _, err := s.Evaluate(b); err != nil {
			t.Fatal(err)
		}
		if !s.Complete() {
			t.Fatal("not complete")
		}
		return s.AuthorizationID()
	}
	// ZooKeeper's rule ignores the requested id: the name comes from
	// the principal.
	if id := run(); id != "alice@EXAMPLE.COM" {
		t.Errorf("authorization id %q", id)
	}
	// For a principal of another realm than the default, Java would
	// keep the requested id; gozk keeps the principal.
	f.defaultRealm = "OTHER.ORG"
	if id := run(); id != "alice@EXAMPLE.COM" {
		t.Errorf("foreign realm: authorization id %q", id)
	}
}

func TestGSSAPIRefusals(t *testing.T) {
	k := kdctest.Start(t)
	f := newServerFactory(t, k, GSSAPIServerConfig{})
	i := newInitiator(t, k, kdctest.ClientPrincipal)

	firstToken := func(service string) []byte {
		c, err := i.NewClient(service)
		if err != nil {
			t.Fatal(err)
		}
		b, err := c.Evaluate(nil)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	refuse := func(name string, token []byte, want string) {
		t.Helper()
		s, _ := f.NewServer()
		_, err := s.Evaluate(token)
		if err == nil {
			t.Errorf("%s: accepted", name)
			return
		}
		if !errors.Is(err, ErrAuthentication) {
			t.Errorf("%s: %v is not ErrAuthentication", name, err)
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v does not say %q", name, err, want)
		}
		if _, err := s.Evaluate(nil); err == nil || !strings.Contains(err.Error(), "already failed") {
			t.Errorf("%s: a failed exchange goes on: %v", name, err)
		}
	}

	good := firstToken("zookeeper/localhost")
	refuse("empty", nil, "no [APPLICATION 0] header")
	refuse("garbage", []byte("hello, world"), "no [APPLICATION 0] header")
	refuse("truncated", good[:len(good)/2], "header says")
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)-10] ^= 0x40 // inside the encrypted authenticator
	refuse("flipped", flipped, "not accepted")
	refuse("other service", firstToken("zkquorum/localhost"), "the ticket is for zkquorum/localhost@EXAMPLE.COM")

	s, _ := f.NewServer()
	if _, err := s.Evaluate(good); err != nil {
		t.Fatalf("good token: %v", err)
	}
	refuse("replay", good, "replay")

	// The exchange's later steps: a response where the empty one is due,
	// a garbled layer choice, a layer that was not offered.
	c, _ := i.NewClient("zookeeper/localhost")
	s, _ = f.NewServer()
	resp, _ := c.Evaluate(nil)
	if _, err := s.Evaluate(resp); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Evaluate([]byte{1}); err == nil {
		t.Error("non-empty answer to the AP-REP accepted")
	}
	for _, tc := range []struct {
		name   string
		mangle func(gc *gssapiClient, tok []byte) []byte
		want   string
	}{
		{"bit flip", func(_ *gssapiClient, tok []byte) []byte { tok[17] ^= 1; return tok }, "does not verify"},
		{"short", func(_ *gssapiClient, tok []byte) []byte { return tok[:10] }, "shorter than its header"},
		{"integrity layer", func(gc *gssapiClient, _ []byte) []byte {
			tok, _ := wrapToken(layerMessage(layerIntegrity, 65536, ""), gc.auth.SubKey, false, false, 7)
			return tok
		}, "only 1 (none) was offered"},
		{"none and integrity", func(gc *gssapiClient, _ []byte) []byte {
			tok, _ := wrapToken(layerMessage(layerNone|layerIntegrity, 65536, ""), gc.auth.SubKey, false, false, 7)
			return tok
		}, "only 1 (none) was offered"},
		{"from acceptor", func(gc *gssapiClient, _ []byte) []byte {
			tok, _ := wrapToken(layerMessage(layerNone, 0, ""), gc.auth.SubKey, true, false, 7)
			return tok
		}, "acceptor flag"},
	} {
		c, _ := i.NewClient("zookeeper/localhost")
		s, _ := f.NewServer()
		resp, _ := c.Evaluate(nil)
		chal, err := s.Evaluate(resp)
		if err != nil {
			t.Fatal(err)
		}
		resp, _ = c.Evaluate(chal)
		chal, err = s.Evaluate(resp)
		if err != nil {
			t.Fatal(err)
		}
		last, err := c.Evaluate(chal)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Evaluate(tc.mangle(c.(*gssapiClient), last))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if s.Complete() {
			t.Errorf("%s: complete", tc.name)
		}
	}

	// A client checks the server's AP-REP: one from another exchange is
	// refused.
	c1, _ := i.NewClient("zookeeper/localhost")
	c2, _ := i.NewClient("zookeeper/localhost")
	s1, _ := f.NewServer()
	r1, _ := c1.Evaluate(nil)
	_, _ = c2.Evaluate(nil)
	rep1, err := s1.Evaluate(r1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Evaluate(rep1); err == nil {
		t.Error("client accepted an AP-REP meant for another exchange")
	}
}

func TestGSSAPIWrongKeys(t *testing.T) {
	k := kdctest.Start(t)
	old := newServerFactory(t, k, GSSAPIServerConfig{})
	// A new key for the service: the keytab the server loaded is stale.
	if _, err := k.Kadmin("ktadd -k " + k.Dir + "/rekeyed.keytab " + kdctest.ServicePrincipal); err != nil {
		t.Fatal(err)
	}
	i := newInitiator(t, k, kdctest.ClientPrincipal)
	c, _ := i.NewClient("zookeeper/localhost")
	s, _ := old.NewServer()
	if _, err := gssExchange(c, s); err == nil || !strings.Contains(err.Error(), "not accepted") {
		t.Fatalf("stale keytab: %v", err)
	}

	// A keytab without the principal is refused at start.
	l := keytabLogin(k, kdctest.ServicePrincipal)
	l.KeyTab = k.Keytab(kdctest.ClientPrincipal)
	_, err := NewGSSAPIServerFactory(GSSAPIServerConfig{Login: l, Krb5Conf: k.Krb5Conf})
	if err == nil || !strings.Contains(err.Error(), "has no key for zookeeper/localhost@EXAMPLE.COM") {
		t.Fatalf("keytab of another principal: %v", err)
	}
}

func TestGSSAPILoginFailures(t *testing.T) {
	k := kdctest.Start(t)
	expired, err := k.AddPrincipal("expired", "-expire", "2001-01-01")
	if err != nil {
		t.Fatal(err)
	}
	l := keytabLogin(k, kdctest.ClientPrincipal)
	l.Principal, l.KeyTab = "expired", expired
	if _, err := NewGSSAPIInitiator(l, k.Krb5Conf, nil); err == nil || !strings.Contains(err.Error(), "login as expired failed") {
		t.Fatalf("expired principal: %v", err)
	}
	l.Principal = "nosuch@EXAMPLE.COM"
	if _, err := NewGSSAPIInitiator(l, k.Krb5Conf, nil); err == nil || !strings.Contains(err.Error(), "login as nosuch@EXAMPLE.COM failed") {
		t.Fatalf("unknown principal: %v", err)
	}
	i := newInitiator(t, k, kdctest.ClientPrincipal)
	c, _ := i.NewClient("nosuch/localhost")
	if _, err := c.Evaluate(nil); err == nil || !strings.Contains(err.Error(), "no service ticket for nosuch/localhost@EXAMPLE.COM") {
		t.Fatalf("unknown service: %v", err)
	}
}
