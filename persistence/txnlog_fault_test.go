package persistence

import (
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

var errInjected = errors.New("injected I/O error")

// walFaults fails one kind of operation on the txn log's WAL files once
// armed, and counts the attempts made from then on.
type walFaults struct {
	kind     errorfs.OpKind
	armed    atomic.Bool
	attempts atomic.Int64
}

func (w *walFaults) MaybeError(op errorfs.Op) error {
	if !w.armed.Load() || op.Kind != w.kind || filepath.Ext(op.Path) != ".log" {
		return nil
	}
	w.attempts.Add(1)
	return errInjected
}

func (w *walFaults) String() string { return "walFaults" }

// faultyLog opens a txn log (ForceSync) on a crashable in-memory file
// system whose WAL writes or fsyncs fail once armed.
func faultyLog(t *testing.T, kind errorfs.OpKind) (*TxnLog, *walFaults, *vfs.MemFS, Options) {
	t.Helper()
	mem := vfs.NewCrashableMem()
	faults := &walFaults{kind: kind}
	opts := Options{Dir: "/log", ForceSync: true, fs: errorfs.Wrap(mem, faults)}
	return openTest(t, opts), faults, mem, opts
}

// walFaultKinds are the WAL operations a failure of which must stop the
// log: Pebble writes the WAL with Write and makes it durable with
// SyncData.
var walFaultKinds = []struct {
	name string
	op   string
	kind errorfs.OpKind
}{
	{"fsync", "fsync", errorfs.OpFileSyncData},
	{"write", "write", errorfs.OpFileWrite},
}

// TestFailedWALWriteOrFsyncStopsTheLog: the batch whose fsync (or write)
// fails gets an error naming the operation and the file system's error,
// every later append gets the same error without reaching the disk (the
// failed fsync is never tried again), and a crash right after keeps every
// txn acknowledged before the failure.
func TestFailedWALWriteOrFsyncStopsTheLog(t *testing.T) {
	for _, tc := range walFaultKinds {
		t.Run(tc.name, func(t *testing.T) {
			l, faults, mem, opts := faultyLog(t, tc.kind)
			for z := int64(1); z <= 50; z += 10 {
				if err := l.Append(entriesFor(zxidRange(z, z+9)...)); err != nil {
					t.Fatal(err)
				}
			}
			faults.armed.Store(true)
			err := l.Append(entriesFor(zxidRange(51, 60)...))
			var walErr *WALError
			if !errors.As(err, &walErr) || walErr.Op != tc.op || !errors.Is(err, errInjected) {
				t.Fatalf("append during the fault: %v, want a *WALError for %s wrapping the injected error", err, tc.op)
			}
			if msg := err.Error(); !strings.Contains(msg, "txn log "+tc.op+" failed") || !strings.Contains(msg, errInjected.Error()) ||
				!strings.Contains(msg, "0x32") {
				t.Fatalf("error %q does not say what failed, why, and the last durable txn (0x32)", msg)
			}
			if got := l.LastZxid(); got != 50 {
				t.Fatalf("LastZxid %#x after the failed batch, want 0x32", got)
			}
			tried := faults.attempts.Load()
			// The disk works again: the log must still refuse, as what
			// the failed fsync left on the disk is unknown.
			faults.armed.Store(false)
			if err2 := l.Append(entriesFor(61)); err2 == nil || err2.Error() != err.Error() {
				t.Fatalf("append after the failure: %v, want %v", err2, err)
			}
			if p, err2 := l.AppendAsync(entriesFor(61)); err2 == nil || p.Syncing() {
				t.Fatalf("AppendAsync after the failure: %v", err2)
			}
			faults.armed.Store(true)
			if err := l.Close(); err != nil && !errors.Is(err, errInjected) {
				t.Fatalf("Close: %v", err)
			}
			if n := faults.attempts.Load(); n != tried || tried != 1 {
				t.Fatalf("%d %s attempts on the WAL during the fault, %d by the end; want exactly one", tried, tc.op, n)
			}

			// A crash now: only what was synced survives.
			o := opts
			o.fs = mem.CrashClone(vfs.CrashCloneCfg{})
			checkReplayed(t, replayAll(t, openTest(t, o), 0), zxidRange(1, 50))
		})
	}
}

// TestFailedFsyncWithBatchesInFlight hands batches to the log without
// waiting for their fsyncs, as the sync stage does, while an fsync fails:
// the batches behind the failed one fail too, appends after it are
// refused before they reach Pebble (whose commit path panics, its lock
// held, on a WAL that failed), and the batches before it are durable.
func TestFailedFsyncWithBatchesInFlight(t *testing.T) {
	l, faults, mem, opts := faultyLog(t, errorfs.OpFileSyncData)
	var pending []PendingAppend
	t.Cleanup(func() { // before Close, which waits for them
		for i := range pending {
			pending[i].Wait()
		}
	})
	next := int64(1)
	appendNext := func() error {
		batch := entriesFor(zxidRange(next, next+19)...)
		p, err := l.AppendAsync(batch)
		if err == nil {
			next += int64(len(batch))
			pending = append(pending, p)
		}
		return err
	}
	for i := 0; i < 10; i++ {
		if err := appendNext(); err != nil {
			t.Fatal(err)
		}
	}
	faults.armed.Store(true)
	// The fault may hit a batch already in flight before this append is
	// made: then this append is the first one refused, for the same
	// reason as the one below.
	if err := appendNext(); err != nil {
		var walErr *WALError
		if !errors.As(err, &walErr) || walErr.Op != "fsync" {
			t.Fatal(err)
		}
	}
	// Pebble's log writer writes and syncs on a goroutine of its own:
	// once it has met the fault, and before any batch is waited for, the
	// next append must be refused.
	deadline := time.Now().Add(time.Minute)
	for l.wal.failure() == nil {
		if time.Now().After(deadline) {
			t.Fatal("no failed fsync of the WAL within a minute")
		}
		time.Sleep(time.Millisecond)
	}
	refused := appendNext()
	if refused == nil {
		t.Fatal("an append after the failed fsync was taken")
	}
	var walErr *WALError
	if !errors.As(refused, &walErr) || walErr.Op != "fsync" {
		t.Fatalf("refused with %v, want the WAL's fsync failure", refused)
	}
	var durable int64
	failed := false
	for i := range pending {
		err := pending[i].Wait()
		switch {
		case err == nil && failed:
			t.Fatalf("batch %d durable after a failed one", i)
		case err == nil:
			durable = int64(i+1) * 20
		case !errors.Is(err, errInjected):
			t.Fatalf("batch %d: %v", i, err)
		default:
			failed = true
		}
	}
	if !failed {
		t.Fatal("every batch durable despite the failed fsync")
	}
	if got := l.LastZxid(); got != durable {
		t.Fatalf("LastZxid %#x, want the last durable txn %#x", got, durable)
	}
	if err := l.Close(); err != nil && !errors.Is(err, errInjected) {
		t.Fatalf("Close: %v", err)
	}
	o := opts
	o.fs = mem.CrashClone(vfs.CrashCloneCfg{})
	got := replayAll(t, openTest(t, o), 0)
	if int64(len(got)) < durable {
		t.Fatalf("%d txns after the crash, %d were acknowledged", len(got), durable)
	}
	checkReplayed(t, got[:durable], zxidRange(1, durable))
}
