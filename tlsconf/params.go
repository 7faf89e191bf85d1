package tlsconf

import (
	"crypto/tls"
	"fmt"
	"strings"
)

// ClientAuth is ssl.clientAuth: whether a server asks for a client
// certificate.
type ClientAuth int

const (
	// ClientAuthNeed requires a client certificate (Java's default).
	ClientAuthNeed ClientAuth = iota
	// ClientAuthWant asks for one and accepts a client without.
	ClientAuthWant
	// ClientAuthNone does not ask.
	ClientAuthNone
)

func (a ClientAuth) String() string {
	return [...]string{"NEED", "WANT", "NONE"}[a]
}

// ParseClientAuth reads ssl.clientAuth as Java's
// X509Util.ClientAuth.fromPropertyValue: empty is NEED, otherwise the
// value upper-cased must be NONE, WANT or NEED.
func ParseClientAuth(v string) (ClientAuth, error) {
	switch strings.ToUpper(v) {
	case "", "NEED":
		return ClientAuthNeed, nil
	case "WANT":
		return ClientAuthWant, nil
	case "NONE":
		return ClientAuthNone, nil
	}
	return 0, fmt.Errorf("%q is not none, want or need", v)
}

// tlsClientAuth is what a Go server asks of the client; the chain is
// verified in verifyPeer, not by crypto/tls, so that reloads and
// Java's hostname rules apply.
func (a ClientAuth) tlsClientAuth() tls.ClientAuthType {
	switch a {
	case ClientAuthWant:
		return tls.RequestClientCert
	case ClientAuthNone:
		return tls.NoClientCert
	}
	return tls.RequireAnyClientCert
}

// contextProtocols are the names Java's SSLContext.getInstance accepts
// for ssl.protocol (JDK 17, SunJSSE); any other name makes Java fail to
// build the context.
var contextProtocols = map[string]bool{
	"TLS": true, "TLSv1": true, "TLSv1.1": true, "TLSv1.2": true, "TLSv1.3": true,
	"SSL": true, "SSLv3": true, "Default": true, "DTLS": true, "DTLSv1.0": true, "DTLSv1.2": true,
}

// protocolVersions maps the names Java accepts in ssl.enabledProtocols
// (SSLSocket.setEnabledProtocols) to Go's versions. 0: a name Java
// knows but that a JDK 17 never negotiates (jdk.tls.disabledAlgorithms
// lists SSLv3, TLSv1 and TLSv1.1) or that is no TLS version; gozk drops
// those with a warning.
var protocolVersions = map[string]uint16{
	"TLSv1.3": tls.VersionTLS13,
	"TLSv1.2": tls.VersionTLS12,
	"TLSv1.1": 0,
	"TLSv1":   0,
	"SSLv3":   0,
	// SSLv2Hello is a ClientHello format, not a version.
	"SSLv2Hello": 0,
}

// versions resolves ssl.protocol and ssl.enabledProtocols into the
// versions gozk enables. As in Java's SSLContextAndOptions, the enabled
// list defaults to the single ssl.protocol value, which defaults to
// TLSv1.2. The names dropped (known to Java but never negotiated by it)
// are returned for a warning.
func versions(protocol string, enabled []string, prefix string) (vers []uint16, dropped []string, err error) {
	if protocol == "" {
		protocol = "TLSv1.2"
	}
	if !contextProtocols[protocol] {
		return nil, nil, fmt.Errorf("%sprotocol: %q is not a protocol Java knows (TLSv1.2, TLSv1.3, TLS)", prefix, protocol)
	}
	key := prefix + "enabledProtocols"
	if len(enabled) == 0 {
		enabled = []string{protocol}
		key = prefix + "protocol"
	}
	for _, name := range enabled {
		name = strings.TrimSpace(name)
		v, ok := protocolVersions[name]
		if !ok {
			if key == prefix+"protocol" {
				return nil, nil, fmt.Errorf("%s: %q names no single TLS version, and without %senabledProtocols Java enables it as one and fails every handshake (\"Unsupported protocol\"); set %senabledProtocols, e.g. TLSv1.3,TLSv1.2", key, name, prefix, prefix)
			}
			return nil, nil, fmt.Errorf("%s: %q is not a TLS version (TLSv1.2, TLSv1.3)", key, name)
		}
		if v == 0 {
			dropped = append(dropped, name)
			continue
		}
		vers = append(vers, v)
	}
	if len(vers) == 0 {
		return nil, dropped, fmt.Errorf("%s: none of %v is a TLS version gozk or a current JDK negotiates (TLSv1.2, TLSv1.3)", key, enabled)
	}
	return vers, dropped, nil
}

// defaultCipherSuites is Java's X509Util default for Java 9 and later:
// the ECDHE GCM suites, then the ECDHE CBC ones.
var defaultCipherSuites = []string{
	"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
	"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
	"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
	"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
	"TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384",
	"TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
}

// tls13Suites are TLS 1.3's suites: Java lists them in ssl.ciphersuites
// like any other, Go always enables all three with TLS 1.3.
var tls13Suites = map[string]bool{
	"TLS_AES_128_GCM_SHA256": true, "TLS_AES_256_GCM_SHA384": true, "TLS_CHACHA20_POLY1305_SHA256": true,
}

// jdkDisabledSuite: Java accepts the name but a JDK 17 never
// negotiates it (jdk.tls.disabledAlgorithms: RC4, 3DES_EDE_CBC, NULL,
// anon), so gozk drops it as well.
func jdkDisabledSuite(name string) bool {
	for _, bad := range []string{"_RC4_", "_3DES_EDE_CBC_", "_NULL_", "_anon_"} {
		if strings.Contains(name, bad) {
			return true
		}
	}
	return false
}

