package sasl

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// jdkCase is one exchange recorded by testdata/jdk/DigestRecorder.java
// between the JDK's SaslClient and SaslServer (see record.sh).
type jdkCase struct {
	file                           string
	user, password, serverPassword string
	authzid                        string
	serverQOP, clientQOP           []string
}

var jdkCases = []jdkCase{
	{file: "auth-authzid", user: "bob", password: "bobsecret", serverPassword: "bobsecret", authzid: "bob"},
	{file: "auth-no-authzid", user: "bob", password: "bobsecret", serverPassword: "bobsecret"},
	{file: "wrong-password", user: "bob", password: "wrong", serverPassword: "bobsecret", authzid: "bob"},
	{file: "auth-int", user: "bob", password: "bobsecret", serverPassword: "bobsecret", serverQOP: []string{"auth-conf", "auth-int", "auth"}, clientQOP: []string{"auth-int"}},
	{file: "unicode", user: "jörg", password: "pässwörd€", serverPassword: "pässwörd€", authzid: "jörg"},
	{file: "no-common-qop", user: "bob", password: "bobsecret", serverPassword: "bobsecret", authzid: "bob", clientQOP: []string{"auth-int"}},
	{file: "quotes", user: `a"b\c`, password: `p"w`, serverPassword: `p"w`},
}

type recordedStep struct{ kind, value string }

func loadRecording(t *testing.T, name string) []recordedStep {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "jdk", name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	var steps []recordedStep
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		kind, v, _ := strings.Cut(sc.Text(), " ")
		if kind == "challenge" || kind == "response" {
			b, err := base64.StdEncoding.DecodeString(v)
			if err != nil {
				t.Fatal(err)
			}
			v = string(b)
		}
		steps = append(steps, recordedStep{kind, v})
	}
	return steps
}

var quotedNonce = regexp.MustCompile(`\bnonce="([^"]*)"`)
var quotedCnonce = regexp.MustCompile(`cnonce="([^"]*)"`)

// fixedRand replays the random bytes behind a recorded base64 nonce.
func fixedRand(t *testing.T, nonce string) *bytes.Reader {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(nonce)
	if err != nil || len(b) != nonceBytes {
		t.Fatalf("nonce %q: %v", nonce, err)
	}
	return bytes.NewReader(b)
}

// TestDigestServerMatchesJDK replays each recorded JDK client response
// into gozk's server, given the same nonce: the challenge and the
// rspauth must be byte for byte the JDK server's, and a wrong password
// must be refused where the JDK refused it.
func TestDigestServerMatchesJDK(t *testing.T) {
	for _, c := range jdkCases {
		t.Run(c.file, func(t *testing.T) {
			steps := loadRecording(t, c.file)
			nonce := quotedNonce.FindStringSubmatch(steps[0].value)[1]
			f, err := NewDigestServerFactory(DigestServerConfig{
				Users: map[string]string{c.user: c.serverPassword},
				QOP:   c.serverQOP,
				Rand:  fixedRand(t, nonce),
			})
			if err != nil {
				t.Fatal(err)
			}
			srv, _ := f.NewServer()
			ch, err := srv.Evaluate(nil)
			if err != nil || string(ch) != steps[0].value {
				t.Fatalf("challenge\n got %s %v\nwant %s", ch, err, steps[0].value)
			}
			if len(steps) < 2 || steps[1].kind != "response" {
				return // the JDK client refused the challenge
			}
			out, err := srv.Evaluate([]byte(steps[1].value))
			switch steps[2].kind {
			case "server-error":
				if err == nil || !errors.Is(err, ErrAuthentication) || !strings.Contains(err.Error(), "Mismatched response") {
					t.Fatalf("JDK refused (%s); gozk: %q %v", steps[2].value, out, err)
				}
				if srv.Complete() {
					t.Fatal("complete after a refusal")
				}
			case "challenge":
				if err != nil || string(out) != steps[2].value {
					t.Fatalf("rspauth\n got %s %v\nwant %s", out, err, steps[2].value)
				}
				fields := strings.Fields(steps[3].value)
				if !srv.Complete() || srv.AuthorizationID() != c.user || fields[0] != c.user {
					t.Fatalf("complete %v id %q, JDK %q", srv.Complete(), srv.AuthorizationID(), steps[3].value)
				}
				if q := srv.(*digestServer).QOP(); q != fields[1] {
					t.Fatalf("qop %s, JDK %s", q, fields[1])
				}
			}
		})
	}
}

