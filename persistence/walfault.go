package persistence

import (
	"fmt"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// walFault records the first write or sync of the txn log's WAL that
// failed, the moment it fails, before Pebble hears of it.
//
// Pebble keeps a failed WAL write or fsync as a sticky error of its log
// writer: the batch that waited for it and every batch queued behind it
// fail (none is retried), and the next commit that finds the error
// panics inside Pebble's commit pipeline, with its lock held. The sync
// stage hands batch N+1 to Pebble before it hears whether batch N's fsync
// succeeded, so the log must know of the failure before Pebble's commit
// path does: that is what this record is for. Append refuses to commit
// once it is set (one atomic load per batch). That narrows the window
// without closing it: a batch that passed the check just before the
// failure was recorded still reaches Pebble's commit path, whose Fatalf
// then goes to the process's fatal handler (SetFatalHandler; gozk server
// logs and exits), with nothing acknowledged lost. Closing it would mean
// waiting for each fsync before the next batch, which the group commit
// is there to avoid.
type walFault struct {
	err atomic.Pointer[WALError]
}

// record keeps the first failure and returns err unchanged (Pebble sees
// exactly what the file system said).
func (w *walFault) record(op, file string, err error) error {
	w.err.CompareAndSwap(nil, &WALError{Op: op, File: file, Err: err})
	return err
}

// failure is the first recorded failure, nil if none.
func (w *walFault) failure() *WALError { return w.err.Load() }

// WALError is a write or fsync of the txn log's WAL that failed. After
// it, what the file holds is unknown (a failed fsync may have dropped the
// dirty pages it was to write: retrying it and trusting the second answer
// could acknowledge lost txns), so the log refuses every later write until
// it is reopened, which replays what did reach the disk.
type WALError struct {
	Op   string // "write" or "fsync"
	File string // the WAL file
	Err  error  // what the file system said
}

func (e *WALError) Error() string {
	return fmt.Sprintf("txn log %s failed: %s: %v", e.Op, e.File, e.Err)
}

func (e *WALError) Unwrap() error { return e.Err }

// walFaultFS watches the writes and fsyncs of the WAL files Pebble makes
// (or recycles) on fs.
type walFaultFS struct {
	vfs.FS
	fault *walFault
}

func (fs walFaultFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, category)
	return fs.watch(f, name, category), err
}

func (fs walFaultFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname, category)
	return fs.watch(f, newname, category), err
}

func (fs walFaultFS) Unwrap() vfs.FS { return fs.FS }

func (fs walFaultFS) watch(f vfs.File, name string, category vfs.DiskWriteCategory) vfs.File {
	if f == nil || category != walWriteCategory {
		return f
	}
	return &walFaultFile{File: f, name: name, fault: fs.fault}
}

// walFaultFile is a WAL file whose failed writes and fsyncs are recorded.
// Pebble writes a WAL with Write and makes it durable with SyncData (Sync
// and SyncTo are there for completeness); reads and the rest pass through.
type walFaultFile struct {
	vfs.File
	name  string
	fault *walFault
}

func (f *walFaultFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	if err != nil {
		return n, f.fault.record("write", f.name, err)
	}
	return n, nil
}

func (f *walFaultFile) WriteAt(p []byte, off int64) (int, error) {
	n, err := f.File.WriteAt(p, off)
	if err != nil {
		return n, f.fault.record("write", f.name, err)
	}
	return n, nil
}

func (f *walFaultFile) Sync() error {
	if err := f.File.Sync(); err != nil {
		return f.fault.record("fsync", f.name, err)
	}
	return nil
}

func (f *walFaultFile) SyncData() error {
	if err := f.File.SyncData(); err != nil {
		return f.fault.record("fsync", f.name, err)
	}
	return nil
}

func (f *walFaultFile) SyncTo(length int64) (bool, error) {
	full, err := f.File.SyncTo(length)
	if err != nil {
		return full, f.fault.record("fsync", f.name, err)
	}
	return full, nil
}
