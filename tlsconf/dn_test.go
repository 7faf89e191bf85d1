package tlsconf

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/asn1"
	"encoding/pem"
	"flag"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeDNCerts regenerates testdata/subjectdn/*.pem; then run
// testdata/JavaOracle.java ("dn") on them to refresh java-names.txt.
var writeDNCerts = flag.Bool("write-dn-certs", false, "rewrite the certificates of testdata/subjectdn")

// Attribute types and ASN.1 string tags the subjects below use.
var (
	oidCN     = asn1.ObjectIdentifier{2, 5, 4, 3}
	oidSerial = asn1.ObjectIdentifier{2, 5, 4, 5}
	oidC      = asn1.ObjectIdentifier{2, 5, 4, 6}
	oidL      = asn1.ObjectIdentifier{2, 5, 4, 7}
	oidST     = asn1.ObjectIdentifier{2, 5, 4, 8}
	oidStreet = asn1.ObjectIdentifier{2, 5, 4, 9}
	oidO      = asn1.ObjectIdentifier{2, 5, 4, 10}
	oidOU     = asn1.ObjectIdentifier{2, 5, 4, 11}
	oidTitle  = asn1.ObjectIdentifier{2, 5, 4, 12}
	oidGiven  = asn1.ObjectIdentifier{2, 5, 4, 42}
	oidDC     = asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 25}
	oidUID    = asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 1}
	oidEmail  = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 1}
	oidOther  = asn1.ObjectIdentifier{1, 2, 3, 4}
)

type ava struct {
	oid   asn1.ObjectIdentifier
	tag   int
	bytes []byte
}

func utf8v(oid asn1.ObjectIdentifier, s string) ava { return ava{oid, tagUTF8String, []byte(s)} }
func prt(oid asn1.ObjectIdentifier, s string) ava   { return ava{oid, tagPrintableString, []byte(s)} }

func bmp(oid asn1.ObjectIdentifier, s string) ava {
	var b []byte
	for _, r := range s {
		b = append(b, byte(r>>8), byte(r))
	}
	return ava{oid, tagBMPString, b}
}

// encodeName builds a Name's DER with the RDNs and, within each, the
// attributes in exactly the given order (no DER sorting), so that the
// order Java prints can be checked.
func encodeName(t *testing.T, rdns [][]ava) []byte {
	var seq []byte
	for _, rdn := range rdns {
		var set []byte
		for _, a := range rdn {
			val, err := asn1.Marshal(asn1.RawValue{Class: asn1.ClassUniversal, Tag: a.tag, Bytes: a.bytes})
			if err != nil {
				t.Fatal(err)
			}
			oid, err := asn1.Marshal(a.oid)
			if err != nil {
				t.Fatal(err)
			}
			atv, err := asn1.Marshal(asn1.RawValue{Class: asn1.ClassUniversal, Tag: asn1.TagSequence, IsCompound: true, Bytes: append(oid, val...)})
			if err != nil {
				t.Fatal(err)
			}
			set = append(set, atv...)
		}
		s, err := asn1.Marshal(asn1.RawValue{Class: asn1.ClassUniversal, Tag: asn1.TagSet, IsCompound: true, Bytes: set})
		if err != nil {
			t.Fatal(err)
		}
		seq = append(seq, s...)
	}
	name, err := asn1.Marshal(asn1.RawValue{Class: asn1.ClassUniversal, Tag: asn1.TagSequence, IsCompound: true, Bytes: seq})
	if err != nil {
		t.Fatal(err)
	}
	return name
}

// dnSubjects are the subjects checked against Java, most significant
// RDN first (the DER order).
var dnSubjects = map[string][][]ava{
	"simple":   {{prt(oidC, "US")}, {prt(oidO, "acme")}, {utf8v(oidCN, "alice")}},
	"escapes":  {{utf8v(oidO, `x#y`)}, {utf8v(oidCN, `a,b+c=d<e>f#g;h"i\j`)}},
	"spaces":   {{utf8v(oidOU, "  padded  ")}, {utf8v(oidCN, "#lead and trail ")}},
	"nonascii": {{utf8v(oidO, "Société Générale")}, {utf8v(oidCN, "Jürgen 日本 😀")}},
	"email":    {{prt(oidO, "acme")}, {utf8v(oidCN, "bob")}, {ava{oidEmail, 22, []byte("bob@example.com")}}},
	"serial":   {{prt(oidSerial, "1234")}, {utf8v(oidCN, "carol")}},
	"multi":    {{prt(oidO, "acme")}, {utf8v(oidCN, "bob"), utf8v(oidUID, "b1")}},
	"multirev": {{prt(oidO, "acme")}, {utf8v(oidUID, "b1"), utf8v(oidCN, "bob"), prt(oidC, "DE")}},
	"keywords": {{ava{oidDC, 22, []byte("org")}}, {ava{oidDC, 22, []byte("example")}}, {prt(oidC, "FR")}, {utf8v(oidST, "Ile-de-France")}, {utf8v(oidL, "Paris")}, {utf8v(oidStreet, "1 rue X")}, {utf8v(oidOU, "ops")}, {utf8v(oidUID, "u-1")}, {utf8v(oidCN, "dave")}},
	"others":   {{utf8v(oidTitle, "boss")}, {utf8v(oidGiven, "Eve")}, {utf8v(oidOther, "x")}},
	"tags":     {{bmp(oidO, "Bmp Ünï")}, {ava{oidOU, tagT61String, []byte("t61")}}, {ava{oidST, 18, []byte("123 45")}}, {ava{oidCN, 18, []byte("42")}}},
	"controls": {{utf8v(oidO, "nul\x00here")}, {utf8v(oidOU, "cr\r")}, {utf8v(oidCN, "tab\there @_*&!")}},
	// A BMPString's UTF-16 read as UTF-8 by Java: NULs, and broken
	// sequences (E6 97 of U+E697, DC of U+00DC) each one U+FFFD.
	"bmp":        {{bmp(oidCN, "\u00dc\ue697x\u0800\u00e0")}},
	"empty":      {{utf8v(oidO, "")}, {utf8v(oidCN, "x")}},
	"onlyspaces": {{utf8v(oidCN, "   ")}},
}

func TestWriteDNCerts(t *testing.T) {
	if !*writeDNCerts {
		t.Skip("run with -write-dn-certs to regenerate testdata/subjectdn")
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("testdata", "subjectdn")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, rdns := range dnSubjects {
		raw := encodeName(t, rdns)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(1), RawSubject: raw, RawIssuer: raw,
			NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<31-1, 0),
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
		if err := os.WriteFile(filepath.Join(dir, name+".pem"), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSubjectDNMatchesJava compares SubjectDN with what Java's
// X500Principal.getName() printed for the same certificates
// (testdata/subjectdn/java-names.txt: file, tab, name).
func TestSubjectDNMatchesJava(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "subjectdn", "java-names.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		file, want, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			t.Fatalf("malformed line %q", sc.Text())
		}
		raw, err := os.ReadFile(filepath.Join("testdata", "subjectdn", file))
		if err != nil {
			t.Fatal(err)
		}
		block, _ := pem.Decode(raw)
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if got := SubjectDN(cert); got != want {
			t.Errorf("%s:\n got %q\nwant %q (Java)", file, got, want)
		}
		n++
	}
	if n < len(dnSubjects) {
		t.Errorf("java-names.txt has %d names for %d subjects", n, len(dnSubjects))
	}
}
