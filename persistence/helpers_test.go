package persistence

import (
	"bytes"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/gozk/gozk/proto"
)

// testTxn returns a setData txn for zxid whose encoding is fully determined
// by zxid and payload, so a reader can rebuild what a writer logged.
func testTxn(zxid int64, payload int) []byte {
	e := proto.TxnEntry{
		Header: proto.TxnHeader{
			ClientId: 0x1000000000000 + zxid%7,
			Cxid:     int32(zxid),
			Zxid:     zxid,
			Time:     1700000000000 + zxid,
			Type:     int32(proto.OpSetData),
		},
		Body: &proto.SetDataTxn{
			Path:    "/gozk/test/node",
			Data:    bytes.Repeat([]byte{byte(zxid)}, payload),
			Version: int32(zxid),
		},
	}
	return e.Marshal()
}

// payloadFor varies txn sizes with the zxid while staying reproducible.
func payloadFor(zxid int64) int { return 60 + int(zxid%97) }

func entriesFor(zxids ...int64) []Entry {
	out := make([]Entry, len(zxids))
	for i, z := range zxids {
		out[i] = Entry{Zxid: z, Data: testTxn(z, payloadFor(z))}
	}
	return out
}

func zxidRange(from, to int64) []int64 {
	var out []int64
	for z := from; z <= to; z++ {
		out = append(out, z)
	}
	return out
}

func openTest(t testing.TB, opts Options) *TxnLog {
	t.Helper()
	l, err := Open(opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", opts.Dir, err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("Close: %v", err)
		}
	})
	return l
}

type replayed struct {
	zxid int64
	data []byte
}

func replayAll(t testing.TB, l *TxnLog, from int64) []replayed {
	t.Helper()
	var out []replayed
	err := l.Replay(from, func(zxid int64, data []byte) error {
		out = append(out, replayed{zxid, bytes.Clone(data)})
		return nil
	})
	if err != nil {
		t.Fatalf("Replay(%d): %v", from, err)
	}
	return out
}

// checkReplayed fails unless got holds exactly the test txns of want.
func checkReplayed(t testing.TB, got []replayed, want []int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("replayed %d txns, want %d", len(got), len(want))
	}
	for i, r := range got {
		if r.zxid != want[i] {
			t.Fatalf("txn %d: zxid 0x%x, want 0x%x", i, r.zxid, want[i])
		}
		if exp := testTxn(r.zxid, payloadFor(r.zxid)); !bytes.Equal(r.data, exp) {
			t.Fatalf("txn 0x%x: data differs from what was appended", r.zxid)
		}
	}
}

// syncCountingFS counts the calls that force data to stable storage, on
// every file and directory Pebble opens.
type syncCountingFS struct {
	vfs.FS
	syncs *atomic.Int64
}

func (fs syncCountingFS) wrap(f vfs.File, err error) (vfs.File, error) {
	if err != nil {
		return nil, err
	}
	return syncCountingFile{File: f, syncs: fs.syncs}, nil
}

func (fs syncCountingFS) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	return fs.wrap(fs.FS.Create(name, c))
}

func (fs syncCountingFS) Open(name string, opts ...vfs.OpenOption) (vfs.File, error) {
	return fs.wrap(fs.FS.Open(name, opts...))
}

func (fs syncCountingFS) OpenReadWrite(name string, c vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	return fs.wrap(fs.FS.OpenReadWrite(name, c, opts...))
}

func (fs syncCountingFS) OpenDir(name string) (vfs.File, error) {
	return fs.wrap(fs.FS.OpenDir(name))
}

func (fs syncCountingFS) ReuseForWrite(oldname, newname string, c vfs.DiskWriteCategory) (vfs.File, error) {
	return fs.wrap(fs.FS.ReuseForWrite(oldname, newname, c))
}

type syncCountingFile struct {
	vfs.File
	syncs *atomic.Int64
}

func (f syncCountingFile) Sync() error {
	f.syncs.Add(1)
	return f.File.Sync()
}

func (f syncCountingFile) SyncData() error {
	f.syncs.Add(1)
	return f.File.SyncData()
}

func (f syncCountingFile) SyncTo(length int64) (bool, error) {
	full, err := f.File.SyncTo(length)
	if full {
		f.syncs.Add(1)
	}
	return full, err
}

func countSyncs(opts *Options) *atomic.Int64 {
	n := new(atomic.Int64)
	opts.wrapFS = func(fs vfs.FS) vfs.FS { return syncCountingFS{FS: fs, syncs: n} }
	return n
}
