package sasl

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Names ZooKeeper gives DIGEST-MD5 on the client port; the quorum uses
// its own (QuorumProtocol, QuorumServerName).
const (
	DefaultProtocol   = "zookeeper"
	DefaultServerName = "zk-sasl-md5"
	QuorumProtocol    = "zookeeper-quorum"
	QuorumServerName  = "zk-quorum-sasl-md5"
)

// QOP values.
const (
	QOPAuth     = "auth"
	QOPAuthInt  = "auth-int"
	QOPAuthConf = "auth-conf"
)

// Bounds the JDK applies: a response over 4096 bytes or a challenge over
// 2048 is refused before it is parsed.
const (
	maxDigestResponse  = 4096
	maxDigestChallenge = 2048
)

// jdkCiphers is the cipher list the JDK offers with auth-conf, in its
// order (all available on every JDK).
const jdkCiphers = "3des,rc4,des,rc4-56,rc4-40"

// nonceBytes random bytes make a 40-character nonce, as the JDK's.
const nonceBytes = 30

// DigestServerConfig configures the DIGEST-MD5 server side.
type DigestServerConfig struct {
	// Protocol and ServerName make the digest-uri the server expects,
	// protocol/serverName: "zookeeper" and "zk-sasl-md5" on the client
	// port (the defaults when empty); the quorum uses "zookeeper-quorum"
	// and "zk-quorum-sasl-md5". ServerName is also the realm offered.
	Protocol   string
	ServerName string
	// Users maps user names to passwords (the JAAS user_NAME options).
	Users map[string]string
	// SuperPassword, when HasSuperPassword, is the password of the user
	// "super" (zookeeper.SASLAuthenticationProvider.superPassword). As in
	// Java it applies only when the section also has a user_super entry.
	SuperPassword    string
	HasSuperPassword bool
	// RemoveHostFromPrincipal and RemoveRealmFromPrincipal shape an
	// authentication id of the form name/host@REALM as Java's
	// SaslServerCallbackHandler does.
	RemoveHostFromPrincipal  bool
	RemoveRealmFromPrincipal bool
	// QOP lists the protections offered, "auth" when empty. A Java
	// ZooKeeper server passes no properties to the JDK and so always
	// offers only "auth"; auth-int and auth-conf can be offered here for
	// tests, and are negotiated as the JDK negotiates them. No security
	// layer is ever applied afterwards: ZooKeeper does not wrap packets.
	QOP []string
	// Property answers system properties (unused by DIGEST-MD5 today).
	Property func(name string) (string, bool)
	// Authorize, when set, replaces the client port's rule (every
	// authenticated user is authorized, under its shaped name): it gets
	// the authentication id and the authorization id the client asked
	// for (the user name when it sent no authzid, as the JDK fills it in)
	// and returns the identity or why it is refused. The quorum sets it:
	// Java's quorum server admits a learner only as itself.
	Authorize func(authn, authz string) (string, error)
	// Logf receives the lines Java's callback handler logs.
	Logf func(level, format string, args ...any)
	// Rand supplies nonces; crypto/rand when nil.
	Rand io.Reader
}

type digestServerFactory struct {
	cfg       DigestServerConfig
	digestURI string
	offered   map[string]bool
	qopList   string // as sent in the challenge, "" for auth alone
}

