package tlsconf

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"
)

// verifyChain checks the peer's chain against the trust anchors as
// Java's PKIX trust manager does: the leaf must chain to an anchor, be
// within its validity and carry the extended key usage of its role; with
// ssl.crl or ssl.ocsp, no certificate of the path may be revoked.
func (s *Source) verifyChain(chain []*x509.Certificate, roots *x509.CertPool, usage x509.ExtKeyUsage) error {
	if len(chain) == 0 {
		return errors.New("the peer sent no certificate")
	}
	inter := x509.NewCertPool()
	for _, c := range chain[1:] {
		inter.AddCert(c)
	}
	chains, err := chain[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{usage}})
	if err != nil || s.revocation == nil {
		return err
	}
	return s.revocation.checkChains(chains)
}

// lookupAddr is the reverse lookup Java's InetAddress.getHostName does;
// a variable so that tests can answer without DNS.
var lookupAddr = func(ip string) string {
	ctx := context.Background()
	names, err := net.DefaultResolver.LookupAddr(ctx, ip)
	if err != nil || len(names) == 0 {
		return ip
	}
	name := strings.TrimSuffix(names[0], ".")
	// Java keeps the name only when it resolves back to the address.
	addrs, err := net.DefaultResolver.LookupHost(ctx, name)
	if err != nil || !slices.Contains(addrs, ip) {
		return ip
	}
	return name
}

// verifyPeerHost is ZKTrustManager.performHostVerification: the peer's
// IP address as text must match the certificate; failing that, the
// peer's host name (name given, or reverse lookup of the address) must.
// name is "" when only the address is known.
func verifyPeerHost(ip net.IP, name string, cert *x509.Certificate) error {
	addr := javaHostAddress(ip)
	errAddr := verifyHostname(addr, cert)
	if errAddr == nil {
		return nil
	}
	if name == "" {
		name = lookupAddr(addr)
	}
	if err := verifyHostname(name, cert); err != nil {
		return fmt.Errorf("failed to verify both host address and host name: %v; %v", errAddr, err)
	}
	return nil
}

// javaHostAddress is InetAddress.getHostAddress: dotted IPv4 (IPv4
// mapped addresses are IPv4 in Java), IPv6 as eight groups of lower-case
// hex without zero compression.
func javaHostAddress(ip net.IP) string {
	if v4 := ip.To4(); v4 != nil {
		return v4.String()
	}
	return javaSANAddress(ip.To16())
}

// javaSANAddress is how Java's getSubjectAlternativeNames renders an
// iPAddress SAN: 4 bytes dotted, 16 bytes as IPv6 text (even an IPv4
// mapped one).
func javaSANAddress(ip net.IP) string {
	if len(ip) == 4 {
		return ip.String()
	}
	var b strings.Builder
	for i := 0; i+1 < len(ip); i += 2 {
		if i > 0 {
			b.WriteByte(':')
		}
		fmt.Fprintf(&b, "%x", uint16(ip[i])<<8|uint16(ip[i+1]))
	}
	return b.String()
}

var (
	ipv4Pattern       = regexp.MustCompile(`^(25[0-5]|2[0-4]\d|[0-1]?\d?\d)(\.(25[0-5]|2[0-4]\d|[0-1]?\d?\d)){3}$`)
	ipv6StdPattern    = regexp.MustCompile(`^(?:[0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}$`)
	ipv6HexCompressed = regexp.MustCompile(`^((?:[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4})*)?)::((?:[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4})*)?)$`)
)

// verifyHostname is ZKHostnameVerifier.verify: an IPv4 host must equal
// an IP SAN's text, an IPv6 host must equal an IP SAN as an address, a
// DNS host must match a DNS SAN (case-insensitive, one "*" matching
// within one label). The subject's CN is compared, as a DNS name, only
// when the certificate has no DNS or IP SAN at all.
func verifyHostname(host string, cert *x509.Certificate) error {
	if len(cert.DNSNames) == 0 && len(cert.IPAddresses) == 0 {
		cn := lastCN(cert)
		if cn == "" {
			return fmt.Errorf("certificate subject for <%s> has no common name and no subject alternative names", host)
		}
		if !matchIdentity(strings.ToLower(host), strings.ToLower(cn)) {
			return fmt.Errorf("certificate for <%s> does not match the common name of its subject: %s", host, cn)
		}
		return nil
	}
	sans := sanList(cert)
	if ipv4Pattern.MatchString(host) {
		for _, ip := range cert.IPAddresses {
			if javaSANAddress(ip) == host {
				return nil
			}
		}
		return fmt.Errorf("certificate for <%s> does not match any of the subject alternative names: %v", host, sans)
	}
	bare := host
	if strings.HasPrefix(bare, "[") && strings.HasSuffix(bare, "]") {
		bare = bare[1 : len(bare)-1]
	}
	if ipv6StdPattern.MatchString(bare) || ipv6HexCompressed.MatchString(bare) {
		want := net.ParseIP(bare)
		for _, ip := range cert.IPAddresses {
			if want != nil && len(ip) == net.IPv6len && ip.Equal(want) {
				return nil
			}
		}
		return fmt.Errorf("certificate for <%s> does not match any of the subject alternative names: %v", host, sans)
	}
	lower := strings.ToLower(host)
	for _, name := range cert.DNSNames {
		if matchIdentity(lower, strings.ToLower(name)) {
			return nil
		}
	}
	return fmt.Errorf("certificate for <%s> does not match any of the subject alternative names: %v", host, sans)
}

func sanList(cert *x509.Certificate) []string {
	out := slices.Clone(cert.DNSNames)
	for _, ip := range cert.IPAddresses {
		out = append(out, javaSANAddress(ip))
	}
	return out
}

// matchIdentity is RFC 2818 matching with a single wildcard as
// ZooKeeper does it: the text around the "*" must match, and what the
// "*" stands for holds no dot.
func matchIdentity(host, identity string) bool {
	star := strings.IndexByte(identity, '*')
	if star < 0 {
		return strings.EqualFold(host, identity)
	}
	prefix, suffix := identity[:star], identity[star+1:]
	if !strings.HasPrefix(host, prefix) || !strings.HasSuffix(host, suffix) {
		return false
	}
	if len(prefix)+len(suffix) > len(host) {
		return false
	}
	return !strings.Contains(host[len(prefix):len(host)-len(suffix)], ".")
}

// lastCN is the CN of the subject's most specific RDN that has one.
func lastCN(cert *x509.Certificate) string {
	cn := ""
	for _, atv := range cert.Subject.Names {
		if atv.Type.String() == "2.5.4.3" {
			if s, ok := atv.Value.(string); ok {
				cn = s
			}
		}
	}
	return cn
}
