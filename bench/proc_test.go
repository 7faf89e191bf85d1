package bench

import (
	"os"
	"runtime"
	"testing"
	"time"
)

func TestParseStatCPU(t *testing.T) {
	// The command name holds spaces and a ')' to make sure fields are
	// counted from the last one.
	line := "4242 (java) (x y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 30 0 1000 2000000 500 18446744073709551615\n"
	got, err := parseStatCPU([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if want := 325 * 10 * time.Millisecond; got != want {
		t.Fatalf("cpu %v, want %v", got, want)
	}
	if _, err := parseStatCPU([]byte("1 (x) S 1 2")); err == nil {
		t.Fatal("short line accepted")
	}
	if _, err := parseStatCPU([]byte("no parenthesis")); err == nil {
		t.Fatal("line without a name accepted")
	}
}

func TestParseStatusMemory(t *testing.T) {
	status := "Name:\tgozk\nVmPeak:\t  900 kB\nVmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\nThreads:\t9\n"
	rss, hwm, err := parseStatusMemory([]byte(status))
	if err != nil {
		t.Fatal(err)
	}
	if rss != 1<<20 || hwm != 2<<20 {
		t.Fatalf("rss %d hwm %d", rss, hwm)
	}
	if _, _, err := parseStatusMemory([]byte("Name:\tx\n")); err == nil {
		t.Fatal("status without memory lines accepted")
	}
}

func TestSampleOwnProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	s := takeSample([]int{os.Getpid()})
	if !s.procOK || s.rss <= 0 || s.hwm < s.rss {
		t.Fatalf("sample of this process: %+v", s)
	}
}
