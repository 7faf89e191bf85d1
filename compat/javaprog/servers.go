package javaprog

import (
	"context"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/javazk"
)

// Server is a running server of either kind, as a check program needs it.
type Server struct {
	Addr string
	// Restart stops the server and starts it again on the same port and
	// data directory.
	Restart func() error
}

// Backend starts servers of one kind.
type Backend struct {
	Name  string
	Start func(t *testing.T, tickTime int) Server
}

// restartLimit bounds a restart of the Java server.
const restartLimit = time.Minute

// Backends are Apache ZooKeeper 3.8.0 ("java") and gozk ("gozk"), both
// with TTL nodes enabled and containers and TTL nodes checked every 100 ms.
var Backends = []Backend{
	{Name: "java", Start: func(t *testing.T, tickTime int) Server {
		s := javazk.Start(t, javazk.Options{TickTime: tickTime, SystemProperties: map[string]string{
			"zookeeper.extendedTypesEnabled":  "true",
			"znode.container.checkIntervalMs": "100",
		}})
		return Server{Addr: s.Addr, Restart: func() error {
			ctx, cancel := context.WithTimeout(context.Background(), restartLimit)
			defer cancel()
			return s.Restart(ctx)
		}}
	}},
	{Name: "gozk", Start: func(t *testing.T, tickTime int) Server {
		p := gozkproc.Start(t, gozkproc.Options{TickTime: tickTime, Config: []string{
			"extendedTypesEnabled=true",
			"znode.container.checkIntervalMs=" + "100",
		}})
		return Server{Addr: p.Addr(), Restart: func() error { p.Restart(); return nil }}
	}},
}
