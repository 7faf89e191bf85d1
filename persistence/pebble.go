package persistence

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/rs/zerolog"
)

// storeFormat pins Pebble's on-disk format instead of taking the library
// default, so upgrading Pebble never changes the files behind our back. It
// is the newest format of Pebble v2.1 and includes FormatWALSyncChunks,
// with which WAL replay can tell a torn tail (a crash mid-write, dropped
// silently) from damage in synced data (an error).
const storeFormat = pebble.FormatValueSeparation

// Sizing for a log of small (~100-300 byte) txns written in key order and
// read back sequentially at startup: small memtables, as keys arrive in
// order and a flush makes a table that never overlaps another (Pebble
// moves it down without rewriting it), a small block cache (replay is a
// single sequential scan that a cache barely helps), and few open files.
// Memtables and cache are resident memory: with 16 MiB memtables and an
// 8 MiB cache a server holding 1,000,000 znodes had 22 MiB more RSS than
// with these, and no more throughput or less CPU per set or create.
const (
	memTableSize                = 4 << 20
	memTableStopWritesThreshold = 8 // up to 32 MiB of memtables before writes stall
	blockCacheSize              = 2 << 20
	maxOpenFiles                = 256
)

// blockCompression is the block compression of the tables both stores
// write: snappy where it pays, none where it does not. Txns and snapshot
// chunks are mostly znode data, which may be random or already compressed
// by the client (snappy then costs a few percent of the server's CPU, for
// nothing) or very compressible (then snappy writes several times fewer
// bytes, which costs less CPU in the kernel than it takes). Pebble's
// adaptive compressor tries both on one block in ten and uses snappy while
// it saves at least a quarter of the bytes. A variable only so that a test
// can write a store as gozk did before, with plain snappy.
var blockCompression = func() pebble.DBCompressionSettings {
	p := *sstable.SnappyCompression
	p.Name = "SnappyWhereItPays"
	p.OtherBlocks = sstable.NoCompression.OtherBlocks
	p.AdaptiveReductionCutoffPercent = 50
	return pebble.UniformDBCompressionSettings(&p)
}()

func pebbleOptions(fs vfs.FS, log zerolog.Logger) *pebble.Options {
	o := &pebble.Options{
		FS:                          fs,
		FormatMajorVersion:          storeFormat,
		MemTableSize:                memTableSize,
		MemTableStopWritesThreshold: memTableStopWritesThreshold,
		CacheSize:                   blockCacheSize,
		MaxOpenFiles:                maxOpenFiles,
		Logger:                      pebbleLogger{log},
		EventListener: &pebble.EventListener{
			BackgroundError: func(err error) {
				log.Error().Err(err).Msg("txn log store background error")
			},
			// Pebble's default for this is Fatalf, killing the process
			// on the first bad block. The read that found it fails
			// anyway, with an error that reaches the caller of Replay
			// (server start, `gozk data verify`), which decides.
			DataCorruption: func(info pebble.DataCorruptionInfo) {
				log.Error().Str("file", info.Path).Str("keys", info.Bounds.String()).
					AnErr("details", info.Details).Msg("txn log store file is damaged")
			},
			WriteStallBegin: func(info pebble.WriteStallBeginInfo) {
				log.Warn().Str("reason", info.Reason).Msg("txn log store stalls writes")
			},
			WriteStallEnd: func() {
				log.Info().Msg("txn log store write stall ended")
			},
		},
		// WALDir stays empty: the WAL lives beside the tables, so there
		// is a single directory to fsync and to move.
		// No bloom filters: nothing ever looks up a single key; replay
		// scans ranges.
	}
	// Tables written with another compression (plain snappy, before)
	// still read: each block records its own.
	cs := blockCompression
	o.ApplyCompressionSettings(func() pebble.DBCompressionSettings { return cs })
	o.EnsureDefaults()
	return o
}

// pebbleLogger sends Pebble's own messages to the server's logger. Pebble's
// informational chatter (flushes, compactions) goes to debug level.
type pebbleLogger struct{ log zerolog.Logger }

func (p pebbleLogger) Infof(format string, args ...any) {
	p.log.Debug().Msgf("pebble: "+format, args...)
}

func (p pebbleLogger) Errorf(format string, args ...any) {
	p.log.Error().Msgf("pebble: "+format, args...)
}

// Fatalf must not return (Pebble calls it when its commit pipeline is
// broken: a WAL it cannot create or write, a MANIFEST it cannot sync). It
// logs, then hands the message to the process's fatal handler
// (SetFatalHandler), or panics when there is none: zerolog's Fatal exits
// only when that level is enabled, and a panic's message reaches stderr
// even when logging is off.
func (p pebbleLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf("pebble: "+format, args...)
	p.log.WithLevel(zerolog.FatalLevel).Msg(msg)
	if h := fatalHandler.Load(); h != nil {
		(*h)(msg)
	}
	panic(msg)
}

