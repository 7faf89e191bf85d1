package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// userHZ is the unit of utime and stime in /proc/PID/stat: USER_HZ, which
// Linux fixes at 100 for every architecture's user-visible ABI.
const userHZ = 100

// sample is a point-in-time reading of the server's and this process's
// resource use.
type sample struct {
	at        time.Time
	clientCPU time.Duration
	procOK    bool
	procCPU   time.Duration
	rss, hwm  int64
}

// takeSample reads the processes pids (none when pids is empty or its
// first is 0), adding their CPU times and memory together: an ensemble's
// members serve one load between them.
func takeSample(pids []int) sample {
	s := sample{at: time.Now(), clientCPU: selfCPU()}
	if len(pids) == 0 || pids[0] == 0 {
		return s
	}
	s.procOK = true
	for _, pid := range pids {
		cpu, err1 := procCPU(pid)
		rss, hwm, err2 := procMemory(pid)
		if err1 != nil || err2 != nil {
			return sample{at: s.at, clientCPU: s.clientCPU}
		}
		s.procCPU += cpu
		s.rss += rss
		s.hwm += hwm
	}
	return s
}

// selfCPU is this process's user and system CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU reads utime+stime of pid from /proc/PID/stat.
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	return parseStatCPU(b)
}

// parseStatCPU extracts utime+stime (fields 14 and 15) from a
// /proc/PID/stat line. The command name, field 2, may hold spaces and
// parentheses, so fields are counted from the last ')'.
func parseStatCPU(b []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed stat line")
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); utime is field 14, stime field 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("stat line has %d fields after the name", len(f))
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("malformed utime/stime %q %q", f[11], f[12])
	}
	return time.Duration(ut+st) * (time.Second / userHZ), nil
}

// procMemory reads VmRSS and VmHWM of pid from /proc/PID/status, in bytes.
func procMemory(pid int) (rss, hwm int64, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0, err
	}
	return parseStatusMemory(b)
}

func parseStatusMemory(b []byte) (rss, hwm int64, err error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	found := 0
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		f := strings.Fields(val)
		if len(f) != 2 || f[1] != "kB" {
			return 0, 0, fmt.Errorf("malformed %s line %q", key, sc.Text())
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, 0, err
		}
		if key == "VmRSS" {
			rss = n << 10
		} else {
			hwm = n << 10
		}
		found++
	}
	if found < 2 {
		return 0, 0, fmt.Errorf("no VmRSS/VmHWM in status")
	}
	return rss, hwm, nil
}
