package suite

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/javazk"
)

// Settings are the server settings the suites ask for. Each is given to
// Java the way Java reads it (a system property) and to gozk as a zoo.cfg
// line, so that both servers run alike.
type Settings struct {
	// TickTime in ms; 0 leaves each server's default (2000).
	TickTime int
	// ExtendedTypes enables TTL nodes (extendedTypesEnabled).
	ExtendedTypes bool
	// ContainerCheckMs is how often containers and TTL nodes are checked
	// (znode.container.checkIntervalMs); 0 leaves the default.
	ContainerCheckMs int
}

func (s Settings) javaOptions() javazk.Options {
	o := javazk.Options{TickTime: s.TickTime}
	props := map[string]string{}
	if s.ExtendedTypes {
		props["zookeeper.extendedTypesEnabled"] = "true"
	}
	// Java reads the container interval only as a system property.
	if s.ContainerCheckMs != 0 {
		props["znode.container.checkIntervalMs"] = strconv.Itoa(s.ContainerCheckMs)
	}
	if len(props) > 0 {
		o.SystemProperties = props
	}
	return o
}

func (s Settings) gozkOptions() gozkproc.Options {
	o := gozkproc.Options{TickTime: s.TickTime}
	if s.ExtendedTypes {
		o.Config = append(o.Config, "extendedTypesEnabled=true")
	}
	if s.ContainerCheckMs != 0 {
		o.Config = append(o.Config, "znode.container.checkIntervalMs="+strconv.Itoa(s.ContainerCheckMs))
	}
	return o
}

// Server is a running server of either kind.
type Server struct {
	Addr string
	// Restart stops the server and starts it again on the same port and
	// data directory.
	Restart func() error
}

// Backend starts servers of one kind; the server stops when the test ends.
type Backend struct {
	Name  string
	Start func(t *testing.T, s Settings) Server
}

// restartLimit bounds a restart of the Java server.
const restartLimit = time.Minute

// Backends are Apache ZooKeeper 3.8.0 ("java") and gozk ("gozk"), in the
// order the suites run them: Java first, so that -update records its
// goldens before gozk is compared with them.
var Backends = []Backend{
	{Name: "java", Start: func(t *testing.T, s Settings) Server {
		j := javazk.Start(t, s.javaOptions())
		return Server{Addr: j.Addr, Restart: func() error {
			ctx, cancel := context.WithTimeout(context.Background(), restartLimit)
			defer cancel()
			return j.Restart(ctx)
		}}
	}},
	{Name: "gozk", Start: func(t *testing.T, s Settings) Server {
		p := gozkproc.Start(t, s.gozkOptions())
		return Server{Addr: p.Addr(), Restart: func() error { p.Restart(); return nil }}
	}},
}

// Unavailable skips the test because a client or tool it drives is not
// installed, or fails it when GOZK_REQUIRE_JAVA=1 (CI installs every
// client with the Java oracle, so a missing one there is an error).
func Unavailable(tb testing.TB, reason string) {
	tb.Helper()
	if javazk.JavaRequired() {
		tb.Fatalf("%s (%s=1 makes this fatal)", reason, javazk.EnvRequireJava)
	}
	tb.Skip("skipping: " + reason)
}