var fatalHandler atomic.Pointer[func(msg string)]

// SetFatalHandler sets what happens when a store meets a failure it
// cannot go on from while running (Pebble's fatal errors: a WAL it cannot
// create or write, a MANIFEST it cannot sync, as on a full disk): fn is
// called with the message and must not return. Without a handler the
// goroutine that met the failure panics. gozk server logs and exits;
// every write it acknowledged is durable by then, and recovery finds it.
// Failures while a store opens are returned by the open instead.
func SetFatalHandler(fn func(msg string)) {
	if fn == nil {
		fatalHandler.Store(nil)
		return
	}
	fatalHandler.Store(&fn)
}

// strayPebbleFiles lists the files in names that only an existing Pebble
// store has: data tables, WALs, blob files and manifests. Finding any of
// them in a directory that Pebble does not recognise as a store means the
// store lost its manifest marker, and opening it as a new, empty store
// would silently forget every txn in it.
func strayPebbleFiles(names []string) []string {
	var stray []string
	for _, n := range names {
		if strings.HasSuffix(n, ".sst") || strings.HasSuffix(n, ".log") ||
			strings.HasSuffix(n, ".blob") || strings.HasPrefix(n, "MANIFEST-") {
			stray = append(stray, n)
		}
	}
	return stray
}

// openPebble opens the Pebble store in dir with options po (whose FS is
// used), creating it unless po.ReadOnly, and checks or writes its format
// record. what names the store in errors ("txn log", "snapshot store").
// then, if not nil, runs once the store is open, as part of the open (see
// pebbleOpen); its error fails the open.
func openPebble(dir, what string, po *pebble.Options, then func(*pebble.DB) error) (*pebble.DB, error) {
	fs := po.FS
	if !po.ReadOnly {
		if err := mkdirAllDurable(fs, filepath.Dir(dir)); err != nil {
			return nil, fmt.Errorf("persistence: creating %s: %w", filepath.Dir(dir), err)
		}
	}
	existed, err := checkStoreDir(fs, dir, what)
	if err != nil {
		return nil, err
	}
	if !existed && po.ReadOnly {
		return nil, fmt.Errorf("persistence: there is no %s in %s: %w", what, dir, ErrNoStore)
	}
	if !existed {
		if err := createPebble(dir, what, po); err != nil {
			return nil, err
		}
	}
	// A store that was there must still be there: never let Pebble
	// quietly create an empty one in its place.
	po.ErrorIfNotExists = true
	return pebbleOpen(dir, what, po, func(db *pebble.DB) error {
		if err := checkFormat(db, dir, po.ReadOnly); err != nil {
			return err
		}
		if then != nil {
			return then(db)
		}
		return nil
	})
}

// stagingSuffix names the directory a new store is created in before it
// takes its place.
const stagingSuffix = ".new"

// createPebble creates a new store for dir in dir+stagingSuffix, with its
// format record, and renames it to dir once complete. A store that could
// not be created whole (no space left, a crash) is thus never mistaken
// for a damaged one: dir is still missing, and the next start creates it
// afresh.
func createPebble(dir, what string, po *pebble.Options) error {
	fs := po.FS
	staging := dir + stagingSuffix
	if err := fs.RemoveAll(staging); err != nil {
		return fmt.Errorf("persistence: removing the unfinished %s %s: %w", what, staging, err)
	}
	if err := mkdirAllDurable(fs, staging); err != nil {
		return fmt.Errorf("persistence: creating %s: %w", staging, err)
	}
	o := *po
	o.ErrorIfNotExists = false
	db, err := pebbleOpen(staging, what, &o, func(db *pebble.DB) error {
		return checkFormat(db, staging, false)
	})
	if err == nil {
		if cerr := db.Close(); cerr != nil {
			err = fmt.Errorf("persistence: closing new %s %s: %w", what, staging, cerr)
		}
	}
	if err == nil {
		err = replaceEmptyDir(fs, staging, dir)
	}
	if err != nil {
		// Best effort: the next start removes it anyway.
		_ = fs.RemoveAll(staging)
		return err
	}
	return nil
}

// replaceEmptyDir renames staging to dir, which may exist if it holds no
// store (checkStoreDir said so: at most the lock and options files of an
// older, interrupted creation), and syncs their parent.
func replaceEmptyDir(fs vfs.FS, staging, dir string) error {
	if err := fs.RemoveAll(dir); err != nil {
		return fmt.Errorf("persistence: removing %s, which holds no store: %w", dir, err)
	}
	if err := fs.Rename(staging, dir); err != nil {
		return fmt.Errorf("persistence: renaming %s to %s: %w", staging, dir, err)
	}
	return syncDir(fs, filepath.Dir(dir))
}

