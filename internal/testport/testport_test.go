package testport

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestPortsAreDistinctAndBindable(t *testing.T) {
	seen := map[int]bool{}
	for i := 0; i < 50; i++ {
		p := MustFree(t)
		if p < low || p >= low+span {
			t.Fatalf("port %d outside [%d, %d)", p, low, low+span)
		}
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
	}
	for p := range seen {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Fatalf("port %d: %v", p, err)
		}
		l.Close()
	}
}

// TestOtherProcessesSkipHeldPorts runs this test binary again as a child
// that tries to reserve the very ports the parent holds: every one is
// refused, and a port the parent does not hold is not.
func TestOtherProcessesSkipHeldPorts(t *testing.T) {
	dir := filepath.Join(os.TempDir(), "gozk-test-ports")
	if held := os.Getenv("TESTPORT_HELD"); held != "" {
		for _, p := range strings.Fields(held) {
			f, ok, err := lock(filepath.Join(dir, p))
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				f.Close()
				t.Fatalf("port %s reserved while the parent holds it", p)
			}
		}
		f, ok, err := lock(filepath.Join(dir, "unheld-probe"))
		if err != nil || !ok {
			t.Fatalf("a file nobody holds: ok=%v err=%v", ok, err)
		}
		f.Close()
		return
	}
	var mine []string
	for i := 0; i < 20; i++ {
		mine = append(mine, strconv.Itoa(MustFree(t)))
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestOtherProcessesSkipHeldPorts$", "-test.v")
	cmd.Env = append(os.Environ(), "TESTPORT_HELD="+strings.Join(mine, " "))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
