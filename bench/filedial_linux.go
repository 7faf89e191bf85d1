package bench

import (
	"bufio"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// fileDialer opens the sessions of the connect workload. net.Dial asks
// the kernel for SO_ERROR, the local and the remote address and sets
// TCP_NODELAY after every connect, and resolves the address and arms a
// context timer before it: four system calls and several allocations per
// session that the workload does not need. A non-blocking socket wrapped
// in an *os.File goes through the same netpoller (and deadlines) with
// none of that; its first write waits for the connection to complete.
//
// TCP_NODELAY stays off: Nagle's algorithm only holds back data while
// earlier data is unacknowledged, and a session of this workload writes a
// request only once the server has answered everything before it.
type fileDialer struct {
	addr string
	// One of them is set. Connect writes into a Sockaddr's internal
	// buffer, so every dial connects with a copy of its own.
	sa4 *unix.SockaddrInet4
	sa6 *unix.SockaddrInet6
}

func newFileDialer(addr string) (*fileDialer, error) {
	ta, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		return nil, err
	}
	if ip4 := ta.IP.To4(); ip4 != nil {
		sa := &unix.SockaddrInet4{Port: ta.Port}
		copy(sa.Addr[:], ip4)
		return &fileDialer{addr: addr, sa4: sa}, nil
	}
	sa := &unix.SockaddrInet6{Port: ta.Port}
	copy(sa.Addr[:], ta.IP.To16())
	if ta.Zone != "" {
		ifi, err := net.InterfaceByName(ta.Zone)
		if err != nil {
			return nil, err
		}
		sa.ZoneId = uint32(ifi.Index)
	}
	return &fileDialer{addr: addr, sa6: sa}, nil
}

// dial connects and establishes a new session; the connect completes
// during the ConnectRequest's write, bounded by the same deadline.
func (d *fileDialer) dial(o dialOptions) (*conn, error) {
	family, sa := unix.AF_INET, unix.Sockaddr(nil)
	if d.sa4 != nil {
		sa4 := *d.sa4
		sa = &sa4
	} else {
		sa6 := *d.sa6
		family, sa = unix.AF_INET6, &sa6
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, unix.IPPROTO_TCP)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	if err := unix.Connect(fd, sa); err != nil && err != unix.EINPROGRESS {
		unix.Close(fd)
		return nil, os.NewSyscallError("connect", err)
	}
	// Errors then read "write <addr>: connection refused" and the like.
	f := os.NewFile(uintptr(fd), d.addr)
	br := readers.Get().(*bufio.Reader)
	br.Reset(f)
	c := &conn{nc: f, br: br, ioTimeout: o.ioTimeout}
	if err := c.handshake(o.sessionTimeout, 0, zeroPassword[:], 0); err != nil {
		f.Close()
		c.recycle()
		return nil, err
	}
	return c, nil
}
