package acl

import "testing"

// Every verdict below is Java 17's: new X500Principal(s) succeeded or
// threw (X509AuthenticationProvider.isValid).
func TestValidX500Name(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"", true},
		{"CN=foo", true},
		{"CN=foo,O=bar", true},
		{"cn=foo;o=bar", true},
		{`CN=foo, OU=eng, O=Example\, Inc., C=US`, true},
		{"CN=foo+UID=7", true},
		{"foo", false},
		{"CN", false},
		{"=foo", false},
		{"CN=", true},
		{"CN=a,", false},
		{",CN=a", false},
		{"CN=a,,O=b", false},
		{"XYZ=1", false},
		{"2.5.4.3=foo", true},
		{"OID.2.5.4.3=foo", true},
		{"oid.2.5.4.3=foo", true},
		{"1=foo", false},
		{"3.1=foo", false},
		{"0.40=foo", false},
		{"2.999=foo", true},
		{"1.-1=foo", false},
		{"1.+2=foo", false}, // split at '+' first
		{"١.٢=foo", false},
		{"EMAILADDREß=a@b", true}, // upper-cases to EMAILADDRESS
		{"ſt=CA", true},           // upper-cases to ST
		{" cn =x", true},
		{`CN="quoted, comma"`, true},
		{`CN="unterminated`, false},
		{`CN="q" x`, false},
		{`CN="a\"b"`, true},
		{`CN="\41"`, true},
		{`CN=\41`, true},
		{`CN=\4`, false},
		{`CN=\g`, false},
		{`CN=a\,b`, true},
		{`CN=a"b`, false},
		{"CN=a<b", false},
		{"CN=a=b", true},
		{"CN=a#b", true},
		{"CN=#0400", true},
		{"CN=#04", false},
		{"CN=#", false},
		{"CN=#0", false},
		{"CN=#0g", false},
		{"CN=#1f00", false},
		{"CN=#3080", false},
		{"CN=#30800000", true},
		{"CN=#3080040100000", false},
		{"CN=#048100", true},
		{"CN=#0481", false},
		{`CN=\\+x`, true},
		{`CN=\\,O=x`, true},
		{"+CN=a", false},
		{"CN=a+", false},
		{"CN=a+O=b", true},
		{"CN=é", true},
		{"CN=a\nb", true},
	}
	for _, tt := range tests {
		if got := validX500Name(tt.name); got != tt.want {
			t.Errorf("validX500Name(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// Verified against SASLAuthenticationProvider.isValid (KerberosName).
func TestValidKerberosName(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"zk/host@REALM", true},
		{"alice@REALM", true},
		{"alice", true},
		{"a/b/c", true}, // no realm: anything goes
		{"a@", true},
		{"@", true},
		{"", true},
		{"a@b@C", false},
		{"a/b/c@R", false},
		{"a@R/x", false},
	}
	for _, tt := range tests {
		if got := validKerberosName(tt.id); got != tt.want {
			t.Errorf("validKerberosName(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}
