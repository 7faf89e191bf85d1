package netio

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"
)

// syncBuffer is a bytes.Buffer safe for the event loops' writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLimitRefusalsLogged checks the warning an operator gets when a
// connection is refused by maxClientCnxns or maxCnxns: the client's
// address and the limit that refused it.
func TestLimitRefusalsLogged(t *testing.T) {
	for _, tc := range []struct {
		cfg   Config
		limit string
	}{
		{Config{MaxClientCnxns: 1}, "maxClientCnxns"},
		{Config{MaxCnxns: 1}, "maxCnxns"},
	} {
		t.Run(tc.limit, func(t *testing.T) {
			var buf syncBuffer
			tc.cfg.Logger = zerolog.New(&buf)
			h := newTestHandler()
			s := startServer(t, tc.cfg, h)
			dial(t, s)
			recv(t, h.opened)
			expectSilentClose(t, dial(t, s))
			var line map[string]any
			for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
				var m map[string]any
				if json.Unmarshal([]byte(l), &m) == nil && m["limit"] == tc.limit {
					line = m
				}
			}
			if line == nil || line["level"] != "warn" || line["ip"] != "127.0.0.1" || line["max"] != float64(1) ||
				!strings.Contains(line["message"].(string), "refused") {
				t.Fatalf("log: %s", buf.String())
			}
		})
	}
}
