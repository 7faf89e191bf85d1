package netio

import (
	"net"
	"os"
	"strconv"

	"github.com/panjf2000/gnet/v2/pkg/socket"
	"golang.org/x/sys/unix"
)

// claimAddr prepares the listeners for SO_REUSEPORT: on Linux each event
// loop gets a listening socket of its own on the client port and the
// kernel spreads new connections over them, so a connection is accepted
// by the loop that serves it. Otherwise gnet accepts on a goroutine of its
// own and hands every connection to a loop through its task queue: one
// more thread to wake and one more eventfd write per connection, about a
// tenth of the server's CPU per session when clients connect and
// disconnect at a high rate.
//
// SO_REUSEPORT must not let the port be shared with another server, and
// port 0 must mean one port for all the loops. So the address is first
// bound by a socket without SO_REUSEPORT, which fails as Java's bind would
// if the port is taken and resolves port 0; that socket then allows
// SO_REUSEPORT, so that the loops' sockets can join it, and is closed once
// they have (release). It never listens, so it is never given a
// connection.
func claimAddr(addr string) (listenAddr string, reusePort bool, release func(), err error) {
	sa, family, _, v6only, err := socket.GetTCPSockAddr("tcp", addr)
	if err != nil {
		return "", false, nil, err
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, unix.IPPROTO_TCP)
	if err != nil {
		return "", false, nil, os.NewSyscallError("socket", err)
	}
	fail := func(call string, err error) (string, bool, func(), error) {
		_ = unix.Close(fd)
		return "", false, nil, os.NewSyscallError(call, err)
	}
	if family == unix.AF_INET6 && v6only {
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 1); err != nil {
			return fail("setsockopt", err)
		}
	}
	// As the listeners have it: a port whose old connections linger in
	// TIME_WAIT can be bound again at once, as Java's can.
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		return fail("setsockopt", err)
	}
	if err := unix.Bind(fd, sa); err != nil {
		return fail("bind", err)
	}
	bound, err := unix.Getsockname(fd)
	if err != nil {
		return fail("getsockname", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEPORT, 1); err != nil {
		return fail("setsockopt", err)
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		_ = unix.Close(fd)
		return "", false, nil, err
	}
	var port int
	switch a := bound.(type) {
	case *unix.SockaddrInet4:
		port = a.Port
	case *unix.SockaddrInet6:
		port = a.Port
	}
	return net.JoinHostPort(host, strconv.Itoa(port)), true, func() { _ = unix.Close(fd) }, nil
}
