package ratelog

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestEveryLetsOneLinePerInterval: the first line passes, the next ones
// within the interval are held and counted, and the first line after it
// says how many were held.
func TestEveryLetsOneLinePerInterval(t *testing.T) {
	var e Every
	t0 := time.Now()
	steps := []struct {
		at   time.Duration
		held int
		ok   bool
	}{
		{0, 0, true},
		{time.Second, 0, false},
		{9 * time.Second, 0, false},
		{10 * time.Second, 2, true},
		{15 * time.Second, 0, false},
		{21 * time.Second, 1, true},
		{40 * time.Second, 0, true},
	}
	for i, s := range steps {
		held, ok := e.Allow(t0.Add(s.at), 10*time.Second)
		if held != s.held || ok != s.ok {
			t.Fatalf("step %d (%+v): held %d, ok %v", i, s, held, ok)
		}
	}
}

// TestEventCountsHeldLines: Event writes the first line, drops the next
// within the interval without writing anything, and is safe from many
// goroutines.
func TestEventCountsHeldLines(t *testing.T) {
	var buf bytes.Buffer
	log := zerolog.New(&buf)
	var e Every
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.Event(time.Hour, log.Warn).Str("k", "v").Msg("storm")
		}()
	}
	wg.Wait()
	if n := strings.Count(buf.String(), "storm"); n != 1 {
		t.Fatalf("%d lines written, want 1:\n%s", n, buf.String())
	}
	e.Now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	e.Event(time.Hour, log.Warn).Msg("after")
	if !strings.Contains(buf.String(), `"notLogged":49`) {
		t.Fatalf("the line after the interval does not count the 49 held:\n%s", buf.String())
	}
}
