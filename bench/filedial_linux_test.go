package bench

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/proto"
)

// A session opened by the file dialer works like one from dial, and a
// refused connection, which only shows at the ConnectRequest's write,
// is reported as such.
func TestFileDialer(t *testing.T) {
	addr := startGozk(t)
	o := dialOptions{sessionTimeout: 10 * time.Second, ioTimeout: 30 * time.Second}
	d, err := newFileDialer(addr)
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.dial(o)
	if err != nil {
		t.Fatal(err)
	}
	if c.sessionID == 0 || c.timeout != 10*time.Second {
		t.Fatalf("session 0x%x, timeout %v", c.sessionID, c.timeout)
	}
	rep, err := c.call(proto.OpExists, &proto.ExistsRequest{Path: "/"})
	if err != nil || rep.err != proto.ErrOK {
		t.Fatalf("exists /: %v, %v", rep.err, err)
	}
	if err := c.close(); err != nil {
		t.Fatal(err)
	}

	// A port nobody listens on: bind one and close it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	d, err = newFileDialer(closed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.dial(o); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("dial to a closed port: %v", err)
	}
}
