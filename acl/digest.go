package acl

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"hash"
	"strings"

	"github.com/gozk/gozk/proto"
)

// SchemeDigest is the scheme of user:password identities.
const SchemeDigest = "digest"

// DefaultDigestAlg is the default of
// zookeeper.DigestAuthenticationProvider.digestAlg.
const DefaultDigestAlg = "SHA1"

// digestAlgorithms maps the MessageDigest names and aliases of the JDK 17
// SUN provider (looked up case-insensitively, as Java does) to hashes.
// MD2, which the JDK also has, is missing: Go has no MD2.
var digestAlgorithms = map[string]func() hash.Hash{
	"MD5":         md5.New,
	"SHA-1":       sha1.New,
	"SHA1":        sha1.New,
	"SHA":         sha1.New,
	"SHA-224":     sha256.New224,
	"SHA224":      sha256.New224,
	"SHA-256":     sha256.New,
	"SHA256":      sha256.New,
	"SHA-384":     sha512.New384,
	"SHA384":      sha512.New384,
	"SHA-512":     sha512.New,
	"SHA512":      sha512.New,
	"SHA-512/224": sha512.New512_224,
	"SHA512/224":  sha512.New512_224,
	"SHA-512/256": sha512.New512_256,
	"SHA512/256":  sha512.New512_256,
	"SHA3-224":    func() hash.Hash { return sha3.New224() },
	"SHA3-256":    func() hash.Hash { return sha3.New256() },
	"SHA3-384":    func() hash.Hash { return sha3.New384() },
	"SHA3-512":    func() hash.Hash { return sha3.New512() },
}

// digestOIDs are the object identifiers Java also accepts as names, bare
// or with an "OID." prefix.
var digestOIDs = map[string]string{
	"1.3.14.3.2.26":           "SHA-1",
	"2.16.840.1.101.3.4.2.1":  "SHA-256",
	"2.16.840.1.101.3.4.2.2":  "SHA-384",
	"2.16.840.1.101.3.4.2.3":  "SHA-512",
	"2.16.840.1.101.3.4.2.4":  "SHA-224",
	"2.16.840.1.101.3.4.2.5":  "SHA-512/224",
	"2.16.840.1.101.3.4.2.6":  "SHA-512/256",
	"2.16.840.1.101.3.4.2.7":  "SHA3-224",
	"2.16.840.1.101.3.4.2.8":  "SHA3-256",
	"2.16.840.1.101.3.4.2.9":  "SHA3-384",
	"2.16.840.1.101.3.4.2.10": "SHA3-512",
}

// digestHash resolves a digestAlg setting; "" means the default.
func digestHash(alg string) (func() hash.Hash, error) {
	if alg == "" {
		alg = DefaultDigestAlg
	}
	name := strings.ToUpper(alg)
	if oid, ok := digestOIDs[strings.TrimPrefix(name, "OID.")]; ok {
		name = oid
	}
	if h, ok := digestAlgorithms[name]; ok {
		return h, nil
	}
	// Java refuses to load the digest provider, and with it the server.
	return nil, fmt.Errorf("acl: unsupported ACL digest algorithm %q", alg)
}

// DigestID turns "user:password" into the digest identity id
// "user:base64(hash(user:password))", as Java's
// DigestAuthenticationProvider.generateDigest does: the hash covers the
// whole string, the user is the text before the first ':' (all of it when
// there is none), and base64 is standard with padding. alg is a Java
// MessageDigest name ("" = SHA1). Bytes of userPassword that are not UTF-8
// are replaced as Java would have replaced them when the String was made.
func DigestID(userPassword string, alg string) (string, error) {
	newHash, err := digestHash(alg)
	if err != nil {
		return "", err
	}
	return digestIDWith(javaDecodeUTF8([]byte(userPassword)), newHash), nil
}

// digestIDWith computes the id of a string that is already what Java
// would hold.
func digestIDWith(userPassword string, newHash func() hash.Hash) string {
	h := newHash()
	h.Write([]byte(userPassword))
	user, _, _ := strings.Cut(userPassword, ":")
	return user + ":" + base64.StdEncoding.EncodeToString(h.Sum(nil))
}

// DigestToolLine is one output line of Java's
// "java org.apache.zookeeper.server.auth.DigestAuthenticationProvider
// user:password..." tool: the argument, "->", and its digest id, e.g.
// "alice:secret->alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E=". Operators paste the
// part after "->" into superDigest or into digest ACLs.
func DigestToolLine(userPassword string, alg string) (string, error) {
	id, err := DigestID(userPassword, alg)
	if err != nil {
		return "", err
	}
	return userPassword + "->" + id, nil
}

// validDigestACL is DigestAuthenticationProvider.isValid: id.split(":")
// yields exactly two parts. split drops trailing empty parts, so "a:b:"
// and ":b" are valid while "a:b:c", "a:" and ":" are not.
func validDigestACL(id string) bool {
	trimmed := strings.TrimRight(id, ":")
	return strings.Count(trimmed, ":") == 1
}

// digestUserName is DigestAuthenticationProvider.getUserName: the text
// before the first ':'.
func digestUserName(id string) string {
	user, _, _ := strings.Cut(id, ":")
	return user
}

// HideDigests returns a copy of acl in which every digest entry's id has
// its hash replaced by "x" ("bob:<base64>" becomes "bob:x"): what getACL
// answers a caller without ADMIN on the node. The input is not modified.
func HideDigests(acl []proto.ACL) []proto.ACL {
	out := make([]proto.ACL, len(acl))
	for i, a := range acl {
		if a.Id.Scheme == SchemeDigest {
			a.Id.Id = hideDigest(a.Id.Id)
		}
		out[i] = a
	}
	return out
}

// hideDigest applies Java's id.replaceAll(":.*", ":x"). '.' does not match
// line terminators, so every line of a multi-line id loses its own tail
// after its first ':'.
func hideDigest(id string) string {
	if !strings.Contains(id, ":") {
		return id
	}
	var sb strings.Builder
	for i := 0; i < len(id); {
		if id[i] != ':' {
			sb.WriteByte(id[i])
			i++
			continue
		}
		sb.WriteString(":x")
		i++
		for i < len(id) {
			if n := lineTerminatorLen(id[i:]); n > 0 {
				break
			}
			i++
		}
	}
	return sb.String()
}

// lineTerminatorLen reports the byte length of a Java regex line
// terminator (\n, \r, U+0085, U+2028, U+2029) at the start of s, or 0.
func lineTerminatorLen(s string) int {
	switch {
	case s[0] == '\n' || s[0] == '\r':
		return 1
	case strings.HasPrefix(s, "\u0085"):
		return 2
	case strings.HasPrefix(s, "\u2028"), strings.HasPrefix(s, "\u2029"):
		return 3
	}
	return 0
}