func syncDir(fs vfs.FS, dir string) error {
	d, err := fs.OpenDir(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}

// pebbleOpen is pebble.Open followed by then (the first writes: the
// format record, the WAL's first record), with errors named after the
// store. The failures Pebble reports through Logger.Fatalf meanwhile (a
// MANIFEST or a WAL it cannot write: a full disk) are returned as errors
// instead of panics.
//
// A write that fails in the background meanwhile fails the open as well.
// Pebble alone retries a failed flush without end, and its Open waits for
// the flush of the replayed WAL: a server starting on a full disk would
// hang, logging each retry. So the open runs in a goroutine, and the first
// background error before it is done is the open's error; the Pebble
// goroutine that reported it is parked for good (it holds the DB's mutex,
// so the half-open DB does nothing more), the DB is abandoned, not closed
// (its commit pipeline may be broken), and the directory lock is released,
// so that the store can be opened again once space returns.
func pebbleOpen(dir, what string, po *pebble.Options, then func(*pebble.DB) error) (*pebble.DB, error) {
	var opening atomic.Bool
	opening.Store(true)
	failed := make(chan error, 1)
	// failOpen fails the open with err and parks the goroutine that met it
	// (see above); the first failure wins.
	failOpen := func(err error) {
		select {
		case failed <- err:
		default:
		}
		select {}
	}
	o := *po
	o.Logger = openingLogger{Logger: po.Logger, opening: &opening, fail: failOpen}
	events := *po.EventListener
	background := events.BackgroundError
	events.BackgroundError = func(err error) {
		if opening.Load() {
			failOpen(err)
		}
		if background != nil {
			background(err)
		}
	}
	o.EventListener = &events
	locks := &lockFS{FS: po.FS}
	o.FS = locks

	type result struct {
		db  *pebble.DB
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() { done <- r }()
		db, err := pebble.Open(dir, &o)
		if err != nil {
			r.err = err
			return
		}
		if err := then(db); err != nil {
			db.Close()
			r.err = err
			return
		}
		opening.Store(false)
		r.db = db
	}()
	var r result
	select {
	case r = <-done:
	case r.err = <-failed:
		locks.release()
	}
	if err := r.err; err != nil {
		if ce, ok := walCheckError(err); ok {
			return nil, ce // names the WAL file, which names the store
		}
		if pebble.IsCorruptionError(err) && !errors.Is(err, ErrCorrupt) {
			return nil, fmt.Errorf("%w: opening %s %s: %w", ErrCorrupt, what, dir, pebbleError{err})
		}
		if errors.Is(err, ErrCorrupt) {
			return nil, err
		}
		if le := lockedError(dir, what, err); le != nil {
			return nil, le
		}
		return nil, fmt.Errorf("persistence: opening %s %s: %w", what, dir, err)
	}
	return r.db, nil
}

// lockFS keeps the directory locks Pebble takes, so that pebbleOpen can
// release them for a DB it abandons. Pebble's own Open releases its lock
// when it fails or panics; a lock is closed only once.
type lockFS struct {
	vfs.FS
	mu    sync.Mutex
	locks []*onceCloser
}

func (fs *lockFS) Unwrap() vfs.FS { return fs.FS }

func (fs *lockFS) Lock(name string) (io.Closer, error) {
	c, err := fs.FS.Lock(name)
	if err != nil {
		return nil, err
	}
	oc := &onceCloser{c: c}
	fs.mu.Lock()
	fs.locks = append(fs.locks, oc)
	fs.mu.Unlock()
	return oc, nil
}

func (fs *lockFS) release() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, c := range fs.locks {
		_ = c.Close()
	}
	fs.locks = nil
}

type onceCloser struct {
	once sync.Once
	c    io.Closer
	err  error
}

func (c *onceCloser) Close() error {
	c.once.Do(func() { c.err = c.c.Close() })
	return c.err
}

// openFailure is what openingLogger.Fatalf fails an open with: what
// Pebble could not do, and the error it got (nil if none was given).
type openFailure struct {
	msg string
	err error
}

func (f openFailure) Error() string { return f.msg }
func (f openFailure) Unwrap() error { return f.err }

// openingLogger is Pebble's logger while the store opens: a Fatalf then
// fails the open and parks the goroutine that called it, as a background
// error does, whichever goroutine it is (the opening one, or the flush of
// the replayed WAL that Open waits for), instead of ending the process.
// Once the store is open, the DB keeps this logger, and a Fatalf is fatal
// as before.
type openingLogger struct {
	pebble.Logger
	opening *atomic.Bool
	fail    func(error)
}

