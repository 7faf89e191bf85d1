package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// A pid file for init scripts and monitors that expect one (zkServer.sh
// keeps zookeeper_server.pid). `gozk server --pid-file PATH` refuses to
// start while PATH names another live gozk, writes its own pid once it
// holds the lock on its store (so that a second server refused by that
// lock never overwrites the first one's file), and removes the file when
// it exits, if the file still names it. A file left by a killed server
// (a pid that is gone, or now belongs to another program) is replaced.

// checkPIDFile returns an error when path names a live gozk other than
// this process.
func checkPIDFile(path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--pid-file %s: %w", path, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return nil // not a pid: overwritten
	}
	if isLiveGozk(pid) {
		return fmt.Errorf("--pid-file %s: gozk with pid %d is running; stop it first (or remove the file if that pid is not a gozk server)", path, pid)
	}
	return nil
}

// isLiveGozk reports whether pid is a running process that looks like
// gozk. Where /proc is readable, a live pid whose command is not gozk is
// taken as reused by another program; elsewhere any live pid counts.
func isLiveGozk(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return true
	}
	argv0, _, _ := bytes.Cut(cmdline, []byte{0})
	return strings.Contains(filepath.Base(string(argv0)), "gozk")
}

// writePIDFile writes this process's pid to path through a temporary
// file and a rename, so that a reader never sees a partial file.
func writePIDFile(path string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return fmt.Errorf("--pid-file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("--pid-file: %w", err)
	}
	return nil
}

// removePIDFile removes path if it still holds this process's pid.
func removePIDFile(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	if strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		return nil
	}
	return os.Remove(path)
}
