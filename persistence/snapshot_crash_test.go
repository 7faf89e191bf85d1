package persistence

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestCrashCloneKeepsSnapshotsWhole runs a writer that appends txn batches
// (ForceSync), commits snapshots, deletes old ones and purges, on Pebble's
// crashable in-memory file system. At random moments, concurrently with
// the writer, it takes a crash clone: the files as a power loss could
// leave them (synced data kept, unsynced data kept or dropped at random).
// Each clone must open cleanly and hold every txn and snapshot acknowledged
// before the crash, with no partial snapshot and no gap after the purge
// bound.
func TestCrashCloneKeepsSnapshotsWhole(t *testing.T) {
	rounds := 12
	if testing.Short() {
		rounds = 3
	}
	for round := 0; round < rounds; round++ {
		t.Run(fmt.Sprint(round), func(t *testing.T) { crashCloneRound(t, uint64(round)) })
	}
}

// linkGuardFS keeps CrashClone and Link apart. Pebble's MemFS.Link takes
// its clone lock for reading twice, one inside the other; a CrashClone
// that asks for it in between blocks the inner one, and the two wait for
// each other for ever (the test hung in 2 of about 40 runs, a snapshot
// ingest against a clone). Here a Link holds linkMu for reading and a
// clone waits for it first.
type linkGuardFS struct {
	vfs.FS
	mu *sync.RWMutex
}

func (f linkGuardFS) Link(oldname, newname string) error {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.FS.Link(oldname, newname)
}

// crashState is what the writer had acknowledged.
type crashState struct {
	lastTxn   int64
	snapshots []int64 // committed and not deleted
	deleted   []int64 // deleted (acknowledged)
	purged    int64
	// purging is set while a Purge runs: a crash then may or may not have
	// removed the snapshots that purge gives up, all but the newest
	// retained ones.
	purging bool
}

// purgeRetain is how many snapshots the writer's purges keep.
const purgeRetain = 3

