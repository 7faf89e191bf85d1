package failpoint

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

func TestParse(t *testing.T) {
	got, err := Parse(" learner-mid-snap=crash ; disk-sync=sleep(2s);disk-write=error@3;learner-mid-trunc=crash@2;" +
		"after-current-epoch = error ;leader-mid-snap-send=sleep(150ms)@4;")
	if err != nil {
		t.Fatal(err)
	}
	want := []Armed{
		{LearnerMidSnap, Action{Kind: Crash}},
		{DiskSync, Action{Kind: Sleep, Duration: 2 * time.Second}},
		{DiskWrite, Action{Kind: Error, At: 3}},
		{LearnerMidTrunc, Action{Kind: Crash, At: 2}},
		{AfterCurrentEpoch, Action{Kind: Error}},
		{LeaderMidSnapSend, Action{Kind: Sleep, Duration: 150 * time.Millisecond, At: 4}},
	}
	if len(got) != len(want) {
		t.Fatalf("Parse = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d: %v, want %v", i, got[i], want[i])
		}
	}
	// Entries print back as they parse.
	var spelled []string
	for _, a := range got {
		spelled = append(spelled, a.String())
	}
	again, err := Parse(strings.Join(spelled, ";"))
	if err != nil || len(again) != len(got) {
		t.Fatalf("reparsing %v: %v %v", spelled, again, err)
	}
	if list, err := Parse(""); err != nil || list != nil {
		t.Fatalf("empty spec: %v %v", list, err)
	}
}

func TestParseErrorsNameTheEntry(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"no-such-point=crash", `entry 1 "no-such-point=crash": unknown point "no-such-point" (known: learner-logged-before-ack,`},
		{"disk-sync=crash;learner-mid-snap", `entry 2 "learner-mid-snap": want name=action`},
		{"disk-sync=explode", `entry 1 "disk-sync=explode": unknown action "explode"`},
		{"disk-sync=crash@0", `hit "0" after @ is not a positive integer`},
		{"disk-sync=crash@-1", `hit "-1" after @`},
		{"disk-sync=crash@x", `hit "x" after @`},
		{"disk-sync=sleep(2)", `entry 1 "disk-sync=sleep(2)": sleep: time: missing unit`},
		{"disk-sync=sleep(-1s)", `sleep: negative duration -1s`},
		{"disk-sync=sleep 2s", `unknown action "sleep 2s"`},
		{"disk-sync=crash;x=1;disk-sync=error", `entry 2 "x=1": unknown point "x"`},
		{"disk-sync=crash;disk-sync=error", `entry 2 "disk-sync=error": disk-sync is armed twice`},
	} {
		_, err := Parse(tc.spec)
		if err == nil || !strings.HasPrefix(err.Error(), EnvVar+": ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", tc.spec, err, tc.want)
		}
	}
}

func TestEveryPointHasAName(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Points() {
		name := p.String()
		if name == "" || seen[name] {
			t.Fatalf("point %d has name %q", p, name)
		}
		seen[name] = true
		if q, ok := Lookup(name); !ok || q != p {
			t.Fatalf("Lookup(%q) = %v %v", name, q, ok)
		}
	}
}

func TestHitActions(t *testing.T) {
	defer Disarm()
	if err := Hit(DiskWrite); err != nil {
		t.Fatalf("unarmed hit: %v", err)
	}
	if _, err := Arm("disk-write=error@2;disk-sync=error;learner-mid-trunc=sleep(50ms)@2"); err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{false, true, false} {
		err := Hit(DiskWrite)
		if (err != nil) != want {
			t.Fatalf("disk-write=error@2, hit %d: %v", i+1, err)
		}
		if err != nil {
			var ie *InjectedError
			if !errors.As(err, &ie) || ie.Point != DiskWrite || ie.Hit != 2 || !errors.Is(err, syscall.EIO) ||
				err.Error() != "failpoint disk-write: injected I/O error (hit 2)" {
				t.Fatalf("error %v (%#v)", err, err)
			}
		}
	}
	for i := 0; i < 3; i++ {
		if err := Hit(DiskSync); err == nil {
			t.Fatalf("disk-sync=error, hit %d passed", i+1)
		}
	}
	if err := Hit(LearnerMidSnap); err != nil {
		t.Fatalf("an unarmed point failed: %v", err)
	}
	// The sleep: only the second hit waits.
	began := time.Now()
	Hit(LearnerMidTrunc)
	if time.Since(began) >= 50*time.Millisecond {
		t.Fatal("sleep(50ms)@2 slept on the first hit")
	}
	began = time.Now()
	Hit(LearnerMidTrunc)
	if time.Since(began) < 50*time.Millisecond {
		t.Fatal("sleep(50ms)@2 did not sleep on the second hit")
	}
	// Arming again starts the counts over; arming nothing disarms.
	Arm("disk-write=error@1")
	if Hit(DiskWrite) == nil {
		t.Fatal("counts did not start over")
	}
	if _, err := Arm("bad"); err == nil || !IsArmed(DiskWrite) {
		t.Fatal("a bad spec changed what is armed")
	}
	Arm("")
	if IsArmed(DiskWrite) || Hit(DiskWrite) != nil {
		t.Fatal("an empty spec left the point armed")
	}
}

