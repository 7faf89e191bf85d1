//go:build interop

package ensemble

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gozk/gozk/compat/javazk"
	"github.com/gozk/gozk/compat/zkcli"
)

// createWithZkCli creates path with data through Apache ZooKeeper's
// zkCli.sh connected to m alone.
func createWithZkCli(t *testing.T, m *member, path, data string) {
	t.Helper()
	cli, err := zkcli.Find()
	if err != nil {
		if javazk.JavaRequired() {
			t.Fatal(err)
		}
		t.Logf("no write through zkCli: %v", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	res, err := zkcli.RunCommand(ctx, cli, m.addr(), "create", path, data)
	if err != nil || res.ExitCode != 0 || !strings.Contains(res.Raw, "Created "+path) {
		t.Fatalf("zkCli create %s through %v: exit %d, %v:\n%s", path, m, res.ExitCode, err, res.Raw)
	}
}

// kazooPython is Debian's interpreter, the one python3-kazoo is
// installed for; GOZK_KAZOO_PYTHON overrides it as in compat/kazoo.
func kazooPython() string {
	if py := os.Getenv("GOZK_KAZOO_PYTHON"); py != "" {
		return py
	}
	return "/usr/bin/python3"
}

const kazooCreate = `
import sys
from kazoo.client import KazooClient
zk = KazooClient(hosts=sys.argv[1], timeout=30)
zk.start(timeout=60)
zk.create(sys.argv[2], sys.argv[3].encode())
zk.stop()
zk.close()
`

// createWithKazoo creates path with data through kazoo connected to m
// alone.
func createWithKazoo(t *testing.T, m *member, path, data string) {
	t.Helper()
	py := kazooPython()
	if out, err := exec.Command(py, "-c", "import kazoo").CombinedOutput(); err != nil {
		if javazk.JavaRequired() {
			t.Fatalf("%s cannot import kazoo: %v %s", py, err, out)
		}
		t.Logf("no write through kazoo: %s cannot import kazoo (%v; apt-get install -y python3-kazoo)", py, err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	out, err := exec.CommandContext(ctx, py, "-c", kazooCreate, m.addr(), path, data).CombinedOutput()
	if err != nil {
		t.Fatalf("kazoo create %s through %v: %v:\n%s", path, m, err, out)
	}
}
