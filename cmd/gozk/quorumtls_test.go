package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/internal/certtest"
)

// TestUnreadableQuorumKeyStoreStopsStartup: with sslQuorum, a key store
// that cannot be read stops the server at start-up, naming the key and
// the file, instead of a member that can reach no one.
func TestUnreadableQuorumKeyStoreStopsStartup(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-keystore.jks")
	cfg := writeFile(t, dir, "zoo.cfg", fmt.Sprintf("dataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\ntickTime=100\ninitLimit=5\nsyncLimit=2\n"+
		"admin.enableServer=false\nserver.1=127.0.0.1:%d:%d\nserver.2=127.0.0.1:%d:%d\nserver.3=127.0.0.1:%d:%d\n"+
		"sslQuorum=true\nssl.quorum.keyStore.location=%s\nssl.quorum.keyStore.password=secret\n",
		dir, freePort(t), freePort(t), freePort(t), freePort(t), freePort(t), freePort(t), freePort(t), missing))
	writeFile(t, dir, "myid", "1\n")
	stdout, stderr, code := gozk(t, nil, "server", "--config", cfg)
	if code != exitRuntime || !strings.Contains(stderr, "ssl.quorum.keyStore.location") || !strings.Contains(stderr, missing) {
		t.Fatalf("exit %d (want %d), stderr:\n%s", code, exitRuntime, stderr)
	}
	// Nothing was served first: the member is set up before the client
	// port opens, as Java fails before serving.
	if strings.Contains(stdout+stderr, "serving clients") {
		t.Fatalf("the client port was served before the member failed:\n%s\n%s", stdout, stderr)
	}
}

// TestAdminServerHTTPSFromQuorumStores: admin.forceHttps serves the
// AdminServer over HTTPS with the ssl.quorum.* key store, as Java 3.8.0
// does.
func TestAdminServerHTTPSFromQuorumStores(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	dir := t.TempDir()
	adminPort := freePort(t)
	cfg := writeFile(t, dir, "zoo.cfg", fmt.Sprintf("dataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n"+
		"admin.serverAddress=127.0.0.1\nadmin.serverPort=%d\nadmin.forceHttps=true\n"+
		"ssl.quorum.keyStore.location=%s\nssl.quorum.keyStore.password=%s\n"+
		"ssl.quorum.trustStore.location=%s\nssl.quorum.trustStore.password=%s\n",
		dir, freePort(t), adminPort, set.Server.JKS, set.Password, set.Trust.JKS, set.Password))
	cmd := exec.Command(gozkBin, "server", "--config", cfg)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	ca, err := os.ReadFile(set.Trust.PEM)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	defer client.CloseIdleConnections()
	url := fmt.Sprintf("https://127.0.0.1:%d/commands/ruok", adminPort)
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Strict-Transport-Security") == "" {
				t.Fatalf("HTTPS answer: %s %v", resp.Status, resp.Header)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no HTTPS AdminServer: %v\n%s", err, stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestAdminServerHTTPSNeedsBothQuorumStores: Java's JettyAdminServer
// loads the quorum key store and trust store for HTTPS and fails without
// either, and the server goes on without an AdminServer; so does gozk.
func TestAdminServerHTTPSNeedsBothQuorumStores(t *testing.T) {
	set := certtest.New(t, certtest.Options{})
	dir := t.TempDir()
	clientPort, adminPort := freePort(t), freePort(t)
	cfg := writeFile(t, dir, "zoo.cfg", fmt.Sprintf("dataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n"+
		"admin.serverAddress=127.0.0.1\nadmin.serverPort=%d\nadmin.forceHttps=true\n"+
		"ssl.quorum.keyStore.location=%s\nssl.quorum.keyStore.password=%s\n",
		dir, clientPort, adminPort, set.Server.JKS, set.Password))
	cmd := exec.Command(gozkBin, "server", "--config", cfg)
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(out.String(), "serving clients") {
		if time.Now().After(deadline) {
			t.Fatalf("the server did not start:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "ssl.quorum.trustStore.location is not set") {
		t.Fatalf("no line saying why the AdminServer is off:\n%s", out.String())
	}
	if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", adminPort), time.Second); err == nil {
		c.Close()
		t.Fatal("an AdminServer listens without the quorum trust store")
	}
}
