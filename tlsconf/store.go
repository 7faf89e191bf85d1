package tlsconf

import (
	"bytes"
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"hash"
	"os"
	"sort"
	"strings"

	"github.com/pavlo-v-chernykh/keystore-go/v4"
	"software.sslmate.com/src/go-pkcs12"
)

// StoreType is a key or trust store format, as Java's KeyStoreFileType
// names it.
type StoreType string

// The store types gozk reads. Java also knows BCFKS (Bouncy Castle),
// which gozk refuses with an error.
const (
	JKS    StoreType = "JKS"
	PKCS12 StoreType = "PKCS12"
	PEM    StoreType = "PEM"
)

// storeType decides a store's type as Java's
// KeyStoreFileType.fromPropertyValueOrFileName does: the *.type value
// when set (case-insensitive), else the file name's extension, compared
// case-sensitively with .jks, .pem, .p12 and .bcfks. Neither deciding is
// an error in Java too.
func storeType(typeValue, typeKey, location, locationKey string) (StoreType, error) {
	if typeValue != "" {
		switch strings.ToUpper(typeValue) {
		case "JKS":
			return JKS, nil
		case "PKCS12":
			return PKCS12, nil
		case "PEM":
			return PEM, nil
		case "BCFKS":
			return "", fmt.Errorf("%s: BCFKS (Bouncy Castle FIPS) stores are not supported by gozk; convert the store to PKCS12, JKS or PEM", typeKey)
		}
		return "", fmt.Errorf("%s: %q is not a store type (JKS, PKCS12 or PEM)", typeKey, typeValue)
	}
	ext := ""
	if i := strings.LastIndexByte(location, '.'); i >= 0 {
		ext = location[i:]
	}
	switch ext {
	case ".jks":
		return JKS, nil
	case ".p12":
		return PKCS12, nil
	case ".pem":
		return PEM, nil
	case ".bcfks":
		return "", fmt.Errorf("%s: %s: BCFKS (Bouncy Castle FIPS) stores are not supported by gozk; convert the store to PKCS12, JKS or PEM", locationKey, location)
	}
	return "", fmt.Errorf("%s: %s: cannot tell the store type from the file name (.jks, .p12 or .pem); set %s", locationKey, location, typeKey)
}

// jksMagic starts every JKS file. Java 9 and later read a JKS file
// asked for as PKCS12 and the reverse (keystore.type.compat), so the
// content, not the declared type, picks the decoder among those two.
var jksMagic = []byte{0xfe, 0xed, 0xfe, 0xed}

// loadKeyStore reads the certificates with private keys of a key store.
// Every key is decrypted with the store password, as Java's
// KeyManagerFactory does.
func loadKeyStore(path string, typ StoreType, password string) ([]tls.Certificate, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var certs []tls.Certificate
	switch {
	case typ == PEM:
		c, err := pemKeyStore(raw, password)
		if err != nil {
			return nil, err
		}
		certs = append(certs, c)
	case bytes.HasPrefix(raw, jksMagic):
		certs, err = jksKeyStore(raw, password)
	default:
		certs, err = p12KeyStore(raw, password)
	}
	if err != nil {
		return nil, err
	}
	if len(certs) == 0 {
		return nil, errors.New("the store holds no private key entry")
	}
	return certs, nil
}

// loadTrustStore reads the trusted certificates of a trust store. As in
// Java (PKIXParameters built from a KeyStore), only trusted-certificate
// entries are anchors, and a store without one is an error.
func loadTrustStore(path string, typ StoreType, password string) (*x509.CertPool, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var anchors []*x509.Certificate
	switch {
	case typ == PEM:
		anchors, err = pemCertificates(raw)
		anchors = lastPerSubject(anchors)
	case bytes.HasPrefix(raw, jksMagic):
		anchors, err = jksTrustStore(raw, password)
	default:
		anchors, err = pkcs12.DecodeTrustStore(raw, password)
		if err != nil && !errors.Is(err, pkcs12.ErrIncorrectPassword) && !errors.Is(err, pkcs12.ErrDecryption) {
			// Certificates not marked trusted, or a key entry: Java
			// takes no anchor from them.
			_, _, _, keyErr := pkcs12.DecodeChain(raw, password)
			if keyErr == nil || strings.Contains(err.Error(), "not marked as trusted") {
				return nil, errors.New("the store holds no trusted certificate (Java trusts only certificates imported as trusted, e.g. by keytool -importcert)")
			}
		}
		err = p12Error(err)
	}
	if err != nil {
		return nil, err
	}
	if len(anchors) == 0 {
		return nil, errors.New("the store holds no trusted certificate")
	}
	pool := x509.NewCertPool()
	for _, c := range anchors {
		pool.AddCert(c)
	}
	return pool, nil
}

