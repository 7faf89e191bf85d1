//go:build interop

package javaapi

import (
	"os"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/javaprog"
	"github.com/gozk/gozk/compat/suite"
)

func TestMain(m *testing.M) { os.Exit(gozkproc.RunTests(m)) }

// runLimit bounds one run of the program; a guard against a hung client.
const runLimit = 3 * time.Minute

// tickTime is short so that the session timeouts the program asks for
// (4 s, and 15 s across the restart) are within the server's bounds and
// expiry and reaping come quickly.
const tickTime = 500

// TestJavaAPI runs ApiCheck against Java (java/<check>) and gozk
// (gozk/<check>). GOZK_API_CHECKS names a subset of checks to run. The
// program's "restart" signal restarts the server.
func TestJavaAPI(t *testing.T) {
	prog := javaprog.Compile(t, "ApiCheck", javaprog.ZooKeeperJars,
		"testdata/ApiCheck.java", "../javaprog/java/Checks.java")
	prog.RunOnBackends(t, tickTime, runLimit, "GOZK_API_CHECKS", func(srv suite.Server) javaprog.Signals {
		return func(word string) error {
			if word != "restart" {
				return javaprog.ErrNoSignal
			}
			return srv.Restart()
		}
	})
}
