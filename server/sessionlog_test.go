package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/rs/zerolog"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// lines returns the JSON log lines written so far.
func (l *lockedBuffer) lines(t *testing.T) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, s := range strings.Split(strings.TrimSpace(l.b.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatalf("not a JSON line: %q", s)
		}
		out = append(out, m)
	}
	return out
}

func (l *lockedBuffer) find(t *testing.T, msg, session string) map[string]any {
	for _, m := range l.lines(t) {
		if m["message"] == msg && (session == "" || m["session"] == session) {
			return m
		}
	}
	return nil
}

// TestSessionEventsLogged checks the session lines an operator sees: a
// session established and closed at debug, an expiry at info (as Java
// logs them), and no info line per request.
func TestSessionEventsLogged(t *testing.T) {
	var buf lockedBuffer
	s := startTestServer(t, t.TempDir(), func(c *Config) {
		c.Logger = zerolog.New(&buf).Level(zerolog.DebugLevel)
	})
	c, _ := connect(t, s)
	for i := 0; i < 20; i++ {
		if _, err := c.Create("/n", nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			t.Fatal(err)
		}
		c.Get("/n")
	}
	closedID := "0x" + formatHex(c.SessionID())
	c.Close()

	// A client whose connection drops and never comes back: expiry.
	var dials atomic.Int32
	var raw net.Conn
	dialer := func(network, address string, timeout time.Duration) (net.Conn, error) {
		if dials.Add(1) > 1 {
			return nil, errors.New("no more connections")
		}
		c, err := net.DialTimeout(network, address, timeout)
		raw = c
		return c, err
	}
	owner, _, err := zk.Connect([]string{s.Addr().String()}, 800*time.Millisecond, zk.WithDialer(dialer), zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	for owner.State() != zk.StateHasSession {
		time.Sleep(10 * time.Millisecond)
	}
	expiredID := "0x" + formatHex(owner.SessionID())
	raw.Close()

	deadline := time.Now().Add(10 * time.Second)
	for buf.find(t, "session expired", expiredID) == nil || buf.find(t, "session closed", closedID) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("missing session lines in:\n%s", buf.b.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	est := buf.find(t, "session established", closedID)
	if est == nil || est["level"] != "debug" || est["timeout"] == nil || est["remote"] == nil {
		t.Errorf("established: %v", est)
	}
	if m := buf.find(t, "session closed", closedID); m["level"] != "debug" || m["byClient"] != true {
		t.Errorf("closed: %v", m)
	}
	if m := buf.find(t, "session expired", expiredID); m["level"] != "info" || m["timeout"] == nil {
		t.Errorf("expired: %v", m)
	}
	infos := 0
	for _, m := range buf.lines(t) {
		if m["level"] == "info" {
			infos++
		}
	}
	if infos > 5 {
		t.Errorf("%d info lines for 40 requests and 2 sessions:\n%s", infos, buf.b.String())
	}
}

func formatHex(v int64) string {
	const digits = "0123456789abcdef"
	if v == 0 {
		return "0"
	}
	u := uint64(v)
	var b []byte
	for u > 0 {
		b = append([]byte{digits[u%16]}, b...)
		u /= 16
	}
	return string(b)
}

// TestSlowFsyncLogged checks that a txn-log fsync slower than
// fsync.warningthresholdms reaches the server's log as a warning.
func TestSlowFsyncLogged(t *testing.T) {
	var buf lockedBuffer
	s := startTestServer(t, t.TempDir(), func(c *Config) {
		c.Logger = zerolog.New(&buf)
		c.ForceSync = true
		c.FsyncWarning = time.Nanosecond
	})
	c, _ := connect(t, s)
	if _, err := c.Create("/slow", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	for _, m := range buf.lines(t) {
		if msg, _ := m["message"].(string); strings.Contains(msg, "fsync") && m["level"] == "warn" && m["tookMs"] != nil {
			return
		}
	}
	t.Fatalf("no slow-fsync warning in:\n%s", buf.b.String())
}
