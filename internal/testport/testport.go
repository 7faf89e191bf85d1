package testport

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

const (
	// low and span keep ports under Linux's default ephemeral range
	// (32768-60999), which outgoing connections draw from.
	low  = 20000
	span = 12000
)

var (
	next atomic.Uint32
	mu   sync.Mutex
	// held keeps the lock files open (and so locked) until the process
	// exits; the kernel drops the locks then, whatever way it ends.
	held = map[int]*os.File{}
)

// Free returns a loopback port no other gozk test process holds and that
// was free to bind when it was chosen.
func Free() (int, error) {
	dir := filepath.Join(os.TempDir(), "gozk-test-ports")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return 0, fmt.Errorf("testport: %w", err)
	}
	start := uint32(time.Now().UnixNano()>>10) + uint32(os.Getpid())*7919
	for try := 0; try < 4*span; try++ {
		port := low + int((start+next.Add(1))%span)
		mu.Lock()
		_, mine := held[port]
		mu.Unlock()
		if mine {
			continue
		}
		f, ok, err := lock(filepath.Join(dir, strconv.Itoa(port)))
		if err != nil {
			return 0, err
		}
		if !ok {
			continue // another process holds it
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			f.Close() // taken by something outside: leave it
			continue
		}
		l.Close()
		mu.Lock()
		held[port] = f
		mu.Unlock()
		return port, nil
	}
	return 0, errors.New("testport: no free loopback port left below the ephemeral range")
}

// MustFree is Free for tests: it fails the test when no port is left.
func MustFree(t interface {
	Helper()
	Fatal(...any)
}) int {
	t.Helper()
	port, err := Free()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// Addr is MustFree as "127.0.0.1:port".
func Addr(t interface {
	Helper()
	Fatal(...any)
}) string {
	t.Helper()
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(MustFree(t)))
}

// Refusing returns a loopback port (on 127.0.0.1) held bound but not
// listening until the test ends: no server can bind it, and a dial there
// is refused at once, where a port nobody holds might be taken by an
// outgoing connection. It stands for an address a server cannot use. A
// port an earlier connection left in TIME_WAIT cannot be held so (the
// holder does without SO_REUSEADDR, or a server could bind beside it):
// another is tried.
func Refusing(t interface {
	Helper()
	Fatal(...any)
	Cleanup(func())
}) int {
	t.Helper()
	for try := 0; try < 50; try++ {
		port := MustFree(t)
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
		if err != nil {
			t.Fatal(err)
		}
		err = syscall.Bind(fd, &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}})
		if errors.Is(err, syscall.EADDRINUSE) {
			syscall.Close(fd)
			continue
		}
		if err != nil {
			syscall.Close(fd)
			t.Fatal(fmt.Errorf("testport: holding %d: %w", port, err))
		}
		t.Cleanup(func() { syscall.Close(fd) })
		return port
	}
	t.Fatal(errors.New("testport: no port could be held refusing"))
	return 0
}

// lock takes an exclusive, non-blocking lock on path; ok is false when
// another process holds it.
func lock(path string) (*os.File, bool, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, false, fmt.Errorf("testport: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("testport: lock %s: %w", path, err)
	}
	return f, true, nil
}
