package persistence

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// crashChildDirEnv, when set, turns TestCrashKeepsAcknowledgedTxns into the
// child process that writes into that directory until it is killed.
const crashChildDirEnv = "GOZK_PERSISTENCE_CRASH_CHILD_DIR"

// TestCrashKeepsAcknowledgedTxns re-runs the test binary as a child that
// appends batches with ForceSync, announcing each batch before Append
// ("batch first last") and acknowledging it after ("ack last"). The parent
// SIGKILLs it at a random point, reopens the store and checks that every
// acknowledged txn survived, that the log is gap-free from zxid 1, and
// that the batch in flight is either wholly there or wholly absent. The
// rounds share one store, so each also recovers from the previous crash.
func TestCrashKeepsAcknowledgedTxns(t *testing.T) {
	if dir := os.Getenv(crashChildDirEnv); dir != "" {
		runCrashChild(dir)
		return
	}
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(rand.Uint64(), 0))
	var acked int64
	for round := 0; round < 4; round++ {
		killAfter := 1 + rng.IntN(120)
		got := crashChildOnce(t, dir, killAfter, acked)
		acked = got.acked

		l, err := Open(Options{Dir: dir})
		if err != nil {
			t.Fatalf("round %d: reopening after SIGKILL: %v", round, err)
		}
		last := l.LastZxid()
		var next int64 = 1
		err = l.Replay(0, func(zxid int64, data []byte) error {
			if zxid != next {
				return fmt.Errorf("zxid 0x%x where 0x%x was expected: a gap", zxid, next)
			}
			if !bytes.Equal(data, testTxn(zxid, payloadFor(zxid))) {
				return fmt.Errorf("zxid 0x%x: data differs from what was appended", zxid)
			}
			next++
			return nil
		})
		if cerr := l.Close(); cerr != nil {
			t.Fatal(cerr)
		}
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if next-1 != last {
			t.Fatalf("round %d: replayed up to 0x%x, LastZxid 0x%x", round, next-1, last)
		}
		// Acknowledged means logged. Beyond that only the batch in
		// flight may have made it, and then all of it.
		if last != acked && (got.inFlight == nil || last != got.inFlight[1]) {
			t.Fatalf("round %d: log ends at 0x%x; acknowledged 0x%x, batch in flight %x", round, last, acked, got.inFlight)
		}
		t.Logf("round %d: killed after %d lines; acknowledged up to %d, in flight %v, log ends at %d",
			round, killAfter, acked, got.inFlight, last)
		acked = last
	}
}

type crashOutcome struct {
	acked    int64   // highest acknowledged zxid
	inFlight []int64 // [first, last] of a batch announced but not acknowledged
}

// crashChildOnce runs one child and kills it right after reading its
// killAfter-th line, so the kill lands sometimes before and sometimes
// during an Append.
// Every batch must start right after the last acknowledged txn, which is
// where the store recovered to (logged).
func crashChildOnce(t *testing.T, dir string, killAfter int, logged int64) crashOutcome {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashKeepsAcknowledgedTxns$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChildDirEnv+"="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Never leave a writer behind if a check below fails early.
	defer cmd.Process.Kill()
	out := crashOutcome{acked: logged}
	lines := 0
	killed := false
	sc := bufio.NewScanner(stdout)
	// Every line the child wrote before it died still counts: an "ack"
	// read after the kill was acknowledged all the same.
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 3 && f[0] == "batch":
			first, _ := strconv.ParseInt(f[1], 10, 64)
			last, _ := strconv.ParseInt(f[2], 10, 64)
			if first != out.acked+1 || out.inFlight != nil {
				t.Fatalf("child announced batch %d..%d after acknowledging %d (in flight %v)", first, last, out.acked, out.inFlight)
			}
			out.inFlight = []int64{first, last}
		case len(f) == 2 && f[0] == "ack":
			z, _ := strconv.ParseInt(f[1], 10, 64)
			if out.inFlight == nil || z != out.inFlight[1] {
				t.Fatalf("child acknowledged %d, announced %v", z, out.inFlight)
			}
			out.acked, out.inFlight = z, nil
		}
		lines++
		if !killed && lines >= killAfter {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	err = cmd.Wait()
	if !killed {
		t.Fatalf("child exited before being killed: %v; stderr:\n%s", err, stderr.String())
	}
	return out
}

// runCrashChild appends batches of 1 to 32 txns until killed, continuing
// from whatever an earlier child left.
func runCrashChild(dir string) {
	l, err := Open(DefaultOptions(dir))
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		os.Exit(2)
	}
	next := l.LastZxid() + 1
	w := bufio.NewWriter(os.Stdout)
	// A cap keeps an orphaned child from running for ever.
	for i := 0; i < 100000; i++ {
		n := int64(1 + rand.IntN(32))
		batch := entriesFor(zxidRange(next, next+n-1)...)
		fmt.Fprintf(w, "batch %d %d\n", next, next+n-1)
		w.Flush()
		if err := l.Append(batch); err != nil {
			fmt.Fprintln(os.Stderr, "append:", err)
			os.Exit(2)
		}
		fmt.Fprintf(w, "ack %d\n", next+n-1)
		w.Flush()
		next += n
	}
	os.Exit(3)
}
