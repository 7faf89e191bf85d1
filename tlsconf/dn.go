package tlsconf

import (
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// rfc2253Keywords are the attribute types Java's X500Principal prints
// by name in RFC 2253 form; every other type is printed as its OID.
var rfc2253Keywords = map[string]string{
	"2.5.4.3":                    "CN",
	"2.5.4.6":                    "C",
	"2.5.4.7":                    "L",
	"2.5.4.8":                    "ST",
	"2.5.4.10":                   "O",
	"2.5.4.11":                   "OU",
	"2.5.4.9":                    "STREET",
	"0.9.2342.19200300.100.1.25": "DC",
	"0.9.2342.19200300.100.1.1":  "UID",
}

// ASN.1 string tags Java prints as text; other tags are printed as
// #hex of the DER value.
const (
	tagUTF8String      = 12
	tagPrintableString = 19
	tagT61String       = 20
	tagIA5String       = 22
	tagGeneralString   = 27
	tagBMPString       = 30
)

type attributeTypeAndValue struct {
	Type  asn1.ObjectIdentifier
	Value asn1.RawValue
}

// SubjectDN is the certificate's subject as Java's
// X509Certificate.getSubjectX500Principal().getName() prints it: the
// RFC 2253 form, the most specific RDN first, the attributes of a
// multi-valued RDN joined by "+" in their encoded order. CN, C, L, ST,
// O, OU, STREET, DC and UID are printed by keyword and their string
// values as text, with , = + < > # ; " \ escaped by a backslash, NUL as
// \00 and leading and trailing spaces escaped; other characters,
// non-ASCII included, are printed as they are. Any other attribute
// (emailAddress, serialNumber...) is printed as OID=#hex of its DER
// value, as is a value that is not one of the string types above.
//
// This is the name ZooKeeper's X509AuthenticationProvider makes the
// client's x509 identity from.
func SubjectDN(cert *x509.Certificate) string {
	return rfc2253(cert.RawSubject)
}

func rfc2253(rawName []byte) string {
	var rdns []asn1.RawValue
	if rest, err := asn1.Unmarshal(rawName, &rdns); err != nil || len(rest) != 0 {
		return ""
	}
	parts := make([]string, 0, len(rdns))
	for i := len(rdns) - 1; i >= 0; i-- {
		var atvs []attributeTypeAndValue
		if _, err := asn1.UnmarshalWithParams(rdns[i].FullBytes, &atvs, "set"); err != nil {
			return ""
		}
		avas := make([]string, len(atvs))
		for j, atv := range atvs {
			avas[j] = formatAVA(atv)
		}
		parts = append(parts, strings.Join(avas, "+"))
	}
	return strings.Join(parts, ",")
}

func formatAVA(atv attributeTypeAndValue) string {
	oid := atv.Type.String()
	keyword, named := rfc2253Keywords[oid]
	text, isString := stringValue(atv.Value)
	if !named || !isString {
		if !named {
			keyword = oid
		}
		return keyword + "=#" + hex.EncodeToString(atv.Value.FullBytes)
	}
	return keyword + "=" + escapeValue(text)
}

// stringValue is the value's text as Java takes it: the bytes of any
// of the string types above decoded as UTF-8, even a BMPString's
// (UTF-16) ones.
func stringValue(v asn1.RawValue) (string, bool) {
	if v.Class != asn1.ClassUniversal {
		return "", false
	}
	switch v.Tag {
	case tagUTF8String, tagPrintableString, tagT61String, tagIA5String, tagGeneralString, tagBMPString:
		return decodeUTF8(v.Bytes), true
	}
	return "", false
}

// decodeUTF8 decodes as Java's UTF-8 decoder does, replacing each
// maximal ill-formed subsequence (a lead byte and the continuation
// bytes it accepts before the sequence breaks) with one U+FFFD.
func decodeUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var out strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r != utf8.RuneError || size > 1 {
			out.WriteRune(r)
			b = b[size:]
			continue
		}
		out.WriteRune(utf8.RuneError)
		b = b[illFormedLen(b):]
	}
	return out.String()
}

// illFormedLen is the length of the maximal ill-formed subsequence at
// the start of b (Unicode's "maximal subpart" rule).
func illFormedLen(b []byte) int {
	lo, hi := byte(0x80), byte(0xbf)
	need := 0
	switch c := b[0]; {
	case c >= 0xc2 && c <= 0xdf:
		need = 1
	case c == 0xe0:
		need, lo = 2, 0xa0
	case c == 0xed:
		need, hi = 2, 0x9f
	case c >= 0xe1 && c <= 0xef:
		need = 2
	case c == 0xf0:
		need, lo = 3, 0x90
	case c == 0xf4:
		need, hi = 3, 0x8f
	case c >= 0xf1 && c <= 0xf3:
		need = 3
	default:
		return 1
	}
	n := 1
	for n <= need && n < len(b) && b[n] >= lo && b[n] <= hi {
		n++
		lo, hi = 0x80, 0xbf
	}
	return n
}

func escapeValue(s string) string {
	const escapees = ",=+<>#;\"\\"
	var escaped []string // one entry per character, escaped or not
	for _, r := range s {
		switch {
		case strings.ContainsRune(escapees, r):
			escaped = append(escaped, "\\"+string(r))
		case r == 0:
			escaped = append(escaped, "\\00")
		default:
			escaped = append(escaped, string(r))
		}
	}
	// Leading and trailing blanks (space or CR) are escaped, counted on
	// the value after the escapes above, as Java counts them.
	lead := 0
	for lead < len(escaped) && (escaped[lead] == " " || escaped[lead] == "\r") {
		lead++
	}
	trail := len(escaped) - 1
	for trail >= 0 && (escaped[trail] == " " || escaped[trail] == "\r") {
		trail--
	}
	var b strings.Builder
	for i, e := range escaped {
		if i < lead || i > trail {
			b.WriteByte('\\')
		}
		b.WriteString(e)
	}
	return b.String()
}
