//go:build interop

package confdiff

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gozk/gozk/compat/javazk"
	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/conf/conftest"
)

func javaParser(t *testing.T) (java string, classpath string) {
	t.Helper()
	inst, err := javazk.Lookup()
	if err != nil {
		if javazk.JavaRequired() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	javac := filepath.Join(filepath.Dir(inst.Java), "javac")
	if _, err := os.Stat(javac); err != nil {
		if javac, err = exec.LookPath("javac"); err != nil {
			if javazk.JavaRequired() {
				t.Fatal("javac not found")
			}
			t.Skip("javac not found; ", javazk.InstallHint)
		}
	}
	out := t.TempDir()
	cp := strings.Join(inst.Classpath, string(os.PathListSeparator))
	cmd := exec.Command(javac, "-cp", cp, "-d", out, "ConfParse.java")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, b)
	}
	return inst.Java, out + string(os.PathListSeparator) + cp
}

// javaResult is what ConfParse printed for one file.
type javaResult struct {
	ok          bool
	distributed bool
	serverID    int64
	text        string // the OK or ERR line
	// For an accepted file: the quorum verifier's text, the last seen
	// one's ("null": none), and the CFG line's settings.
	verifier, next string
	settings       string
}

func TestJavaAgrees(t *testing.T) {
	java, cp := javaParser(t)
	root := t.TempDir()
	var paths []string
	for i, tc := range conftest.Cases {
		dir := filepath.Join(root, strconv.Itoa(i))
		p, err := tc.Write(dir)
		if err != nil {
			t.Fatal(err)
		}
		if tc.JVMFlags != "" {
			if err := os.WriteFile(p+".jvmflags", []byte(tc.JVMFlags), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		paths = append(paths, p)
	}
	cmd := exec.Command(java, append([]string{"-cp", cp, "ConfParse"}, paths...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ConfParse: %v\n%s", err, stderr.String())
	}
	var results []javaResult
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		last := len(results) - 1
		switch {
		case strings.HasPrefix(line, "QV ") && last >= 0:
			results[last].verifier = strings.ReplaceAll(line[3:], `\n`, "\n")
			continue
		case strings.HasPrefix(line, "NEXT ") && last >= 0:
			results[last].next = strings.ReplaceAll(line[5:], `\n`, "\n")
			continue
		case strings.HasPrefix(line, "CFG ") && last >= 0:
			results[last].settings = line[4:]
			continue
		}
		r := javaResult{text: line}
		if f := strings.Fields(line); len(f) == 4 && f[0] == "OK" {
			r.ok = true
			r.distributed = f[1] == "true"
			r.serverID, _ = strconv.ParseInt(f[2], 10, 64)
		} else if !strings.HasPrefix(line, "ERR") {
			continue
		}
		results = append(results, r)
	}
	if len(results) != len(paths) {
		t.Fatalf("ConfParse printed %d results for %d files:\n%s", len(results), len(paths), out)
	}
	for i, tc := range conftest.Cases {
		jr := results[i]
		c, gerr := conf.Load(paths[i], tc.JVMFlags)
		t.Run(tc.Name, func(t *testing.T) {
			if jr.ok != tc.Accept {
				t.Errorf("Java 3.8.0: %s; the table says accept=%v", jr.text, tc.Accept)
			}
			if jr.ok && (jr.distributed != tc.Distributed || jr.serverID != tc.ServerID) {
				t.Errorf("Java 3.8.0: %s; the table says distributed=%v serverID=%d", jr.text, tc.Distributed, tc.ServerID)
			}
			switch {
			case jr.ok && gerr != nil && tc.Stricter == "":
				t.Errorf("Java accepts, gozk refuses: %v", gerr)
			case !jr.ok && gerr == nil:
				t.Errorf("Java refuses (%s), gozk accepts", jr.text)
			case jr.ok && gerr == nil && (c.Quorum.Distributed != jr.distributed || c.Quorum.ServerID != jr.serverID):
				t.Errorf("Java: %s; gozk: distributed=%v serverID=%d", jr.text, c.Quorum.Distributed, c.Quorum.ServerID)
			case jr.ok && gerr == nil:
				compareEnsembles(t, "ensemble", jr.verifier, c.Quorum.Ensemble)
				compareEnsembles(t, "next (.dynamic.next)", jr.next, c.Quorum.Next)
				if got := gozkSettings(c); got != jr.settings {
					t.Errorf("settings:\nJava: %s\ngozk: %s", jr.settings, got)
				}
			case !jr.ok && tc.JavaErr != "" && !strings.Contains(jr.text, tc.JavaErr):
				t.Errorf("Java's message: %s; the table says it contains %q", jr.text, tc.JavaErr)
			}
			if testing.Verbose() {
				t.Logf("java: %s\ngozk: %v", jr.text, gerr)
			}
		})
	}
}

// compareEnsembles compares Java's quorum verifier text with gozk's
// ensemble written the same way (Ensemble.QuorumConfig): the same
// server lines (addresses, ports, role, client address), group members
// (as sets: Java lists them in hash order), weights and version.
func compareEnsembles(t *testing.T, what, java string, e *conf.Ensemble) {
	t.Helper()
	if java == "null" || java == "" {
		if e != nil {
			t.Errorf("%s: Java has none, gozk has\n%s", what, e.QuorumConfig())
		}
		return
	}
	if e == nil {
		t.Errorf("%s: gozk has none, Java has\n%s", what, java)
		return
	}
	want, got := verifierLines(java), verifierLines(e.QuorumConfig())
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s: Java %q, gozk %q", what, k, v, got[k])
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s: gozk %q, Java has no such line", what, k, v)
		}
	}
}

// verifierLines splits a verifier's text into its keys, group members
// sorted.
func verifierLines(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		if strings.HasPrefix(k, "group.") {
			members := strings.Split(v, ":")
			sort.Strings(members)
			v = strings.Join(members, ":")
		}
		out[k] = v
	}
	return out
}

// gozkSettings is ConfParse's CFG line for gozk's config.
func gozkSettings(c *conf.Config) string {
	q := &c.Quorum
	return fmt.Sprintf("peerType=%s initLimit=%d syncLimit=%d connectToLearnerMasterLimit=%d observerMasterPort=%d "+
		"quorumListenOnAllIPs=%v syncEnabled=%v reconfigEnabled=%v standaloneEnabled=%v clientPort=%d",
		q.PeerType, q.InitLimit, q.SyncLimit, q.ConnectToLearnerMasterLimit, q.ObserverMasterPort,
		q.QuorumListenOnAllIPs, q.SyncEnabled, c.ReconfigEnabled, c.StandaloneEnabled, c.ClientPort)
}

// TestInstalledDebianConfig feeds the zoo.cfg of the installed zookeeper
// package, unchanged, to Java and to gozk.
func TestInstalledDebianConfig(t *testing.T) {
	const path = "/etc/zookeeper/conf/zoo.cfg"
	if _, err := os.Stat(path); err != nil {
		t.Skip(path, " is not installed")
	}
	java, cp := javaParser(t)
	out, err := exec.Command(java, "-cp", cp, "ConfParse", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	c, gerr := conf.Load(path, "")
	if javaOK := strings.HasPrefix(string(out), "OK"); javaOK != (gerr == nil) {
		t.Fatalf("Java: %s; gozk: %v", out, gerr)
	}
	if gerr == nil && c.ClientPort != 2181 {
		t.Fatalf("clientPort %d", c.ClientPort)
	}
}
