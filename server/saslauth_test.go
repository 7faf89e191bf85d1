package server

import (
	"encoding/binary"

	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/acl"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/sasl"
)

const testJAAS = `Server {
    org.apache.zookeeper.server.auth.DigestLoginModule required
    user_super="adminsecret"
    user_bob="bobsecret"
    user_alice="alicesecret";
};
`

// startSASLServer starts a server whose JAAS file is jaas, with the sasl
// provider on (authProvider.1=...SASLAuthenticationProvider) unless
// tweak says otherwise.
func startSASLServer(t *testing.T, jaas string, tweak func(*Config)) *Server {
	t.Helper()
	path := filepath.Join(t.TempDir(), "jaas.conf")
	if err := os.WriteFile(path, []byte(jaas), 0o600); err != nil {
		t.Fatal(err)
	}
	return startTestServer(t, t.TempDir(), func(c *Config) {
		c.SASL.LoginConfig = path
		c.ACL.ExtraProviders = []string{acl.ClassSASLProvider}
		if tweak != nil {
			tweak(c)
		}
	})
}

// rawCall sends one request and returns the reply header and the body
// bytes; closed is true when the server closed the connection instead.
func rawCall(t *testing.T, conn net.Conn, xid int32, op proto.OpCode, req jute.Record) (hdr proto.ReplyHeader, body []byte, closed bool) {
	t.Helper()
	w := jute.NewWriter(nil)
	(&proto.RequestHeader{Xid: xid, Type: int32(op)}).Encode(w)
	if req != nil {
		req.Encode(w)
	}
	sendFrame(t, conn, w.Bytes())
	return readReply(t, conn)
}

func readReply(t *testing.T, conn net.Conn) (hdr proto.ReplyHeader, body []byte, closed bool) {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var n [4]byte
	if _, err := io.ReadFull(conn, n[:]); err != nil {
		if isTimeout(err) {
			t.Fatal("no reply")
		}
		return hdr, nil, true
	}
	b := make([]byte, binary.BigEndian.Uint32(n[:]))
	if _, err := io.ReadFull(conn, b); err != nil {
		t.Fatal(err)
	}
	r := jute.NewReader(b)
	hdr.Decode(r)
	return hdr, b[16:], false
}

// connClosed reports whether the server has closed conn: it sends a
// ping, which an open connection answers (pings are session activity,
// so the answer does not depend on the session's timeout), while a
// closed one ends in EOF or a reset.
func connClosed(conn net.Conn) bool {
	w := jute.NewWriter(nil)
	(&proto.RequestHeader{Xid: -2, Type: int32(proto.OpPing)}).Encode(w)
	frame := binary.BigEndian.AppendUint32(nil, uint32(len(w.Bytes())))
	if _, err := conn.Write(append(frame, w.Bytes()...)); err != nil {
		return true
	}
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		var n [4]byte
		if _, err := io.ReadFull(conn, n[:]); err != nil {
			return !isTimeout(err)
		}
		b := make([]byte, binary.BigEndian.Uint32(n[:]))
		if _, err := io.ReadFull(conn, b); err != nil {
			return true
		}
		var hdr proto.ReplyHeader
		hdr.Decode(jute.NewReader(b))
		if hdr.Xid == -2 {
			return false
		}
	}
}

// errNullToken stands for an OK reply with a null token in the middle of
// an exchange: what a server answers once SASL failed and
// zookeeper.allowSaslFailedClients kept the connection.
const errNullToken proto.ErrCode = 1

// saslLogin runs a DIGEST-MD5 exchange as Java's client does (an empty
// token first). It returns the error code of the first failing reply
// (ErrOK when the exchange completed).
func saslLogin(t *testing.T, conn net.Conn, user, password string) proto.ErrCode {
	t.Helper()
	cl, err := sasl.NewDigestClient(sasl.DigestClientConfig{Username: user, Password: password, AuthorizationID: user})
	if err != nil {
		t.Fatal(err)
	}
	token := []byte{}
	for xid := int32(-1000); ; xid++ {
		hdr, body, closed := rawCall(t, conn, xid, proto.OpSASL, &proto.GetSASLRequest{Token: token})
		if closed {
			t.Fatal("connection closed without a reply")
		}
		if hdr.Err != 0 {
			var resp proto.SetSASLResponse
			r := jute.NewReader(body)
			resp.Decode(r)
			if r.Err() != nil || resp.Token != nil {
				t.Fatalf("failure reply body: %v %q (Java sends a null token)", r.Err(), resp.Token)
			}
			return proto.ErrCode(hdr.Err)
		}
		var resp proto.SetSASLResponse
		resp.Decode(jute.NewReader(body))
		if cl.Complete() {
			return proto.ErrOK
		}
		if resp.Token == nil {
			return errNullToken
		}
		token, err = cl.Evaluate(resp.Token)
		if err != nil {
			t.Fatalf("client: %v", err)
		}
		if cl.Complete() {
			return proto.ErrOK
		}
	}
}

