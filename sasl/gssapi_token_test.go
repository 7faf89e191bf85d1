package sasl

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/types"
)

func testKey(b byte) types.EncryptionKey {
	return types.EncryptionKey{KeyType: etypeID.AES256_CTS_HMAC_SHA1_96, KeyValue: bytes.Repeat([]byte{b}, 32)}
}

func TestContextTokenFraming(t *testing.T) {
	for _, n := range []int{0, 1, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000} {
		msg := bytes.Repeat([]byte{0xab}, n)
		tok := frameContextToken(tokAPRep, msg)
		id, got, err := parseContextToken(tok)
		if err != nil || id != tokAPRep || !bytes.Equal(got, msg) {
			t.Fatalf("%d bytes: id %x, %d bytes back, %v", n, id, len(got), err)
		}
		if n > 0 {
			if _, _, err := parseContextToken(tok[:len(tok)-1]); err == nil {
				t.Fatalf("%d bytes: a truncated token parses", n)
			}
		}
	}
	tok := frameContextToken(tokAPReq, []byte{1, 2, 3})
	tok[5] ^= 1 // inside the OID
	if _, _, err := parseContextToken(tok); err == nil || !strings.Contains(err.Error(), "not Kerberos V5") {
		t.Fatalf("another mechanism: %v", err)
	}
	big := frameContextToken(tokAPReq, make([]byte, maxGSSTokenSize))
	if _, _, err := parseContextToken(big); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("oversized: %v", err)
	}
	if _, err := parseAPReqToken(frameContextToken(tokAPRep, nil)); err == nil || !strings.Contains(err.Error(), "where an AP-REQ") {
		t.Fatalf("AP-REP as AP-REQ: %v", err)
	}
}

func TestWrapTokens(t *testing.T) {
	key := testKey(1)
	keyFor := func(bool) (types.EncryptionKey, error) { return key, nil }
	tok, err := wrapToken([]byte("payload"), key, true, false, 42)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := unwrapToken(tok, true, keyFor); err != nil || string(got) != "payload" {
		t.Fatalf("round trip: %q %v", got, err)
	}
	if _, err := unwrapToken(tok, false, keyFor); err == nil {
		t.Fatal("an acceptor token taken as the initiator's")
	}
	other := func(bool) (types.EncryptionKey, error) { return testKey(2), nil }
	if _, err := unwrapToken(tok, true, other); err == nil || !strings.Contains(err.Error(), "does not verify") {
		t.Fatalf("wrong key: %v", err)
	}
	// MIT's rotation: the body moved right by RRC bytes, RRC in the
	// header, must verify as the unrotated token.
	for _, rrc := range []int{1, 12, 28, 100} {
		rot := append([]byte(nil), tok...)
		body := rot[16:]
		r := rrc % len(body)
		copy(body, append(append([]byte(nil), body[len(body)-r:]...), body[:len(body)-r]...))
		binary.BigEndian.PutUint16(rot[6:8], uint16(rrc))
		if got, err := unwrapToken(rot, true, keyFor); err != nil || string(got) != "payload" {
			t.Fatalf("rrc %d: %q %v", rrc, got, err)
		}
	}
	sealed := append([]byte(nil), tok...)
	sealed[2] |= wrapSealed
	if _, err := unwrapToken(sealed, true, keyFor); err == nil || !strings.Contains(err.Error(), "encrypted") {
		t.Fatalf("sealed: %v", err)
	}
	shortEC := append([]byte(nil), tok...)
	binary.BigEndian.PutUint16(shortEC[4:6], 2)
	if _, err := unwrapToken(shortEC, true, keyFor); err == nil {
		t.Fatal("a 2-byte checksum accepted")
	}
}

func TestLayerMessage(t *testing.T) {
	b := layerMessage(layerNone, 65536, "bob@EXAMPLE.COM")
	if !bytes.Equal(b[:4], []byte{1, 1, 0, 0}) {
		t.Fatalf("header %x", b[:4])
	}
	l, m, id, err := parseLayerMessage(b)
	if err != nil || l != layerNone || m != 65536 || id != "bob@EXAMPLE.COM" {
		t.Fatalf("%d %d %q %v", l, m, id, err)
	}
	if _, _, _, err := parseLayerMessage(b[:3]); err == nil {
		t.Fatal("3 bytes parse")
	}
}