// lastPerSubject keeps, of certificates with the same subject, the
// last: Java's PemReader files a PEM trust store's certificates under
// their subject name, so a later one replaces an earlier one (an old
// and a renewed CA certificate with the same name: only the later is
// trusted).
func lastPerSubject(certs []*x509.Certificate) []*x509.Certificate {
	index := map[string]int{}
	var out []*x509.Certificate
	for _, c := range certs {
		dn := SubjectDN(c)
		if i, ok := index[dn]; ok {
			out[i] = c
			continue
		}
		index[dn] = len(out)
		out = append(out, c)
	}
	return out
}

func p12Error(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, pkcs12.ErrIncorrectPassword), errors.Is(err, pkcs12.ErrDecryption):
		return errors.New("keystore password was incorrect")
	}
	return fmt.Errorf("not a readable PKCS12 store: %w", err)
}

func p12KeyStore(raw []byte, password string) ([]tls.Certificate, error) {
	key, leaf, chain, err := pkcs12.DecodeChain(raw, password)
	if err != nil {
		if strings.Contains(err.Error(), "private key missing") {
			return nil, nil
		}
		return nil, p12Error(err)
	}
	c := tls.Certificate{PrivateKey: key, Leaf: leaf, Certificate: [][]byte{leaf.Raw}}
	for _, ca := range chain {
		c.Certificate = append(c.Certificate, ca.Raw)
	}
	if err := checkKeyMatches(c); err != nil {
		return nil, err
	}
	return []tls.Certificate{c}, nil
}

func loadJKS(raw []byte, password string) (keystore.KeyStore, error) {
	ks := keystore.New()
	if err := ks.Load(bytes.NewReader(raw), []byte(password)); err != nil {
		if strings.Contains(err.Error(), "invalid digest") {
			return ks, errors.New("keystore password was incorrect")
		}
		return ks, fmt.Errorf("not a readable JKS store: %w", err)
	}
	return ks, nil
}

func jksKeyStore(raw []byte, password string) ([]tls.Certificate, error) {
	ks, err := loadJKS(raw, password)
	if err != nil {
		return nil, err
	}
	aliases := ks.Aliases()
	sort.Strings(aliases)
	var certs []tls.Certificate
	for _, alias := range aliases {
		if !ks.IsPrivateKeyEntry(alias) {
			continue
		}
		entry, err := ks.GetPrivateKeyEntry(alias, []byte(password))
		if err != nil {
			return nil, fmt.Errorf("entry %q: the key password differs from the store password (Java needs them equal): %v", alias, err)
		}
		key, err := x509.ParsePKCS8PrivateKey(entry.PrivateKey)
		if err != nil {
			return nil, fmt.Errorf("entry %q: %v", alias, err)
		}
		c := tls.Certificate{PrivateKey: key}
		for _, cc := range entry.CertificateChain {
			c.Certificate = append(c.Certificate, cc.Content)
		}
		if len(c.Certificate) == 0 {
			return nil, fmt.Errorf("entry %q has no certificate", alias)
		}
		if c.Leaf, err = x509.ParseCertificate(c.Certificate[0]); err != nil {
			return nil, fmt.Errorf("entry %q: %v", alias, err)
		}
		if err := checkKeyMatches(c); err != nil {
			return nil, fmt.Errorf("entry %q: %v", alias, err)
		}
		certs = append(certs, c)
	}
	return certs, nil
}

