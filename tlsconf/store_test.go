package tlsconf

import (
	"crypto/tls"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/internal/certtest"
)

// TestStoreTypes loads every store type as key store and as trust store
// and checks a handshake between a server and a client made from them.
func testStoreTypes(t *testing.T, set *certtest.Set) {
	keys := map[string]struct{ server, client string }{
		"PEM":           {set.Server.PEM, set.Clients[0].PEM},
		"encrypted PEM": {set.Server.EncryptedPEM, set.Clients[0].EncryptedPEM},
		"PKCS12":        {set.Server.P12, set.Clients[0].P12},
		"JKS":           {set.Server.JKS, set.Clients[0].JKS},
	}
	trusts := map[string]string{"PEM": set.Trust.PEM, "PKCS12": set.Trust.P12, "JKS": set.Trust.JKS}
	for kname, k := range keys {
		for tname, trust := range trusts {
			t.Run(kname+" key store, "+tname+" trust store", func(t *testing.T) {
				pw := set.Password
				serverCfg := tlsConfig(k.server, trust, pw)
				clientCfg := tlsConfig(k.client, trust, pw)
				if strings.HasSuffix(k.server, ".pem") && kname == "PEM" {
					// A PEM key store with a password must hold an
					// encrypted key: no password for the plain one.
					serverCfg.KeyStorePassword, clientCfg.KeyStorePassword = "", ""
				}
				server := mustNew(t, serverCfg, Options{})
				client := mustNew(t, clientCfg, Options{})
				serr, cerr, seen, clientSeen := handshake(t, server.ServerConfig(), func(c net.Conn) *tls.Conn { return client.Client(c, "127.0.0.1") })
				if serr != nil || cerr != nil {
					t.Fatalf("handshake: server %v, client %v", serr, cerr)
				}
				if got := SubjectDN(seen); got != set.Server.SubjectDN {
					t.Errorf("client saw %q, want %q", got, set.Server.SubjectDN)
				}
				if clientSeen == nil || SubjectDN(clientSeen) != set.Clients[0].SubjectDN {
					t.Errorf("server saw client %v, want %q", clientSeen, set.Clients[0].SubjectDN)
				}
			})
		}
	}
}