func crashCloneRound(t *testing.T, seed uint64) {
	fs := vfs.NewCrashableMem()
	var linkMu sync.RWMutex
	opts := StoreOptions{DataDir: "/data", DataLogDir: "/log", ForceSync: true, FS: linkGuardFS{fs, &linkMu}}
	s, err := OpenStore(opts)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	ts := makeTestSnapshot(3000)

	var mu sync.Mutex
	var acked crashState
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		wrng := rand.New(rand.NewPCG(seed, 8))
		next := int64(1)
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			n := int64(1 + wrng.IntN(20))
			if err := s.Log().Append(entriesFor(zxidRange(next, next+n-1)...)); err != nil {
				done <- err
				return
			}
			next += n
			mu.Lock()
			acked.lastTxn = next - 1
			mu.Unlock()
			switch i % 7 {
			case 3:
				z := next - 1
				w, err := s.CreateSnapshot(z)
				if err != nil {
					done <- err
					return
				}
				for j := range ts.nodes {
					w.AddNode(ts.paths[j], &ts.nodes[j])
				}
				for j := range ts.acls {
					w.AddACL(&ts.acls[j])
				}
				if _, err := w.Commit(nil); err != nil {
					done <- err
					return
				}
				mu.Lock()
				acked.snapshots = append(acked.snapshots, z)
				mu.Unlock()
			case 6:
				mu.Lock()
				acked.purging = true
				mu.Unlock()
				res, err := s.Purge(purgeRetain)
				if err != nil {
					done <- err
					return
				}
				mu.Lock()
				acked.purging = false
				for _, z := range res.Snapshots {
					acked.snapshots = slices.DeleteFunc(acked.snapshots, func(x int64) bool { return x == z })
					acked.deleted = append(acked.deleted, z)
				}
				acked.purged = max(acked.purged, res.LogBefore)
				mu.Unlock()
			}
		}
	}()

	type clone struct {
		fs     *vfs.MemFS
		before crashState
	}
	var clones []clone
	for c := 0; c < 4; c++ {
		// Let the writer run a little, then crash wherever it is.
		time.Sleep(time.Duration(rng.IntN(20000)) * time.Microsecond)
		// The clone is taken under the lock so that a purge cannot start
		// between reading the acknowledged state and the crash.
		mu.Lock()
		before := crashState{lastTxn: acked.lastTxn, snapshots: slices.Clone(acked.snapshots),
			deleted: slices.Clone(acked.deleted), purged: acked.purged, purging: acked.purging}
		linkMu.Lock()
		crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: rng.IntN(101), RNG: rand.New(rand.NewPCG(rng.Uint64(), 1))})
		linkMu.Unlock()
		mu.Unlock()
		clones = append(clones, clone{crashed, before})
	}
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	for i, c := range clones {
		o := opts
		o.FS = c.fs
		cs, err := OpenStore(o)
		if err != nil {
			t.Fatalf("clone %d: opening after the crash: %v", i, err)
		}
		last := cs.Log().LastZxid()
		if last < c.before.lastTxn {
			t.Fatalf("clone %d: log ends at %d, %d were acknowledged", i, last, c.before.lastTxn)
		}
		purged := cs.Log().PurgedBefore()
		if purged < c.before.purged {
			t.Fatalf("clone %d: purge bound %d went back from %d", i, purged, c.before.purged)
		}
		want := max(purged, 1)
		err = cs.Log().Replay(0, func(zxid int64, data []byte) error {
			if zxid < purged {
				return nil // a purge not yet compacted away may leave older ones visible: none is
			}
			if zxid != want {
				return fmt.Errorf("txn %d where %d was expected", zxid, want)
			}
			if !bytes.Equal(data, testTxn(zxid, payloadFor(zxid))) {
				return fmt.Errorf("txn %d differs", zxid)
			}
			want++
			return nil
		})
		if err != nil {
			t.Fatalf("clone %d: %v", i, err)
		}
		infos, err := cs.Snapshots()
		if err != nil {
			t.Fatalf("clone %d: %v", i, err)
		}
		have := map[int64]bool{}
		for _, info := range infos {
			if info.Err != nil {
				t.Fatalf("clone %d: %v", i, info.Err)
			}
			got, _, err := readTestSnapshot(cs, info.Zxid)
			if err != nil {
				t.Fatalf("clone %d: snapshot 0x%x: %v", i, info.Zxid, err)
			}
			if len(got.nodes) != len(ts.nodes) {
				t.Fatalf("clone %d: snapshot 0x%x has %d nodes", i, info.Zxid, len(got.nodes))
			}
			have[info.Zxid] = true
			if info.Zxid+1 < purged && info.Zxid != infos[len(infos)-1].Zxid {
				t.Fatalf("clone %d: snapshot 0x%x kept but the log was purged before %d", i, info.Zxid, purged)
			}
		}
		mustHave := c.before.snapshots
		if c.before.purging && len(mustHave) > purgeRetain {
			mustHave = mustHave[len(mustHave)-purgeRetain:]
		}
		for _, z := range mustHave {
			if !have[z] {
				t.Fatalf("clone %d: acknowledged snapshot 0x%x is gone", i, z)
			}
		}
		for _, z := range c.before.deleted {
			if have[z] {
				t.Fatalf("clone %d: deleted snapshot 0x%x is back", i, z)
			}
		}
		if len(infos) > 0 && purged > infos[len(infos)-1].Zxid+1 {
			t.Fatalf("clone %d: the log was purged before %d, past the oldest snapshot 0x%x", i, purged, infos[len(infos)-1].Zxid)
		}
		if err := cs.Close(); err != nil {
			t.Fatal(err)
		}
		t.Logf("clone %d: %d txns acknowledged (log ends at %d, purged before %d), %d snapshots acknowledged, %d found",
			i, c.before.lastTxn, last, purged, len(c.before.snapshots), len(infos))
	}
}