func TestShapeAuthorizationID(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		removeHost, removeRealm bool
		want                    string
		ok                      bool
	}{
		{"zk/host1@EXAMPLE.COM", false, false, "zk/host1@EXAMPLE.COM", true},
		{"zk/host1@EXAMPLE.COM", true, false, "zk@EXAMPLE.COM", true},
		{"zk/host1@EXAMPLE.COM", false, true, "zk/host1", true},
		{"zk/host1@EXAMPLE.COM", true, true, "zk", true},
		{"bob@EXAMPLE.COM", false, false, "bob@EXAMPLE.COM", true},
		{"bob@EXAMPLE.COM", false, true, "bob", true},
		{"bob", false, false, "bob", true},
		// No auth_to_local rule for another realm.
		{"bob@OTHER.ORG", false, false, "", false},
		{"a@b@c", false, false, "", false},
	} {
		rules, _ := ParseKerberosNameRules("", "EXAMPLE.COM")
		got, err := ShapeAuthorizationID(tc.name, rules, tc.removeHost, tc.removeRealm)
		if ok := err == nil; got != tc.want || ok != tc.ok {
			t.Errorf("%s host=%v realm=%v: %q %v, want %q %v", tc.name, tc.removeHost, tc.removeRealm, got, ok, tc.want, tc.ok)
		}
	}
}

// The rules and expectations follow the auth_to_local examples of
// Hadoop's documentation, which ZooKeeper's KerberosName copies.
func TestKerberosNameRules(t *testing.T) {
	const spec = `RULE:[1:$1@$0](.*@OTHER\.ORG)s/@.*//
		RULE:[2:$1;$2](^zk;.*$)s/;.*$//
		RULE:[2:$1](app)s/a/A/g
		DEFAULT`
	rules, err := ParseKerberosNameRules(spec, "EXAMPLE.COM")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"bob@OTHER.ORG":        "bob",
		"bob@EXAMPLE.COM":      "bob",
		"zk/host1@ANY.REALM":   "zk",
		"app/host1@ANY.REALM":  "App",
		"bob@THIRD.ORG":        "error",
		"other/host@THIRD.ORG": "error",
		"bare":                 "bare",
	} {
		n, _ := ParseKerberosName(name)
		got, err := rules.ShortName(n)
		if err != nil {
			got = "error"
		}
		if got != want {
			t.Errorf("%s: %q (%v), want %q", name, got, err, want)
		}
	}
	// A rule whose result still has '@' or '/' gives no name, as Java's
	// "Non-simple name" error.
	nonSimple, err := ParseKerberosNameRules("RULE:[1:$1@$0]", "EXAMPLE.COM")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nonSimple.ShortName(KerberosName{Service: "bob", Realm: "EXAMPLE.COM"}); err == nil || !strings.Contains(err.Error(), "non-simple") {
		t.Errorf("non-simple: %v", err)
	}
	// The match pattern must match the whole formatted name.
	partial, _ := ParseKerberosNameRules(`RULE:[1:$1@$0](OTHER)s/@.*//`, "EXAMPLE.COM")
	if got, err := partial.ShortName(KerberosName{Service: "bob", Realm: "OTHER.ORG"}); err == nil {
		t.Errorf("a partial match applied: %q", got)
	}
	// First-match substitution without g, and Java's $n in the
	// replacement.
	first, _ := ParseKerberosNameRules("RULE:[1:$1](.*)s/(a)(b)/$2$1/", "")
	if got, _ := first.ShortName(KerberosName{Service: "abab", Realm: "R"}); got != "baab" {
		t.Errorf("first-match: %q", got)
	}
	for _, bad := range []string{"RULE:[x:$1]", "RULE:[:$1]", "DEFAULTS", "RULE:[1:$1](a(]"} {
		if _, err := ParseKerberosNameRules(bad, ""); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	badFormat, _ := ParseKerberosNameRules("RULE:[1:$3]", "")
	if _, err := badFormat.ShortName(KerberosName{Service: "a", Realm: "R"}); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("$3 of one component: %v", err)
	}
}