// TestStoreErrors: every store that cannot be used stops New with an
// error naming the key and the file.
func testStoreErrors(t *testing.T, set *certtest.Set) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	certOnly := write("cert-only.pem", string(mustRead(t, set.Server.CertPEM)))
	noCerts := write("no-certs.pem", "nothing here\n")
	garbage := write("garbage.jks", "this is no key store")
	renamed := write("server.store", string(mustRead(t, set.Server.PEM)))
	pkcs1 := write("pkcs1.pem", "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIByjVCRawGxEUBz9NG0v0pDPOW1GNV6ldcyYWE4iB0nmoAoGCCqGSM49\nAwEHoUQDQgAE3YHZ6bLMk4ZL6ZD8NN1o7P3m3m0fNfL2rK2xHnQ1dfDYl8rK0dE1\n3N0bwjOTJWlVYJ0cY5Tt6E6vRk5fkUzbrg==\n-----END EC PRIVATE KEY-----\n"+string(mustRead(t, set.Server.CertPEM)))
	pwFile := write("pw", set.Password+"\n")
	badPwFile := write("badpw", "wrong\n")
	missing := filepath.Join(dir, "missing.jks")
	// PBES2 (openssl's default): gozk reads it, Java 3.8 on JDK 17 not.
	pbes2Key := filepath.Join(dir, "pbes2.key")
	if out, err := exec.Command("openssl", "pkcs8", "-topk8", "-in", set.Server.KeyPEM, "-out", pbes2Key,
		"-v2", "aes-256-cbc", "-passout", "pass:"+set.Password).CombinedOutput(); err != nil {
		t.Fatalf("openssl: %v\n%s", err, out)
	}
	pbes2 := write("pbes2.pem", string(mustRead(t, pbes2Key))+string(mustRead(t, set.Server.CertPEM)))

	cases := []struct {
		name string
		edit func(c *conf.TLSConfig)
		want string // substring of the error; "" = no error
	}{
		{"JKS wrong password", func(c *conf.TLSConfig) { c.KeyStoreLocation, c.KeyStorePassword = set.Server.JKS, "wrong" },
			"ssl.keyStore.location: " + set.Server.JKS + ": keystore password was incorrect"},
		{"PKCS12 wrong password", func(c *conf.TLSConfig) { c.KeyStoreLocation, c.KeyStorePassword = set.Server.P12, "wrong" },
			"ssl.keyStore.location: " + set.Server.P12 + ": keystore password was incorrect"},
		{"encrypted PEM wrong password", func(c *conf.TLSConfig) { c.KeyStoreLocation, c.KeyStorePassword = set.Server.EncryptedPEM, "wrong" },
			"ssl.keyStore.location: " + set.Server.EncryptedPEM + ": keystore password was incorrect"},
		{"PBES2 encrypted PEM", func(c *conf.TLSConfig) { c.KeyStoreLocation = pbes2 }, ""},
		{"PBES2 encrypted PEM wrong password", func(c *conf.TLSConfig) { c.KeyStoreLocation, c.KeyStorePassword = pbes2, "wrong" }, "keystore password was incorrect"},
		{"encrypted PEM without password", func(c *conf.TLSConfig) { c.KeyStoreLocation, c.KeyStorePassword = set.Server.EncryptedPEM, "" },
			"encrypted but no password"},
		{"plain PEM with password", func(c *conf.TLSConfig) { c.KeyStoreLocation = set.Server.PEM }, "not encrypted"},
		{"trust store wrong password", func(c *conf.TLSConfig) { c.TrustStoreLocation, c.TrustStorePassword = set.Trust.JKS, "wrong" },
			"ssl.trustStore.location: " + set.Trust.JKS + ": keystore password was incorrect"},
		{"PKCS12 trust store wrong password", func(c *conf.TLSConfig) { c.TrustStoreLocation, c.TrustStorePassword = set.Trust.P12, "wrong" },
			"keystore password was incorrect"},
		{"missing file", func(c *conf.TLSConfig) { c.KeyStoreLocation = missing }, "ssl.keyStore.location: " + missing + ": no such file or directory"},
		{"not a store", func(c *conf.TLSConfig) { c.KeyStoreLocation = garbage }, "ssl.keyStore.location: " + garbage + ": not a readable PKCS12 store"},
		{"PEM declared for a JKS file", func(c *conf.TLSConfig) { c.KeyStoreLocation, c.KeyStoreType = set.Server.JKS, "PEM" }, "no private key"},
		{"unknown type", func(c *conf.TLSConfig) { c.KeyStoreLocation, c.KeyStoreType = set.Server.JKS, "JCEKS" }, `ssl.keyStore.type: "JCEKS" is not a store type`},
		{"BCFKS type", func(c *conf.TLSConfig) { c.TrustStoreType = "bcfks" }, "ssl.trustStore.type: BCFKS (Bouncy Castle FIPS) stores are not supported"},
		{"BCFKS extension", func(c *conf.TLSConfig) { c.TrustStoreLocation = filepath.Join(dir, "x.bcfks") }, "not supported"},
		{"extension decides nothing", func(c *conf.TLSConfig) { c.KeyStoreLocation = renamed },
			"ssl.keyStore.location: " + renamed + ": cannot tell the store type from the file name (.jks, .p12 or .pem); set ssl.keyStore.type"},
		{"extension is case-sensitive", func(c *conf.TLSConfig) { c.KeyStoreLocation = strings.TrimSuffix(set.Server.JKS, ".jks") + ".JKS" }, "cannot tell the store type"},
		{"type is case-insensitive", func(c *conf.TLSConfig) { c.KeyStoreLocation, c.KeyStoreType = renamed, "pem"; c.KeyStorePassword = "" }, ""},
		{"JKS file declared PKCS12 loads (JDK keystore.type.compat)", func(c *conf.TLSConfig) { c.KeyStoreLocation, c.KeyStoreType = set.Server.JKS, "PKCS12" }, ""},
		{"PKCS12 file declared JKS loads", func(c *conf.TLSConfig) { c.TrustStoreLocation, c.TrustStoreType = set.Trust.P12, "JKS" }, ""},
		{"empty trust store", func(c *conf.TLSConfig) { c.TrustStoreLocation = noCerts }, "ssl.trustStore.location: " + noCerts + ": the store holds no trusted certificate"},
		{"key store used as trust store", func(c *conf.TLSConfig) { c.TrustStoreLocation = set.Server.JKS }, "holds no trusted certificate"},
		{"PKCS12 key store used as trust store", func(c *conf.TLSConfig) { c.TrustStoreLocation = set.Server.P12 }, "ssl.trustStore.location: " + set.Server.P12 + ": the store holds no trusted certificate"},
		{"trust store used as key store", func(c *conf.TLSConfig) { c.KeyStoreLocation = set.Trust.JKS }, "ssl.keyStore.location: " + set.Trust.JKS + ": the store holds no private key entry"},
		{"PEM without key", func(c *conf.TLSConfig) { c.KeyStoreLocation, c.KeyStorePassword = certOnly, "" }, "no private key"},
		{"PEM without certificate", func(c *conf.TLSConfig) { c.KeyStoreLocation, c.KeyStorePassword = set.Server.KeyPEM, "" }, "ssl.keyStore.location: " + set.Server.KeyPEM + ": the file holds no certificate"},
		{"PKCS#1 key", func(c *conf.TLSConfig) { c.KeyStoreLocation, c.KeyStorePassword = pkcs1, "" }, "Java reads PKCS#8 only"},
		{"passwordPath wins over password", func(c *conf.TLSConfig) {
			c.KeyStoreLocation, c.KeyStorePassword, c.KeyStorePasswordPath = set.Server.JKS, "wrong", pwFile
		}, ""},
		{"passwordPath wrong content", func(c *conf.TLSConfig) {
			c.KeyStoreLocation, c.KeyStorePassword, c.KeyStorePasswordPath = set.Server.JKS, set.Password, badPwFile
		}, "keystore password was incorrect"},
		{"passwordPath missing", func(c *conf.TLSConfig) { c.TrustStorePasswordPath = missing }, "ssl.trustStore.passwordPath: open " + missing},
		{"no stores at all", func(c *conf.TLSConfig) { c.KeyStoreLocation, c.TrustStoreLocation = "", "" }, ""},
		{"crl", func(c *conf.TLSConfig) { c.CRL = true }, ""},
		{"ocsp", func(c *conf.TLSConfig) { c.OCSP = true }, ""},
		{"bad clientAuth", func(c *conf.TLSConfig) { c.ClientAuth = "required" }, `ssl.clientAuth: "required" is not none, want or need`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := tlsConfig(set.Server.JKS, set.Trust.JKS, set.Password)
			tc.edit(&c)
			_, err := New(c, "ssl.", Options{})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("New: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("New succeeded, want an error containing %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("New: %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// testWrongPasswordWithValidPadding: about one wrong password in 256
// decrypts an encrypted PEM key to garbage whose CBC padding happens to
// be valid; that must still read as a wrong password, not as a damaged
// key. The test looks for such a password, then loads the store with it.
func testWrongPasswordWithValidPadding(t *testing.T, set *certtest.Set) {
	raw := mustRead(t, set.Server.EncryptedPEM)
	var block *pem.Block
	for rest := raw; ; {
		block, rest = pem.Decode(rest)
		if block == nil {
			t.Fatal("no ENCRYPTED PRIVATE KEY block")
		}
		if block.Type == "ENCRYPTED PRIVATE KEY" {
			break
		}
	}
	// (255/256)^5000 is about 3e-9: a password is found.
	for i := 0; i < 5000; i++ {
		pw := fmt.Sprintf("wrong-%d", i)
		if _, err := decryptPKCS8(block.Bytes, pw); err != nil {
			continue
		}
		_, err := pemKeyStore(raw, pw)
		if err == nil || !strings.Contains(err.Error(), "keystore password was incorrect") {
			t.Fatalf("password %q pads validly; the store's error is %v, want a wrong password", pw, err)
		}
		return
	}
	t.Fatal("no wrong password with valid padding in 5000 tries")
}
