package server

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
	"github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/persistence"
)

var errDiskFault = errors.New("injected disk fault")

// diskFaults fails one kind of file operation on the files match accepts,
// once armed, and counts the failures.
type diskFaults struct {
	kind  errorfs.OpKind
	match func(path string) bool
	armed atomic.Bool
	hits  atomic.Int64
}

func (d *diskFaults) MaybeError(op errorfs.Op) error {
	if !d.armed.Load() || op.Kind != d.kind || !d.match(op.Path) {
		return nil
	}
	d.hits.Add(1)
	return errDiskFault
}

func (d *diskFaults) String() string { return "diskFaults" }

// faultDataDir is where the fault tests keep dataDir, on an in-memory
// file system.
const faultDataDir = "/data"

// isTxnLogWAL matches the WAL files of the txn log (not those of the
// snapshot store, which has its own).
func isTxnLogWAL(path string) bool {
	return filepath.Dir(path) == filepath.Join(faultDataDir, persistence.StoreDirName) && filepath.Ext(path) == ".log"
}

// isSnapshotFile matches the table file a snapshot is written to before
// it joins the snapshot store.
func isSnapshotFile(path string) bool {
	base := filepath.Base(path)
	return filepath.Dir(path) == filepath.Join(faultDataDir, persistence.SnapshotDirName) &&
		strings.HasPrefix(base, "snapshot-") && strings.HasSuffix(base, ".tmp")
}

// startOnFS runs a server (forceSync on, as in production) with its data
// directory on fs.
func startOnFS(t *testing.T, fs vfs.FS, tweak func(*Config)) *Server {
	return startTestServer(t, faultDataDir, func(c *Config) {
		c.FS = fs
		c.ForceSync = true
		if tweak != nil {
			tweak(c)
		}
	})
}

// ackedWrite is what a client was told about one znode: its data and
// version, and for a set the zxid that made it.
type ackedWrite struct {
	data    string
	version int32
	mzxid   int64
	// unackedSet is the data of a set sent after the last
	// acknowledgement and never answered: it may or may not be durable.
	unackedSet string
}

// writeLoad has clients create znodes and set each once, in a loop, and
// records every acknowledgement, until a request fails.
type writeLoad struct {
	mu    sync.Mutex
	acked map[string]*ackedWrite
	count atomic.Int64
	wg    sync.WaitGroup
}

func startWriteLoad(t *testing.T, s *Server, clients int) (*writeLoad, []*zk.Conn) {
	w := &writeLoad{acked: map[string]*ackedWrite{}}
	var conns []*zk.Conn
	for i := 0; i < clients; i++ {
		c, _ := connect(t, s)
		conns = append(conns, c)
		w.wg.Add(1)
		go w.run(c, i)
	}
	return w, conns
}

func (w *writeLoad) run(c *zk.Conn, client int) {
	defer w.wg.Done()
	acl := zk.WorldACL(zk.PermAll)
	for i := 0; ; i++ {
		path := fmt.Sprintf("/c%d-%05d", client, i)
		data := path + "-created"
		if _, err := c.Create(path, []byte(data), 0, acl); err != nil {
			return
		}
		rec := &ackedWrite{data: data}
		w.mu.Lock()
		w.acked[path] = rec
		w.mu.Unlock()
		w.count.Add(1)
		set := path + "-set"
		w.mu.Lock()
		rec.unackedSet = set
		w.mu.Unlock()
		st, err := c.Set(path, []byte(set), 0)
		if err != nil {
			return
		}
		w.mu.Lock()
		rec.data, rec.version, rec.mzxid, rec.unackedSet = set, st.Version, st.Mzxid, ""
		w.mu.Unlock()
		w.count.Add(1)
	}
}

// waitFor waits (at most a minute) for cond.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within a minute", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// checkRecovered fails unless the server holds every acknowledged write
// as it was acknowledged.
func (w *writeLoad) checkRecovered(t *testing.T, s *Server) {
	t.Helper()
	c, _ := connect(t, s)
	w.mu.Lock()
	defer w.mu.Unlock()
	for path, want := range w.acked {
		data, st, err := c.Get(path)
		if err != nil {
			t.Fatalf("%s: %v after the restart; its create was acknowledged", path, err)
		}
		switch {
		case string(data) == want.data && st.Version == want.version && (want.mzxid == 0 || st.Mzxid == want.mzxid):
		case want.unackedSet != "" && string(data) == want.unackedSet && st.Version == want.version+1:
			// A set nobody was told about may have reached the disk.
		default:
			t.Fatalf("%s after the restart: %q version %d mzxid %#x; acknowledged %q version %d mzxid %#x",
				path, data, st.Version, st.Mzxid, want.data, want.version, want.mzxid)
		}
	}
}

