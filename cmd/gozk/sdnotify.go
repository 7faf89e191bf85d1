package main

import (
	"net"
	"os"
)

// sdNotify sends a state line ("READY=1", "STOPPING=1") to systemd's
// notification socket when the server runs under a unit with
// Type=notify; without $NOTIFY_SOCKET it does nothing. systemd then
// counts the service as started only once clients can connect.
func sdNotify(state string) error {
	path := os.Getenv("NOTIFY_SOCKET")
	if path == "" {
		return nil
	}
	if path[0] == '@' {
		path = "\x00" + path[1:] // an abstract socket
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = conn.Write([]byte(state))
	return err
}