func jksTrustStore(raw []byte, password string) ([]*x509.Certificate, error) {
	ks, err := loadJKS(raw, password)
	if err != nil {
		return nil, err
	}
	aliases := ks.Aliases()
	sort.Strings(aliases)
	var out []*x509.Certificate
	for _, alias := range aliases {
		if !ks.IsTrustedCertificateEntry(alias) {
			continue
		}
		entry, err := ks.GetTrustedCertificateEntry(alias)
		if err != nil {
			return nil, fmt.Errorf("entry %q: %v", alias, err)
		}
		c, err := x509.ParseCertificate(entry.Certificate.Content)
		if err != nil {
			return nil, fmt.Errorf("entry %q: %v", alias, err)
		}
		out = append(out, c)
	}
	return out, nil
}

func checkKeyMatches(c tls.Certificate) error {
	pub, ok := c.PrivateKey.(interface{ Public() crypto.PublicKey })
	if !ok {
		return errors.New("unsupported private key type")
	}
	if eq, ok := pub.Public().(interface{ Equal(crypto.PublicKey) bool }); !ok || !eq.Equal(c.Leaf.PublicKey) {
		return errors.New("the private key does not belong to the certificate")
	}
	return nil
}

// pemCertificates returns every CERTIFICATE block, in file order.
func pemCertificates(raw []byte) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for {
		var block *pem.Block
		block, raw = pem.Decode(raw)
		if block == nil {
			return out, nil
		}
		if !strings.HasSuffix(block.Type, "CERTIFICATE") {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("certificate %d: %v", len(out)+1, err)
		}
		out = append(out, c)
	}
}

// pemKeyStore reads a PEM key store as Java's PemReader does: the first
// private key and every certificate of the file, the first certificate
// being the key's. The key must be PKCS#8; when the store has a
// password, the key must be encrypted PKCS#8 under that password (Java
// then decrypts it, and fails on a plain key).
func pemKeyStore(raw []byte, password string) (tls.Certificate, error) {
	var keyBlock *pem.Block
	for rest := raw; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if strings.HasSuffix(block.Type, "PRIVATE KEY") {
			keyBlock = block
			break
		}
	}
	if keyBlock == nil {
		return tls.Certificate{}, errors.New("the store holds no private key entry (no PEM PRIVATE KEY block)")
	}
	var der []byte
	switch keyBlock.Type {
	case "PRIVATE KEY":
		if password != "" {
			return tls.Certificate{}, errors.New("a password is set but the private key is not encrypted; Java reads only an ENCRYPTED PRIVATE KEY (PKCS#8) then: remove the password or encrypt the key")
		}
		der = keyBlock.Bytes
	case "ENCRYPTED PRIVATE KEY":
		if password == "" {
			return tls.Certificate{}, errors.New("the private key is encrypted but no password is set")
		}
		var err error
		if der, err = decryptPKCS8(keyBlock.Bytes, password); err != nil {
			return tls.Certificate{}, err
		}
	default:
		return tls.Certificate{}, fmt.Errorf("the private key is a %q block; Java reads PKCS#8 only (convert it with `openssl pkcs8 -topk8`)", keyBlock.Type)
	}
	key, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		if keyBlock.Type == "ENCRYPTED PRIVATE KEY" {
			// A wrong password leaves valid CBC padding about one time
			// in 256, and then the garbage fails here instead: it is
			// still the password.
			return tls.Certificate{}, errors.New("keystore password was incorrect (the private key does not decrypt)")
		}
		return tls.Certificate{}, fmt.Errorf("private key: %v", err)
	}
	chain, err := pemCertificates(raw)
	if err != nil {
		return tls.Certificate{}, err
	}
	if len(chain) == 0 {
		return tls.Certificate{}, errors.New("the file holds no certificate")
	}
	c := tls.Certificate{PrivateKey: key, Leaf: chain[0]}
	for _, cc := range chain {
		c.Certificate = append(c.Certificate, cc.Raw)
	}
	return c, checkKeyMatches(c)
}

