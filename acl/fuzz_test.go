package acl

import (
	"testing"
	"unicode/utf8"

	"github.com/gozk/gozk/proto"
)

// The parsers below see client-chosen strings; they must never panic.

func FuzzValidX500Name(f *testing.F) {
	for _, s := range []string{"", "CN=a", `CN="a,b"+O=\41`, "CN=#3080040000", "OID.2.5.4.3=x;C=US", `a\\\,b`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		validX500Name(s)
	})
}

func FuzzJavaDecodeUTF8(f *testing.F) {
	for _, s := range []string{"", "a", "\xed\xa0\x80", "\xf0\x90\x80A", "\xe2\x82"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s := javaDecodeUTF8(b)
		if !utf8.ValidString(s) {
			t.Fatalf("javaDecodeUTF8(%q) = %q is not UTF-8", b, s)
		}
		if again := javaDecodeUTF8([]byte(s)); again != s {
			t.Fatalf("decoding is not idempotent: %q -> %q", s, again)
		}
	})
}

func FuzzFixupACL(f *testing.F) {
	f.Add("ip", "10.0.0.0/8", int32(31))
	f.Add("digest", "a:b", int32(1))
	f.Add("x509", "CN=a", int32(0))
	f.Add("sasl", "a/b@C", int32(-1))
	c, err := NewChecker(allProviders())
	if err != nil {
		f.Fatal(err)
	}
	ids := []proto.Id{IPIdentity("10.1.2.3")}
	f.Fuzz(func(t *testing.T, scheme, name string, perms int32) {
		acl := []proto.ACL{{Perms: perms, Id: proto.Id{Scheme: scheme, Id: name}}}
		fixed, code := c.FixupACL(acl, ids)
		if code == proto.ErrOK {
			// A stored ACL is checked with the same providers.
			c.Allowed(fixed, proto.PermRead, ids)
		}
	})
}
