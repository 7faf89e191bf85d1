//go:build interop

package javaapi

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/javaprog"
	"github.com/gozk/gozk/compat/javazk"
)

func TestMain(m *testing.M) { os.Exit(gozkproc.RunTests(m)) }

// runLimit bounds one run of the program; a guard against a hung client.
const runLimit = 3 * time.Minute

// tickTime is short so that the session timeouts the program asks for
// (4 s, and 15 s across the restart) are within the server's bounds and
// expiry and reaping come quickly.
const tickTime = 500

// server is either kind of server, as the program needs it.
type server struct {
	addr    string
	restart func() error
}

var backends = []struct {
	name  string
	start func(t *testing.T) server
}{
	{"java", func(t *testing.T) server {
		s := javazk.Start(t, javazk.Options{TickTime: tickTime, SystemProperties: map[string]string{
			"zookeeper.extendedTypesEnabled":  "true",
			"znode.container.checkIntervalMs": "100",
		}})
		return server{addr: s.Addr, restart: func() error {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			return s.Restart(ctx)
		}}
	}},
	{"gozk", func(t *testing.T) server {
		p := gozkproc.Start(t, gozkproc.Options{TickTime: tickTime, Config: []string{
			"extendedTypesEnabled=true",
			"znode.container.checkIntervalMs=100",
		}})
		return server{addr: p.Addr(), restart: func() error { p.Restart(); return nil }}
	}},
}

// TestJavaAPI runs ApiCheck against Java (java/<check>) and gozk
// (gozk/<check>). GOZK_API_CHECKS names a subset of checks to run.
func TestJavaAPI(t *testing.T) {
	prog := javaprog.Compile(t, "ApiCheck", javaprog.ZooKeeperJars,
		"testdata/ApiCheck.java", "../javaprog/java/Checks.java")
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			srv := b.start(t)
			args := append([]string{srv.addr}, strings.Fields(os.Getenv("GOZK_API_CHECKS"))...)
			start := time.Now()
			run := prog.Run(t, runLimit, func(word string) error {
				if word != "restart" {
					return javaprog.ErrNoSignal
				}
				return srv.restart()
			}, args...)
			t.Logf("%d checks in %v", len(run.Results), time.Since(start).Round(time.Millisecond))
			run.Report(t)
		})
	}
}
