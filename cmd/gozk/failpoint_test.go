package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// TestMalformedFailpointsExit2: a GOZK_FAILPOINTS gozk cannot read stops
// the server before anything starts, with status 2 and the entry named.
func TestMalformedFailpointsExit2(t *testing.T) {
	dir := t.TempDir()
	cfg := standaloneConfig(t, dir, freePort(t), freePort(t))
	for _, tc := range []struct{ spec, want string }{
		{"learner-mid-snap=crash;disk-sink=error", `server: GOZK_FAILPOINTS: entry 2 "disk-sink=error": unknown point "disk-sink"`},
		{"disk-sync=sleep(2)", `GOZK_FAILPOINTS: entry 1 "disk-sync=sleep(2)": sleep: time: missing unit`},
		{"disk-write=crash@0", `GOZK_FAILPOINTS: entry 1 "disk-write=crash@0": hit "0" after @ is not a positive integer`},
	} {
		_, stderr, code := gozk(t, []string{"GOZK_FAILPOINTS=" + tc.spec}, "server", "--config", cfg)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("GOZK_FAILPOINTS=%s: exit %d, stderr %q; want %d and %q", tc.spec, code, stderr, exitUsage, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); err == nil {
		t.Error("the refused server created its data directory")
	}
}

// TestDiskFaultStopsTheServer runs `gozk server` with a failing fsync,
// then a failing write, of its stores: the writes before the fault are
// acknowledged, the one that meets it is not, the server exits (status
// 1) saying why, and a restart without the fault has every acknowledged
// write.
func TestDiskFaultStopsTheServer(t *testing.T) {
	// The disk points count from the moment the data is loaded; a
	// create (and the client's session) then makes one fsync and one
	// write each.
	for _, tc := range []struct{ name, spec string }{
		{"fsync", "disk-sync=error@10"},
		{"write", "disk-write=error@10"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			port := freePort(t)
			addr := fmt.Sprintf("127.0.0.1:%d", port)
			cfg := standaloneConfig(t, dir, port, freePort(t))
			logPath := filepath.Join(dir, "gozk.log")
			proc := startServerProcess(t, append(os.Environ(), "GOZK_FAILPOINTS="+tc.spec),
				"server", "--config", cfg, "--log-file", logPath, "--log-format", "json")
			proc.waitRuok(t, addr)
			c, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogInfo(false))
			if err != nil {
				t.Fatal(err)
			}
			var acked []string
			for i := 0; i < 1000; i++ {
				p := fmt.Sprintf("/n%04d", i)
				if _, err := c.Create(p, []byte("v"), 0, zk.WorldACL(zk.PermAll)); err != nil {
					break
				}
				acked = append(acked, p)
			}
			c.Close()
			t.Logf("%d creates acknowledged before the fault", len(acked))
			// The tenth fsync or write is the ninth create's (the session's
			// came first), unless something else touched the disk.
			if len(acked) == 0 || len(acked) > 8 {
				t.Fatalf("%d creates acknowledged; want the fault on the ninth create's at the latest", len(acked))
			}
			var waitErr error
			select {
			case waitErr = <-proc.done:
			case <-time.After(time.Minute):
				t.Fatal("the server still runs a minute after the fault")
			}
			var ee *exec.ExitError
			if !errors.As(waitErr, &ee) || ee.ExitCode() != exitRuntime {
				t.Fatalf("server ended with %v, want exit status %d\n%s", waitErr, exitRuntime, proc.stderr.String())
			}
			lines := readJSONLines(t, logPath)
			armed := find(t, lines, "fault injection armed from GOZK_FAILPOINTS")
			if armed["level"] != "warn" || fmt.Sprint(armed["failpoints"]) != "["+tc.spec+"]" {
				t.Errorf("armed line %v", armed)
			}
			stopped := false
			for _, l := range lines {
				msg, _ := l["message"].(string)
				if l["level"] == "error" && (strings.Contains(msg, "the txn log failed") || strings.Contains(msg, "the data store failed")) &&
					strings.Contains(fmt.Sprint(l), "failpoint "+strings.SplitN(tc.spec, "=", 2)[0]+": injected I/O error") {
					stopped = true
				}
			}
			for _, l := range lines {
				if l["level"] == "error" {
					t.Logf("error line: %v", l)
				}
			}
			if !stopped {
				t.Errorf("no error line says the store failed on the injected fault:\n%v", lines)
			}

			// Restarted without the fault: every acknowledged create is there.
			proc = startServerProcess(t, os.Environ(), "server", "--config", cfg)
			proc.waitRuok(t, addr)
			c, _, err = zk.Connect([]string{addr}, 10*time.Second, zk.WithLogInfo(false))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			children, _, err := c.Children("/")
			if err != nil {
				t.Fatal(err)
			}
			have := map[string]bool{}
			for _, ch := range children {
				have["/"+ch] = true
			}
			for _, p := range acked {
				if !have[p] {
					t.Errorf("acknowledged %s lost after the restart", p)
				}
			}
			proc.cmd.Process.Signal(syscall.SIGTERM)
			<-proc.done
		})
	}
}

