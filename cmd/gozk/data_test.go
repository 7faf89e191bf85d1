package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// javaFixture is a data directory written by Apache ZooKeeper 3.8.0 (see
// compat/datadir's TestGenerateFixtures).
const javaFixture = "../../persistence/zkfiles/testdata/java-3.8.0/plain"

// TestDataToolsBesideServer: every data tool run on the store of a live
// server fails with exit status 1 and says that a running gozk server
// holds the store, which directory and the server's pid; once the server
// has stopped, its new store (which has no snapshot yet) verifies sound
// and dump-snapshot says that it has no snapshot yet, with exit status 0.
func TestDataToolsBesideServer(t *testing.T) {
	dir := t.TempDir()
	dataDir := filepath.Join(dir, "data")
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cfg := writeFile(t, dir, "zoo.cfg", fmt.Sprintf("tickTime=2000\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n"+
		"admin.enableServer=false\n4lw.commands.whitelist=ruok\n", dataDir, port))
	proc := startServerProcess(t, nil, "server", "--config", cfg)
	proc.waitRuok(t, addr)
	srv, done, serverErr := proc.cmd, proc.done, &proc.stderr

	held := fmt.Sprintf("held by a running gozk server (pid %d: ", srv.Process.Pid)
	for _, args := range [][]string{
		{"dump-log", dataDir},
		{"dump-snapshot", dataDir},
		{"dump-snapshot", "--json", filepath.Join(dataDir, "gozk-snap")},
		{"verify", dataDir},
		{"verify", "--config", cfg},
		{"export", "--from", dataDir, "--to", filepath.Join(dir, "java")},
		{"import", "--from", javaFixture, "--to", dataDir},
	} {
		_, stderr, code := gozk(t, nil, append([]string{"data"}, args...)...)
		if code != exitRuntime || !strings.Contains(stderr, held) || !strings.Contains(stderr, dataDir+"/gozk") ||
			strings.Contains(stderr, "resource temporarily unavailable") {
			t.Errorf("data %v beside the server: exit %d, %s", args, code, stderr)
		}
	}

	_ = srv.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("server exit: %v\n%s", err, serverErr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("server did not stop on SIGTERM")
	}

	if out, stderr, code := gozk(t, nil, "data", "verify", dataDir); code != exitOK || !strings.HasSuffix(out, "sound\n") {
		t.Fatalf("verify of the new store: exit %d\n%s%s", code, out, stderr)
	}
	for _, args := range [][]string{{"dump-snapshot", dataDir}, {"dump-snapshot", "--json", dataDir}} {
		out, stderr, code := gozk(t, nil, append([]string{"data"}, args...)...)
		if code != exitOK || out != "" || !strings.Contains(stderr, "has no snapshot yet, which is normal for a new store") {
			t.Errorf("data %v on the new store: exit %d\nstdout: %s\nstderr: %s", args, code, out, stderr)
		}
	}
	if out, stderr, code := gozk(t, nil, "data", "dump-log", dataDir); code != exitOK || !strings.HasSuffix(out, "EOF reached after 0 txns.\n") {
		t.Errorf("dump-log on the new store: exit %d\n%s%s", code, out, stderr)
	}
}

// ensembleFixture is a Java 3.8.0 ensemble member's data directory, with
// acceptedEpoch and currentEpoch 2 (see compat/datadir's
// TestGenerateEnsembleFixture).
const ensembleFixture = "../../persistence/zkfiles/testdata/java-3.8.0/ensemble"

// TestDataImportExportEpochs: import and export report the epochs they
// carry; an import of a directory whose epoch files Java would refuse
// fails with exit status 1 (as for any Java directory that does not
// load) and a message naming the file, and writes nothing.
func TestDataImportExportEpochs(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "gozk")
	out, stderr, code := gozk(t, nil, "data", "import", "--from", ensembleFixture, "--to", store)
	if code != exitOK || !strings.Contains(out, "epochs: accepted 2, current 2\n") {
		t.Fatalf("import: exit %d\n%s%s", code, out, stderr)
	}
	java := filepath.Join(dir, "java")
	out, stderr, code = gozk(t, nil, "data", "export", "--from", store, "--to", java)
	if b, err := os.ReadFile(filepath.Join(java, "version-2", "currentEpoch")); code != exitOK || err != nil || string(b) != "2" ||
		!strings.Contains(out, "epochs: accepted 2, current 2\n") {
		t.Fatalf("export: exit %d, currentEpoch %q %v\n%s%s", code, b, err, out, stderr)
	}

	bad := filepath.Join(dir, "bad")
	if err := os.CopyFS(bad, os.DirFS(ensembleFixture)); err != nil {
		t.Fatal(err)
	}
	accepted := filepath.Join(bad, "version-2", "acceptedEpoch")
	if err := os.WriteFile(accepted, []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	badStore := filepath.Join(dir, "bad-gozk")
	out, stderr, code = gozk(t, nil, "data", "import", "--from", bad, "--to", badStore)
	want := "gozk: import: " + accepted + ": zab: the accepted epoch is less than the current epoch: accepted epoch 1, current epoch 2 (Java refuses to start on this directory)\n"
	if code != exitRuntime || stderr != want {
		t.Fatalf("import of a bad acceptedEpoch: exit %d\nstdout: %s\nstderr: %q\nwant:   %q", code, out, stderr, want)
	}
	if _, err := os.Stat(badStore); !os.IsNotExist(err) {
		t.Fatalf("the refused import wrote %s: %v", badStore, err)
	}
}