func (l openingLogger) Fatalf(format string, args ...any) {
	if !l.opening.Load() {
		l.Logger.Fatalf(format, args...)
		return
	}
	msg := fmt.Sprintf(format, args...)
	if !strings.HasPrefix(msg, "pebble") {
		msg = "pebble: " + msg
	}
	f := openFailure{msg: msg}
	for _, a := range args {
		if e, ok := a.(error); ok {
			f.err = e
			break
		}
	}
	l.fail(f)
}

// checkStoreDir reports whether dir holds a Pebble store, and fails if it
// holds the remains of one that Pebble would not recognise.
func checkStoreDir(fs vfs.FS, dir, what string) (bool, error) {
	if _, err := fs.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	desc, err := pebble.Peek(dir, fs)
	if err != nil {
		return false, fmt.Errorf("persistence: inspecting %s %s: %w", what, dir, err)
	}
	if desc.Exists {
		return true, nil
	}
	names, err := fs.List(dir)
	if err != nil {
		return false, fmt.Errorf("persistence: listing %s: %w", dir, err)
	}
	stray := strayPebbleFiles(names)
	if unfinishedCreation(fs, dir, stray) {
		// What an older gozk left when it could not write the first
		// MANIFEST (a full disk): no data, and a new store replaces it.
		return false, nil
	}
	if len(stray) > 0 {
		return false, fmt.Errorf("%w: %s %s has no current manifest but holds %s",
			ErrCorrupt, what, dir, strings.Join(stray, ", "))
	}
	return false, nil
}

// unfinishedCreation reports whether the stray files of a directory that
// Pebble does not recognise as a store are only empty manifests: Pebble
// could not write the first one, and nothing else was ever written.
func unfinishedCreation(fs vfs.FS, dir string, stray []string) bool {
	if len(stray) == 0 {
		return false
	}
	for _, n := range stray {
		if !strings.HasPrefix(n, "MANIFEST-") {
			return false
		}
		fi, err := fs.Stat(filepath.Join(dir, n))
		if err != nil || fi.Size() != 0 {
			return false
		}
	}
	return true
}

// checkFormat verifies the format record, writing it into a new store.
func checkFormat(db *pebble.DB, dir string, readOnly bool) error {
	v, closer, err := db.Get(formatKey)
	switch {
	case err == nil:
		defer closer.Close()
		if len(v) != 4 {
			return &CorruptionError{Store: dir, Key: formatKey, Reason: fmt.Sprintf("format record is %d bytes, want 4", len(v))}
		}
		if got := binary.BigEndian.Uint32(v); got != storeFormatVersion {
			return fmt.Errorf("persistence: store %s has format %d, this gozk reads format %d", dir, got, storeFormatVersion)
		}
		return nil
	case !errors.Is(err, pebble.ErrNotFound):
		return fmt.Errorf("persistence: reading format record of %s: %w", dir, pebbleError{err})
	}
	// No format record. Open writes it (synced) before anything else can
	// be written, so a store with other keys but no record is damaged; an
	// empty one was interrupted while being created and is simply new.
	empty, err := isEmpty(db, dir)
	if err != nil {
		return err
	}
	if !empty {
		return &CorruptionError{Store: dir, Key: formatKey, Reason: "the store holds data but no format record"}
	}
	if readOnly {
		return nil
	}
	val := binary.BigEndian.AppendUint32(nil, storeFormatVersion)
	if err := db.Set(formatKey, val, pebble.Sync); err != nil {
		return fmt.Errorf("persistence: writing format record of %s: %w", dir, err)
	}
	// A new store's first WAL is created before Pebble raises the store
	// to storeFormat, so it lacks the sync-offset chunks that let WAL
	// replay tell damage in synced data from a torn tail: damage in it
	// would silently cut the log. A flush switches to a new WAL, which
	// has them, before anything else is written.
	if err := db.Flush(); err != nil {
		return fmt.Errorf("persistence: flushing new store %s: %w", dir, err)
	}
	return nil
}

func isEmpty(db *pebble.DB, dir string) (bool, error) {
	it, err := db.NewIter(nil)
	if err != nil {
		return false, fmt.Errorf("persistence: reading %s: %w", dir, err)
	}
	found := it.First()
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return false, fmt.Errorf("persistence: reading %s: %w", dir, err)
	}
	return !found, nil
}

// mkdirAllDurable creates dir and its missing parents and syncs the
// directory that holds each new entry: until then a crash may forget a
// new directory, and with it the whole store Pebble creates inside.
func mkdirAllDurable(fs vfs.FS, dir string) error {
	var missing []string
	for p := dir; ; {
		if _, err := fs.Stat(p); err == nil {
			break
		}
		missing = append(missing, p)
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	if len(missing) == 0 {
		return nil
	}
	if err := fs.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, p := range missing {
		if err := syncDir(fs, filepath.Dir(p)); err != nil {
			return err
		}
	}
	return nil
}
