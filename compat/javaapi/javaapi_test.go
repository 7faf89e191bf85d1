//go:build interop

package javaapi

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/javaprog"
	"github.com/gozk/gozk/compat/suite"
)

func TestMain(m *testing.M) { os.Exit(gozkproc.RunTests(m)) }

// runLimit bounds one run of the program; a guard against a hung client.
const runLimit = 3 * time.Minute

// settings: the tick is short so that the session timeouts the program
// asks for (4 s, and 15 s across the restart) are within the server's
// bounds and expiry and reaping come quickly; TTL nodes are enabled, and
// containers and TTL nodes checked every 100 ms.
var settings = suite.Settings{TickTime: 500, ExtendedTypes: true, ContainerCheckMs: 100}

// TestJavaAPI runs ApiCheck against Java (java/<check>) and gozk
// (gozk/<check>). GOZK_API_CHECKS names a subset of checks to run.
func TestJavaAPI(t *testing.T) {
	prog := javaprog.Compile(t, "ApiCheck", javaprog.ZooKeeperJars,
		"testdata/ApiCheck.java", "../javaprog/java/Checks.java")
	for _, b := range suite.Backends {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv := b.Start(t, settings)
			args := append([]string{srv.Addr}, strings.Fields(os.Getenv("GOZK_API_CHECKS"))...)
			start := time.Now()
			run := prog.Run(t, runLimit, func(word string) error {
				if word != "restart" {
					return javaprog.ErrNoSignal
				}
				return srv.Restart()
			}, args...)
			t.Logf("%d checks in %v", len(run.Results), time.Since(start).Round(time.Millisecond))
			run.Report(t)
		})
	}
}