func TestHook(t *testing.T) {
	var seen []string
	stop := errors.New("stop")
	restore, err := SetHook("disk-sync=error@1", func(p Point, n int64) error {
		seen = append(seen, p.String())
		if p == LearnerMidSnap {
			return stop
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	if err := Hit(LearnerAfterNewLeaderAck); err != nil {
		t.Fatal(err)
	}
	if err := Hit(LearnerMidSnap); err != stop {
		t.Fatalf("the hook's error was not returned: %v", err)
	}
	if err := Hit(DiskSync); err == nil {
		t.Fatal("the armed action did not run after the hook")
	}
	if got := strings.Join(seen, " "); got != "learner-after-newleader-ack learner-mid-snap disk-sync" {
		t.Fatalf("hook saw %q", got)
	}
}

// TestFS: writes and fsyncs through FS reach the points once the disk
// faults are started; an error stops the operation before the file
// system.
func TestFS(t *testing.T) {
	defer Disarm()
	mem := vfs.NewMem()
	fs := FS(mem)
	Arm("disk-write=error@2;disk-sync=error@1")
	// Not yet started: nothing fails, nothing counts.
	f, err := fs.Create("/f", vfs.WriteCategoryUnspecified)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := f.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	mem.Remove("/f")
	StartDiskFaults()
	defer diskFaults.Store(false)
	f, err = fs.Create("/f", vfs.WriteCategoryUnspecified)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("one")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("two")); !errors.Is(err, syscall.EIO) {
		t.Fatalf("second write: %v", err)
	}
	if err := f.Sync(); !errors.Is(err, syscall.EIO) {
		t.Fatalf("first fsync: %v", err)
	}
	if err := f.SyncData(); err != nil {
		t.Fatalf("second fsync: %v", err)
	}
	f.Close()
	st, err := mem.Stat("/f")
	if err != nil || st.Size() != 3 {
		t.Fatalf("the failed write reached the file: %v %v", st, err)
	}
	if !NeedsFS() {
		t.Fatal("NeedsFS with disk points armed")
	}
	Arm("learner-mid-snap=crash")
	if NeedsFS() {
		t.Fatal("NeedsFS without disk points")
	}
}

// TestCrashIsSIGKILL re-runs this test binary with a crash armed: the
// child dies of SIGKILL at the hit, before the deferred write and the
// line after it.
func TestCrashIsSIGKILL(t *testing.T) {
	if os.Getenv("FAILPOINT_CRASH_CHILD") != "" {
		if _, err := ArmFromEnv(); err != nil {
			os.Exit(3)
		}
		defer os.Stdout.WriteString("deferred ran\n")
		Hit(LearnerMidTrunc)
		os.Stdout.WriteString("first hit passed\n")
		Hit(LearnerMidTrunc)
		os.Stdout.WriteString("second hit passed\n")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashIsSIGKILL$")
	cmd.Env = append(os.Environ(), "FAILPOINT_CRASH_CHILD=1", EnvVar+"=learner-mid-trunc=crash@2")
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("child: %v\n%s", err, out.String())
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v, want SIGKILL", ee)
	}
	if got := out.String(); got != "first hit passed\n" {
		t.Fatalf("child wrote %q", got)
	}
	if !strings.Contains(errOut.String(), "gozk: failpoint learner-mid-trunc: crash (hit 2)") {
		t.Fatalf("child's stderr %q does not name the point", errOut.String())
	}
}

func BenchmarkHitUnarmed(b *testing.B) {
	Disarm()
	for b.Loop() {
		if Hit(LeaderLoggedBeforeCommit) != nil {
			b.Fatal("hit failed")
		}
	}
}

func BenchmarkHitOtherPointArmed(b *testing.B) {
	Arm("disk-sync=sleep(1s)@1000000000")
	defer Disarm()
	for b.Loop() {
		if Hit(LeaderLoggedBeforeCommit) != nil {
			b.Fatal("hit failed")
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "disk-sync=crash", "learner-mid-snap=crash@3;disk-write=error",
		"disk-sync=sleep(2s)@1", "a=b;c", "disk-sync=sleep(1h2m3.5s)", ";;", "disk-sync=crash@99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		list, err := Parse(spec)
		if err != nil {
			if !strings.HasPrefix(err.Error(), EnvVar+": ") {
				t.Fatalf("error %q does not name the variable", err)
			}
			return
		}
		// What parses prints back to the same list.
		var spelled []string
		for _, a := range list {
			if a.Action.At < 0 || a.Action.Duration < 0 || a.Point < 0 || a.Point >= numPoints {
				t.Fatalf("parsed %+v", a)
			}
			spelled = append(spelled, a.String())
		}
		again, err := Parse(strings.Join(spelled, ";"))
		if err != nil || len(again) != len(list) {
			t.Fatalf("%q parsed to %v, which reparses to %v, %v", spec, spelled, again, err)
		}
		for i := range list {
			if again[i] != list[i] {
				t.Fatalf("%q: %v reparses as %v", spec, list[i], again[i])
			}
		}
	})
}
