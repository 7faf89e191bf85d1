package server

import (
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"
)

// stmk's mask must come with the word: Java reads it at once and, when it
// is not all there, closes the connection without an answer. Without the
// word in the whitelist the answer is the usual refusal, mask or not.
func TestSetTraceMaskWithoutItsMask(t *testing.T) {
	ask := func(t *testing.T, s *Server, sent []byte) string {
		t.Helper()
		nc, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		// No half-close: a server waiting for the rest of the mask would
		// keep the connection open until this deadline.
		_ = nc.SetDeadline(time.Now().Add(30 * time.Second))
		if _, err := nc.Write(sent); err != nil {
			t.Fatal(err)
		}
		out, err := io.ReadAll(nc)
		if err != nil {
			t.Fatalf("%q: %v", sent, err)
		}
		return string(out)
	}
	start := func(t *testing.T, whitelist string) *Server {
		t.Helper()
		cfg := Defaults()
		cfg.ClientAddr = "127.0.0.1:0"
		cfg.DataDir = t.TempDir()
		cfg.ForceSync = false
		cfg.FourLetterWhitelist = whitelist
		s, err := Start(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}

	s := start(t, "*")
	withMask := binary.BigEndian.AppendUint64([]byte("stmk"), 1234)
	if out := ask(t, s, withMask); out != "" || s.TraceMask() != 1234 {
		t.Fatalf("stmk with its mask: answer %q, mask %d; want none and 1234", out, s.TraceMask())
	}
	for _, sent := range []string{"stmk", "stmk\x00\x00\x00"} {
		if out := ask(t, s, []byte(sent)); out != "" {
			t.Errorf("%q: answer %q, want none", sent, out)
		}
		if s.TraceMask() != 1234 {
			t.Errorf("%q changed the mask to %d", sent, s.TraceMask())
		}
	}

	s = start(t, "srvr")
	if out := ask(t, s, []byte("stmk")); out != "stmk is not executed because it is not in the whitelist.\n" {
		t.Errorf("stmk not whitelisted: answer %q", out)
	}
}