// TestTxnLogFailureStopsTheServer makes the txn log's fsync (or its
// write) fail under a write load from real clients. The server must stop:
// Failed closes, Err names the failed operation and the disk's error,
// unrecoverable_error_count counts it, and every client is dropped (the
// port no longer answers). A restart on what a power loss right after the
// failure leaves on the disk (the synced data only: a failed fsync may
// have dropped the rest) must hold every write any client was told about.
// So a write acknowledged at or after the failed batch fails the test.
func TestTxnLogFailureStopsTheServer(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind errorfs.OpKind
	}{
		{"fsync", errorfs.OpFileSyncData},
		{"write", errorfs.OpFileWrite},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := vfs.NewCrashableMem()
			faults := &diskFaults{kind: tc.kind, match: isTxnLogWAL}
			s := startOnFS(t, errorfs.Wrap(mem, faults), nil)
			load, conns := startWriteLoad(t, s, 4)
			waitFor(t, "acknowledged writes", func() bool { return load.count.Load() >= 200 })
			faults.armed.Store(true)
			select {
			case <-s.Failed():
			case <-time.After(time.Minute):
				t.Fatal("the server did not stop within a minute of the fault")
			}

			err := s.Err()
			var walErr *persistence.WALError
			if !errors.As(err, &walErr) || walErr.Op != tc.name || !errors.Is(err, errDiskFault) ||
				!strings.Contains(err.Error(), "txn log "+tc.name+" failed") {
				t.Fatalf("Err() = %v; want the txn log's %s failure with the disk's error", err, tc.name)
			}
			if n := s.Metrics().Counters()["unrecoverable_error_count"]; n != 1 {
				t.Fatalf("unrecoverable_error_count %d, want 1", n)
			}
			waitFor(t, "closed client port", func() bool {
				c, err := net.DialTimeout("tcp", s.Addr().String(), time.Second)
				if err == nil {
					c.Close()
				}
				return err != nil
			})
			for _, c := range conns {
				c.Close()
			}
			load.wg.Wait()
			if faults.hits.Load() != 1 {
				t.Fatalf("the failed %s was tried %d times; it must never be retried", tc.name, faults.hits.Load())
			}
			s.Close()

			crashed := mem.CrashClone(vfs.CrashCloneCfg{}) // synced data only
			restarted := startOnFS(t, crashed, nil)
			load.checkRecovered(t, restarted)
			t.Logf("%d acknowledged writes recovered; the server stopped with: %v", load.count.Load(), err)
		})
	}
}

// TestSnapshotFailureKeepsServing makes a snapshot's write (or its fsync)
// fail. The server must go on taking writes, count the failure in
// gozk_snapshot_failures, leave no trace of the failed snapshot, and a
// restart (after a power loss) must load an older snapshot and the log:
// every acknowledged write is there.
func TestSnapshotFailureKeepsServing(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind errorfs.OpKind
	}{
		{"fsync", errorfs.OpFileSyncData},
		{"write", errorfs.OpFileWrite},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := vfs.NewCrashableMem()
			faults := &diskFaults{kind: tc.kind, match: isSnapshotFile}
			s := startOnFS(t, errorfs.Wrap(mem, faults), nil)
			load, conns := startWriteLoad(t, s, 2)
			waitFor(t, "acknowledged writes", func() bool { return load.count.Load() >= 100 })
			good, err := s.TakeSnapshot()
			if err != nil {
				t.Fatal(err)
			}
			waitFor(t, "acknowledged writes", func() bool { return load.count.Load() >= 200 })

			faults.armed.Store(true)
			if _, err := s.TakeSnapshot(); !errors.Is(err, errDiskFault) {
				t.Fatalf("snapshot during the fault: %v, want the disk's error", err)
			}
			faults.armed.Store(false)
			if n := s.Metrics().Counters()["gozk_snapshot_failures"]; n != 1 {
				t.Fatalf("gozk_snapshot_failures %d, want 1", n)
			}
			list, err := s.store.Snapshots()
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != 1 || list[0].Zxid != good.Zxid || list[0].Err != nil {
				t.Fatalf("snapshots after the failed one: %+v, want only 0x%x", list, good.Zxid)
			}
			names, err := mem.List(filepath.Join(faultDataDir, persistence.SnapshotDirName))
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				if isSnapshotFile(filepath.Join(faultDataDir, persistence.SnapshotDirName, n)) {
					t.Fatalf("the failed snapshot left %s behind", n)
				}
			}

			// Still serving writes.
			before := load.count.Load()
			waitFor(t, "writes after the failed snapshot", func() bool { return load.count.Load() >= before+100 })
			select {
			case <-s.Failed():
				t.Fatalf("the server stopped: %v", s.Err())
			default:
			}
			for _, c := range conns {
				c.Close()
			}
			load.wg.Wait()

			crashed := mem.CrashClone(vfs.CrashCloneCfg{})
			restarted := startOnFS(t, crashed, nil)
			load.checkRecovered(t, restarted)
			list, err = restarted.store.Snapshots()
			if err != nil {
				t.Fatal(err)
			}
			kept := false
			for _, info := range list {
				if info.Err != nil {
					t.Fatalf("snapshot 0x%x after the restart: %v", info.Zxid, info.Err)
				}
				kept = kept || info.Zxid == good.Zxid
			}
			if !kept {
				t.Fatalf("the snapshot taken before the fault (0x%x) is gone after the restart: %+v", good.Zxid, list)
			}
			s.Close()
		})
	}
}
