package acl

import (
	"slices"
	"testing"

	"github.com/gozk/gozk/proto"
)

// The expected ids were printed by Java 3.8.0's
// "java org.apache.zookeeper.server.auth.DigestAuthenticationProvider"
// (with -Dzookeeper.DigestAuthenticationProvider.digestAlg=<alg> where
// alg is not SHA1) on OpenJDK 17 in a UTF-8 locale.
func TestDigestIDMatchesJava(t *testing.T) {
	tests := []struct {
		in, alg, want string
	}{
		{"alice:secret", "", "alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E="},
		{"alice:secret", "SHA1", "alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E="},
		{"super:test", "SHA1", "super:D/InIHSb7yEEbrWz8b9l71RjZJU="},
		{"bob", "SHA1", "bob:SBgazSKz7a68ikR4aKfffOYpkgo="},
		{"carol:pw:with:colons", "SHA1", "carol:RlI2JTgE8MYO6r7gQ5eHiiyDWuc="},
		{":empty", "SHA1", ":d28FdgWGP7/+uHX3M9UcKTYVL90="},
		{"", "SHA1", ":2jmj7l5rSw0yVb/vlWAYkK/YBwk="},
		{"ünï:çødé", "SHA1", "ünï:qPWE32qIzakAc+1cw8FNwdzT/x8="},
		{"✨", "SHA1", "✨:CTJNh2qu/U3x3MLb1Q0Jqis4+Bs="},
		// Malformed UTF-8 is hashed as Java's decoded String: \xff becomes
		// U+FFFD, an encoded surrogate one U+FFFD for its three bytes.
		{"\xff:p", "SHA1", "\uFFFD:CF2aQmKhCpl6NRwvXg6ky6/tkEA="},
		{"alice:s\xed\xa0\x80", "SHA1", "alice:p63DWupdKeKxb/devI8vO3/9mw0="},
		{"alice:secret", "SHA-1", "alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E="},
		{"alice:secret", "SHA", "alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E="},
		{"alice:secret", "1.3.14.3.2.26", "alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E="},
		{"alice:secret", "SHA-256", "alice:PRHcR5wI47NodzED1kdmwuQgzjlyeTL88tj02dWZvlk="},
		{"alice:secret", "sha-256", "alice:PRHcR5wI47NodzED1kdmwuQgzjlyeTL88tj02dWZvlk="},
		{"alice:secret", "SHA3-256", "alice:0klP1LIWwp/NTn37H9CfAMkncGve/93qqLrI9ZwVcNo="},
		{"alice:secret", "OID.2.16.840.1.101.3.4.2.8", "alice:0klP1LIWwp/NTn37H9CfAMkncGve/93qqLrI9ZwVcNo="},
		{"alice:secret", "MD5", "alice:b2IgWJaLuQdX5sbteeXfgQ=="},
		{"alice:secret", "SHA-224", "alice:+Dl2UTtd6ZqXX5hEmq1QRWVfgTGkzBfU+XT7Sg=="},
		{"alice:secret", "SHA-384", "alice:w0AkUfMlYU2oBmZkiNY+SdD0rbz01RN4zCacgMi3lRejR9ZNqiCOj7ir9MVz2JxZ"},
		{"alice:secret", "SHA-512", "alice:ijapT2BpR2dZTtIJMtre6K4Dtksd0AKHZ8aWvn1ddInhq6rzEJEoBCDU5zkYzaIsC/Jjoxz149fvz2pBwpt4ag=="},
		{"alice:secret", "SHA-512/224", "alice:K9FIAJueCiH8+0SFSyBvnCfBJ73dnFi4H6vMNQ=="},
		{"alice:secret", "SHA512/256", "alice:38ptOZRy03NsT9VSLY5hY2xsOO9l+iaSKfTRDtjRrxE="},
		{"alice:secret", "SHA3-224", "alice:+X6rC+9IqHU/KqJHLKajatBLvcKxvfIfEQjJ1Q=="},
		{"alice:secret", "SHA3-384", "alice:YzXZnf3D5xhMgFf9+WyNpEMtrMJC005fNBgYj+o+d5W/4xIa3g7G/DRaLi1y3UW+"},
		{"alice:secret", "sha3-512", "alice:hv+KYT+JrOpxwduhC3B3MVQTsQSVnBIp2KMMH4l6Pfe7phHU+fBx56hIwUqhFHH0xe3pcup1WB7JZZtw9CufaA=="},
	}
	for _, tt := range tests {
		got, err := DigestID(tt.in, tt.alg)
		if err != nil || got != tt.want {
			t.Errorf("DigestID(%q, %q) = %q, %v; want %q", tt.in, tt.alg, got, err, tt.want)
		}
	}
}

