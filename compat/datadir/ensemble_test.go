//go:build interop

package datadir

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/javazk"
	"github.com/gozk/gozk/compat/zkwire"
	"github.com/gozk/gozk/persistence/zkfiles"
)

// javaEnsemble is three Java 3.8.0 ensemble members on loopback; each
// member's directory (zoo.cfg, data/, the log) is chosen at its start,
// so that a member can come back on a data directory gozk wrote.
type javaEnsemble struct {
	t       *testing.T
	servers []string
	client  map[int64]int
	peers   map[int64]*javazk.Server
}

func newJavaEnsemble(t *testing.T) *javaEnsemble {
	t.Helper()
	if _, err := javazk.Lookup(); err != nil {
		if javazk.JavaRequired() {
			t.Fatal(err)
		}
		t.Skipf("skipping: %v", err)
	}
	e := &javaEnsemble{t: t, client: map[int64]int{}, peers: map[int64]*javazk.Server{}}
	for id := int64(1); id <= 3; id++ {
		var ports [3]int
		for i := range ports {
			p, err := javazk.FreePort()
			if err != nil {
				t.Fatal(err)
			}
			ports[i] = p
		}
		e.client[id] = ports[2]
		e.servers = append(e.servers, fmt.Sprintf("server.%d=127.0.0.1:%d:%d:participant;127.0.0.1:%d", id, ports[0], ports[1], ports[2]))
	}
	t.Cleanup(func() {
		for id, s := range e.peers {
			if t.Failed() {
				t.Logf("log of Java member %d:\n%s", id, tailLines(s.Log(), 40))
			}
			s.Stop()
		}
	})
	return e
}

// start runs member id with its data directory in dir/data.
func (e *javaEnsemble) start(id int64, dir string) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	props := javaProps("")
	s, err := javazk.StartPeer(ctx, javazk.PeerOptions{ID: id, Dir: dir, ClientPort: e.client[id], Servers: e.servers,
		Config: []string{"maxSessionTimeout=600000"}, SystemProperties: props})
	if err != nil {
		e.t.Fatal(err)
	}
	e.peers[id] = s
}

// serving waits until member id leads or follows, and returns which.
func (e *javaEnsemble) serving(id int64) string {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	mode, err := e.peers[id].WaitMode(ctx, "leader", "follower")
	if err != nil {
		e.t.Fatal(err)
	}
	return mode
}

// newLeader waits until the running members are led by one of them.
func (e *javaEnsemble) newLeader() {
	e.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		leaders, followers := 0, 0
		for _, s := range e.peers {
			switch s.Mode() {
			case "leader":
				leaders++
			case "follower":
				followers++
			}
		}
		if leaders == 1 && leaders+followers == len(e.peers) {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("no new leader: %d leaders, %d followers of %d members", leaders, followers, len(e.peers))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// kill stops member id with SIGKILL (what Java gets on a crash; every
// txn it acknowledged was fsynced first).
func (e *javaEnsemble) kill(id int64) {
	e.peers[id].Stop()
	delete(e.peers, id)
}

func (e *javaEnsemble) addr(id int64) string { return "127.0.0.1:" + strconv.Itoa(e.client[id]) }

// writeNodes creates n children of parent through member id, and syncs.
func (e *javaEnsemble) writeNodes(id int64, parent string, n int) {
	e.t.Helper()
	// A member that just reported its mode may still turn sessions away
	// for a moment.
	var c *zkwire.Client
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		var err error
		c, err = zkwire.Connect(e.addr(id), sessionTimeout, zkwire.Options{})
		if err == nil && !c.Refused() {
			break
		}
		if c != nil {
			c.Close()
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("member %d takes no session: %v", id, err)
		}
	}
	defer c.Close()
	if _, err := c.Exists(parent, false); err != nil {
		must[string](e.t, "create "+parent)(c.Create(parent, []byte(parent), open, 0))
	}
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("%s/n%03d", parent, i)
		must[string](e.t, "create "+p)(c.Create(p, []byte("value of "+p), open, 0))
	}
	must[string](e.t, "sync")(c.Sync(parent))
	mustErr(e.t, "closeSession", c.CloseSession())
}

// epochFiles reads the two epoch files of a Java data directory, as
// bytes (Java writes the decimal value with no newline).
func epochFiles(t *testing.T, dataDir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range []string{zkfiles.AcceptedEpochFile, zkfiles.CurrentEpochFile} {
		b, err := os.ReadFile(filepath.Join(zkfiles.VersionPath(dataDir), f))
		if err != nil {
			t.Fatalf("an ensemble member's data directory: %v", err)
		}
		out[f] = string(b)
	}
	return out
}

// storeEpochs is the "epochs:" line `gozk data verify` prints for a
// store.
func storeEpochs(t *testing.T, dataDir string) string {
	t.Helper()
	out := runData(t, "verify", dataDir)
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "epochs: ") {
			return line
		}
	}
	t.Fatalf("gozk data verify printed no epochs:\n%s", out)
	return ""
}

func epochsLine(files map[string]string) string {
	return fmt.Sprintf("epochs: accepted %s, current %s", files[zkfiles.AcceptedEpochFile], files[zkfiles.CurrentEpochFile])
}

