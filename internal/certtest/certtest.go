package certtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// DefaultPassword protects every store and encrypted key unless
// Options.Password says otherwise.
const DefaultPassword = "certtest-secret"

// DefaultClientSubject is the client certificate made when
// Options.Clients is empty.
const DefaultClientSubject = "/O=gozk test/OU=clients/CN=client"

// Options chooses what New makes. The zero value is usable.
type Options struct {
	// ServerCN is the server certificate's common name; "localhost"
	// when empty. The SANs are always IP:127.0.0.1 and DNS:localhost.
	ServerCN string
	// Clients are the client certificates' subjects in openssl's -subj
	// form, most significant RDN first ("/O=acme/CN=alice"); a "+"
	// joins attributes into one multi-valued RDN (then SubjectDN is
	// openssl's rendering, whose order within the RDN may differ from
	// Java's). Empty: one client, DefaultClientSubject.
	Clients []string
	// RSA makes RSA 2048 keys instead of ECDSA P-256 ones.
	RSA bool
	// Password for every store and encrypted key; DefaultPassword when
	// empty.
	Password string
}

// Bundle is one certificate and its private key in every format.
type Bundle struct {
	// SubjectDN is the subject as Java's
	// X500Principal.getName() prints it (RFC 2253, as openssl prints it
	// with -nameopt RFC2253, which agrees with Java for the printable
	// attribute values these tests use).
	SubjectDN string
	CertPEM   string // the certificate alone, PEM
	KeyPEM    string // the private key alone, unencrypted PKCS#8 PEM
	// PEM holds the private key (unencrypted PKCS#8) then the
	// certificate: a PEM key store as Java reads it.
	PEM string
	// EncryptedPEM is PEM with the key as encrypted PKCS#8 under the
	// set's password, with PBEWithSHA1AndDESede: ZooKeeper 3.8's PEM
	// reader cannot decrypt PBES2 (openssl's default) on a JDK 17.
	EncryptedPEM string
	P12          string // PKCS12 key store, alias "key"
	JKS          string // JKS key store, alias "key", key password = store password
}

// TrustStores holds one CA certificate as a trust store in each format.
type TrustStores struct {
	PEM string // the CA certificate, PEM (named *.pem, as Java detects the type by it)
	P12 string // PKCS12 trust store (a trusted certificate entry, alias "ca")
	JKS string // JKS trust store (alias "ca")
}

// Set is everything New made.
type Set struct {
	Dir      string
	Password string
	// CA signed every certificate below except Untrusted; Trust holds
	// its certificate as trust stores. CA.P12 and CA.JKS are empty.
	CA    Bundle
	Trust TrustStores
	// Server has the loopback SANs and Options.ServerCN.
	Server Bundle
	// Clients follow Options.Clients in order.
	Clients []Bundle
	// Expired was valid for one day in 2020 and is signed by CA.
	Expired Bundle
	// Untrusted is signed by a second CA that Trust does not hold;
	// UntrustedTrust holds that second CA.
	Untrusted      Bundle
	UntrustedTrust TrustStores

	t      testing.TB
	serial atomic.Int64
	rsa    bool
	ca     *authority
	jobs   sync.WaitGroup
	jobErr chan error
}

type authority struct {
	cert, key string
}

// New makes the CA, server, client, expired and untrusted certificates
// and their stores in t.TempDir(). It skips the test when openssl or
// keytool is missing and fails it when a tool fails.
func New(t testing.TB, opts Options) *Set {
	t.Helper()
	for _, tool := range []string{"openssl", "keytool"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("certtest: %s is not installed (%v); it makes the test certificates", tool, err)
		}
	}
	s := &Set{Dir: t.TempDir(), Password: opts.Password, t: t, rsa: opts.RSA, jobErr: make(chan error, 64)}
	if s.Password == "" {
		s.Password = DefaultPassword
	}
	serverCN := opts.ServerCN
	if serverCN == "" {
		serverCN = "localhost"
	}
	clients := opts.Clients
	if len(clients) == 0 {
		clients = []string{DefaultClientSubject}
	}

	var ca authority
	s.CA, ca = s.newCA("ca", "/O=gozk test/CN=gozk test CA")
	s.ca = &ca
	s.Trust = s.trustStores("ca", s.CA)
	other, otherCA := s.newCA("untrusted-ca", "/O=gozk test/CN=gozk untrusted CA")
	s.UntrustedTrust = s.trustStores("untrusted-ca", other)

	s.Server = s.issue("server", "/O=gozk test/CN="+serverCN, ca, "")
	for i, subj := range clients {
		s.Clients = append(s.Clients, s.issue(fmt.Sprintf("client%d", i), subj, ca, ""))
	}
	s.Expired = s.issue("expired", "/O=gozk test/CN=expired", ca, "expired")
	s.Untrusted = s.issue("untrusted", "/O=gozk test/CN=untrusted", otherCA, "")
	s.wait()
	return s
}

