package zkwire

import (
	"io"
	"net"
	"strconv"
	"sync/atomic"
	"time"
)

// FourLetterWord sends word on a fresh connection to addr and returns
// everything the server writes before it closes the connection. The whole
// exchange is bounded by limit.
func FourLetterWord(addr, word string, limit time.Duration) (string, error) {
	conn, err := net.DialTimeout("tcp", addr, limit)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(limit))
	if _, err := conn.Write([]byte(word)); err != nil {
		return "", err
	}
	out, err := io.ReadAll(conn)
	return string(out), err
}

// FreePort returns a loopback TCP port that was free a moment ago. It is
// drawn from below the kernel's usual range of ephemeral ports (32768 and
// up on Linux): a port from that range can be taken, between this call
// and the server's bind, by the source port of any outgoing connection
// (an ensemble's servers make many), which a listener's port outside it
// cannot.
func FreePort() (int, error) {
	for try := 0; try < 100; try++ {
		port := freePortLow + int(freePortNext.Add(1)+uint32(time.Now().UnixNano()))%freePortSpan
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			continue // taken: try the next
		}
		l.Close()
		return port, nil
	}
	// Fall back to a port the kernel picks.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

const (
	freePortLow  = 20000
	freePortSpan = 12000 // up to 31999
)

// freePortNext spreads successive calls over the range.
var freePortNext atomic.Uint32
