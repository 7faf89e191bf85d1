package kdctest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gozk/gozk/internal/testport"
)

// Realm is the realm every KDC here serves.
const Realm = "EXAMPLE.COM"

// Principals a KDC is created with, each with its own keytab (see
// KDC.Keytab): the client-port service, the quorum service, and two
// clients.
const (
	ServicePrincipal = "zookeeper/localhost"
	QuorumPrincipal  = "zkquorum/localhost"
	ClientPrincipal  = "client"
	OtherPrincipal   = "alice"
)

// KDC is one running krb5kdc with its database and configuration in a
// temporary directory.
type KDC struct {
	// Dir holds the database, the configuration files and the keytabs.
	Dir string
	// Port is the KDC's TCP and UDP port on 127.0.0.1.
	Port int
	// Krb5Conf is a krb5.conf naming this KDC for EXAMPLE.COM, for
	// KRB5_CONFIG, java.security.krb5.conf and gokrb5.
	Krb5Conf string
	// KDCConf is the kdc.conf (KRB5_KDC_PROFILE) of this KDC.
	KDCConf string

	bins map[string]string
	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	tabs map[string]string
}

// tools are the MIT programs a KDC needs, found in PATH or the sbin
// directories Debian installs them in.
var tools = []string{"krb5kdc", "kdb5_util", "kadmin.local"}