// TestDiskSyncStall: disk-sync=sleep(D)@N holds the Nth fsync after the
// data is loaded for D; the create behind it waits that long and
// succeeds, and the server goes on.
func TestDiskSyncStall(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cfg := standaloneConfig(t, dir, port, freePort(t))
	proc := startServerProcess(t, append(os.Environ(), "GOZK_FAILPOINTS=disk-sync=sleep(1500ms)@3"), "server", "--config", cfg)
	proc.waitRuok(t, addr)
	c, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var took []time.Duration
	for i := 0; i < 3; i++ { // the session's fsync is the first
		began := time.Now()
		if _, err := c.Create(fmt.Sprintf("/s%d", i), nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
		took = append(took, time.Since(began))
	}
	// The third fsync is the second create's (the session's came first).
	if slowest := max(took[0], took[1], took[2]); slowest < 1500*time.Millisecond {
		t.Fatalf("creates took %v; one should have waited out the stalled fsync", took)
	}
	proc.cmd.Process.Signal(syscall.SIGTERM)
	if err := <-proc.done; err != nil {
		t.Fatalf("server exit after the stall: %v\n%s", err, proc.stderr.String())
	}
}

// TestEnsembleMemberCrashesAtAZabPoint runs three `gozk server`
// processes, one with after-current-epoch=crash: it dies of SIGKILL as
// the first leader is established, naming the point, the other two serve
// on, and restarted without the fault on the same data directory it
// joins them and has their writes.
func TestEnsembleMemberCrashesAtAZabPoint(t *testing.T) {
	root := t.TempDir()
	var servers []string
	clients := make([]int, 3)
	for i := range clients {
		servers = append(servers, fmt.Sprintf("server.%d=127.0.0.1:%d:%d", i+1, freePort(t), freePort(t)))
		clients[i] = freePort(t)
	}
	cfgs := make([]string, 3)
	for i := range cfgs {
		dir := filepath.Join(root, fmt.Sprint(i+1))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, "myid", fmt.Sprint(i+1))
		cfgs[i] = writeFile(t, dir, "zoo.cfg", fmt.Sprintf("tickTime=200\ninitLimit=10\nsyncLimit=5\ndataDir=%s\nclientPort=%d\n"+
			"clientPortAddress=127.0.0.1\nadmin.enableServer=false\n4lw.commands.whitelist=*\n%s\n", dir, clients[i], strings.Join(servers, "\n")))
	}
	addr := func(i int) string { return fmt.Sprintf("127.0.0.1:%d", clients[i]) }
	mode := func(i int) string {
		out, _, _ := gozk(t, nil, "4lw", "srvr", "--server", addr(i), "--timeout", "1s")
		for _, line := range strings.Split(out, "\n") {
			if m, ok := strings.CutPrefix(line, "Mode: "); ok {
				return m
			}
		}
		return ""
	}
	armed := startServerProcess(t, append(os.Environ(), "GOZK_FAILPOINTS=after-current-epoch=crash"), "server", "--config", cfgs[2])
	startServerProcess(t, os.Environ(), "server", "--config", cfgs[0])
	startServerProcess(t, os.Environ(), "server", "--config", cfgs[1])
	select {
	case err := <-armed.done:
		var ee *exec.ExitError
		ws, ok := syscall.WaitStatus(0), false
		if errors.As(err, &ee) {
			ws, ok = ee.Sys().(syscall.WaitStatus)
		}
		if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("member 3 ended with %v, want SIGKILL\n%s", err, armed.stderr.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("member 3 did not crash at after-current-epoch")
	}
	if !strings.Contains(armed.stderr.String(), "gozk: failpoint after-current-epoch: crash (hit 1)") {
		t.Fatalf("member 3's stderr does not name the point:\n%s", armed.stderr.String())
	}
	waitModes := func(n int) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			var modes []string
			leaders, followers := 0, 0
			for i := 0; i < n; i++ {
				m := mode(i)
				modes = append(modes, m)
				switch m {
				case "leader":
					leaders++
				case "follower":
					followers++
				}
			}
			if leaders == 1 && followers == n-1 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("members' modes %v; want one leader and %d followers", modes, n-1)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitModes(2)
	c, _, err := zk.Connect([]string{addr(0)}, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Create("/while-down", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	startServerProcess(t, os.Environ(), "server", "--config", cfgs[2])
	waitModes(3)
	c3, _, err := zk.Connect([]string{addr(2)}, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer c3.Close()
	if _, err := c3.Sync("/"); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := c3.Exists("/while-down"); err != nil || !ok {
		t.Fatalf("the restarted member lacks /while-down: %v %v", ok, err)
	}
}
