//go:build interop

package javazk

import (
	"strconv"
	"strings"
	"testing"
)

func TestStartJava(t *testing.T) {
	s := Start(t, Options{SystemProperties: map[string]string{"zookeeper.extendedTypesEnabled": "true"}})
	if !strings.HasPrefix(s.Version, ExpectedVersion) {
		t.Errorf("version %q, want %s", s.Version, ExpectedVersion)
	}
	out, err := s.FourLetterWord("ruok")
	if err != nil || out != "imok" {
		t.Fatalf("ruok = %q, %v", out, err)
	}
	conf, err := s.FourLetterWord("conf")
	if err != nil || !strings.Contains(conf, "clientPort="+strconv.Itoa(s.Port)) {
		t.Errorf("conf = %q, %v", conf, err)
	}
	s.Stop()
	if !s.Exited() {
		t.Error("the server still runs after Stop")
	}
	if _, err := s.FourLetterWord("ruok"); err == nil {
		t.Error("the server still answers after Stop")
	}
}