// goSuites maps IANA names (Java uses them, with a few SSL_ aliases
// for old suites) to Go's TLS 1.0-1.2 suites, secure and insecure.
var goSuites = func() map[string]uint16 {
	m := map[string]uint16{}
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		m[s.Name] = s.ID
	}
	// Java's older names for suites that Go knows by their TLS_ name.
	m["SSL_RSA_WITH_3DES_EDE_CBC_SHA"] = tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA
	m["SSL_RSA_WITH_RC4_128_SHA"] = tls.TLS_RSA_WITH_RC4_128_SHA
	return m
}()

// cipherSuites resolves ssl.ciphersuites (Java's X509Util default when
// empty). A name Java supports but Go does not, or that a JDK 17 never
// negotiates, is dropped and reported; TLS 1.3's names set tls13 (Go
// enables all of TLS 1.3's suites with it, and cannot choose among
// them); a name neither Java nor Go knows is an error (Java fails every
// handshake on it with "Unsupported CipherSuite").
func cipherSuites(names []string, key string) (ids []uint16, tls13 bool, dropped []string, err error) {
	configured := len(names) > 0
	if !configured {
		names = defaultCipherSuites
	}
	for _, name := range names {
		name = strings.TrimSpace(name)
		if tls13Suites[name] {
			tls13 = true
			continue
		}
		if name == "TLS_EMPTY_RENEGOTIATION_INFO_SCSV" {
			continue
		}
		if jdkDisabledSuite(name) {
			dropped = append(dropped, name)
			continue
		}
		if id, ok := goSuites[name]; ok {
			ids = append(ids, id)
			continue
		}
		if javaCipherSuites[name] {
			if configured { // Java's default list is no operator's doing
				dropped = append(dropped, name)
			}
			continue
		}
		return nil, false, nil, fmt.Errorf("%s: %q is not a cipher suite Java knows", key, name)
	}
	return ids, tls13, dropped, nil
}

// usableVersions keeps the versions some enabled suite can serve, as
// Java does: without a TLS 1.3 suite in the list (and Java's default
// list has none) Java never negotiates TLS 1.3, and without a TLS 1.2
// suite never TLS 1.2. None left is an error: Java would fail every
// handshake ("No appropriate protocol").
func usableVersions(vers []uint16, ids []uint16, tls13 bool, prefix string) (usable []uint16, removed []string, err error) {
	for _, v := range vers {
		switch {
		case v == tls.VersionTLS13 && !tls13:
			removed = append(removed, "TLSv1.3")
		case v <= tls.VersionTLS12 && len(ids) == 0:
			removed = append(removed, "TLSv1.2")
		default:
			usable = append(usable, v)
		}
	}
	if len(usable) == 0 {
		return nil, removed, fmt.Errorf("%sciphersuites has no suite for the enabled protocols %v, so every handshake would fail (on Java too: \"No appropriate protocol\"); for TLSv1.3 list TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384 in %sciphersuites", prefix, removed, prefix)
	}
	return usable, removed, nil
}

// javaCipherSuites are the suites a JDK 17 (SunJSSE) supports, as
// SSLContext.getDefault().getSupportedSSLParameters() lists them
// (testdata/JavaOracle.java, "suites").
var javaCipherSuites = map[string]bool{
	"TLS_AES_256_GCM_SHA384":                        true,
	"TLS_AES_128_GCM_SHA256":                        true,
	"TLS_CHACHA20_POLY1305_SHA256":                  true,
	"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384":       true,
	"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256":       true,
	"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256": true,
	"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384":         true,
	"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256":   true,
	"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256":         true,
	"TLS_DHE_RSA_WITH_AES_256_GCM_SHA384":           true,
	"TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256":     true,
	"TLS_DHE_DSS_WITH_AES_256_GCM_SHA384":           true,
	"TLS_DHE_RSA_WITH_AES_128_GCM_SHA256":           true,
	"TLS_DHE_DSS_WITH_AES_128_GCM_SHA256":           true,
	"TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384":       true,
	"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384":         true,
	"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256":       true,
	"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256":         true,
	"TLS_DHE_RSA_WITH_AES_256_CBC_SHA256":           true,
	"TLS_DHE_DSS_WITH_AES_256_CBC_SHA256":           true,
	"TLS_DHE_RSA_WITH_AES_128_CBC_SHA256":           true,
	"TLS_DHE_DSS_WITH_AES_128_CBC_SHA256":           true,
	"TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA":          true,
	"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA":            true,
	"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA":          true,
	"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA":            true,
	"TLS_DHE_RSA_WITH_AES_256_CBC_SHA":              true,
	"TLS_DHE_DSS_WITH_AES_256_CBC_SHA":              true,
	"TLS_DHE_RSA_WITH_AES_128_CBC_SHA":              true,
	"TLS_DHE_DSS_WITH_AES_128_CBC_SHA":              true,
	"TLS_RSA_WITH_AES_256_GCM_SHA384":               true,
	"TLS_RSA_WITH_AES_128_GCM_SHA256":               true,
	"TLS_RSA_WITH_AES_256_CBC_SHA256":               true,
	"TLS_RSA_WITH_AES_128_CBC_SHA256":               true,
	"TLS_RSA_WITH_AES_256_CBC_SHA":                  true,
	"TLS_RSA_WITH_AES_128_CBC_SHA":                  true,
	"TLS_EMPTY_RENEGOTIATION_INFO_SCSV":             true,
}