// Issue makes one more certificate signed by the set's CA, with the
// loopback SANs and the given subject (openssl -subj form). name must be
// unique within the set: it names the files.
func (s *Set) Issue(t testing.TB, name, subject string) Bundle {
	return s.IssueSAN(t, name, subject, "IP:127.0.0.1,DNS:localhost")
}

// IssueSAN is Issue with the subjectAltName given in openssl's syntax
// ("DNS:zk1.example,IP:10.0.0.1"); empty: no SAN extension at all, so
// that host name checks fall back to the subject's CN.
func (s *Set) IssueSAN(t testing.TB, name, subject, san string) Bundle {
	t.Helper()
	s.t = t
	b := s.issueWith(name, subject, *s.ca, "", san)
	s.wait()
	return b
}

func (s *Set) path(name string) string { return filepath.Join(s.Dir, name) }

// run runs a tool and fails the test with its output when it fails.
func (s *Set) run(name string, args ...string) string {
	s.t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("certtest: %s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// background runs a keytool call concurrently: each starts a JVM.
func (s *Set) background(args ...string) {
	s.jobs.Add(1)
	go func() {
		defer s.jobs.Done()
		full := append([]string{"-J-Xmx64m", "-J-XX:TieredStopAtLevel=1"}, args...)
		out, err := exec.Command("keytool", full...).CombinedOutput()
		if err != nil {
			s.jobErr <- fmt.Errorf("keytool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}()
}

func (s *Set) wait() {
	s.t.Helper()
	s.jobs.Wait()
	for {
		select {
		case err := <-s.jobErr:
			s.t.Fatalf("certtest: %v", err)
		default:
			return
		}
	}
}

func (s *Set) keyArgs() []string {
	if s.rsa {
		return []string{"-newkey", "rsa:2048"}
	}
	return []string{"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"}
}

func (s *Set) newCA(name, subject string) (Bundle, authority) {
	s.t.Helper()
	a := authority{cert: s.path(name + "-cert.pem"), key: s.path(name + "-key.pem")}
	args := append([]string{"req", "-x509"}, s.keyArgs()...)
	args = append(args, "-nodes", "-keyout", a.key, "-out", a.cert, "-days", "3650", "-sha256",
		"-subj", subject,
		"-addext", "basicConstraints=critical,CA:TRUE",
		"-addext", "keyUsage=critical,keyCertSign,cRLSign")
	s.run("openssl", args...)
	return Bundle{SubjectDN: s.subjectDN(a.cert), CertPEM: a.cert, KeyPEM: a.key}, a
}

const leafExtensions = `basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth,clientAuth
`

// issue makes a leaf with the loopback SANs signed by ca; mode
// "expired" backdates it.
func (s *Set) issue(name, subject string, ca authority, mode string) Bundle {
	s.t.Helper()
	return s.issueWith(name, subject, ca, mode, "IP:127.0.0.1,DNS:localhost")
}

func (s *Set) issueWith(name, subject string, ca authority, mode, san string) Bundle {
	s.t.Helper()
	return s.issueWithExt(name, subject, ca, mode, san, "")
}

func (s *Set) issueWithExt(name, subject string, ca authority, mode, san, more string) Bundle {
	s.t.Helper()
	b := Bundle{
		CertPEM:      s.path(name + "-cert.pem"),
		KeyPEM:       s.path(name + "-key.pem"),
		PEM:          s.path(name + ".pem"),
		EncryptedPEM: s.path(name + ".enc.pem"),
		P12:          s.path(name + ".p12"),
		JKS:          s.path(name + ".jks"),
	}
	csr := s.path(name + ".csr")
	ext := s.path(name + ".ext")
	extensions := leafExtensions
	if san != "" {
		extensions += "subjectAltName=" + san + "\n"
	}
	extensions += more
	s.write(ext, extensions)
	args := append([]string{"req", "-new"}, s.keyArgs()...)
	args = append(args, "-nodes", "-keyout", b.KeyPEM, "-out", csr, "-subj", subject, "-multivalue-rdn")
	s.run("openssl", args...)
	serial := fmt.Sprint(1000 + s.serial.Add(1))
	if mode == "expired" {
		s.signBackdated(name, csr, ext, serial, ca, b.CertPEM)
	} else {
		s.run("openssl", "x509", "-req", "-in", csr, "-CA", ca.cert, "-CAkey", ca.key,
			"-set_serial", serial, "-days", "3650", "-sha256", "-extfile", ext, "-out", b.CertPEM)
	}
	b.SubjectDN = s.subjectDN(b.CertPEM)

	key := s.read(b.KeyPEM)
	cert := s.read(b.CertPEM)
	s.write(b.PEM, key+cert)
	encKey := s.path(name + "-key.enc")
	s.run("openssl", "pkcs8", "-topk8", "-in", b.KeyPEM, "-out", encKey,
		"-v1", "PBE-SHA1-3DES", "-passout", "pass:"+s.Password)
	s.write(b.EncryptedPEM, s.read(encKey)+cert)
	s.run("openssl", "pkcs12", "-export", "-in", b.CertPEM, "-inkey", b.KeyPEM, "-name", "key",
		"-out", b.P12, "-passout", "pass:"+s.Password)
	s.background("-importkeystore", "-noprompt",
		"-srckeystore", b.P12, "-srcstoretype", "PKCS12", "-srcstorepass", s.Password,
		"-destkeystore", b.JKS, "-deststoretype", "JKS", "-deststorepass", s.Password, "-destkeypass", s.Password)
	return b
}

// signBackdated signs with `openssl ca`, the only openssl 3.0 command
// that takes explicit validity dates.
func (s *Set) signBackdated(name, csr, ext, serial string, ca authority, out string) {
	s.t.Helper()
	db := s.path(name + ".db")
	s.write(db, "")
	s.write(s.path(name+".serial"), fmt.Sprintf("%04X\n", 0x1000+s.serial.Add(1)))
	cnf := s.path(name + ".cnf")
	s.write(cnf, fmt.Sprintf(`[ca]
default_ca = ca_section
[ca_section]
database = %s
new_certs_dir = %s
serial = %s
default_md = sha256
policy = any
unique_subject = no
[any]
commonName = supplied
`, db, s.Dir, s.path(name+".serial")))
	s.run("openssl", "ca", "-batch", "-notext", "-config", cnf, "-cert", ca.cert, "-keyfile", ca.key,
		"-in", csr, "-out", out, "-extfile", ext,
		"-startdate", "20200101000000Z", "-enddate", "20200102000000Z")
}

func (s *Set) trustStores(name string, ca Bundle) TrustStores {
	ts := TrustStores{PEM: ca.CertPEM, P12: s.path(name + "-trust.p12"), JKS: s.path(name + "-trust.jks")}
	for _, st := range []struct{ file, kind string }{{ts.P12, "PKCS12"}, {ts.JKS, "JKS"}} {
		s.background("-importcert", "-noprompt", "-alias", "ca", "-file", ca.CertPEM,
			"-keystore", st.file, "-storetype", st.kind, "-storepass", s.Password)
	}
	return ts
}

func (s *Set) subjectDN(cert string) string {
	s.t.Helper()
	out := s.run("openssl", "x509", "-noout", "-subject", "-nameopt", "RFC2253", "-in", cert)
	return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(out), "subject="))
}

func (s *Set) read(path string) string {
	s.t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		s.t.Fatalf("certtest: %v", err)
	}
	return string(b)
}

func (s *Set) write(path, content string) {
	s.t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		s.t.Fatalf("certtest: %v", err)
	}
}