func TestClientServicePrincipal(t *testing.T) {
	if got := ClientServicePrincipal("", "localhost", ""); got != "zookeeper/localhost" {
		t.Error(got)
	}
	if got := ClientServicePrincipal("zk", "h", "R"); got != "zk/h@R" {
		t.Error(got)
	}
}

func TestKrb5LoginFromEntry(t *testing.T) {
	e := JAASEntry{LoginModule: Krb5LoginModule, Options: map[string]string{
		"useKeyTab": "TRUE", "keyTab": "/k", "storeKey": "true", "isInitiator": "false", "principal": "zk/h@R",
	}}
	l, err := Krb5LoginFromEntry("Server", e)
	if err != nil || !l.UseKeyTab || !l.StoreKey || l.IsInitiator || l.KeyTab != "/k" || l.Principal != "zk/h@R" {
		t.Fatalf("%+v %v", l, err)
	}
	e.Options["useKeyTab"] = "yes"
	if _, err := Krb5LoginFromEntry("Server", e); err == nil || !strings.Contains(err.Error(), "useKeyTab is not true") {
		t.Fatalf("keyTab without useKeyTab: %v", err)
	}
	if _, err := NewGSSAPIServerFactory(GSSAPIServerConfig{Login: Krb5Login{Section: "Server"}}); err == nil || !strings.Contains(err.Error(), "no principal") {
		t.Fatalf("no principal: %v", err)
	}
	if _, err := NewGSSAPIServerFactory(GSSAPIServerConfig{Login: Krb5Login{Section: "Server", Principal: "zk/h@R"}}); err == nil || !strings.Contains(err.Error(), "useKeyTab=true") {
		t.Fatalf("no keytab: %v", err)
	}
	if _, err := NewGSSAPIServerFactory(GSSAPIServerConfig{Login: Krb5Login{Section: "Server", Principal: "zk/h@R", UseKeyTab: true, KeyTab: "/k", IsInitiator: true}}); err == nil || !strings.Contains(err.Error(), "storeKey") {
		t.Fatalf("no storeKey: %v", err)
	}
}

// FuzzGSSAPIServerTokens feeds the acceptor's parsers: the first token
// (framing and AP-REQ), and a wrap token at the layer step. Nothing may
// panic, and nothing but a real token may pass.
func FuzzGSSAPIServerTokens(f *testing.F) {
	key := testKey(7)
	good, _ := wrapToken(layerMessage(layerNone, 0, "x"), key, false, false, 1)
	f.Add(good)
	f.Add(frameContextToken(tokAPReq, []byte{0x6e, 0x03, 0x30, 0x01, 0x00}))
	f.Add(frameContextToken(tokAPRep, nil))
	f.Add([]byte{0x60, 0x83, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = parseAPReqToken(b)
		_, _ = readAPRep(b, types.Authenticator{}, key)
		s := &gssapiServer{f: &GSSAPIServerFactory{}, stage: awaitingLayer, key: key, peer: "p@R"}
		if err := s.readLayerChoice(b); err == nil && !bytes.Equal(b, good) {
			// Only the token itself (or one the checksum also covers,
			// which the fuzzer cannot forge) may pass.
			if _, err2 := unwrapToken(b, false, func(bool) (types.EncryptionKey, error) { return key, nil }); err2 != nil {
				t.Fatalf("accepted a token unwrap refuses: %x", b)
			}
		}
	})
}

// FuzzKerberosNameRules: rule text from the configuration and names from
// tickets must never panic, and a short name never contains '/' or '@'.
func FuzzKerberosNameRules(f *testing.F) {
	f.Add(`RULE:[1:$1@$0](.*@OTHER\.ORG)s/@.*// DEFAULT`, "bob@OTHER.ORG")
	f.Add(`RULE:[2:$2$1$0]s/(.)/$1$1/g`, "a/b@R")
	f.Add("DEFAULT", "zk/host@EXAMPLE.COM")
	f.Fuzz(func(t *testing.T, spec, name string) {
		rules, err := ParseKerberosNameRules(spec, "EXAMPLE.COM")
		if err != nil {
			return
		}
		n, err := ParseKerberosName(name)
		if err != nil {
			return
		}
		if short, err := rules.ShortName(n); err == nil && strings.ContainsAny(short, "/@") && (n.Host != "" || n.Realm != "") {
			t.Fatalf("%q from %q by %q", short, name, spec)
		}
	})
}
