//go:build interop

package node

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/suite"
)

var update = flag.Bool("update", false, "rewrite testdata/client.golden from the Java run")

func TestMain(m *testing.M) { os.Exit(gozkproc.RunTests(m)) }

// runLimit bounds the whole script: a guard against a hung client, not a
// performance check.
const runLimit = 3 * time.Minute

// nodeJS returns the node binary, once the pinned client is installed in
// node_modules (make interop-deps runs npm ci).
func nodeJS(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		suite.Unavailable(t, "node is not on PATH (Node 20 and npm are needed)")
	}
	pkg, err := os.ReadFile(filepath.Join("node_modules", "node-zookeeper-client", "package.json"))
	if err != nil {
		suite.Unavailable(t, "node-zookeeper-client is not installed in compat/node/node_modules: run make interop-deps (npm ci)")
	}
	var meta struct{ Version string }
	json.Unmarshal(pkg, &meta)
	t.Logf("node-zookeeper-client %s", meta.Version)
	return node
}

// TestClient runs client.js (create in every mode, getData, setData,
// exists, getChildren, remove, getACL/setACL, transactions, addAuthInfo,
// data/children/exists watches, ephemerals on close) against each server
// (both with extendedTypesEnabled). Each check is a subtest: it fails on
// any error the script saw, and its facts must equal the Java run's in
// testdata/client.golden.
func TestClient(t *testing.T) {
	node := nodeJS(t)
	suite.FactsProgram{
		Name:     "client.js",
		Command:  func(addr string) []string { return []string{node, "client.js", addr, "/node"} },
		Golden:   filepath.Join("testdata", "client.golden"),
		Limit:    runLimit,
		Settings: suite.Settings{ExtendedTypes: true},
		Update:   *update,
	}.Run(t)
}
