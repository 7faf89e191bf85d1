package acl

import (
	"net"
	"net/netip"
	"strconv"
	"strings"

	"github.com/gozk/gozk/proto"
)

// SchemeIP is the scheme of address identities and address ACLs.
const SchemeIP = "ip"

// IPIdentity returns the identity every connection starts with: scheme
// "ip" and the remote address as Java's InetAddress.getHostAddress prints
// it. IPv4 is a dotted quad; an IPv4-mapped IPv6 address is reported as
// the IPv4 address it maps (Java hands those out as Inet4Address); other
// IPv6 addresses are eight lowercase hex groups without compression, e.g.
// "0:0:0:0:0:0:0:1", followed by "%<interface index>" when the address has
// a zone. remoteIP may also be "host:port" or "[v6]:port"; anything that
// does not parse is used unchanged.
func IPIdentity(remoteIP string) proto.Id {
	return proto.Id{Scheme: SchemeIP, Id: javaHostAddress(remoteIP)}
}

func javaHostAddress(s string) string {
	addr, err := netip.ParseAddr(s)
	if err == nil && addr.Is4() {
		// netip parses only the canonical dotted form, which is Java's:
		// s can be returned as is, sparing a copy per connection.
		return s
	}
	if err != nil {
		host, _, splitErr := net.SplitHostPort(s)
		if splitErr != nil {
			return s
		}
		if addr, err = netip.ParseAddr(host); err != nil {
			return s
		}
	}
	if addr.Is4() || addr.Is4In6() {
		return addr.Unmap().String()
	}
	b := addr.As16()
	var sb strings.Builder
	for i := 0; i < 16; i += 2 {
		if i > 0 {
			sb.WriteByte(':')
		}
		sb.WriteString(strconv.FormatUint(uint64(b[i])<<8|uint64(b[i+1]), 16))
	}
	if zone := addr.Zone(); zone != "" {
		// Java prints the numeric scope id of an accepted socket; Go
		// gives the interface name when it knows it.
		if _, err := strconv.Atoi(zone); err != nil {
			if ifi, err := net.InterfaceByName(zone); err == nil {
				zone = strconv.Itoa(ifi.Index)
			}
		}
		sb.WriteByte('%')
		sb.WriteString(zone)
	}
	return sb.String()
}

// parseJavaIPv4 reads an address the way ZooKeeper 3.8's ip provider
// does: exactly four dot-separated parts, each an Integer.parseInt value
// between 0 and 255. That admits "010", "+10", "-0" and non-ASCII decimal
// digits, and rejects every IPv6 form.
func parseJavaIPv4(s string) (addr [4]byte, ok bool) {
	part := 0
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			continue
		}
		if part == 4 {
			return addr, false
		}
		v, ok := javaParseInt(s[start:i])
		if !ok || v < 0 || v > 255 {
			return addr, false
		}
		addr[part] = byte(v)
		part++
		start = i + 1
	}
	return addr, part == 4
}

// parseIPACL splits an ip ACL expression "addr" or "addr/bits" (split at
// the first '/'), with bits defaulting to 32 and limited to 0..32.
func parseIPACL(expr string) (addr [4]byte, bits int, ok bool) {
	addrPart, bitsPart, hasBits := strings.Cut(expr, "/")
	addr, ok = parseJavaIPv4(addrPart)
	if !ok {
		return addr, 0, false
	}
	bits = 32
	if hasBits {
		v, ok := javaParseInt(bitsPart)
		if !ok || v < 0 || v > 32 {
			return addr, 0, false
		}
		bits = int(v)
	}
	return addr, bits, true
}

// validIPACL is IPAuthenticationProvider.isValid.
func validIPACL(expr string) bool {
	_, _, ok := parseIPACL(expr)
	return ok
}

// matchIP is IPAuthenticationProvider.matches: the connection address id
// and the ACL address agree on their first bits bits.
func matchIP(id, expr string) bool {
	aclAddr, bits, ok := parseIPACL(expr)
	if !ok {
		return false
	}
	remote, ok := parseJavaIPv4(id)
	if !ok {
		return false
	}
	a := uint32(aclAddr[0])<<24 | uint32(aclAddr[1])<<16 | uint32(aclAddr[2])<<8 | uint32(aclAddr[3])
	r := uint32(remote[0])<<24 | uint32(remote[1])<<16 | uint32(remote[2])<<8 | uint32(remote[3])
	mask := ^uint32(0) << (32 - bits) // a shift by 32 leaves 0 in Go
	return a&mask == r&mask
}
