package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"net"
	"slices"
	"strings"
	"testing"
)

func TestVersions(t *testing.T) {
	cases := []struct {
		protocol string
		enabled  []string
		want     []uint16
		dropped  []string
		err      string
	}{
		{"", nil, []uint16{tls.VersionTLS12}, nil, ""}, // Java: TLSv1.2 alone
		{"TLSv1.3", nil, []uint16{tls.VersionTLS13}, nil, ""},
		{"TLSv1.2", []string{"TLSv1.3", "TLSv1.2"}, []uint16{tls.VersionTLS13, tls.VersionTLS12}, nil, ""},
		{"TLS", []string{"TLSv1.2"}, []uint16{tls.VersionTLS12}, nil, ""},
		{"TLSv1.2", []string{"TLSv1.1", "TLSv1.2", "SSLv2Hello"}, []uint16{tls.VersionTLS12}, []string{"TLSv1.1", "SSLv2Hello"}, ""},
		{"TLSv1.1", nil, nil, []string{"TLSv1.1"}, "ssl.protocol: none of [TLSv1.1]"},
		{"TLS", nil, nil, nil, `ssl.protocol: "TLS" names no single TLS version`},
		{"TLSv9", nil, nil, nil, `ssl.protocol: "TLSv9" is not a protocol Java knows`},
		{"TLSv1.2", []string{"TLSv1.2", "tlsv1.3"}, nil, nil, `ssl.enabledProtocols: "tlsv1.3" is not a TLS version`},
	}
	for _, tc := range cases {
		got, dropped, err := versions(tc.protocol, tc.enabled, "ssl.")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("versions(%q, %v): error %v, want %q", tc.protocol, tc.enabled, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) || !slices.Equal(dropped, tc.dropped) {
			t.Errorf("versions(%q, %v) = %v, %v, %v; want %v, %v", tc.protocol, tc.enabled, got, dropped, err, tc.want, tc.dropped)
		}
	}
}

func TestCipherSuites(t *testing.T) {
	cases := []struct {
		names   []string
		want    []uint16
		tls13   bool
		dropped []string
		err     string
	}{
		{nil, []uint16{ // Java's default, less the two SHA384 CBC suites Go lacks
			tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
			tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
			tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256,
			tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
			tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA, tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
		}, false, nil, ""},
		{[]string{"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", " TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"},
			[]uint16{tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256}, false, nil, ""},
		{[]string{"TLS_DHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_RSA_WITH_AES_128_GCM_SHA256"},
			[]uint16{tls.TLS_RSA_WITH_AES_128_GCM_SHA256}, false, []string{"TLS_DHE_RSA_WITH_AES_128_GCM_SHA256"}, ""},
		{[]string{"SSL_RSA_WITH_RC4_128_SHA", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"},
			[]uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}, false, []string{"SSL_RSA_WITH_RC4_128_SHA"}, ""},
		{[]string{"TLS_AES_128_GCM_SHA256", "TLS_EMPTY_RENEGOTIATION_INFO_SCSV"}, nil, true, nil, ""},
		{[]string{"TLS_MADE_UP"}, nil, false, nil, `ssl.ciphersuites: "TLS_MADE_UP" is not a cipher suite Java knows`},
	}
	for _, tc := range cases {
		got, tls13, dropped, err := cipherSuites(tc.names, "ssl.ciphersuites")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("cipherSuites(%v): error %v, want %q", tc.names, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) || tls13 != tc.tls13 || !slices.Equal(dropped, tc.dropped) {
			t.Errorf("cipherSuites(%v) = %v, %v, %v, %v; want %v, %v, %v", tc.names, got, tls13, dropped, err, tc.want, tc.tls13, tc.dropped)
		}
	}
}

