package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/conf"
)

// standaloneConfig writes a zoo.cfg for a server on loopback ports.
func standaloneConfig(t *testing.T, dir string, clientPort, adminPort int) string {
	t.Helper()
	return writeFile(t, dir, "zoo.cfg", fmt.Sprintf("tickTime=2000\ndataDir=%s/data\nclientPort=%d\nclientPortAddress=127.0.0.1\n"+
		"admin.serverAddress=127.0.0.1\nadmin.serverPort=%d\n4lw.commands.whitelist=ruok\n", dir, clientPort, adminPort))
}

// busyPort holds a loopback port for the test.
func busyPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l.Addr().(*net.TCPAddr).Port
}

// gozkBounded runs the binary as gozk does, but kills it after a minute:
// for commands that must exit on their own, a server that went on
// serving would otherwise hang the test.
func gozkBounded(t *testing.T, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gozkBin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("gozk %s was still running after a minute (killed): %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	return stderr.String(), cmd.ProcessState.ExitCode()
}

// TestAdminServerPortBusyExits: as Java's ZooKeeperServerMain, a
// standalone server whose AdminServer cannot bind exits with status 4,
// before it loads its data or opens the client port, and writes no pid
// file.
func TestAdminServerPortBusyExits(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	cfg := standaloneConfig(t, dir, port, busyPort(t))
	pidFile := filepath.Join(dir, "gozk.pid")
	stderr, code := gozkBounded(t, "server", "--config", cfg, "--pid-file", pidFile, "--log-format", "json")
	if code != exitAdminServer {
		t.Fatalf("exit %d, want %d\n%s", code, exitAdminServer, stderr)
	}
	if !strings.Contains(stderr, "gozk: Unable to start AdminServer, exiting abnormally: problem starting AdminServer on address 127.0.0.1") ||
		!strings.Contains(stderr, "address already in use") {
		t.Fatalf("stderr does not say why: %s", stderr)
	}
	if strings.Contains(stderr, "serving clients") || strings.Contains(stderr, "data loaded") {
		t.Fatalf("the server loaded its data or served before giving up: %s", stderr)
	}
	if _, err := os.Stat(pidFile); !os.IsNotExist(err) {
		t.Fatalf("pid file written by a server that did not start: %v", err)
	}
}

// TestAdminServerPortBusyWarns: an ensemble member (Java's QuorumPeer)
// logs the failure and goes on.
func TestAdminServerPortBusyWarns(t *testing.T) {
	cfg := conf.Defaults()
	cfg.AdminServerAddress = "127.0.0.1"
	cfg.AdminServerPort = busyPort(t)
	var buf bytes.Buffer
	m := newMonitoring(cfg, zerolog.New(&buf))
	if err := m.startAdmin(adminFailureWarns); err != nil {
		t.Fatalf("startAdmin with adminFailureWarns returned %v", err)
	}
	defer m.stop()
	if log := buf.String(); !strings.Contains(log, `"level":"warn"`) || !strings.Contains(log, "address already in use") {
		t.Fatalf("no warning logged: %s", log)
	}
	buf.Reset()
	if err := m.startAdmin(adminFailureExits); err == nil || !strings.HasPrefix(err.Error(), adminStartError) {
		t.Fatalf("startAdmin with adminFailureExits returned %v", err)
	}
	if log := buf.String(); !strings.Contains(log, `"level":"error"`) {
		t.Fatalf("no error logged: %s", log)
	}
}

// TestJVMFlagsWithoutConfig: without --config the -D flags of
// SERVER_JVMFLAGS and JVMFLAGS still reach the configuration.
func TestJVMFlagsWithoutConfig(t *testing.T) {
	t.Setenv("SERVER_JVMFLAGS", "-Xmx1g -Djute.maxbuffer=4194304")
	t.Setenv("JVMFLAGS", "-Dzookeeper.4lw.commands.whitelist=ruok,stat")
	cfg, err := loadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.JuteMaxBuffer != 4194304 || cfg.FourLetterWhitelist != "ruok,stat" || cfg.ClientAddr() != "127.0.0.1:2181" {
		t.Fatalf("jute.maxbuffer %d, whitelist %q, client address %s", cfg.JuteMaxBuffer, cfg.FourLetterWhitelist, cfg.ClientAddr())
	}
	t.Setenv("SERVER_JVMFLAGS", "-Djute.maxbuffer=0")
	if _, err := loadConfig(""); err == nil || !strings.Contains(err.Error(), conf.JVMFlagsSource+": jute.maxbuffer") {
		t.Fatalf("a flag gozk cannot run with: %v", err)
	}
}

// TestPIDFileAndSystemdNotify runs a server with --pid-file under a fake
// systemd notification socket: the pid file holds the server's pid once
// it serves, systemd hears READY=1, a second server on the same pid file
// is refused, and SIGTERM sends STOPPING=1 and removes the file.
func TestPIDFileAndSystemdNotify(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cfg := standaloneConfig(t, dir, port, freePort(t))
	pidFile := filepath.Join(dir, "gozk.pid")

	// A stale file from a server that was killed: its pid is gone.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "gozk.pid", strconv.Itoa(dead.Process.Pid)+"\n")

	sock := filepath.Join(dir, "notify.sock")
	notify, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer notify.Close()

	proc := startServerProcess(t, append(os.Environ(), "NOTIFY_SOCKET="+sock), "server", "--config", cfg, "--pid-file", pidFile)
	srv, done, stderr := proc.cmd, proc.done, &proc.stderr

	readNotify := func() string {
		t.Helper()
		_ = notify.SetReadDeadline(time.Now().Add(30 * time.Second))
		buf := make([]byte, 256)
		n, err := notify.Read(buf)
		if err != nil {
			t.Fatalf("no notification: %v\nstderr: %s", err, stderr.String())
		}
		return string(buf[:n])
	}
	if got := readNotify(); got != "READY=1" {
		t.Fatalf("first notification %q, want READY=1", got)
	}
	// Ready means serving: the pid file is there and clients get answers.
	b, err := os.ReadFile(pidFile)
	if err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(srv.Process.Pid) {
		t.Fatalf("pid file %q (%v), want %d", b, err, srv.Process.Pid)
	}
	if out, _, code := gozk(t, nil, "4lw", "ruok", "--server", addr); code != 0 || out != "imok\n" {
		t.Fatalf("ruok after READY=1: exit %d %q", code, out)
	}

	// A second server, on other ports and data, with the same pid file.
	other := t.TempDir()
	errOut, code := gozkBounded(t, "server", "--config", standaloneConfig(t, other, freePort(t), freePort(t)), "--pid-file", pidFile)
	if code != exitRuntime || !strings.Contains(errOut, fmt.Sprintf("gozk with pid %d is running", srv.Process.Pid)) {
		t.Fatalf("second server on the same pid file: exit %d, %s", code, errOut)
	}

	_ = srv.Process.Signal(syscall.SIGTERM)
	if got := readNotify(); got != "STOPPING=1" {
		t.Fatalf("notification on SIGTERM %q, want STOPPING=1", got)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("server exit: %v\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("server did not stop on SIGTERM")
	}
	if _, err := os.Stat(pidFile); !os.IsNotExist(err) {
		t.Fatalf("pid file left after a clean stop: %v", err)
	}
}

// TestPIDFileOfOtherProgramIsReplaced: a pid reused by a program that is
// not gozk does not block the start.
func TestPIDFileOfOtherProgramIsReplaced(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc")
	}
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sleep.Process.Kill(); _ = sleep.Wait() }()
	path := writeFile(t, t.TempDir(), "gozk.pid", strconv.Itoa(sleep.Process.Pid)+"\n")
	if err := checkPIDFile(path); err != nil {
		t.Fatalf("a live sleep blocked the start: %v", err)
	}
	if err := writePIDFile(path); err != nil {
		t.Fatal(err)
	}
	if err := removePIDFile(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("own pid file not removed: %v", err)
	}
}