// TestEnsembleMemberMovesWithItsEpochs: an ensemble member's data
// directory goes from Java to gozk's store and back to Java, the member
// rejoins its Java ensemble from it, and then goes to gozk again:
//   - the import keeps acceptedEpoch and currentEpoch (gozk data verify
//     shows them), the export writes back the very bytes Java had;
//   - the member, started on the exported directory while the others
//     took writes without it, follows again and serves the same tree;
//   - after the ensemble moved to a new epoch (its leader killed and a new
//     one elected), the member's new epoch files reach gozk's store on a
//     second import.
func TestEnsembleMemberMovesWithItsEpochs(t *testing.T) {
	e := newJavaEnsemble(t)
	root := t.TempDir()
	for id := int64(1); id <= 3; id++ {
		e.start(id, filepath.Join(root, "java"+strconv.FormatInt(id, 10)))
	}
	for id := int64(1); id <= 3; id++ {
		e.serving(id)
	}
	e.writeNodes(3, "/before", 20)
	memberDir := filepath.Join(root, "java3", "data")
	e.kill(3)
	e.newLeader() // member 3 may have led
	javaEpochs := epochFiles(t, memberDir)
	e.writeNodes(1, "/while-away", 10)

	// Java -> gozk: the store keeps the member's epochs.
	gozkDir := filepath.Join(root, "gozk3")
	runData(t, "import", "--from", memberDir, "--to", gozkDir)
	if got, want := storeEpochs(t, gozkDir), epochsLine(javaEpochs); got != want {
		t.Fatalf("gozk's store after the import: %q; Java's files say %q", got, want)
	}

	// gozk -> Java: the same files, byte for byte, and the member
	// rejoins from them.
	backDir := filepath.Join(root, "java3-back")
	runData(t, "export", "--from", gozkDir, "--to", filepath.Join(backDir, "data"))
	if got := epochFiles(t, filepath.Join(backDir, "data")); got[zkfiles.AcceptedEpochFile] != javaEpochs[zkfiles.AcceptedEpochFile] ||
		got[zkfiles.CurrentEpochFile] != javaEpochs[zkfiles.CurrentEpochFile] {
		t.Fatalf("exported epoch files %q, Java's were %q", got, javaEpochs)
	}
	e.start(3, backDir)
	if mode := e.serving(3); mode != "follower" && mode != "leader" {
		t.Fatalf("member 3 on the exported directory: mode %q", mode)
	}
	want := captureState(t, e.addr(1))
	got := captureState(t, e.addr(3))
	// Each member sets /zookeeper/config's mtime as it starts.
	delete(want.Tree, "/zookeeper/config")
	delete(got.Tree, "/zookeeper/config")
	compareTrees(t, "member 1", want.Tree, "member 3 (exported by gozk)", got.Tree)

	// A new epoch: kill the leader, let the others elect, bring it back.
	leader := int64(0)
	for id := int64(1); id <= 3; id++ {
		if e.peers[id].Mode() == "leader" {
			leader = id
		}
	}
	if leader == 0 {
		t.Fatal("no leader")
	}
	e.kill(leader)
	e.newLeader()
	if leader == 3 {
		// Back on its directory, it follows the new leader.
		e.start(3, backDir)
		e.serving(3)
	}
	e.writeNodes(3, "/new-epoch", 5)
	e.kill(3)
	newEpochs := epochFiles(t, filepath.Join(backDir, "data"))
	if newEpochs[zkfiles.CurrentEpochFile] == javaEpochs[zkfiles.CurrentEpochFile] {
		t.Fatalf("the ensemble kept epoch %s after a new election", newEpochs[zkfiles.CurrentEpochFile])
	}

	// Java -> gozk again: the new epochs replace the old ones.
	runData(t, "import", "--from", filepath.Join(backDir, "data"), "--to", gozkDir, "--force")
	if got, want := storeEpochs(t, gozkDir), epochsLine(newEpochs); got != want {
		t.Fatalf("gozk's store after the second import: %q; Java's files say %q", got, want)
	}
}

// TestGenerateEnsembleFixture makes persistence/zkfiles/testdata/
// java-3.8.0/ensemble: the data directory of a member of a three-server
// Java 3.8.0 ensemble that was started, written to, killed and started
// again (a second epoch) and written to again, so that it holds
// acceptedEpoch and currentEpoch files of epoch 2 and zxids of two
// epochs, with Java's tool outputs as for the other fixtures. Package
// datatools imports it without Java.
//
//	GOZK_UPDATE_FIXTURES=1 go test -tags interop -run TestGenerateEnsembleFixture ./compat/datadir
func TestGenerateEnsembleFixture(t *testing.T) {
	if os.Getenv(EnvUpdateFixtures) != "1" {
		t.Skipf("set %s=1 to regenerate the fixtures", EnvUpdateFixtures)
	}
	e := newJavaEnsemble(t)
	root := t.TempDir()
	for epoch := 1; epoch <= 2; epoch++ {
		for id := int64(1); id <= 3; id++ {
			e.start(id, filepath.Join(root, "java"+strconv.FormatInt(id, 10)))
		}
		for id := int64(1); id <= 3; id++ {
			e.serving(id)
		}
		e.writeNodes(1, fmt.Sprintf("/epoch%d", epoch), 5)
		for id := int64(1); id <= 3; id++ {
			e.kill(id)
		}
	}
	dst := saveFixture(t, filepath.Join(root, "java1", "data"), "ensemble")
	t.Logf("wrote %s: %v", dst, epochFiles(t, dst))
}

// tailLines is the last n lines of s.
func tailLines(s string, n int) string {
	lines := bytes.Split([]byte(s), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