func TestUsableVersions(t *testing.T) {
	both := []uint16{tls.VersionTLS13, tls.VersionTLS12}
	some := []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}
	cases := []struct {
		vers    []uint16
		ids     []uint16
		tls13   bool
		want    []uint16
		removed []string
		err     bool
	}{
		{both, some, true, both, nil, false},
		{both, some, false, []uint16{tls.VersionTLS12}, []string{"TLSv1.3"}, false},
		{both, nil, true, []uint16{tls.VersionTLS13}, []string{"TLSv1.2"}, false},
		// ZooKeeper 3.8.0's default suites with ssl.protocol=TLSv1.3:
		// Java fails every handshake, gozk refuses to start.
		{[]uint16{tls.VersionTLS13}, some, false, nil, []string{"TLSv1.3"}, true},
		{[]uint16{tls.VersionTLS12}, nil, true, nil, []string{"TLSv1.2"}, true},
	}
	for _, tc := range cases {
		got, removed, err := usableVersions(tc.vers, tc.ids, tc.tls13, "ssl.")
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) || !slices.Equal(removed, tc.removed) {
			t.Errorf("usableVersions(%v, %v, %v) = %v, %v, %v; want %v, %v, error %v", tc.vers, tc.ids, tc.tls13, got, removed, err, tc.want, tc.removed, tc.err)
		}
	}
}

func TestParseClientAuth(t *testing.T) {
	for in, want := range map[string]ClientAuth{"": ClientAuthNeed, "need": ClientAuthNeed, "NEED": ClientAuthNeed, "Want": ClientAuthWant, "none": ClientAuthNone} {
		if got, err := ParseClientAuth(in); err != nil || got != want {
			t.Errorf("ParseClientAuth(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"required", "optional", " need", "true"} {
		if _, err := ParseClientAuth(in); err == nil {
			t.Errorf("ParseClientAuth(%q) accepted", in)
		}
	}
}

// TestVerifyHostname covers ZKHostnameVerifier's cases that need no
// handshake: IPv6 forms, wildcards, the CN fallback.
func TestVerifyHostname(t *testing.T) {
	withSANs := &x509.Certificate{
		DNSNames:    []string{"zk1.example", "*.zk.example", "w*.other"},
		IPAddresses: []net.IP{net.ParseIP("10.0.0.1").To4(), net.ParseIP("fe80::1"), net.ParseIP("::ffff:10.0.0.2")},
		Subject:     pkix.Name{CommonName: "ignored.example"},
	}
	cnOnly := &x509.Certificate{Subject: pkix.Name{Names: []pkix.AttributeTypeAndValue{{Type: oidCN, Value: "other"}, {Type: oidCN, Value: "*.cn.example"}}}}
	noName := &x509.Certificate{}
	cases := []struct {
		cert *x509.Certificate
		host string
		ok   bool
	}{
		{withSANs, "10.0.0.1", true},
		{withSANs, "10.0.0.3", false},
		{withSANs, "fe80:0:0:0:0:0:0:1", true},
		{withSANs, "[fe80::1]", true},
		{withSANs, "FE80::0001", true},
		{withSANs, "fe80::2", false},
		// Java renders a 16-byte IPv4-mapped SAN as IPv6 text, so an
		// IPv4 host never equals it.
		{withSANs, "10.0.0.2", false},
		{withSANs, "ZK1.Example", true},
		{withSANs, "a.zk.example", true},
		{withSANs, "a.b.zk.example", false},
		{withSANs, "zk.example", false},
		{withSANs, "www.other", true},
		{withSANs, "w.other", true},
		{withSANs, "ignored.example", false},
		{cnOnly, "x.cn.example", true},
		{cnOnly, "x.y.cn.example", false},
		{noName, "anything", false},
	}
	for _, tc := range cases {
		err := verifyHostname(tc.host, tc.cert)
		if (err == nil) != tc.ok {
			t.Errorf("verifyHostname(%q, %v %v %q): %v, want success %v", tc.host, tc.cert.DNSNames, tc.cert.IPAddresses, tc.cert.Subject.CommonName, err, tc.ok)
		}
	}
	if got := javaHostAddress(net.ParseIP("::1")); got != "0:0:0:0:0:0:0:1" {
		t.Errorf("javaHostAddress(::1) = %q", got)
	}
}
