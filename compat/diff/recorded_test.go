package diff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/server"
)

// startInProcess is a Launcher that runs gozk in this test process: the
// zoo.cfg the Java server would get, read by package conf with the
// scenario's system properties as -D flags (as `gozk server` reads
// SERVER_JVMFLAGS), mapped by server.FromConf and started by
// server.Start, as cmd/gozk does.
func startInProcess(tb testing.TB, cfg ServerConfig) (string, error) {
	dir := tb.TempDir()
	cfgPath, _, flags, err := writeGozkConfig(dir, cfg)
	if err != nil {
		return "", err
	}
	c, err := conf.Load(cfgPath, flags)
	if err != nil {
		return "", err
	}
	srv, err := server.Start(server.FromConf(c, zerolog.Nop()))
	if err != nil {
		return "", fmt.Errorf("starting gozk in process: %w", err)
	}
	tb.Cleanup(func() { _ = srv.Close() })
	return srv.Addr().String(), nil
}

// TestGozkMatchesRecordedJavaInProcess replays every scenario against a
// fresh gozk started in this process and compares the transcript with
// the one recorded from Java 3.8.0 in testdata/java: the differential
// check without Java, a gozk binary or the interop tag, so that `go test
// ./...` runs it. A scenario with no recording fails (TestJavaIsStable
// -update records it).
func TestGozkMatchesRecordedJavaInProcess(t *testing.T) {
	for _, sc := range Scenarios() {
		t.Run(sc.String(), func(t *testing.T) {
			t.Parallel()
			want, err := readGolden(sc)
			if err != nil {
				t.Fatalf("no recorded Java transcript: %v", err)
			}
			// The free port picked may be taken before the server binds it
			// by another test running at the same time: pick again.
			addr, err := startInProcess(t, sc.Server)
			for try := 1; err != nil && strings.Contains(err.Error(), "address already in use") && try < 5; try++ {
				addr, err = startInProcess(t, sc.Server)
			}
			if err != nil {
				t.Fatal(err)
			}
			got, runErr := RunWith(addr, sc, RunOptions{})
			if reason, known := gozkKnownDifferences[sc.Name]; known {
				checkKnownDifference(t, sc, reason, func() (Transcript, Transcript) { return want, got })
				return
			}
			if d := Compare(want, got); d != "" {
				t.Errorf("gozk answers differently from the recorded Java transcript (%s):\n%s", sc.Doc, d)
			} else if runErr != nil {
				t.Error(runErr)
			}
		})
	}
}