// TestDigestClientMatchesJDK feeds each recorded JDK server challenge to
// gozk's client with the JDK client's cnonce: its response must be the
// JDK client's byte for byte, and it must accept the recorded rspauth.
func TestDigestClientMatchesJDK(t *testing.T) {
	for _, c := range jdkCases {
		t.Run(c.file, func(t *testing.T) {
			steps := loadRecording(t, c.file)
			var rnd *bytes.Reader
			if len(steps) > 1 && steps[1].kind == "response" {
				rnd = fixedRand(t, quotedCnonce.FindStringSubmatch(steps[1].value)[1])
			} else {
				rnd = bytes.NewReader(make([]byte, nonceBytes))
			}
			cl, err := NewDigestClient(DigestClientConfig{Username: c.user, Password: c.password, AuthorizationID: c.authzid, QOP: c.clientQOP, Rand: rnd})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := cl.Evaluate([]byte(steps[0].value))
			if steps[1].kind == "client-error" {
				if err == nil || !strings.Contains(err.Error(), "no common protection layer") {
					t.Fatalf("JDK refused (%s); gozk: %q %v", steps[1].value, resp, err)
				}
				return
			}
			if err != nil || string(resp) != steps[1].value {
				t.Fatalf("response\n got %s %v\nwant %s", resp, err, steps[1].value)
			}
			if steps[2].kind != "challenge" {
				return
			}
			if out, err := cl.Evaluate([]byte(steps[2].value)); err != nil || out != nil || !cl.Complete() {
				t.Fatalf("rspauth: %q %v complete %v", out, err, cl.Complete())
			}
		})
	}
}