func findTool(name string) (string, bool) {
	if p, err := exec.LookPath(name); err == nil {
		return p, true
	}
	for _, dir := range []string{"/usr/sbin", "/usr/local/sbin", "/sbin"} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

// Available says whether the MIT KDC programs are installed, and if
// not, which one is missing.
func Available() (bool, string) {
	for _, t := range tools {
		if _, ok := findTool(t); !ok {
			return false, t + " not found (install krb5-kdc and krb5-admin-server: make setup-interop)"
		}
	}
	return true, ""
}

// Start runs a KDC for the test, skipping the test when the KDC programs
// are absent. The KDC stops when the test ends.
func Start(t testing.TB) *KDC {
	t.Helper()
	if ok, why := Available(); !ok {
		t.Skip("kdctest: " + why)
	}
	k, err := New(t.TempDir())
	if err != nil {
		t.Fatalf("kdctest: %v", err)
	}
	t.Cleanup(k.Stop)
	return k
}

// New creates a realm in dir and starts its KDC on a free loopback port.
// The caller must call Stop.
func New(dir string) (*KDC, error) {
	k := &KDC{Dir: dir, bins: map[string]string{}, tabs: map[string]string{}}
	for _, t := range tools {
		p, ok := findTool(t)
		if !ok {
			return nil, fmt.Errorf("%s not found", t)
		}
		k.bins[t] = p
	}
	port, err := testport.Free()
	if err != nil {
		return nil, err
	}
	k.Port = port
	k.Krb5Conf = filepath.Join(dir, "krb5.conf")
	k.KDCConf = filepath.Join(dir, "kdc.conf")
	if err := k.writeConfig(); err != nil {
		return nil, err
	}
	if _, err := k.run("kdb5_util", "create", "-s", "-r", Realm, "-P", "masterkey-for-tests"); err != nil {
		return nil, err
	}
	for _, p := range []string{ServicePrincipal, QuorumPrincipal, ClientPrincipal, OtherPrincipal} {
		if _, err := k.AddPrincipal(p); err != nil {
			return nil, err
		}
	}
	if err := k.start(); err != nil {
		return nil, err
	}
	return k, nil
}

func (k *KDC) writeConfig() error {
	addr := "127.0.0.1:" + strconv.Itoa(k.Port)
	// Short lifetimes are not set: tickets outlive any test. The
	// enctypes are the AES ones that gokrb5, the JDK and MIT all do.
	kdcConf := fmt.Sprintf(`[kdcdefaults]
 kdc_listen = %[2]s
 kdc_tcp_listen = %[2]s

[realms]
 %[1]s = {
  database_name = %[3]s
  key_stash_file = %[4]s
  acl_file = %[5]s
  kdc_listen = %[2]s
  kdc_tcp_listen = %[2]s
  max_life = 10h 0m 0s
  max_renewable_life = 1d 0h 0m 0s
  supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
 }

[logging]
 kdc = FILE:%[6]s
 admin_server = FILE:%[7]s
 default = FILE:%[6]s
`, Realm, addr, filepath.Join(k.Dir, "principal"), filepath.Join(k.Dir, "stash"),
		filepath.Join(k.Dir, "kadm5.acl"), filepath.Join(k.Dir, "kdc.log"), filepath.Join(k.Dir, "kadmin.log"))
	// udp_preference_limit = 1 sends every request over TCP, which MIT,
	// the JDK and gokrb5 all honour; rdns and canonicalisation are off
	// so that "localhost" stays "localhost" in service principals.
	krb5Conf := fmt.Sprintf(`[libdefaults]
 default_realm = %[1]s
 dns_lookup_kdc = false
 dns_lookup_realm = false
 dns_canonicalize_hostname = false
 rdns = false
 udp_preference_limit = 1
 forwardable = false
 ticket_lifetime = 10h
 default_tkt_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96
 default_tgs_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96
 permitted_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96

[realms]
 %[1]s = {
  kdc = %[2]s
  admin_server = %[2]s
 }

[domain_realm]
 localhost = %[1]s
 .localhost = %[1]s
`, Realm, addr)
	if err := os.WriteFile(k.KDCConf, []byte(kdcConf), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(k.Dir, "kadm5.acl"), nil, 0o600); err != nil {
		return err
	}
	return os.WriteFile(k.Krb5Conf, []byte(krb5Conf), 0o644)
}

// Env is the environment the MIT tools (and libraries such as
// python3-kerberos) need to use this realm instead of the machine's.
func (k *KDC) Env() []string {
	return []string{
		"KRB5_CONFIG=" + k.Krb5Conf,
		"KRB5_KDC_PROFILE=" + k.KDCConf,
		"KRB5CCNAME=FILE:" + filepath.Join(k.Dir, "ccache"),
		"KRB5RCACHEDIR=" + k.Dir,
	}
}

func (k *KDC) run(tool string, args ...string) (string, error) {
	cmd := exec.Command(k.bins[tool], args...)
	cmd.Env = append(os.Environ(), k.Env()...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %v: %s", tool, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// Kadmin runs one kadmin.local query against the realm's database.
func (k *KDC) Kadmin(query string) (string, error) {
	return k.run("kadmin.local", "-r", Realm, "-q", query)
}

// AddPrincipal creates name (without realm) with a random key and
// writes its keys to a keytab of its own, whose path it returns.
func (k *KDC) AddPrincipal(name string, addprincFlags ...string) (string, error) {
	q := "addprinc -randkey " + strings.Join(addprincFlags, " ") + " " + name
	if _, err := k.Kadmin(q); err != nil {
		return "", err
	}
	kt := filepath.Join(k.Dir, strings.NewReplacer("/", "_", "@", "_").Replace(name)+".keytab")
	// -norandkey keeps the key addprinc made, so adding a principal
	// twice to different keytabs gives the same key.
	if _, err := k.Kadmin("ktadd -norandkey -k " + kt + " " + name); err != nil {
		return "", err
	}
	k.mu.Lock()
	k.tabs[name] = kt
	k.mu.Unlock()
	return kt, nil
}

// Keytab is the keytab file AddPrincipal (or New) wrote for name.
func (k *KDC) Keytab(name string) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.tabs[name]
}

// Principal is name qualified with the realm.
func Principal(name string) string { return name + "@" + Realm }

func (k *KDC) start() error {
	log, err := os.Create(filepath.Join(k.Dir, "krb5kdc.out"))
	if err != nil {
		return err
	}
	defer log.Close()
	// -n keeps it in the foreground, so it is this process's child and
	// Stop can end it; Pdeathsig ends it too if the test binary dies.
	cmd := exec.Command(k.bins["krb5kdc"], "-n", "-r", Realm, "-P", filepath.Join(k.Dir, "krb5kdc.pid"))
	cmd.Env = append(os.Environ(), k.Env()...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("krb5kdc: %w", err)
	}
	k.cmd = cmd
	k.done = make(chan struct{})
	go func() { _ = cmd.Wait(); close(k.done) }()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(k.Port))
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-k.done:
			out, _ := os.ReadFile(filepath.Join(k.Dir, "kdc.log"))
			return fmt.Errorf("krb5kdc exited at start: %s", strings.TrimSpace(string(out)))
		default:
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			k.Stop()
			return fmt.Errorf("krb5kdc did not listen on %s: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop ends the KDC and waits for it to exit. It may be called more
// than once.
func (k *KDC) Stop() {
	if k.cmd == nil || k.cmd.Process == nil {
		return
	}
	_ = k.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-k.done:
	case <-time.After(10 * time.Second):
		_ = k.cmd.Process.Kill()
		<-k.done
	}
}

// Running reports whether the KDC process is still alive.
func (k *KDC) Running() bool {
	if k.done == nil {
		return false
	}
	select {
	case <-k.done:
		return false
	default:
		return true
	}
}
