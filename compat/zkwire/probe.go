package zkwire

import (
	"io"
	"net"
	"time"

	"github.com/gozk/gozk/internal/testport"
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

// FreePort returns a loopback TCP port reserved for this process
// (internal/testport): below the ephemeral range and held against every
// other gozk test binary running at the same time.
func FreePort() (int, error) { return testport.Free() }
