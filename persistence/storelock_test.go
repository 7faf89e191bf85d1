package persistence

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// envHoldStore makes the test binary, run as a child, open the store in
// that directory and keep it open until its stdin closes.
const envHoldStore = "GOZK_TEST_HOLD_STORE"

// TestLockedError: opening a store another process has open fails with a
// LockedError naming the store's directory and the holder's pid, for the
// read-only open of the data tools as for a second server.
func TestLockedError(t *testing.T) {
	if dir := os.Getenv(envHoldStore); dir != "" {
		s, err := OpenStore(StoreOptions{DataDir: dir})
		if err != nil {
			os.Stdout.WriteString("error " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("ready\n")
		bufio.NewReader(os.Stdin).ReadString('\n')
		s.Close()
		os.Exit(0)
	}
	dir := t.TempDir()
	s, err := OpenStore(StoreOptions{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	child := exec.Command(os.Args[0], "-test.run=^TestLockedError$")
	child.Env = append(os.Environ(), envHoldStore+"="+dir)
	stdin, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		child.Wait()
	}()
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		t.Fatalf("the child did not open the store: %q", line)
	}

	for _, readOnly := range []bool{true, false} {
		_, err := OpenStore(StoreOptions{DataDir: dir, ReadOnly: readOnly})
		var le *LockedError
		if !errors.As(err, &le) {
			t.Fatalf("read-only %v: %v, want a LockedError", readOnly, err)
		}
		// The store opens its snapshot store first (it holds the number
		// of the WAL the txn log must find), so that is the lock it meets.
		if le.Dir != filepath.Join(dir, SnapshotDirName) || le.What != "snapshot store" {
			t.Errorf("read-only %v: names %s %s", readOnly, le.What, le.Dir)
		}
		if runtime.GOOS == "linux" {
			if le.Pid != child.Process.Pid || !strings.Contains(le.Command, "-test.run") {
				t.Errorf("read-only %v: holder pid %d (%q), want %d", readOnly, le.Pid, le.Command, child.Process.Pid)
			}
		}
		if msg := err.Error(); !strings.Contains(msg, "held by a running gozk server") || !strings.Contains(msg, le.Dir) {
			t.Errorf("message: %s", msg)
		}
	}
}

// TestLockedErrorOnlyForLocks: other failures to open are not taken for
// a lock held elsewhere.
func TestLockedErrorOnlyForLocks(t *testing.T) {
	for _, err := range []error{
		&os.PathError{Op: "open", Path: "LOCK", Err: syscall.EACCES},
		errors.New("something else"),
	} {
		if le := lockedError("d", "txn log", err); le != nil {
			t.Errorf("%v taken for a held lock: %v", err, le)
		}
	}
}
