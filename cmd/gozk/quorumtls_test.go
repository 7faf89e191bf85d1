package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
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
	_, stderr, code := gozk(t, nil, "server", "--config", cfg)
	if code != exitRuntime || !strings.Contains(stderr, "ssl.quorum.keyStore.location") || !strings.Contains(stderr, missing) {
		t.Fatalf("exit %d (want %d), stderr:\n%s", code, exitRuntime, stderr)
	}
}
