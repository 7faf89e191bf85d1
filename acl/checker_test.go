package acl

import (
	"errors"
	"slices"
	"testing"

	"github.com/gozk/gozk/proto"
)

func mustChecker(t testing.TB, cfg Config) *Checker {
	t.Helper()
	c, err := NewChecker(cfg)
	if err != nil {
		t.Fatalf("NewChecker(%+v): %v", cfg, err)
	}
	return c
}

func allProviders() Config {
	cfg := DefaultConfig()
	cfg.ExtraProviders = []string{ClassSASLProvider, ClassX509Provider, ClassEnsembleProvider}
	return cfg
}

const (
	aliceID = "alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E="
	bobID   = "bob:ikIaKsbtGweaHnb/jKn7OHqbunM="
	superID = "super:D/InIHSb7yEEbrWz8b9l71RjZJU="
)

func id(scheme, name string) proto.Id { return proto.Id{Scheme: scheme, Id: name} }

func entry(perms int32, scheme, name string) proto.ACL {
	return proto.ACL{Perms: perms, Id: id(scheme, name)}
}

func TestNewCheckerValidation(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"defaults", DefaultConfig(), true},
		{"zero value", Config{}, true},
		{"all providers", allProviders(), true},
		{"digest and ip classes", Config{ExtraProviders: []string{ClassDigestProvider, ClassIPProvider}}, true},
		{"unknown class", Config{ExtraProviders: []string{"com.example.MyProvider"}}, false},
		{"short name is not a class", Config{ExtraProviders: []string{"sasl"}}, false},
		{"bad algorithm", Config{DigestAlg: "nope"}, false},
		{"bad algorithm with digest disabled", Config{DigestEnabled: false, DigestAlg: "nope"}, false},
		{"enforce without schemes", Config{EnforceAuthEnabled: true}, false},
		{"enforce digest", Config{DigestEnabled: true, EnforceAuthEnabled: true, EnforceAuthSchemes: []string{"digest"}}, true},
		{"enforce disabled digest", Config{EnforceAuthEnabled: true, EnforceAuthSchemes: []string{"digest"}}, false},
		{"enforce empty scheme", Config{EnforceAuthEnabled: true, EnforceAuthSchemes: SplitTrimmed("")}, false},
		{"enforce unregistered sasl", Config{EnforceAuthEnabled: true, EnforceAuthSchemes: []string{"sasl"}}, false},
		{"schemes ignored when not enabled", Config{EnforceAuthSchemes: []string{"nope"}}, true},
		{"require sasl without provider", Config{SessionRequireClientSASLAuth: true}, false},
		{"require sasl", Config{SessionRequireClientSASLAuth: true, ExtraProviders: []string{ClassSASLProvider}}, true},
		{"require sasl overrides enforce schemes", Config{SessionRequireClientSASLAuth: true, ExtraProviders: []string{ClassSASLProvider},
			EnforceAuthEnabled: true, EnforceAuthSchemes: []string{"nope"}}, true},
	}
	for _, tt := range tests {
		_, err := NewChecker(tt.cfg)
		if (err == nil) != tt.ok {
			t.Errorf("%s: NewChecker error = %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}

func TestAuthenticate(t *testing.T) {
	withSuper := allProviders()
	withSuper.SuperDigest = superID
	withSuper.EnsembleNames = SplitTrimmed("ens1, ens2")
	full := mustChecker(t, withSuper)
	minimal := mustChecker(t, Config{})
	anyEnsemble := mustChecker(t, Config{ExtraProviders: []string{ClassEnsembleProvider}})
	noNames := Config{ExtraProviders: []string{ClassEnsembleProvider}, EnsembleNames: SplitTrimmed("")}
	emptyEnsemble := mustChecker(t, noNames)

	tests := []struct {
		name    string
		c       *Checker
		scheme  string
		auth    []byte
		want    []proto.Id
		wantErr error
	}{
		{"ip re-adds the address", full, "ip", []byte("junk"), []proto.Id{id("ip", "10.1.2.3")}, nil},
		{"ip without data", minimal, "ip", nil, []proto.Id{id("ip", "10.1.2.3")}, nil},
		{"digest", full, "digest", []byte("alice:secret"), []proto.Id{id("digest", aliceID)}, nil},
		{"digest without colon", full, "digest", []byte("bob"), []proto.Id{id("digest", "bob:SBgazSKz7a68ikR4aKfffOYpkgo=")}, nil},
		{"digest empty", full, "digest", []byte{}, []proto.Id{id("digest", ":2jmj7l5rSw0yVb/vlWAYkK/YBwk=")}, nil},
		{"digest super", full, "digest", []byte("super:test"), []proto.Id{id("super", ""), id("digest", superID)}, nil},
		{"digest super unset", mustChecker(t, DefaultConfig()), "digest", []byte("super:test"), []proto.Id{id("digest", superID)}, nil},
		{"digest null buffer", full, "digest", nil, nil, ErrAuthFailed},
		{"digest disabled", minimal, "digest", []byte("alice:secret"), nil, ErrNoProvider},
		{"sasl packet", full, "sasl", []byte("x"), nil, ErrAuthFailed},
		{"sasl unregistered", minimal, "sasl", []byte("x"), nil, ErrNoProvider},
		{"x509 packet", full, "x509", nil, nil, ErrCertificateRequired},
		{"x509 is an auth failure", full, "x509", nil, nil, ErrAuthFailed},
		{"super", full, "super", []byte("x"), nil, ErrNoProvider},
		{"world", full, "world", []byte("anyone"), nil, ErrNoProvider},
		{"auth", full, "auth", []byte{}, nil, ErrNoProvider},
		{"unknown", full, "kerberos", []byte("x"), nil, ErrNoProvider},
		{"ensemble known", full, "ensemble", []byte("ens2"), nil, nil},
		{"ensemble empty data", full, "ensemble", []byte{}, nil, nil},
		{"ensemble null data", full, "ensemble", nil, nil, nil},
		{"ensemble unknown", full, "ensemble", []byte("bad"), nil, ErrEnsembleRejected},
		{"ensemble untrimmed", full, "ensemble", []byte(" ens1"), nil, ErrEnsembleRejected},
		{"ensemble unconfigured accepts all", anyEnsemble, "ensemble", []byte("bad"), nil, nil},
		{"ensemble configured empty", emptyEnsemble, "ensemble", []byte("x"), nil, ErrEnsembleRejected},
		{"ensemble unregistered", minimal, "ensemble", []byte("ens1"), nil, ErrNoProvider},
	}
	for _, tt := range tests {
		got, err := tt.c.Authenticate(tt.scheme, tt.auth, "10.1.2.3")
		if tt.wantErr != nil {
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("%s: error = %v, want %v", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s: Authenticate = %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
	if _, err := full.Authenticate("kerberos", nil, ""); errors.Is(err, ErrAuthFailed) || errors.Is(err, ErrEnsembleRejected) {
		t.Errorf("unknown scheme error %v should only be ErrNoProvider", err)
	}
}

func TestX509AndSASLIdentities(t *testing.T) {
	cfg := allProviders()
	cfg.X509SuperUser = "CN=admin"
	cfg.SASLSuperUsers = []string{"", "zkadmin"}
	c := mustChecker(t, cfg)
	if got, want := c.X509Identities("CN=client"), []proto.Id{id("x509", "CN=client")}; !slices.Equal(got, want) {
		t.Errorf("X509Identities = %v, want %v", got, want)
	}
	if got, want := c.X509Identities("CN=admin"), []proto.Id{id("super", "CN=admin"), id("x509", "CN=admin")}; !slices.Equal(got, want) {
		t.Errorf("X509Identities(super) = %v, want %v", got, want)
	}
	if got, want := c.SASLIdentities("alice"), []proto.Id{id("sasl", "alice")}; !slices.Equal(got, want) {
		t.Errorf("SASLIdentities = %v, want %v", got, want)
	}
	if got, want := c.SASLIdentities("zkadmin"), []proto.Id{id("sasl", "zkadmin"), id("super", "")}; !slices.Equal(got, want) {
		t.Errorf("SASLIdentities(super) = %v, want %v", got, want)
	}
	if got, want := c.SASLIdentities(""), []proto.Id{id("sasl", "")}; !slices.Equal(got, want) {
		t.Errorf("SASLIdentities(\"\") = %v, want %v (an empty id is never super)", got, want)
	}
}

func TestAllowed(t *testing.T) {
	cfg := allProviders()
	cfg.X509SuperUser = "CN=admin"
	cfg.LetAnySASLUserDoX = "anybody"
	c := mustChecker(t, cfg)
	skip := mustChecker(t, Config{SkipACL: true})
	plain := mustChecker(t, DefaultConfig())

	ip := id("ip", "10.1.2.3")
	alice := id("digest", aliceID)
	read := proto.PermRead
	tests := []struct {
		name string
		c    *Checker
		acl  []proto.ACL
		perm int32
		ids  []proto.Id
		want bool
	}{
		{"skipACL", skip, []proto.ACL{entry(0, "world", "anyone")}, read, nil, true},
		{"empty ACL", c, nil, proto.PermAdmin, nil, true},
		{"world anyone", c, proto.OpenACLUnsafe, proto.PermWrite, []proto.Id{ip}, true},
		{"world anyone without the bit", c, proto.ReadACLUnsafe, proto.PermWrite, []proto.Id{ip}, false},
		{"world anyone with no identities", c, proto.ReadACLUnsafe, read, nil, true},
		{"any requested bit is enough", c, proto.ReadACLUnsafe, read | proto.PermAdmin, nil, true},
		{"perms 0 grants nothing", c, []proto.ACL{entry(0, "world", "anyone")}, read, []proto.Id{ip}, false},
		{"super passes everything", c, []proto.ACL{entry(0, "world", "anyone")}, proto.PermAdmin, []proto.Id{ip, id("super", "")}, true},
		{"x509 super id passes everything", c, []proto.ACL{entry(read, "digest", bobID)}, proto.PermAdmin, []proto.Id{id("super", "CN=admin")}, true},
		{"world other id", c, []proto.ACL{entry(31, "world", "everyone")}, read, []proto.Id{id("world", "everyone")}, false},
		{"digest match", c, []proto.ACL{entry(read, "digest", aliceID)}, read, []proto.Id{ip, alice}, true},
		{"digest other user", c, []proto.ACL{entry(read, "digest", bobID)}, read, []proto.Id{ip, alice}, false},
		{"digest disabled", mustChecker(t, Config{}), []proto.ACL{entry(read, "digest", aliceID)}, read, []proto.Id{alice}, false},
		{"scheme must agree", c, []proto.ACL{entry(read, "sasl", aliceID)}, read, []proto.Id{alice}, false},
		{"ip exact", c, []proto.ACL{entry(read, "ip", "10.1.2.3")}, read, []proto.Id{ip}, true},
		{"ip prefix", c, []proto.ACL{entry(read, "ip", "10.0.0.0/8")}, read, []proto.Id{ip}, true},
		{"ip other prefix", c, []proto.ACL{entry(read, "ip", "11.0.0.0/8")}, read, []proto.Id{ip}, false},
		{"ip Java digits", c, []proto.ACL{entry(read, "ip", "+10.1.2.3/+32")}, read, []proto.Id{ip}, true},
		{"ip v6 client never matches", c, []proto.ACL{entry(read, "ip", "0.0.0.0/0")}, read, []proto.Id{IPIdentity("::1")}, false},
		{"ip invalid expression", c, []proto.ACL{entry(read, "ip", "10.0.0.0/33")}, read, []proto.Id{ip}, false},
		{"later entry matches", c, []proto.ACL{entry(proto.PermWrite, "world", "anyone"), entry(read, "digest", bobID), entry(read, "ip", "10.1.2.0/24")}, read, []proto.Id{ip}, true},
		{"sasl match", c, []proto.ACL{entry(read, "sasl", "alice")}, read, []proto.Id{id("sasl", "alice")}, true},
		{"sasl other", c, []proto.ACL{entry(read, "sasl", "bob")}, read, []proto.Id{id("sasl", "alice")}, false},
		{"sasl id super", c, []proto.ACL{entry(read, "sasl", "bob")}, read, []proto.Id{id("sasl", "super")}, true},
		{"sasl letAnySaslUserDoX", c, []proto.ACL{entry(read, "sasl", "anybody")}, read, []proto.Id{id("sasl", "alice")}, true},
		{"sasl unregistered", plain, []proto.ACL{entry(read, "sasl", "alice")}, read, []proto.Id{id("sasl", "alice")}, false},
		{"x509 match", c, []proto.ACL{entry(read, "x509", "CN=client")}, read, []proto.Id{id("x509", "CN=client")}, true},
		{"x509 other", c, []proto.ACL{entry(read, "x509", "CN=other")}, read, []proto.Id{id("x509", "CN=client")}, false},
		{"x509 super user matches any x509 entry", c, []proto.ACL{entry(read, "x509", "CN=other")}, read, []proto.Id{id("x509", "CN=admin")}, true},
		{"ensemble never matches", c, []proto.ACL{entry(read, "ensemble", "ens1")}, read, []proto.Id{id("ensemble", "ens1")}, false},
		{"super entry is no provider", c, []proto.ACL{entry(read, "super", "")}, read, []proto.Id{id("digest", "")}, false},
	}
	for _, tt := range tests {
		if got := tt.c.Allowed(tt.acl, tt.perm, tt.ids); got != tt.want {
			t.Errorf("%s: Allowed = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestAllowedDoesNotAllocate(t *testing.T) {
	c := mustChecker(t, allProviders())
	acl, ids := benchmarkACL()
	allocs := testing.AllocsPerRun(100, func() {
		if c.Allowed(acl, proto.PermWrite, ids) {
			t.Fatal("unexpectedly allowed")
		}
		if !c.Allowed(acl, proto.PermRead, ids) {
			t.Fatal("unexpectedly refused")
		}
	})
	if allocs != 0 {
		t.Errorf("Allowed allocates %v times per call", allocs)
	}
}

func TestFixupACL(t *testing.T) {
	c := mustChecker(t, allProviders())
	plain := mustChecker(t, DefaultConfig())
	ip := id("ip", "127.0.0.1")
	alice, bob := id("digest", aliceID), id("digest", bobID)
	tests := []struct {
		name string
		c    *Checker
		acl  []proto.ACL
		ids  []proto.Id
		want []proto.ACL // nil: InvalidACL
	}{
		{"open", c, proto.OpenACLUnsafe, []proto.Id{ip}, proto.OpenACLUnsafe},
		{"duplicates keep the first place",
			c, []proto.ACL{entry(1, "world", "anyone"), entry(1, "world", "anyone"), entry(31, "world", "anyone")}, nil,
			[]proto.ACL{entry(1, "world", "anyone"), entry(31, "world", "anyone")}},
		{"perms are not validated", c, []proto.ACL{entry(-5, "world", "anyone"), entry(0, "world", "anyone")}, nil,
			[]proto.ACL{entry(-5, "world", "anyone"), entry(0, "world", "anyone")}},
		{"one world entry with any perms", c, []proto.ACL{entry(-5, "world", "anyone")}, nil, []proto.ACL{entry(-5, "world", "anyone")}},
		{"one world entry of another id", c, []proto.ACL{entry(31, "world", "anyonE")}, nil, nil},
		{"empty", c, []proto.ACL{}, []proto.Id{ip, alice}, nil},
		{"nil", c, nil, []proto.Id{ip, alice}, nil},
		{"creator all without auth", c, proto.CreatorAllACL, []proto.Id{ip}, nil},
		{"auth ignores ip and super", c, proto.CreatorAllACL, []proto.Id{ip, id("super", "")}, nil},
		{"auth expands digest", c, proto.CreatorAllACL, []proto.Id{ip, alice}, []proto.ACL{{Perms: 31, Id: alice}}},
		{"auth expands two digests in ids order", c, []proto.ACL{entry(31, "auth", "whatever")}, []proto.Id{bob, alice, ip},
			[]proto.ACL{{Perms: 31, Id: bob}, {Perms: 31, Id: alice}}},
		{"expansion keeps later duplicates", c, []proto.ACL{entry(31, "auth", ""), {Perms: 31, Id: alice}}, []proto.Id{alice},
			[]proto.ACL{{Perms: 31, Id: alice}, {Perms: 31, Id: alice}}},
		{"auth with perms 0", c, []proto.ACL{entry(0, "auth", "")}, []proto.Id{alice}, []proto.ACL{{Perms: 0, Id: alice}}},
		{"auth expands sasl and x509", c, proto.CreatorAllACL, []proto.Id{id("sasl", "svc/h@R"), ip, id("x509", "CN=c")},
			[]proto.ACL{entry(31, "sasl", "svc/h@R"), entry(31, "x509", "CN=c")}},
		{"auth skips schemes without provider", plain, proto.CreatorAllACL, []proto.Id{id("x509", "CN=c"), alice},
			[]proto.ACL{{Perms: 31, Id: alice}}},
		{"ensemble ids are not authenticated", c, proto.CreatorAllACL, []proto.Id{id("ensemble", "e")}, nil},
		{"world foo", c, []proto.ACL{entry(31, "world", "foo")}, nil, nil},
		{"unknown scheme", c, []proto.ACL{entry(31, "kerberos", "x")}, nil, nil},
		{"super scheme", c, []proto.ACL{entry(31, "super", "")}, []proto.Id{id("super", "")}, nil},
		{"digest", c, []proto.ACL{entry(31, "digest", bobID)}, nil, []proto.ACL{entry(31, "digest", bobID)}},
		{"digest without colon", c, []proto.ACL{entry(31, "digest", "nocolon")}, nil, nil},
		{"digest with two colons", c, []proto.ACL{entry(31, "digest", "a:b:c")}, nil, nil},
		{"digest disabled", mustChecker(t, Config{}), []proto.ACL{entry(31, "digest", bobID)}, nil, nil},
		{"ip prefix", c, []proto.ACL{entry(31, "ip", "10.0.0.0/8")}, nil, []proto.ACL{entry(31, "ip", "10.0.0.0/8")}},
		{"ip bits too large", c, []proto.ACL{entry(31, "ip", "10.0.0.0/33")}, nil, nil},
		{"ip not an address", c, []proto.ACL{entry(31, "ip", "localhost")}, nil, nil},
		{"ip v6", c, []proto.ACL{entry(31, "ip", "::1")}, nil, nil},
		{"sasl", c, []proto.ACL{entry(31, "sasl", "a/b@C")}, nil, []proto.ACL{entry(31, "sasl", "a/b@C")}},
		{"sasl bad kerberos name", c, []proto.ACL{entry(31, "sasl", "a@b@C")}, nil, nil},
		{"sasl unregistered", plain, []proto.ACL{entry(31, "sasl", "a")}, nil, nil},
		{"x509", c, []proto.ACL{entry(31, "x509", "CN=foo,O=bar")}, nil, []proto.ACL{entry(31, "x509", "CN=foo,O=bar")}},
		{"x509 not a name", c, []proto.ACL{entry(31, "x509", "foo")}, nil, nil},
		{"ensemble", c, []proto.ACL{entry(31, "ensemble", "ens1")}, nil, nil},
		{"one bad entry spoils the list", c, []proto.ACL{entry(31, "world", "anyone"), entry(31, "ip", "bad")}, nil, nil},
	}
	for _, tt := range tests {
		in := slices.Clone(tt.acl)
		got, code := tt.c.FixupACL(tt.acl, tt.ids)
		if tt.want == nil {
			if code != proto.ErrInvalidACL || got != nil {
				t.Errorf("%s: FixupACL = %v, %v; want InvalidACL", tt.name, got, code)
			}
		} else if code != proto.ErrOK || !slices.Equal(got, tt.want) {
			t.Errorf("%s: FixupACL = %v, %v; want %v", tt.name, got, code, tt.want)
		}
		if !slices.Equal(in, tt.acl) {
			t.Errorf("%s: FixupACL modified its input", tt.name)
		}
	}
}

func TestFixupACLDedupesLongLists(t *testing.T) {
	c := mustChecker(t, DefaultConfig())
	var in, want []proto.ACL
	for i := range 100 {
		in = append(in, entry(int32(i%40), "world", "anyone"))
		if i < 40 {
			want = append(want, entry(int32(i), "world", "anyone"))
		}
	}
	got, code := c.FixupACL(in, nil)
	if code != proto.ErrOK || !slices.Equal(got, want) {
		t.Errorf("FixupACL of 100 entries = %d entries, %v; want the first 40", len(got), code)
	}
}

func TestWhoAmI(t *testing.T) {
	c := mustChecker(t, allProviders())
	ids := []proto.Id{
		id("ip", "127.0.0.1"), id("digest", "carol:abc="), id("super", ""), id("super", "CN=admin"),
		id("sasl", "zk/host@R"), id("x509", "CN=c"), id("ensemble", "e"), id("digest", ":x="),
	}
	want := []proto.ClientInfo{
		{AuthScheme: "ip", User: "127.0.0.1"}, {AuthScheme: "digest", User: "carol"},
		{AuthScheme: "super", User: ""}, {AuthScheme: "super", User: ""},
		{AuthScheme: "sasl", User: "zk/host@R"}, {AuthScheme: "x509", User: "CN=c"},
		{AuthScheme: "ensemble", User: "e"}, {AuthScheme: "digest", User: ""},
	}
	if got := c.WhoAmI(ids); !slices.Equal(got, want) {
		t.Errorf("WhoAmI =\n %v\nwant\n %v", got, want)
	}
	// Without a provider the user is empty, as for super.
	plain := mustChecker(t, Config{})
	got := plain.WhoAmI([]proto.Id{id("x509", "CN=c"), id("digest", "carol:abc=")})
	if want := []proto.ClientInfo{{AuthScheme: "x509"}, {AuthScheme: "digest"}}; !slices.Equal(got, want) {
		t.Errorf("WhoAmI without providers = %v, want %v", got, want)
	}
}

func TestEnforcedAuth(t *testing.T) {
	none := mustChecker(t, DefaultConfig())
	if none.EnforcesAuth() || none.SASLAuthRequired() || !none.SatisfiesEnforcedAuth(nil) {
		t.Error("default config should enforce nothing")
	}
	digest := mustChecker(t, Config{DigestEnabled: true, EnforceAuthEnabled: true, EnforceAuthSchemes: SplitTrimmed("ip, digest")})
	if !digest.EnforcesAuth() || digest.SASLAuthRequired() {
		t.Error("enforce ip,digest: want enforcement without sasl")
	}
	if !digest.SatisfiesEnforcedAuth([]proto.Id{id("ip", "127.0.0.1")}) {
		t.Error("an ip identity satisfies an enforced ip scheme")
	}
	onlyDigest := mustChecker(t, Config{DigestEnabled: true, EnforceAuthEnabled: true, EnforceAuthSchemes: []string{"digest"}})
	if onlyDigest.SatisfiesEnforcedAuth([]proto.Id{id("ip", "127.0.0.1"), id("super", "")}) {
		t.Error("ip and super do not satisfy an enforced digest scheme")
	}
	if !onlyDigest.SatisfiesEnforcedAuth([]proto.Id{id("ip", "127.0.0.1"), id("digest", aliceID)}) {
		t.Error("a digest identity satisfies an enforced digest scheme")
	}
	sasl := mustChecker(t, Config{SessionRequireClientSASLAuth: true, ExtraProviders: []string{ClassSASLProvider}})
	if !sasl.SASLAuthRequired() || sasl.SatisfiesEnforcedAuth([]proto.Id{id("digest", aliceID)}) || !sasl.SatisfiesEnforcedAuth([]proto.Id{id("sasl", "a")}) {
		t.Error("sessionRequireClientSASLAuth: want sasl required and satisfied only by sasl")
	}
}

func TestHasProvider(t *testing.T) {
	c := mustChecker(t, Config{ExtraProviders: []string{ClassX509Provider}})
	for scheme, want := range map[string]bool{"ip": true, "digest": false, "x509": true, "sasl": false, "ensemble": false, "world": false, "super": false, "auth": false} {
		if got := c.HasProvider(scheme); got != want {
			t.Errorf("HasProvider(%q) = %v, want %v", scheme, got, want)
		}
	}
	if !mustChecker(t, Config{ExtraProviders: []string{ClassDigestProvider}}).HasProvider("digest") {
		t.Error("naming the digest class registers digest even when disabled")
	}
}

func benchmarkACL() ([]proto.ACL, []proto.Id) {
	acl := []proto.ACL{
		entry(proto.PermAll, "digest", bobID),
		entry(proto.PermRead, "ip", "192.168.0.0/16"),
		entry(proto.PermRead|proto.PermCreate, "digest", aliceID),
	}
	ids := []proto.Id{id("ip", "10.1.2.3"), id("digest", aliceID)}
	return acl, ids
}

func BenchmarkAllowed(b *testing.B) {
	c := mustChecker(b, allProviders())
	acl, ids := benchmarkACL()
	b.ReportAllocs()
	for b.Loop() {
		if !c.Allowed(acl, proto.PermRead, ids) {
			b.Fatal("refused")
		}
	}
}

func BenchmarkAllowedDenied(b *testing.B) {
	c := mustChecker(b, allProviders())
	acl, ids := benchmarkACL()
	b.ReportAllocs()
	for b.Loop() {
		if c.Allowed(acl, proto.PermDelete, ids) {
			b.Fatal("allowed")
		}
	}
}

func BenchmarkFixupACL(b *testing.B) {
	c := mustChecker(b, allProviders())
	acl := []proto.ACL{entry(proto.PermAll, "auth", ""), entry(proto.PermRead, "world", "anyone"), entry(proto.PermRead, "ip", "10.0.0.0/8")}
	ids := []proto.Id{id("ip", "10.1.2.3"), id("digest", aliceID)}
	b.ReportAllocs()
	for b.Loop() {
		if _, code := c.FixupACL(acl, ids); code != proto.ErrOK {
			b.Fatal(code)
		}
	}
}

func BenchmarkAuthenticateDigest(b *testing.B) {
	c := mustChecker(b, DefaultConfig())
	auth := []byte("alice:secret")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Authenticate("digest", auth, "10.1.2.3"); err != nil {
			b.Fatal(err)
		}
	}
}
