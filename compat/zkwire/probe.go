package zkwire

import (
	"io"
	"net"
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

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