func TestDigestIDRejectsUnknownAlgorithms(t *testing.T) {
	// Java 17 has MD2 (Go has not); "foo" stops Java from starting.
	for _, alg := range []string{"foo", "MD2", "SHA-2", "SHA3"} {
		if _, err := DigestID("alice:secret", alg); err == nil {
			t.Errorf("DigestID with %q: want an error", alg)
		}
		if _, err := NewChecker(Config{DigestAlg: alg}); err == nil {
			t.Errorf("NewChecker with DigestAlg %q: want an error", alg)
		}
	}
}

func TestDigestToolLine(t *testing.T) {
	got, err := DigestToolLine("alice:secret", "")
	if want := "alice:secret->alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E="; err != nil || got != want {
		t.Errorf("DigestToolLine = %q, %v; want %q", got, err, want)
	}
	if _, err := DigestToolLine("a:b", "nope"); err == nil {
		t.Error("DigestToolLine with a bad algorithm: want an error")
	}
}

// Verified against DigestAuthenticationProvider.isValid and against a
// 3.8.0 server (create with the ACL: InvalidACL or accepted).
func TestValidDigestACL(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"bob:ikIaKsbtGweaHnb/jKn7OHqbunM=", true},
		{"a:b", true},
		{"a:b:", true},  // trailing empty parts are dropped by split
		{"a:b::", true}, // likewise
		{":b", true},    // a leading empty part counts
		{":b:", true},
		{"nocolon", false},
		{"a:b:c", false},
		{"a:", false},
		{"a::", false},
		{":", false},
		{"::", false},
		{"", false},
		{"a:b:c:", false},
	}
	for _, tt := range tests {
		if got := validDigestACL(tt.id); got != tt.want {
			t.Errorf("validDigestACL(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

// Expected values from Java's id.replaceAll(":.*", ":x").
func TestHideDigest(t *testing.T) {
	tests := []struct{ in, want string }{
		{"bob:ikIaKsbtGweaHnb/jKn7OHqbunM=", "bob:x"},
		{"a:b:c", "a:x"},
		{":b", ":x"},
		{"a:", "a:x"},
		{"nocolon", "nocolon"},
		{"", ""},
		{"a:b\nc:d", "a:x\nc:x"},
		{"a:\n:b", "a:x\n:x"},
		{"a:b\r\nc", "a:x\r\nc"},
		{"a:b\u2028c:d", "a:x\u2028c:x"},
		{"a:b\u0085c", "a:x\u0085c"},
		{"é:b\u2029", "é:x\u2029"},
	}
	for _, tt := range tests {
		if got := hideDigest(tt.in); got != tt.want {
			t.Errorf("hideDigest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestHideDigestsCopies(t *testing.T) {
	in := []proto.ACL{
		{Perms: proto.PermAll, Id: proto.Id{Scheme: "digest", Id: "bob:ikIaKsbtGweaHnb/jKn7OHqbunM="}},
		{Perms: proto.PermRead, Id: proto.AnyoneID},
		{Perms: proto.PermRead, Id: proto.Id{Scheme: "ip", Id: "10.0.0.0/8"}},
		{Perms: proto.PermRead, Id: proto.Id{Scheme: "x509", Id: "CN=a:b"}},
	}
	orig := slices.Clone(in)
	got := HideDigests(in)
	want := slices.Clone(orig)
	want[0].Id.Id = "bob:x"
	if !slices.Equal(got, want) {
		t.Errorf("HideDigests = %v, want %v", got, want)
	}
	if !slices.Equal(in, orig) {
		t.Errorf("HideDigests modified its input: %v", in)
	}
	if got := HideDigests(nil); len(got) != 0 {
		t.Errorf("HideDigests(nil) = %v, want no entries", got)
	}
}

func TestDigestUserName(t *testing.T) {
	tests := []struct{ id, want string }{
		{"carol:abc=", "carol"},
		{":abc=", ""},
		{"plain", "plain"},
	}
	for _, tt := range tests {
		if got := digestUserName(tt.id); got != tt.want {
			t.Errorf("digestUserName(%q) = %q, want %q", tt.id, got, tt.want)
		}
	}
}