var (
	oidPBES2      = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	oidPBKDF2     = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}
	oidHMACSHA1   = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 7}
	oidHMACSHA224 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 8}
	oidHMACSHA256 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 9}
	oidHMACSHA384 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 10}
	oidHMACSHA512 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 11}
	oidAES128CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 2}
	oidAES192CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 22}
	oidAES256CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}
	oidDESEDE3CBC = asn1.ObjectIdentifier{1, 2, 840, 113549, 3, 7}
	// pbeWithSHAAnd3-KeyTripleDES-CBC (PKCS#12 PBE), Java's
	// PBEWithSHA1AndDESede: what Java 3.8's PEM reader can decrypt.
	oidPBEWithSHA1And3DES = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 1, 3}
)

type encryptedPrivateKeyInfo struct {
	Algorithm pkix.AlgorithmIdentifier
	Data      []byte
}

type pbes2Params struct {
	KDF    pkix.AlgorithmIdentifier
	Cipher pkix.AlgorithmIdentifier
}

type pbkdf2Params struct {
	Salt       []byte
	Iterations int
	KeyLength  int                      `asn1:"optional"`
	PRF        pkix.AlgorithmIdentifier `asn1:"optional"`
}

// decryptPKCS8 decrypts an EncryptedPrivateKeyInfo encrypted with
// PBEWithSHA1AndDESede (`openssl pkcs8 -topk8 -v1 PBE-SHA1-3DES`, the
// scheme Java 3.8 reads) or with PBES2 (PBKDF2 and AES-CBC or 3DES-CBC,
// what `openssl pkcs8 -topk8` writes by default; gozk reads it, but
// ZooKeeper 3.8 on a JDK 17 does not: "PBES2 SecretKeyFactory not
// available").
func decryptPKCS8(der []byte, password string) ([]byte, error) {
	var info encryptedPrivateKeyInfo
	if rest, err := asn1.Unmarshal(der, &info); err != nil || len(rest) != 0 {
		return nil, fmt.Errorf("encrypted private key: not a PKCS#8 EncryptedPrivateKeyInfo (%v)", err)
	}
	if info.Algorithm.Algorithm.Equal(oidPBEWithSHA1And3DES) {
		return decryptPBEWithSHA1And3DES(info, password)
	}
	if !info.Algorithm.Algorithm.Equal(oidPBES2) {
		return nil, fmt.Errorf("encrypted private key: encryption %v is not supported by gozk (use openssl pkcs8 -topk8 -v1 PBE-SHA1-3DES, which Java reads too)", info.Algorithm.Algorithm)
	}
	var params pbes2Params
	if _, err := asn1.Unmarshal(info.Algorithm.Parameters.FullBytes, &params); err != nil {
		return nil, fmt.Errorf("encrypted private key: PBES2 parameters: %v", err)
	}
	if !params.KDF.Algorithm.Equal(oidPBKDF2) {
		return nil, fmt.Errorf("encrypted private key: key derivation %v is not supported (PBKDF2 is)", params.KDF.Algorithm)
	}
	var kdf pbkdf2Params
	if _, err := asn1.Unmarshal(params.KDF.Parameters.FullBytes, &kdf); err != nil {
		return nil, fmt.Errorf("encrypted private key: PBKDF2 parameters: %v", err)
	}
	var prf func() hash.Hash
	switch alg := kdf.PRF.Algorithm; {
	case len(alg) == 0 || alg.Equal(oidHMACSHA1):
		prf = sha1.New
	case alg.Equal(oidHMACSHA224):
		prf = sha256.New224
	case alg.Equal(oidHMACSHA256):
		prf = sha256.New
	case alg.Equal(oidHMACSHA384):
		prf = sha512.New384
	case alg.Equal(oidHMACSHA512):
		prf = sha512.New
	default:
		return nil, fmt.Errorf("encrypted private key: PBKDF2 PRF %v is not supported", alg)
	}
	var keyLen int
	var newBlock func([]byte) (cipher.Block, error)
	switch alg := params.Cipher.Algorithm; {
	case alg.Equal(oidAES128CBC):
		keyLen, newBlock = 16, aes.NewCipher
	case alg.Equal(oidAES192CBC):
		keyLen, newBlock = 24, aes.NewCipher
	case alg.Equal(oidAES256CBC):
		keyLen, newBlock = 32, aes.NewCipher
	case alg.Equal(oidDESEDE3CBC):
		keyLen, newBlock = 24, des.NewTripleDESCipher
	default:
		return nil, fmt.Errorf("encrypted private key: cipher %v is not supported (AES-CBC and DES-EDE3-CBC are)", alg)
	}
	var iv []byte
	if _, err := asn1.Unmarshal(params.Cipher.Parameters.FullBytes, &iv); err != nil {
		return nil, fmt.Errorf("encrypted private key: cipher IV: %v", err)
	}
	key, err := pbkdf2.Key(prf, password, kdf.Salt, kdf.Iterations, keyLen)
	if err != nil {
		return nil, fmt.Errorf("encrypted private key: %v", err)
	}
	block, err := newBlock(key)
	if err != nil {
		return nil, err
	}
	return decryptCBC(block, iv, info.Data)
}