func whoAmI(t *testing.T, conn net.Conn) []string {
	t.Helper()
	hdr, body, closed := rawCall(t, conn, 50, proto.OpWhoAmI, nil)
	if closed || hdr.Err != 0 {
		t.Fatalf("whoAmI: closed %v err %d", closed, hdr.Err)
	}
	var resp proto.WhoAmIResponse
	resp.Decode(jute.NewReader(body))
	var out []string
	for _, ci := range resp.ClientInfo {
		out = append(out, ci.AuthScheme+":"+ci.User)
	}
	return out
}

func TestSASLDigestIdentities(t *testing.T) {
	s := startSASLServer(t, testJAAS, func(c *Config) { c.ACL.SASLSuperUsers = []string{"alice"} })
	for _, c := range []struct {
		user, pass string
		want       string
	}{
		{"bob", "bobsecret", "ip:127.0.0.1,sasl:bob"},
		{"alice", "alicesecret", "ip:127.0.0.1,sasl:alice,super:"},
	} {
		conn, _ := openRawSession(t, s, 10*time.Second)
		if code := saslLogin(t, conn, c.user, c.pass); code != proto.ErrOK {
			t.Fatalf("%s: %v", c.user, code)
		}
		got := whoAmI(t, conn)
		if strings.Join(sortedCopy(got), ",") != strings.Join(sortedCopy(strings.Split(c.want, ",")), ",") {
			t.Errorf("%s: identities %v, want %s", c.user, got, c.want)
		}
		// The exchange is over: another token fails it, and closes.
		hdr, _, _ := rawCall(t, conn, 9, proto.OpSASL, &proto.GetSASLRequest{Token: []byte{}})
		if hdr.Err != int32(proto.ErrAuthFailed) || !connClosed(conn) {
			t.Errorf("%s: token after completion: err %d", c.user, hdr.Err)
		}
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestSASLSuperPassword(t *testing.T) {
	s := startSASLServer(t, testJAAS, func(c *Config) { c.SASL.SuperPassword, c.SASL.HasSuperPassword = "root", true })
	conn, _ := openRawSession(t, s, 10*time.Second)
	if code := saslLogin(t, conn, "super", "root"); code != proto.ErrOK {
		t.Fatalf("super with superPassword: %v", code)
	}
	conn2, _ := openRawSession(t, s, 10*time.Second)
	if code := saslLogin(t, conn2, "super", "adminsecret"); code != proto.ErrAuthFailed {
		t.Fatalf("super with the JAAS password once superPassword is set: %v", code)
	}
}

func createReq(path string, acls ...proto.ACL) *proto.CreateRequest {
	return &proto.CreateRequest{Path: path, Data: []byte("x"), Acl: acls}
}

func TestSASLACL(t *testing.T) {
	s := startSASLServer(t, testJAAS, nil)
	bob, _ := openRawSession(t, s, 10*time.Second)
	if code := saslLogin(t, bob, "bob", "bobsecret"); code != proto.ErrOK {
		t.Fatal(code)
	}
	if hdr, _, _ := rawCall(t, bob, 1, proto.OpCreate, createReq("/b", proto.ACL{Perms: 31, Id: proto.Id{Scheme: "sasl", Id: "bob"}})); hdr.Err != 0 {
		t.Fatalf("create with sasl:bob: %d", hdr.Err)
	}
	if hdr, _, _ := rawCall(t, bob, 2, proto.OpGetData, &proto.GetDataRequest{Path: "/b"}); hdr.Err != 0 {
		t.Fatalf("bob reads /b: %d", hdr.Err)
	}
	alice, _ := openRawSession(t, s, 10*time.Second)
	if code := saslLogin(t, alice, "alice", "alicesecret"); code != proto.ErrOK {
		t.Fatal(code)
	}
	if hdr, _, _ := rawCall(t, alice, 1, proto.OpGetData, &proto.GetDataRequest{Path: "/b"}); hdr.Err != int32(proto.ErrNoAuth) {
		t.Fatalf("alice reads /b: %d, want NoAuth", hdr.Err)
	}
	anon, _ := openRawSession(t, s, 10*time.Second)
	if hdr, _, _ := rawCall(t, anon, 1, proto.OpGetData, &proto.GetDataRequest{Path: "/b"}); hdr.Err != int32(proto.ErrNoAuth) {
		t.Fatalf("anonymous reads /b: %d, want NoAuth", hdr.Err)
	}
}

// TestSASLACLWithoutProvider: without authProvider...SASLAuthenticationProvider
// a Java server still completes SASL but refuses sasl ACLs as invalid.
func TestSASLACLWithoutProvider(t *testing.T) {
	s := startSASLServer(t, testJAAS, func(c *Config) { c.ACL.ExtraProviders = nil })
	bob, _ := openRawSession(t, s, 10*time.Second)
	if code := saslLogin(t, bob, "bob", "bobsecret"); code != proto.ErrOK {
		t.Fatal(code)
	}
	if got := whoAmI(t, bob); len(got) != 2 {
		t.Fatalf("identities %v", got)
	}
	if hdr, _, _ := rawCall(t, bob, 1, proto.OpCreate, createReq("/b", proto.ACL{Perms: 31, Id: proto.Id{Scheme: "sasl", Id: "bob"}})); hdr.Err != int32(proto.ErrInvalidACL) {
		t.Fatalf("create with sasl:bob and no provider: %d, want InvalidACL", hdr.Err)
	}
}

func TestSASLFailureOutcomes(t *testing.T) {
	cases := []struct {
		name     string
		tweak    func(*Config)
		wantCode proto.ErrCode
		closes   bool
	}{
		{"default", nil, proto.ErrAuthFailed, true},
		{"allowSaslFailedClients", func(c *Config) { c.SASL.AllowFailedClients = true }, errNullToken, false},
		{"sessionRequireClientSASLAuth", func(c *Config) { c.ACL.SessionRequireClientSASLAuth = true }, proto.ErrSessionClosedRequireSaslAuth, true},
		{"enforce sasl beats allowSaslFailedClients", func(c *Config) {
			c.ACL.EnforceAuthEnabled, c.ACL.EnforceAuthSchemes = true, []string{"sasl"}
			c.SASL.AllowFailedClients = true
		}, proto.ErrSessionClosedRequireSaslAuth, true},
		{"enforce digest only", func(c *Config) {
			c.ACL.EnforceAuthEnabled, c.ACL.EnforceAuthSchemes = true, []string{"digest"}
		}, proto.ErrAuthFailed, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := startSASLServer(t, testJAAS, c.tweak)
			conn, _ := openRawSession(t, s, 10*time.Second)
			code := saslLogin(t, conn, "bob", "wrong")
			if code != c.wantCode {
				t.Fatalf("code %v, want %v", code, c.wantCode)
			}
			if c.closes {
				if !connClosed(conn) {
					t.Fatal("connection kept open")
				}
				return
			}
			// Kept open: no identity was gained, requests still work, and
			// the failed exchange refuses further tokens the same way.
			if got := whoAmI(t, conn); len(got) != 1 {
				t.Fatalf("identities %v", got)
			}
			hdr, body, closed := rawCall(t, conn, 7, proto.OpSASL, &proto.GetSASLRequest{Token: []byte("x")})
			var resp proto.SetSASLResponse
			resp.Decode(jute.NewReader(body))
			if closed || hdr.Err != 0 || resp.Token != nil {
				t.Fatalf("later token: closed %v err %d token %q", closed, hdr.Err, resp.Token)
			}
		})
	}
}

// TestSASLEnforcedAuth: with sessionRequireClientSASLAuth a request
// before SASL is refused and closes; after SASL it is served.
func TestSASLEnforcedAuth(t *testing.T) {
	s := startSASLServer(t, testJAAS, func(c *Config) { c.ACL.SessionRequireClientSASLAuth = true })
	anon, _ := openRawSession(t, s, 10*time.Second)
	if hdr, _, _ := rawCall(t, anon, 1, proto.OpGetData, &proto.GetDataRequest{Path: "/"}); hdr.Err != int32(proto.ErrSessionClosedRequireSaslAuth) || !connClosed(anon) {
		t.Fatalf("unauthenticated read: %d", hdr.Err)
	}
	bob, _ := openRawSession(t, s, 10*time.Second)
	if code := saslLogin(t, bob, "bob", "bobsecret"); code != proto.ErrOK {
		t.Fatal(code)
	}
	if hdr, _, _ := rawCall(t, bob, 1, proto.OpGetData, &proto.GetDataRequest{Path: "/"}); hdr.Err != 0 {
		t.Fatalf("authenticated read: %d", hdr.Err)
	}
}

func TestSASLJAASAtStartUp(t *testing.T) {
	open := func(jaas string, section string) error {
		dir := t.TempDir()
		path := filepath.Join(dir, "jaas.conf")
		if jaas != "" {
			if err := os.WriteFile(path, []byte(jaas), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		cfg := Defaults()
		cfg.ClientAddr = "127.0.0.1:0"
		cfg.DataDir = t.TempDir()
		cfg.SASL.LoginConfig = path
		cfg.SASL.ServerSection = section
		s, err := Open(cfg)
		if err == nil {
			s.Close()
		}
		return err
	}
	if err := open("", ""); err == nil || !strings.Contains(err.Error(), "no such file or directory") {
		t.Errorf("missing file: %v", err)
	}
	if err := open("Server {\n m mandatory; };", ""); err == nil || !strings.Contains(err.Error(), "jaas.conf:2: invalid control flag") {
		t.Errorf("bad file: %v", err)
	}
	if err := open(testJAAS, "Other"); err != nil {
		t.Errorf("missing section must leave SASL off, as Java: %v", err)
	}
	if err := open("Server { "+sasl.Krb5LoginModule+" required; };", ""); err == nil || !strings.Contains(err.Error(), "GSSAPI") {
		t.Errorf("Kerberos section without GSSAPI built in: %v", err)
	}
}

// TestSASLMissingSectionAnswersNullToken: a server whose JAAS file has no
// Server section answers SASL with a null token, as Java does.
func TestSASLMissingSectionAnswersNullToken(t *testing.T) {
	s := startSASLServer(t, strings.Replace(testJAAS, "Server", "Client", 1), nil)
	conn, _ := openRawSession(t, s, 10*time.Second)
	hdr, body, closed := rawCall(t, conn, 1, proto.OpSASL, &proto.GetSASLRequest{Token: []byte{}})
	var resp proto.SetSASLResponse
	resp.Decode(jute.NewReader(body))
	if closed || hdr.Err != 0 || resp.Token != nil {
		t.Fatalf("closed %v err %d token %q", closed, hdr.Err, resp.Token)
	}
}

// TestSASLUncaughtClosesWithoutAnswer: a maxbuf that is not a number
// makes the JDK throw an unchecked exception that Java's processSasl does
// not catch, so the connection closes without a reply (seen on Java
// 3.8.0); gozk does the same.
func TestSASLUncaughtClosesWithoutAnswer(t *testing.T) {
	s := startSASLServer(t, testJAAS, nil)
	conn, _ := openRawSession(t, s, 10*time.Second)
	hdr, body, closed := rawCall(t, conn, 1, proto.OpSASL, &proto.GetSASLRequest{Token: []byte{}})
	if closed || hdr.Err != 0 {
		t.Fatalf("challenge: closed %v err %d", closed, hdr.Err)
	}
	var ch proto.SetSASLResponse
	ch.Decode(jute.NewReader(body))
	cl, _ := sasl.NewDigestClient(sasl.DigestClientConfig{Username: "bob", Password: "bobsecret"})
	resp, err := cl.Evaluate(ch.Token)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(resp), "maxbuf=65536", "maxbuf=abc", 1)
	if _, _, closed := rawCall(t, conn, 2, proto.OpSASL, &proto.GetSASLRequest{Token: []byte(bad)}); !closed {
		t.Fatal("answered; Java closes without an answer")
	}
}
