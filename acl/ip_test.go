package acl

import (
	"testing"

	"github.com/gozk/gozk/proto"
)

// Java forms verified with whoAmI against a 3.8.0 server (127.0.0.1, ::1
// and an IPv4-mapped connection) and with InetAddress.getHostAddress.
func TestIPIdentity(t *testing.T) {
	tests := []struct{ in, want string }{
		{"127.0.0.1", "127.0.0.1"},
		{"127.0.0.1:51234", "127.0.0.1"},
		{"::1", "0:0:0:0:0:0:0:1"},
		{"[::1]:2181", "0:0:0:0:0:0:0:1"},
		{"::ffff:127.0.0.1", "127.0.0.1"},
		{"2001:DB8::ff00:42:8329", "2001:db8:0:0:0:ff00:42:8329"},
		{"::", "0:0:0:0:0:0:0:0"},
		{"::1.2.3.4", "0:0:0:0:0:0:102:304"},
		{"fe80::1%7", "fe80:0:0:0:0:0:0:1%7"},
		{"not an address", "not an address"},
	}
	for _, tt := range tests {
		got := IPIdentity(tt.in)
		if got != (proto.Id{Scheme: "ip", Id: tt.want}) {
			t.Errorf("IPIdentity(%q) = %v, want ip:%s", tt.in, got, tt.want)
		}
	}
}

// Verified against IPAuthenticationProvider.isValid and, for most, by
// creating a node with the ACL on a 3.8.0 server.
func TestValidIPACL(t *testing.T) {
	tests := []struct {
		expr string
		want bool
	}{
		{"10.0.0.0/8", true},
		{"10.0.0.1", true},
		{"10.0.0.0/32", true},
		{"10.0.0.0/0", true},
		{"+10.-0.010.1/+8", true},
		{"١٠.0.0.1", true},
		{"0000000000001.2.3.4", true},
		{"1.2.3.4/-0", true},
		{"10.0.0.0/33", false},
		{"10.0.0.0/-1", false},
		{"10.0.0.1/", false},
		{"10.0.0.1/8/9", false},
		{"1.2.3.4/ 8", false},
		{"1.2.3.4.", false},
		{"1.2.3", false},
		{"256.0.0.1", false},
		{"-1.0.0.1", false},
		{"::1", false},
		{"0:0:0:0:0:0:0:1", false},
		{"localhost", false},
		{"", false},
		{"/8", false},
	}
	for _, tt := range tests {
		if got := validIPACL(tt.expr); got != tt.want {
			t.Errorf("validIPACL(%q) = %v, want %v", tt.expr, got, tt.want)
		}
	}
}

func TestMatchIP(t *testing.T) {
	tests := []struct {
		id, expr string
		want     bool
	}{
		{"10.1.2.3", "10.0.0.0/8", true},
		{"11.1.2.3", "10.0.0.0/8", false},
		{"10.1.2.3", "10.1.2.3", true},
		{"10.1.2.4", "10.1.2.3", false},
		{"10.1.2.4", "10.1.2.3/31", false},
		{"10.1.2.2", "10.1.2.3/31", true},
		{"192.168.1.77", "192.168.1.0/24", true},
		{"192.168.1.77", "192.168.1.255/25", false},
		{"1.2.3.4", "200.0.0.0/0", true},
		{"1.2.3.4", "+1.2.3.4", true},
		{"1.2.3.4", "1.2.3.4/33", false},
		{"0:0:0:0:0:0:0:1", "0.0.0.0/0", false}, // IPv6 never matches in 3.8
		{"1.2.3.4", "::1", false},
	}
	for _, tt := range tests {
		if got := matchIP(tt.id, tt.expr); got != tt.want {
			t.Errorf("matchIP(%q, %q) = %v, want %v", tt.id, tt.expr, got, tt.want)
		}
	}
}