func decryptCBC(block cipher.Block, iv, data []byte) ([]byte, error) {
	if len(iv) != block.BlockSize() || len(data) == 0 || len(data)%block.BlockSize() != 0 {
		return nil, errors.New("encrypted private key: malformed ciphertext")
	}
	plain := make([]byte, len(data))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(plain, data)
	pad := int(plain[len(plain)-1])
	if pad == 0 || pad > block.BlockSize() || !bytes.Equal(plain[len(plain)-pad:], bytes.Repeat([]byte{byte(pad)}, pad)) {
		return nil, errors.New("keystore password was incorrect (the private key does not decrypt)")
	}
	return plain[:len(plain)-pad], nil
}

type pbeParams struct {
	Salt       []byte
	Iterations int
}

func decryptPBEWithSHA1And3DES(info encryptedPrivateKeyInfo, password string) ([]byte, error) {
	var params pbeParams
	if _, err := asn1.Unmarshal(info.Algorithm.Parameters.FullBytes, &params); err != nil {
		return nil, fmt.Errorf("encrypted private key: PBE parameters: %v", err)
	}
	if params.Iterations < 1 || params.Iterations > 1<<24 {
		return nil, fmt.Errorf("encrypted private key: %d PBE iterations", params.Iterations)
	}
	// The password as a NUL-terminated BMPString (UTF-16BE).
	var pw []byte
	for _, r := range password {
		if r > 0xffff {
			return nil, errors.New("encrypted private key: the password has a character outside the BMP")
		}
		pw = append(pw, byte(r>>8), byte(r))
	}
	pw = append(pw, 0, 0)
	key := pkcs12KDF(pw, params.Salt, params.Iterations, 1, 24)
	iv := pkcs12KDF(pw, params.Salt, params.Iterations, 2, 8)
	block, err := des.NewTripleDESCipher(key)
	if err != nil {
		return nil, err
	}
	return decryptCBC(block, iv, info.Data)
}

// pkcs12KDF is the key derivation of RFC 7292, appendix B.2, with
// SHA-1: id 1 derives a key, 2 an IV.
func pkcs12KDF(password, salt []byte, iterations int, id byte, size int) []byte {
	const v = 64 // SHA-1's block size
	fill := func(b []byte) []byte {
		if len(b) == 0 {
			return nil
		}
		out := make([]byte, v*((len(b)+v-1)/v))
		for i := range out {
			out[i] = b[i%len(b)]
		}
		return out
	}
	D := bytes.Repeat([]byte{id}, v)
	I := append(fill(salt), fill(password)...)
	var out []byte
	for len(out) < size {
		h := sha1.New()
		h.Write(D)
		h.Write(I)
		A := h.Sum(nil)
		for i := 1; i < iterations; i++ {
			s := sha1.Sum(A)
			A = s[:]
		}
		out = append(out, A...)
		B := fill(A)
		// I_j = (I_j + B + 1) mod 2^(8v) for each v-byte block of I.
		for j := 0; j < len(I); j += v {
			carry := 1
			for k := v - 1; k >= 0; k-- {
				sum := int(I[j+k]) + int(B[k]) + carry
				I[j+k] = byte(sum)
				carry = sum >> 8
			}
		}
	}
	return out[:size]
}