func newTestServer(t *testing.T, cfg DigestServerConfig) Server {
	t.Helper()
	if cfg.Users == nil {
		cfg.Users = map[string]string{"bob": "bobsecret", "super": "ignored"}
	}
	f, err := NewDigestServerFactory(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// exchange runs client against server and returns the server's error.
func exchange(t *testing.T, srv Server, cl Client) error {
	t.Helper()
	ch, err := srv.Evaluate(nil)
	if err != nil {
		return err
	}
	resp, err := cl.Evaluate(ch)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	rsp, err := srv.Evaluate(resp)
	if err != nil {
		return err
	}
	if _, err := cl.Evaluate(rsp); err != nil {
		t.Fatalf("client on rspauth: %v", err)
	}
	if !srv.Complete() || !cl.Complete() {
		t.Fatal("not complete")
	}
	return nil
}

func TestDigestRoundTrip(t *testing.T) {
	cases := []struct {
		name                string
		cfg                 DigestServerConfig
		user, pass, authzid string
		wantID              string
		wantErr             string
		uncaught            bool
	}{
		{name: "ok", user: "bob", pass: "bobsecret", wantID: "bob"},
		{name: "authzid is not the identity", user: "bob", pass: "bobsecret", authzid: "super", wantID: "bob"},
		{name: "wrong password", user: "bob", pass: "nope", wantErr: "Mismatched response"},
		{name: "unknown user", user: "eve", pass: "x", wantErr: "cannot acquire password for eve"},
		{name: "superPassword replaces user_super", cfg: DigestServerConfig{HasSuperPassword: true, SuperPassword: "root"}, user: "super", pass: "root", wantID: "super"},
		{name: "user_super password no longer works", cfg: DigestServerConfig{HasSuperPassword: true, SuperPassword: "root"}, user: "super", pass: "ignored", wantErr: "Mismatched response"},
		{name: "superPassword needs user_super", cfg: DigestServerConfig{Users: map[string]string{"bob": "b"}, HasSuperPassword: true, SuperPassword: "root"}, user: "super", pass: "root", wantErr: "cannot acquire password for super"},
		{name: "principal kept", cfg: DigestServerConfig{Users: map[string]string{"zk/host@R": "p"}}, user: "zk/host@R", pass: "p", wantID: "zk/host@R"},
		{name: "host and realm removed", cfg: DigestServerConfig{Users: map[string]string{"zk/host@R": "p"}, RemoveHostFromPrincipal: true, RemoveRealmFromPrincipal: true}, user: "zk/host@R", pass: "p", wantID: "zk"},
		{name: "malformed principal", cfg: DigestServerConfig{Users: map[string]string{"a@b@c": "p"}}, user: "a@b@c", pass: "p", wantErr: "malformed", uncaught: true},
		// The quorum's rule: a learner is admitted only as itself.
		{name: "authorized as itself", cfg: DigestServerConfig{Authorize: selfOnly}, user: "bob", pass: "bobsecret", wantID: "bob"},
		{name: "authorized as itself by name", cfg: DigestServerConfig{Authorize: selfOnly}, user: "bob", pass: "bobsecret", authzid: "bob", wantID: "bob"},
		{name: "authorized as another refused", cfg: DigestServerConfig{Authorize: selfOnly}, user: "bob", pass: "bobsecret", authzid: "alice", wantErr: "bob is not authorized"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var logs []string
			c.cfg.Logf = func(level, format string, args ...any) { logs = append(logs, level) }
			srv := newTestServer(t, c.cfg)
			cl, err := NewDigestClient(DigestClientConfig{Username: c.user, Password: c.pass, AuthorizationID: c.authzid})
			if err != nil {
				t.Fatal(err)
			}
			err = exchange(t, srv, cl)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !errors.Is(err, ErrAuthentication) {
					t.Fatalf("err %v, want %q", err, c.wantErr)
				}
				if srv.Complete() {
					t.Fatal("complete after failure")
				}
				if errors.Is(err, ErrUncaught) != c.uncaught {
					t.Fatalf("ErrUncaught %v, want %v", errors.Is(err, ErrUncaught), c.uncaught)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if srv.AuthorizationID() != c.wantID {
				t.Fatalf("id %q want %q", srv.AuthorizationID(), c.wantID)
			}
			// The exchange is over: anything more is refused.
			if _, err := srv.Evaluate([]byte("x")); err == nil {
				t.Fatal("token accepted after completion")
			}
		})
	}
}

// validResponse builds a correct response to srv's challenge, with the
// given directive replaced (or removed when value is "-").
func validResponse(t *testing.T, challenge []byte) string {
	t.Helper()
	cl, _ := NewDigestClient(DigestClientConfig{Username: "bob", Password: "bobsecret"})
	resp, err := cl.Evaluate(challenge)
	if err != nil {
		t.Fatal(err)
	}
	return string(resp)
}

func TestDigestServerRefusesHostileResponses(t *testing.T) {
	type mutate func(resp, nonce string) string
	repl := func(old, new string) mutate {
		return func(resp, _ string) string { return strings.Replace(resp, old, new, 1) }
	}
	cases := []struct {
		name string
		m    mutate
		want string
	}{
		{"other nonce", func(r, n string) string { return strings.ReplaceAll(r, n, "AAAA"+n[4:]) }, "not the one this exchange issued"},
		{"no nonce", func(r, n string) string { return strings.Replace(r, `nonce="`+n+`",`, "", 1) }, "missing nonce"},
		{"no cnonce", func(r, _ string) string { return quotedCnonce.ReplaceAllString(r, "x=y") }, "missing cnonce"},
		{"empty cnonce", func(r, _ string) string { return quotedCnonce.ReplaceAllString(r, `cnonce=""`) }, "missing cnonce"},
		{"wrong realm", repl(`realm="zk-sasl-md5"`, `realm="other"`), `unknown realm "other"`},
		{"no realm", repl(`realm="zk-sasl-md5",`, ``), `unknown realm ""`},
		{"no username", repl(`username="bob",`, ``), "missing username"},
		{"wrong digest-uri", repl(`digest-uri="zookeeper/zk-sasl-md5"`, `digest-uri="ldap/zk-sasl-md5"`), "digest-uri"},
		{"no digest-uri", repl(`digest-uri="zookeeper/zk-sasl-md5",`, ``), "digest-uri"},
		{"nc 2", repl("nc=00000001", "nc=00000002"), `nc "00000002"`},
		{"nc garbage", repl("nc=00000001", "nc=zz"), `nc "zz"`},
		{"qop not offered", repl("qop=auth", "qop=auth-int"), `qop "auth-int" was not offered`},
		{"qop unknown", repl("qop=auth", "qop=none"), `invalid qop "none"`},
		{"charset", repl("maxbuf=65536", "maxbuf=65536,charset=latin1"), "more than once"},
		{"maxbuf garbage", repl("maxbuf=65536", "maxbuf=abc"), "maxbuf"},
		{"maxbuf huge", repl("maxbuf=65536", "maxbuf=99999999999"), "maxbuf"},
		{"duplicate username", func(r, _ string) string { return r + `,username="super"` }, "username sent more than once"},
		{"no response", func(r, _ string) string { return regexp.MustCompile(`response=[0-9a-f]+,`).ReplaceAllString(r, "") }, "missing response"},
		{"upper-case response", func(r, _ string) string {
			return regexp.MustCompile(`response=[0-9a-f]+`).ReplaceAllStringFunc(r, strings.ToUpper)
		}, "Mismatched response"},
		{"authzid changes the hash", func(r, _ string) string { return r + `,authzid="super"` }, "Mismatched response"},
		{"unterminated quote", func(r, _ string) string { return r + `,x="abc` }, "unterminated"},
		{"trailing escape", func(r, _ string) string { return r + `,x="abc\` }, "unterminated"},
		{"text after quote", repl(`username="bob"`, `username="bob"x`), "text after the quoted value"},
		{"comma in key", func(r, _ string) string { return "a,b" + r }, "contains a ','"},
		{"empty key", func(r, _ string) string { return "=x," + r }, "empty directive key"},
		{"valueless", func(r, _ string) string { return r + ",x=" }, "has no value"},
		{"missing equals", func(r, _ string) string { return "foo bar," + r }, "'=' expected"},
		{"invalid utf-8", repl(`username="bob"`, "username=\"b\xffb\""), "not valid UTF-8"},
		{"too long", func(r, _ string) string { return r + ",x=\"" + strings.Repeat("a", 4096) + "\"" }, "more than the 4096 allowed"},
		{"empty", func(string, string) string { return "" }, "missing username"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := newTestServer(t, DigestServerConfig{})
			ch, err := srv.Evaluate(nil)
			if err != nil {
				t.Fatal(err)
			}
			nonce := quotedNonce.FindStringSubmatch(string(ch))[1]
			resp := c.m(validResponse(t, ch), nonce)
			out, err := srv.Evaluate([]byte(resp))
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrAuthentication) {
				t.Fatalf("response %s\ngot %q %v\nwant error containing %q", resp, out, err, c.want)
			}
			if srv.Complete() {
				t.Fatal("complete")
			}
			if errors.Is(err, ErrUncaught) != strings.HasPrefix(c.name, "maxbuf") {
				t.Fatalf("ErrUncaught %v: only a maxbuf Integer.parseInt refuses makes the JDK throw", errors.Is(err, ErrUncaught))
			}
		})
	}
}

// TestDigestReplay: a response that succeeded once is refused by the
// same exchange and by a new one (fresh nonce).
func TestDigestReplay(t *testing.T) {
	srv := newTestServer(t, DigestServerConfig{})
	ch, _ := srv.Evaluate(nil)
	resp := validResponse(t, ch)
	if _, err := srv.Evaluate([]byte(resp)); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Evaluate([]byte(resp)); err == nil {
		t.Fatal("replay on the same exchange accepted")
	}
	srv2 := newTestServer(t, DigestServerConfig{})
	if _, err := srv2.Evaluate(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := srv2.Evaluate([]byte(resp)); err == nil || !strings.Contains(err.Error(), "nonce") {
		t.Fatalf("replay on a new exchange: %v", err)
	}
	// A failed exchange stays failed, even if a correct response follows.
	srv3 := newTestServer(t, DigestServerConfig{})
	ch3, _ := srv3.Evaluate(nil)
	if _, err := srv3.Evaluate([]byte("garbage")); err == nil {
		t.Fatal("garbage accepted")
	}
	if _, err := srv3.Evaluate([]byte(validResponse(t, ch3))); err == nil {
		t.Fatal("a failed exchange accepted a later response")
	}
}

func TestDigestClientRefusesBadChallenges(t *testing.T) {
	good := `realm="zk-sasl-md5",nonce="abc",charset=utf-8,algorithm=md5-sess`
	for _, c := range []struct{ name, ch, want string }{
		{"no algorithm", `nonce="abc"`, "no algorithm"},
		{"md5", `nonce="abc",algorithm=md5`, `algorithm "md5"`},
		{"no nonce", `algorithm=md5-sess`, "no nonce"},
		{"charset", `nonce="a",charset=latin1,algorithm=md5-sess`, "charset"},
		{"only auth-conf", `nonce="a",qop="auth-conf",algorithm=md5-sess`, "no common protection layer"},
		{"too long", good + `,x="` + strings.Repeat("a", 2048) + `"`, "more than the 2048 allowed"},
		{"double nonce", good + `,nonce="x"`, "more than once"},
	} {
		cl, _ := NewDigestClient(DigestClientConfig{Username: "bob", Password: "p"})
		if _, err := cl.Evaluate([]byte(c.ch)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// A server that does not know the password cannot forge rspauth.
	cl, _ := NewDigestClient(DigestClientConfig{Username: "bob", Password: "p"})
	if _, err := cl.Evaluate([]byte(good)); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Evaluate([]byte("rspauth=00000000000000000000000000000000")); err == nil || cl.Complete() {
		t.Fatalf("forged rspauth accepted: %v", err)
	}
	// Several realms: the first is taken, as the JDK's default choice.
	cl, _ = NewDigestClient(DigestClientConfig{Username: "bob", Password: "p"})
	resp, err := cl.Evaluate([]byte(`realm="r1",realm="r2",nonce="n",algorithm=md5-sess`))
	if err != nil || !strings.Contains(string(resp), `realm="r1"`) {
		t.Fatalf("%s %v", resp, err)
	}
}

func FuzzDigestServerResponse(f *testing.F) {
	srv := newTestServerF(f)
	ch, _ := srv.Evaluate(nil)
	cl, _ := NewDigestClient(DigestClientConfig{Username: "bob", Password: "bobsecret"})
	resp, _ := cl.Evaluate(ch)
	f.Add(resp)
	f.Add([]byte(`username="a\"b",realm=x,,, nonce = "q"`))
	f.Add([]byte(`a=b c=d`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := newTestServer(t, DigestServerConfig{Rand: bytes.NewReader(bytes.Repeat([]byte{7}, nonceBytes))})
		if _, err := s.Evaluate(nil); err != nil {
			t.Fatal(err)
		}
		out, err := s.Evaluate(data)
		if err == nil {
			// Only a response computed with bob's password may pass.
			if !s.Complete() || s.AuthorizationID() != "bob" || !bytes.HasPrefix(out, []byte("rspauth=")) {
				t.Fatalf("accepted %q: %q", data, out)
			}
			return
		}
		if s.Complete() || !errors.Is(err, ErrAuthentication) {
			t.Fatalf("%q: complete after %v", data, err)
		}
		c, _ := NewDigestClient(DigestClientConfig{Username: "bob", Password: "p"})
		_, _ = c.Evaluate(data) // must not panic
	})
}

func newTestServerF(f *testing.F) Server {
	fac, err := NewDigestServerFactory(DigestServerConfig{Users: map[string]string{"bob": "bobsecret"}, Rand: bytes.NewReader(bytes.Repeat([]byte{7}, nonceBytes))})
	if err != nil {
		f.Fatal(err)
	}
	s, _ := fac.NewServer()
	return s
}

// selfOnly authorizes a user only as itself, as Java's quorum server does.
func selfOnly(authn, authz string) (string, error) {
	if authn != authz {
		return "", fmt.Errorf("%s may not act as %s", authn, authz)
	}
	return authz, nil
}