// NewDigestServerFactory returns a factory of DIGEST-MD5 server exchanges.
func NewDigestServerFactory(cfg DigestServerConfig) (ServerFactory, error) {
	if cfg.Protocol == "" {
		cfg.Protocol = DefaultProtocol
	}
	if cfg.ServerName == "" {
		cfg.ServerName = DefaultServerName
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	f := &digestServerFactory{cfg: cfg, digestURI: cfg.Protocol + "/" + cfg.ServerName, offered: map[string]bool{}}
	qops := cfg.QOP
	if len(qops) == 0 {
		qops = []string{QOPAuth}
	}
	// The JDK lists what it offers strongest first whatever order it
	// was given.
	for _, q := range qops {
		switch q {
		case QOPAuth, QOPAuthInt, QOPAuthConf:
			f.offered[q] = true
		default:
			return nil, fmt.Errorf("sasl: DIGEST-MD5: unknown qop %q (auth, auth-int or auth-conf)", q)
		}
	}
	var list []string
	for _, q := range []string{QOPAuthConf, QOPAuthInt, QOPAuth} {
		if f.offered[q] {
			list = append(list, q)
		}
	}
	if len(list) != 1 || list[0] != QOPAuth {
		f.qopList = strings.Join(list, ",")
	}
	return f, nil
}

func (f *digestServerFactory) Mechanism() string { return MechanismDigestMD5 }

func (f *digestServerFactory) NewServer() (Server, error) {
	return &digestServer{f: f, step: 1}, nil
}

func (f *digestServerFactory) logf(level, format string, args ...any) {
	if f.cfg.Logf != nil {
		f.cfg.Logf(level, format, args...)
	}
}

type digestServer struct {
	f        *digestServerFactory
	step     int // 1: before the challenge, 3: waiting for the response, 0: over
	nonce    string
	complete bool
	authzID  string
	qop      string
}

func (s *digestServer) Mechanism() string       { return MechanismDigestMD5 }
func (s *digestServer) Complete() bool          { return s.complete }
func (s *digestServer) AuthorizationID() string { return s.authzID }

// QOP returns the negotiated protection once complete.
func (s *digestServer) QOP() string { return s.qop }

func authError(format string, args ...any) error {
	return fmt.Errorf("%w: DIGEST-MD5: %s", ErrAuthentication, fmt.Sprintf(format, args...))
}

// uncaughtError is a refusal the JDK reports with an unchecked exception.
func uncaughtError(format string, args ...any) error {
	return fmt.Errorf("%w: DIGEST-MD5: %s (%w)", ErrAuthentication, fmt.Sprintf(format, args...), ErrUncaught)
}

func (s *digestServer) Evaluate(response []byte) ([]byte, error) {
	if len(response) > maxDigestResponse {
		s.step = 0
		return nil, authError("response of %d bytes, more than the %d allowed", len(response), maxDigestResponse)
	}
	switch s.step {
	case 1:
		// Like the JDK, a client's initial response is ignored: the
		// server does not resume sessions and answers with a fresh
		// challenge.
		nonce, err := newNonce(s.f.cfg.Rand)
		if err != nil {
			s.step = 0
			return nil, fmt.Errorf("sasl: DIGEST-MD5: cannot make a nonce: %w", err)
		}
		s.nonce = nonce
		s.step = 3
		var b strings.Builder
		b.WriteString(`realm="`)
		b.WriteString(quoteValue(s.f.cfg.ServerName))
		b.WriteString(`",nonce="`)
		b.WriteString(nonce)
		b.WriteString(`",`)
		if s.f.qopList != "" {
			b.WriteString(`qop="` + s.f.qopList + `",`)
		}
		b.WriteString("charset=utf-8,")
		if s.f.offered[QOPAuthConf] {
			b.WriteString(`cipher="` + jdkCiphers + `",`)
		}
		b.WriteString("algorithm=md5-sess")
		return []byte(b.String()), nil
	case 3:
		s.step = 0 // one response per nonce: a replay finds the exchange over
		rspauth, err := s.validate(response)
		if err != nil {
			return nil, err
		}
		s.complete = true
		return rspauth, nil
	}
	return nil, authError("the exchange is over; no more tokens are accepted")
}

// serverDirectives are the keys a digest-response may carry.
var serverDirectives = []string{"username", "realm", "nonce", "cnonce", "nc", "nonce-count", "qop", "digest-uri", "response", "maxbuf", "charset", "cipher", "authzid"}

func (s *digestServer) validate(response []byte) ([]byte, error) {
	d, err := parseDirectives(response, serverDirectives, false)
	if err != nil {
		return nil, err
	}
	for _, k := range serverDirectives {
		if v, ok := d.get(k); ok && !utf8.ValidString(v) {
			return nil, authError("%s is not valid UTF-8", k)
		}
	}
	if cs, ok := d.get("charset"); ok && cs != "utf-8" {
		return nil, authError("incompatible charset %q (only utf-8)", cs)
	}
	if mb, ok := d.get("maxbuf"); ok {
		// Integer.parseInt: an optional sign and decimal digits that fit
		// in 32 bits; anything else makes the JDK throw.
		if _, err := strconv.ParseInt(mb, 10, 32); err != nil {
			return nil, uncaughtError("maxbuf %q is not a number", mb)
		}
	}
	username, ok := d.get("username")
	if !ok {
		return nil, authError("missing username")
	}
	realm, _ := d.get("realm")
	if realm != s.f.cfg.ServerName {
		return nil, authError("unknown realm %q (expected %q)", realm, s.f.cfg.ServerName)
	}
	nonce, ok := d.get("nonce")
	if !ok {
		return nil, authError("missing nonce")
	}
	if subtle.ConstantTimeCompare([]byte(nonce), []byte(s.nonce)) != 1 {
		return nil, authError("the nonce is not the one this exchange issued")
	}
	cnonce, ok := d.get("cnonce")
	if !ok || cnonce == "" {
		return nil, authError("missing cnonce")
	}
	for _, k := range []string{"nc", "nonce-count"} {
		if nc, ok := d.get(k); ok {
			if n, err := strconv.ParseUint(nc, 16, 32); err != nil || n != 1 {
				return nil, authError("%s %q is not 00000001 (a response is never reused)", k, nc)
			}
		}
	}
	qop := QOPAuth
	if q, ok := d.get("qop"); ok {
		qop = q
	}
	switch qop {
	case QOPAuth, QOPAuthInt, QOPAuthConf:
	default:
		return nil, authError("invalid qop %q", qop)
	}
	if !s.f.offered[qop] {
		return nil, authError("qop %q was not offered (offered: %s)", qop, s.f.offeredList())
	}
	if qop == QOPAuthConf {
		c, ok := d.get("cipher")
		if !ok {
			return nil, authError("qop auth-conf without a cipher")
		}
		if !containsToken(jdkCiphers, c) {
			return nil, authError("cipher %q was not offered", c)
		}
	}
	uri, ok := d.get("digest-uri")
	if !ok || !strings.EqualFold(uri, s.f.digestURI) {
		return nil, authError("digest-uri %q does not match %q", uri, s.f.digestURI)
	}
	resp, ok := d.get("response")
	if !ok {
		return nil, authError("missing response")
	}
	authzid, hasAuthzid := d.get("authzid")
	password, known := s.f.password(username)
	if !known {
		s.f.logf("warn", "User '%s' not found in list of DIGEST-MD5 authenticateable users.", username)
		return nil, authError("cannot acquire password for %s in realm : %s", username, realm)
	}
	var az *string
	if hasAuthzid {
		az = &authzid
	}
	p := digestParams{username: username, realm: realm, password: password, nonce: nonce, cnonce: cnonce, qop: qop, digestURI: uri, authzid: az}
	want := p.response("AUTHENTICATE")
	if subtle.ConstantTimeCompare([]byte(resp), []byte(want)) != 1 {
		return nil, authError("digest response format violation. Mismatched response (wrong password for %s?)", username)
	}
	shownAuthzid := username
	if hasAuthzid {
		shownAuthzid = authzid
	}
	var id string
	if s.f.cfg.Authorize != nil {
		var err error
		if id, err = s.f.cfg.Authorize(username, shownAuthzid); err != nil {
			return nil, authError("%s is not authorized: %v", username, err)
		}
	} else {
		var err error
		if id, err = shapeAuthenticationID(username, s.f.cfg.RemoveHostFromPrincipal, s.f.cfg.RemoveRealmFromPrincipal); err != nil {
			// Java's KerberosName throws IllegalArgumentException from
			// the callback handler.
			return nil, uncaughtError("%v", err)
		}
	}
	s.f.logf("info", "Successfully authenticated client: authenticationID=%s;  authorizationID=%s.", username, shownAuthzid)
	s.f.logf("info", "Setting authorizedID: %s", id)
	s.authzID = id
	s.qop = qop
	return []byte("rspauth=" + p.response("")), nil
}

func (f *digestServerFactory) offeredList() string {
	if f.qopList == "" {
		return QOPAuth
	}
	return f.qopList
}

// password looks a user up as SaslServerCallbackHandler does: only users
// of the section exist, and "super" takes superPassword when it is set.
func (f *digestServerFactory) password(user string) (string, bool) {
	pw, ok := f.cfg.Users[user]
	if !ok {
		return "", false
	}
	if user == "super" && f.cfg.HasSuperPassword {
		return f.cfg.SuperPassword, true
	}
	return pw, true
}

// shapeAuthenticationID turns the authenticated user name into the
// authorization id as SaslServerCallbackHandler does through
// KerberosName: a name without '@' stays as it is; name[/host]@REALM
// loses its host or realm when the matching property is set. A name
// with '@' that is not of that form is refused (Java throws there).
func shapeAuthenticationID(name string, removeHost, removeRealm bool) (string, error) {
	before, realm, hasRealm := strings.Cut(name, "@")
	if !hasRealm {
		return name, nil
	}
	service, host, hasHost := strings.Cut(before, "/")
	if strings.ContainsAny(realm, "/@") || strings.Contains(host, "/") {
		return "", fmt.Errorf("malformed Kerberos-style name %q", name)
	}
	out := service
	if hasHost && !removeHost {
		out += "/" + host
	}
	if !removeRealm {
		out += "@" + realm
	}
	return out, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func containsToken(list, tok string) bool {
	for _, t := range strings.Split(list, ",") {
		if t == tok {
			return true
		}
	}
	return false
}

func newNonce(r io.Reader) (string, error) {
	b := make([]byte, nonceBytes)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// digestParams are the inputs of RFC 2831's response-value.
type digestParams struct {
	username, realm, password string
	nonce, cnonce, qop        string
	digestURI                 string
	authzid                   *string
}

// latin1OrUTF8 encodes s as the JDK does for user name, realm and
// password: ISO 8859-1 when every character fits, UTF-8 otherwise.
func latin1OrUTF8(s string) []byte {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xFF {
			return []byte(s)
		}
		out = append(out, byte(r))
	}
	return out
}

// response computes response-value (method "AUTHENTICATE" in the client's
// response, "" for the server's rspauth).
func (p digestParams) response(method string) string {
	a2 := method + ":" + p.digestURI
	if p.qop == QOPAuthInt || p.qop == QOPAuthConf {
		a2 += ":00000000000000000000000000000000"
	}
	ha2 := md5.Sum([]byte(a2))
	var inner []byte
	inner = append(inner, latin1OrUTF8(p.username)...)
	inner = append(inner, ':')
	inner = append(inner, latin1OrUTF8(p.realm)...)
	inner = append(inner, ':')
	inner = append(inner, latin1OrUTF8(p.password)...)
	h := md5.Sum(inner)
	a1 := append([]byte{}, h[:]...)
	a1 = append(a1, ':')
	a1 = append(a1, p.nonce...)
	a1 = append(a1, ':')
	a1 = append(a1, p.cnonce...)
	if p.authzid != nil {
		a1 = append(a1, ':')
		a1 = append(a1, *p.authzid...)
	}
	ha1 := md5.Sum(a1)
	kd := hex.EncodeToString(ha1[:]) + ":" + p.nonce + ":00000001:" + p.cnonce + ":" + p.qop + ":" + hex.EncodeToString(ha2[:])
	sum := md5.Sum([]byte(kd))
	return hex.EncodeToString(sum[:])
}

// quoteValue escapes a quoted-string value as the JDK does: '"', '\',
// DEL and control characters other than CR, LF and HT get a backslash.
func quoteValue(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '\\' || c == 127 || (c <= 31 && c != 13 && c != 9 && c != 10) {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// directives holds a parsed digest-challenge or digest-response.
type directives struct {
	values map[string]string
	realms []string // every realm of a challenge, in order
}

func (d directives) get(k string) (string, bool) {
	v, ok := d.values[k]
	return v, ok
}

// parseDirectives reads key=value pairs separated by commas and linear
// white space, values plain or quoted with backslash escapes, with the
// grammar and checks of the JDK's parser: a ',' inside a key, an empty
// key, '=' missing after a key, a valueless key, an open quote or a
// trailing escape, text right after a closing quote and a repeated known
// directive are all errors. Keys are matched without regard to case;
// unknown keys (auth-param) are skipped. multiRealm lets realm repeat, as
// a challenge may offer several.
func parseDirectives(buf []byte, known []string, multiRealm bool) (directives, error) {
	d := directives{values: map[string]string{}}
	var key, value []byte
	gettingKey, quoted, expectSep := true, false, false
	isLWS := func(c byte) bool { return c == '\r' || c == '\n' || c == ' ' || c == '\t' }
	skip := func(i int) int {
		for i < len(buf) && isLWS(buf[i]) {
			i++
		}
		return i
	}
	store := func() error {
		k := strings.ToLower(string(key))
		for _, want := range known {
			if k != want {
				continue
			}
			if _, dup := d.values[k]; dup {
				if multiRealm && k == "realm" {
					d.realms = append(d.realms, string(value))
					return nil
				}
				return authError("directive %s sent more than once", k)
			}
			d.values[k] = string(value)
			if k == "realm" {
				d.realms = append(d.realms, string(value))
			}
			return nil
		}
		return nil
	}
	i := skip(0)
	for i < len(buf) {
		c := buf[i]
		switch {
		case gettingKey:
			switch {
			case c == ',':
				if len(key) != 0 {
					return d, authError("directive key %q contains a ','", key)
				}
				i = skip(i + 1)
			case c == '=':
				if len(key) == 0 {
					return d, authError("empty directive key")
				}
				gettingKey = false
				i = skip(i + 1)
				if i >= len(buf) {
					return d, authError("directive %q has no value", key)
				}
				if buf[i] == '"' {
					quoted = true
					i++
				}
			case isLWS(c):
				i = skip(i + 1)
				if i >= len(buf) || buf[i] != '=' {
					return d, authError("'=' expected after directive key %q", key)
				}
			default:
				key = append(key, c)
				i++
			}
		case quoted:
			switch c {
			case '\\':
				i++
				if i >= len(buf) {
					return d, authError("unterminated quoted value of directive %q", key)
				}
				value = append(value, buf[i])
				i++
			case '"':
				i++
				quoted, expectSep = false, true
			default:
				value = append(value, c)
				i++
			}
		case isLWS(c) || c == ',':
			if err := store(); err != nil {
				return d, err
			}
			key, value = key[:0], value[:0]
			gettingKey, quoted, expectSep = true, false, false
			i = skip(i + 1)
		case expectSep:
			return d, authError("text after the quoted value of directive %q", key)
		default:
			value = append(value, c)
			i++
		}
	}
	if quoted {
		return d, authError("unterminated quoted value of directive %q", key)
	}
	if len(key) > 0 {
		if gettingKey {
			return d, authError("directive %q has no value", key)
		}
		if err := store(); err != nil {
			return d, err
		}
	}
	return d, nil
}

// DigestClientConfig configures the DIGEST-MD5 client side.
type DigestClientConfig struct {
	Username string
	Password string
	// AuthorizationID is sent as authzid when not empty (Java's
	// ZooKeeper client sends its user name there).
	AuthorizationID string
	// Protocol and ServerName as in DigestServerConfig (defaults
	// "zookeeper" and "zk-sasl-md5").
	Protocol   string
	ServerName string
	// QOP lists the protections the client accepts, strongest first as
	// in javax.security.sasl.qop ("auth" when empty). auth-conf is not
	// supported by this client.
	QOP []string
	// Rand supplies the cnonce; crypto/rand when nil.
	Rand io.Reader
}

type digestClient struct {
	cfg      DigestClientConfig
	step     int // 2: waiting for the challenge, 3: for rspauth, 0: over
	complete bool
	params   digestParams
}

// NewDigestClient starts the client side of one DIGEST-MD5 exchange.
func NewDigestClient(cfg DigestClientConfig) (Client, error) {
	if cfg.Username == "" {
		return nil, errors.New("sasl: DIGEST-MD5: a user name is required")
	}
	if cfg.Protocol == "" {
		cfg.Protocol = DefaultProtocol
	}
	if cfg.ServerName == "" {
		cfg.ServerName = DefaultServerName
	}
	if len(cfg.QOP) == 0 {
		cfg.QOP = []string{QOPAuth}
	}
	for _, q := range cfg.QOP {
		if q != QOPAuth && q != QOPAuthInt {
			return nil, fmt.Errorf("sasl: DIGEST-MD5 client: qop %q is not supported (auth or auth-int)", q)
		}
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	return &digestClient{cfg: cfg, step: 2}, nil
}

func (c *digestClient) HasInitialResponse() bool { return false }
func (c *digestClient) Complete() bool           { return c.complete }
func (c *digestClient) Mechanism() string        { return MechanismDigestMD5 }

var clientDirectives = []string{"realm", "qop", "algorithm", "nonce", "maxbuf", "charset", "cipher", "rspauth", "stale"}

func (c *digestClient) Evaluate(challenge []byte) ([]byte, error) {
	if len(challenge) > maxDigestChallenge {
		c.step = 0
		return nil, authError("challenge of %d bytes, more than the %d allowed", len(challenge), maxDigestChallenge)
	}
	switch c.step {
	case 2:
		c.step = 0
		resp, err := c.respond(challenge)
		if err != nil {
			return nil, err
		}
		c.step = 3
		return resp, nil
	case 3:
		c.step = 0
		d, err := parseDirectives(challenge, clientDirectives, false)
		if err != nil {
			return nil, err
		}
		got, ok := d.get("rspauth")
		if !ok {
			return nil, authError("authentication failed: the server sent no rspauth")
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(c.params.response(""))) != 1 {
			return nil, authError("the server's rspauth does not match: it does not know the password")
		}
		c.complete = true
		return nil, nil
	}
	return nil, authError("the exchange is over; no more challenges are accepted")
}

func (c *digestClient) respond(challenge []byte) ([]byte, error) {
	d, err := parseDirectives(challenge, clientDirectives, true)
	if err != nil {
		return nil, err
	}
	for _, k := range clientDirectives {
		if v, ok := d.get(k); ok && !utf8.ValidString(v) {
			return nil, authError("%s is not valid UTF-8", k)
		}
	}
	if cs, ok := d.get("charset"); ok && cs != "utf-8" {
		return nil, authError("unrecognised charset %q", cs)
	}
	if alg, ok := d.get("algorithm"); !ok {
		return nil, authError("the challenge has no algorithm")
	} else if alg != "md5-sess" {
		return nil, authError("algorithm %q is not md5-sess", alg)
	}
	nonce, ok := d.get("nonce")
	if !ok || nonce == "" {
		return nil, authError("the challenge has no nonce")
	}
	if mb, ok := d.get("maxbuf"); ok && !isDigits(mb) {
		return nil, authError("maxbuf %q is not a number", mb)
	}
	realm := ""
	if len(d.realms) > 0 {
		// Like the JDK's default callback, take the first realm offered.
		realm = d.realms[0]
	}
	offered := map[string]bool{}
	if q, ok := d.get("qop"); ok {
		for _, t := range strings.FieldsFunc(q, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
			offered[t] = true
		}
	} else {
		offered[QOPAuth] = true
	}
	qop := ""
	for _, q := range c.cfg.QOP {
		if offered[q] {
			qop = q
			break
		}
	}
	if qop == "" {
		return nil, authError("no common protection layer between client and server")
	}
	cnonce, err := newNonce(c.cfg.Rand)
	if err != nil {
		return nil, fmt.Errorf("sasl: DIGEST-MD5: cannot make a cnonce: %w", err)
	}
	c.params = digestParams{
		username: c.cfg.Username, realm: realm, password: c.cfg.Password,
		nonce: nonce, cnonce: cnonce, qop: qop,
		digestURI: c.cfg.Protocol + "/" + c.cfg.ServerName,
	}
	if c.cfg.AuthorizationID != "" {
		az := c.cfg.AuthorizationID
		c.params.authzid = &az
	}
	var b strings.Builder
	if _, ok := d.get("charset"); ok {
		b.WriteString("charset=utf-8,")
	}
	b.WriteString(`username="` + quoteValue(c.cfg.Username) + `",`)
	if realm != "" {
		b.WriteString(`realm="` + quoteValue(realm) + `",`)
	}
	b.WriteString(`nonce="` + quoteValue(nonce) + `",nc=00000001,`)
	b.WriteString(`cnonce="` + quoteValue(cnonce) + `",`)
	b.WriteString(`digest-uri="` + c.params.digestURI + `",maxbuf=65536,`)
	b.WriteString("response=" + c.params.response("AUTHENTICATE") + ",qop=" + qop)
	if c.params.authzid != nil {
		b.WriteString(`,authzid="` + quoteValue(*c.params.authzid) + `"`)
	}
	if b.Len() > maxDigestResponse {
		return nil, authError("response of %d bytes, more than the %d allowed", b.Len(), maxDigestResponse)
	}
	return []byte(b.String()), nil
}
