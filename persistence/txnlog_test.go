package persistence

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gozk/gozk/proto"
	"github.com/rs/zerolog"
)

const epoch1 = int64(1) << 32 // first zxid of epoch 1 is epoch1+1

func TestAppendReplayRoundTrip(t *testing.T) {
	l := openTest(t, Options{Dir: t.TempDir(), ForceSync: true})
	if got := l.LastZxid(); got != 0 {
		t.Fatalf("LastZxid of an empty log = %d, want 0", got)
	}
	if got := replayAll(t, l, 0); len(got) != 0 {
		t.Fatalf("empty log replayed %d txns", len(got))
	}

	var all []int64
	for _, n := range []int64{1, 16, 3, 128} {
		first := epoch1 + int64(len(all)) + 1
		zxids := zxidRange(first, first+n-1)
		if err := l.Append(entriesFor(zxids...)); err != nil {
			t.Fatalf("Append(%d txns): %v", n, err)
		}
		all = append(all, zxids...)
		if got := l.LastZxid(); got != all[len(all)-1] {
			t.Fatalf("LastZxid = 0x%x, want 0x%x", got, all[len(all)-1])
		}
	}
	if err := l.Append(nil); err != nil {
		t.Fatalf("Append(nil): %v", err)
	}

	checkReplayed(t, replayAll(t, l, 0), all)
	checkReplayed(t, replayAll(t, l, all[20]), all[20:])
	checkReplayed(t, replayAll(t, l, all[len(all)-1]+1), nil)

	// What comes back decodes as the txn that went in.
	err := l.Replay(all[5], func(zxid int64, data []byte) error {
		txn, err := proto.DecodeTxn(data, 0)
		if err != nil {
			return err
		}
		if txn.Header.Zxid != zxid || txn.Body.(*proto.SetDataTxn).Version != int32(zxid) {
			return fmt.Errorf("decoded %+v for zxid 0x%x", txn.Header, zxid)
		}
		return errStop
	})
	if !errors.Is(err, errStop) {
		t.Fatalf("Replay with a stopping callback: %v", err)
	}

	first, err := l.FirstZxid()
	if err != nil || first != all[0] {
		t.Fatalf("FirstZxid = 0x%x, %v; want 0x%x", first, err, all[0])
	}

	st := l.Stats()
	var bytesIn uint64
	for _, z := range all {
		bytesIn += uint64(len(testTxn(z, payloadFor(z))))
	}
	want := Stats{Batches: 4, Txns: uint64(len(all)), Bytes: bytesIn, Fsyncs: 4}
	st.LastFsync = 0
	if st != want {
		t.Fatalf("Stats = %+v, want %+v", st, want)
	}
}

var errStop = errors.New("stop")

func TestReplayStopsAtCallbackError(t *testing.T) {
	l := openTest(t, Options{Dir: t.TempDir()})
	if err := l.Append(entriesFor(zxidRange(1, 10)...)); err != nil {
		t.Fatal(err)
	}
	var seen []int64
	err := l.Replay(0, func(zxid int64, _ []byte) error {
		seen = append(seen, zxid)
		if zxid == 4 {
			return errStop
		}
		return nil
	})
	if err != errStop {
		t.Fatalf("Replay returned %v, want the callback's own error", err)
	}
	if len(seen) != 4 {
		t.Fatalf("callback ran for %v, want 1..4", seen)
	}
}

func TestAppendRejectsOrderViolations(t *testing.T) {
	l := openTest(t, Options{Dir: t.TempDir()})
	if err := l.Append(entriesFor(10, 11, 12)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		zxids []int64
	}{
		{"repeats the last zxid", []int64{12}},
		{"goes below the last zxid", []int64{5}},
		{"valid start, repeat inside the batch", []int64{13, 14, 14}},
		{"valid start, decrease inside the batch", []int64{13, 15, 14}},
		{"zero", []int64{0}},
		{"negative", []int64{-1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := l.Append(entriesFor(tc.zxids...))
			if !errors.Is(err, ErrZxidOrder) {
				t.Fatalf("Append(%v) = %v, want ErrZxidOrder", tc.zxids, err)
			}
		})
	}
	// Nothing of a rejected batch was written, not even its valid prefix.
	if got := l.LastZxid(); got != 12 {
		t.Fatalf("LastZxid = %d after rejected batches, want 12", got)
	}
	checkReplayed(t, replayAll(t, l, 0), []int64{10, 11, 12})
	if err := l.Append(entriesFor(13)); err != nil {
		t.Fatalf("Append after rejected batches: %v", err)
	}
}

