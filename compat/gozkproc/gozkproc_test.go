package gozkproc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(RunTests(m)) }

func TestStartKillRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs gozk")
	}
	p := Start(t, Options{Config: []string{"maxClientCnxns=10"}})
	if out, err := p.FourLetterWord("ruok"); err != nil || out != "imok" {
		t.Fatalf("ruok = %q, %v", out, err)
	}
	cfg, err := os.ReadFile(p.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"dataDir=" + p.DataDir, "clientPortAddress=127.0.0.1", "maxClientCnxns=10", "tickTime=2000"} {
		if !strings.Contains(string(cfg), want+"\n") {
			t.Errorf("zoo.cfg lacks %q:\n%s", want, cfg)
		}
	}
	if filepath.Dir(p.DataDir) != p.Dir {
		t.Errorf("dataDir %s is not under %s", p.DataDir, p.Dir)
	}

	addr := p.Addr()
	p.Kill()
	if p.Running() {
		t.Fatal("still running after Kill")
	}
	if _, err := p.FourLetterWord("ruok"); err == nil {
		t.Fatal("ruok answered after Kill")
	}
	p.Restart()
	if p.Addr() != addr {
		t.Errorf("address changed on restart: %s, was %s", p.Addr(), addr)
	}
	if out, err := p.FourLetterWord("ruok"); err != nil || out != "imok" {
		t.Fatalf("ruok after restart = %q, %v", out, err)
	}
	p.Stop()
	if p.Running() {
		t.Fatal("still running after Stop")
	}
	p.Restart()
	if !p.Running() {
		t.Fatal("not running after the second restart")
	}
	if !strings.Contains(p.Log(), "gozkproc: restart") {
		t.Errorf("the log has no restart marker:\n%s", p.LogTail(2000))
	}
}
