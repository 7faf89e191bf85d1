//go:build interop

package monitor

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/gozkproc"
	"github.com/gozk/gozk/compat/javazk"
	"github.com/gozk/gozk/compat/zkwire"
)

// TestConnectionThrottleMatchesJava: with Java's connection throttle set
// the same way on both servers (a bucket of three ConnectRequests
// refilled once an hour, then with weights: a new session costs three,
// a reconnect two), the same ConnectRequests are served and refused,
// and mntr counts them alike.
func TestConnectionThrottleMatchesJava(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props []string
	}{
		{"bucket", []string{"connection_throttle_tokens=3", "connection_throttle_fill_time=3600000"}},
		{"weighted", []string{"connection_throttle_tokens=2", "connection_throttle_fill_time=3600000",
			"connection_throttle_weight_enabled=true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := javazk.Start(t, javazk.Options{Config: append([]string{"4lw.commands.whitelist=*"}, tc.props...)})
			g := gozkproc.Start(t, gozkproc.Options{Config: append([]string{"4lw.commands.whitelist=*"}, tc.props...)})
			facts := func(addr string) []string {
				// connect reports what became of one ConnectRequest.
				connect := func(what string, opts zkwire.Options) (string, *zkwire.Client) {
					opts.WaitLimit = 5 * time.Second
					c, err := zkwire.Connect(addr, 10*time.Second, opts)
					switch {
					case errors.Is(err, zkwire.ErrNoHandshake):
						return what + ": closed unanswered", nil
					case err != nil:
						t.Fatalf("%s: %v", addr, err)
					}
					return what + ": served", c
				}
				var out []string
				var first *zkwire.Client
				for i := range 3 {
					fact, c := connect(fmt.Sprintf("new session %d", i), zkwire.Options{})
					out = append(out, fact)
					if c != nil && first == nil {
						first = c
					} else if c != nil {
						c.Close()
					}
				}
				if first != nil {
					// A reconnect of the first session.
					id, pw := first.Handshake.SessionId, first.Handshake.Passwd
					first.Close()
					fact, c := connect("reconnect", zkwire.Options{SessionID: id, Password: pw})
					out = append(out, fact)
					if c != nil {
						c.Close()
					}
				}
				for _, l := range strings.Split(ask(t, addr, "mntr"), "\n") {
					for _, k := range []string{"zk_connection_rejected\t", "zk_connection_request_count\t",
						"zk_cnt_connection_token_deficit\t", "zk_max_connection_token_deficit\t", "zk_connection_drop_probability\t"} {
						if strings.HasPrefix(l, k) {
							out = append(out, l)
						}
					}
				}
				return out
			}
			js, gs := facts(j.Addr), facts(g.Addr())
			if !slices.Equal(js, gs) {
				t.Errorf("gozk differs from Java 3.8.0\n--- Java ---\n%s\n--- gozk ---\n%s", strings.Join(js, "\n"), strings.Join(gs, "\n"))
			} else {
				t.Logf("java and gozk agree:\n%s", strings.Join(js, "\n"))
			}
		})
	}
}
