//go:build interop

package security

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/javazk"
	"github.com/gozk/gozk/compat/suite"
)

// What the SASL client tests (DIGEST-MD5 and Kerberos) share: a Java
// and a gozk standalone server started with the same -D flags, the
// clients' outcome lines compared with what both must print, and kazoo
// found or reported missing.

// backend is one standalone server under test.
type backend struct {
	name string
	addr string
	log  func() string
}

// startBackends starts Java 3.8.0 and gozk with the same system
// properties (on Java's command line, and as gozk reads them from
// SERVER_JVMFLAGS); host names them in their client addresses.
func startBackends(t *testing.T, host string, props map[string]string) []backend {
	t.Helper()
	js := javazk.Start(t, javazk.Options{SystemProperties: props, Log: true})
	var flags []string
	for k, v := range props {
		flags = append(flags, "-D"+k+"="+v)
	}
	g := gozkproc.Start(t, gozkproc.Options{Env: []string{"SERVER_JVMFLAGS=" + strings.Join(flags, " ")}})
	return []backend{
		{"java", net.JoinHostPort(host, strconv.Itoa(js.Port)), func() string { b, _ := os.ReadFile(js.LogPath); return string(b) }},
		{"gozk", net.JoinHostPort(host, strconv.Itoa(g.Port)), g.Log},
	}
}

// onEach runs check against each backend in a subtest named after it
// (then "/"+sub when sub is set) and shows the end of the server's log
// when the subtest fails.
func onEach(t *testing.T, backends []backend, sub string, check func(t *testing.T, b backend)) {
	t.Helper()
	for _, b := range backends {
		name := b.name
		if sub != "" {
			name += "/" + sub
		}
		t.Run(name, func(t *testing.T) {
			check(t, b)
			if t.Failed() {
				t.Logf("server log:\n%s", tailBytes(b.log(), 6000))
			}
		})
	}
}

// probeLines keeps the lines of a client's output that start with one
// of prefixes: what the client saw, without its logging.
func probeLines(out string, prefixes ...string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		for _, p := range prefixes {
			if strings.HasPrefix(l, p) {
				lines = append(lines, strings.TrimSpace(l))
			}
		}
	}
	return lines
}

// expectLines compares a client's outcome lines with want.
func expectLines(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// kazooPython is the interpreter that runs kazoo; it reports the test
// unavailable when that interpreter cannot import modules (with the
// Debian packages that bring them).
func kazooPython(t *testing.T, modules []string, packages string) string {
	t.Helper()
	py := "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import "+strings.Join(modules, ", ")).CombinedOutput(); err != nil {
		suite.Unavailable(t, fmt.Sprintf("%s cannot import %s (%v: %s): apt-get install -y %s",
			py, strings.Join(modules, ", "), err, strings.TrimSpace(string(out)), packages))
	}
	return py
}

// kazooStartSASL is Python for the kazoo scripts that log in with SASL:
// startSeeingConnected(zk, wait) starts the client and is true once
// its session is connected, even when the SASL login that follows fails
// at once. kazoo's own start() cannot be used for that: it sets
// "connected", runs the login, and on a refusal clears "connected"
// again; a server that refuses fast enough (Java's, on a loaded
// machine) clears it before start() looks, and start() then reports a
// time-out for a session that was made and refused.
const kazooStartSASL = `
import threading
from kazoo.protocol.states import KazooState

def startSeeingConnected(zk, wait):
    connected = threading.Event()
    def listen(state):
        if state == KazooState.CONNECTED:
            connected.set()
    zk.add_listener(listen)
    zk.start_async()
    if connected.wait(wait):
        return True
    zk.stop()
    zk.close()
    return False
`

// tailBytes is the last n bytes of s.
func tailBytes(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