func TestAppendRejectsMalformedTxns(t *testing.T) {
	l := openTest(t, Options{Dir: t.TempDir()})
	for _, tc := range []struct {
		name  string
		entry Entry
	}{
		{"shorter than a header", Entry{Zxid: 1, Data: make([]byte, txnHeaderLen-1)}},
		{"header names another zxid", Entry{Zxid: 1, Data: testTxn(2, 10)}},
		{"nil data", Entry{Zxid: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := l.Append([]Entry{tc.entry}); !errors.Is(err, ErrBadTxn) {
				t.Fatalf("Append = %v, want ErrBadTxn", err)
			}
		})
	}
	if got := l.LastZxid(); got != 0 {
		t.Fatalf("LastZxid = %d after rejected txns, want 0", got)
	}
}

func TestReopenKeepsEverything(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(DefaultOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	zxids := zxidRange(epoch1+1, epoch1+300)
	for i := 0; i < len(zxids); i += 50 {
		if err := l.Append(entriesFor(zxids[i : i+50]...)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	l = openTest(t, DefaultOptions(dir))
	if got := l.LastZxid(); got != zxids[len(zxids)-1] {
		t.Fatalf("LastZxid after reopen = 0x%x, want 0x%x", got, zxids[len(zxids)-1])
	}
	checkReplayed(t, replayAll(t, l, 0), zxids)
	if err := l.Append(entriesFor(zxids[len(zxids)-1])); !errors.Is(err, ErrZxidOrder) {
		t.Fatalf("re-appending the last zxid after reopen = %v, want ErrZxidOrder", err)
	}
	if st := l.Stats(); st != (Stats{}) {
		t.Fatalf("Stats right after reopen = %+v, want zero", st)
	}
	if _, err := os.Stat(filepath.Join(dir, StoreDirName)); err != nil || l.Dir() != filepath.Join(dir, StoreDirName) {
		t.Fatalf("store not in %s/%s: Dir() = %s, %v", dir, StoreDirName, l.Dir(), err)
	}
}

func TestOpenCreatesMissingDirectories(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "yet", "there")
	l := openTest(t, Options{Dir: dir})
	if err := l.Append(entriesFor(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(Options{}); err == nil {
		t.Fatal("Open with an empty Dir succeeded")
	}
}

func TestOpenRefusesASecondOpener(t *testing.T) {
	dir := t.TempDir()
	openTest(t, Options{Dir: dir})
	if l, err := Open(Options{Dir: dir}); err == nil {
		l.Close()
		t.Fatal("a second Open of a store in use succeeded")
	}
}

func TestTruncateAfter(t *testing.T) {
	dir := t.TempDir()
	l := openTest(t, DefaultOptions(dir))
	if err := l.Append(entriesFor(zxidRange(1, 10)...)); err != nil {
		t.Fatal(err)
	}
	if err := l.TruncateAfter(20); err != nil {
		t.Fatal(err)
	}
	if err := l.TruncateAfter(6); err != nil {
		t.Fatal(err)
	}
	if got := l.LastZxid(); got != 6 {
		t.Fatalf("LastZxid after TruncateAfter(6) = %d", got)
	}
	checkReplayed(t, replayAll(t, l, 0), zxidRange(1, 6))
	// The zxids dropped are free again: a new leader's txns replace them.
	if err := l.Append(entriesFor(7, 8)); err != nil {
		t.Fatalf("Append after truncation: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	l = openTest(t, DefaultOptions(dir))
	checkReplayed(t, replayAll(t, l, 0), zxidRange(1, 8))
	if err := l.TruncateAfter(0); err != nil {
		t.Fatal(err)
	}
	if got := l.LastZxid(); got != 0 {
		t.Fatalf("LastZxid after TruncateAfter(0) = %d", got)
	}
	checkReplayed(t, replayAll(t, l, 0), nil)
}

func TestPurgeBefore(t *testing.T) {
	dir := t.TempDir()
	l := openTest(t, DefaultOptions(dir))
	if err := l.Append(entriesFor(zxidRange(1, 10)...)); err != nil {
		t.Fatal(err)
	}
	if err := l.PurgeBefore(5); err != nil {
		t.Fatal(err)
	}
	checkReplayed(t, replayAll(t, l, 0), zxidRange(5, 10))
	if first, err := l.FirstZxid(); err != nil || first != 5 {
		t.Fatalf("FirstZxid = %d, %v; want 5", first, err)
	}
	// Purging past the end keeps the newest txn so the log still knows
	// where it stands.
	if err := l.PurgeBefore(100); err != nil {
		t.Fatal(err)
	}
	checkReplayed(t, replayAll(t, l, 0), []int64{10})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	l = openTest(t, DefaultOptions(dir))
	if got := l.LastZxid(); got != 10 {
		t.Fatalf("LastZxid after purge and reopen = %d, want 10", got)
	}
	if err := l.Append(entriesFor(9)); !errors.Is(err, ErrZxidOrder) {
		t.Fatalf("Append below the purged range = %v, want ErrZxidOrder", err)
	}
}

func TestClosedLogRefusesEverything(t *testing.T) {
	l, err := Open(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	_, firstErr := l.FirstZxid()
	_, verifyErr := l.Verify(func(*CorruptionError) {})
	for name, err := range map[string]error{
		"Append":        l.Append(entriesFor(1)),
		"Replay":        l.Replay(0, func(int64, []byte) error { return nil }),
		"TruncateAfter": l.TruncateAfter(0),
		"PurgeBefore":   l.PurgeBefore(1),
		"FirstZxid":     firstErr,
		"Verify":        verifyErr,
		"Close":         l.Close(),
	} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
}

// Writers racing each other for zxids may lose (ErrZxidOrder) but never
// corrupt or reorder the log.
func TestConcurrentAppendersKeepOrder(t *testing.T) {
	l := openTest(t, Options{Dir: t.TempDir()})
	var next atomic.Int64
	var mu sync.Mutex
	acked := map[int64]bool{}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				first := next.Add(3) - 2
				err := l.Append(entriesFor(first, first+1, first+2))
				if err != nil && !errors.Is(err, ErrZxidOrder) {
					t.Errorf("Append: %v", err)
					return
				}
				if err == nil {
					mu.Lock()
					acked[first], acked[first+1], acked[first+2] = true, true, true
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	prev := int64(0)
	n := 0
	err := l.Replay(0, func(zxid int64, data []byte) error {
		if zxid <= prev {
			return fmt.Errorf("zxid 0x%x after 0x%x", zxid, prev)
		}
		if !acked[zxid] {
			return fmt.Errorf("zxid 0x%x logged but its Append failed", zxid)
		}
		if !bytes.Equal(data, testTxn(zxid, payloadFor(zxid))) {
			return fmt.Errorf("zxid 0x%x: wrong data", zxid)
		}
		prev = zxid
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(acked) {
		t.Fatalf("replayed %d txns, %d were acknowledged", n, len(acked))
	}
}

func TestSlowFsyncIsLogged(t *testing.T) {
	var out bytes.Buffer
	logger := zerolog.New(&out)
	// Any real fsync takes longer than a nanosecond.
	l := openTest(t, Options{Dir: t.TempDir(), ForceSync: true, SlowFsyncWarn: 1, Logger: &logger})
	if err := l.Append(entriesFor(1, 2)); err != nil {
		t.Fatal(err)
	}
	if st := l.Stats(); st.SlowFsyncs != 1 || st.Fsyncs != 1 || st.LastFsync <= 0 {
		t.Fatalf("Stats = %+v, want one slow fsync", st)
	}
	if !strings.Contains(out.String(), "fsync of the txn log was slow") {
		t.Fatalf("no slow-fsync warning logged; log: %s", out.String())
	}
}

func TestNoFsyncWithoutForceSync(t *testing.T) {
	opts := Options{Dir: t.TempDir()}
	syncs := countSyncs(&opts)
	l := openTest(t, opts)
	before := syncs.Load()
	for z := int64(1); z <= 20; z++ {
		if err := l.Append(entriesFor(z)); err != nil {
			t.Fatal(err)
		}
	}
	if got := syncs.Load() - before; got != 0 {
		t.Fatalf("%d fsyncs for 20 appends with ForceSync off", got)
	}
	if st := l.Stats(); st.Fsyncs != 0 || st.Batches != 20 {
		t.Fatalf("Stats = %+v", st)
	}
}

func TestOneFsyncPerBatch(t *testing.T) {
	opts := Options{Dir: t.TempDir(), ForceSync: true}
	syncs := countSyncs(&opts)
	l := openTest(t, opts)
	before := syncs.Load()
	const batches = 20
	for i := int64(0); i < batches; i++ {
		if err := l.Append(entriesFor(zxidRange(i*16+1, i*16+16)...)); err != nil {
			t.Fatal(err)
		}
	}
	// Each batch needs its WAL fsync; a WAL rotation may add a few.
	got := syncs.Load() - before
	if got < batches || got > batches+4 {
		t.Fatalf("%d fsyncs for %d batches, want about one per batch", got, batches)
	}
}
