package persistence

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
// broken). zerolog's Fatal exits only when that level is enabled, so log
// and panic: the message also reaches stderr when logging is off.
func (p pebbleLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf("pebble: "+format, args...)
	p.log.WithLevel(zerolog.FatalLevel).Msg(msg)
	panic(msg)
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
func openPebble(dir, what string, po *pebble.Options) (*pebble.DB, error) {
	fs := po.FS
	if !po.ReadOnly {
		if err := mkdirAllDurable(fs, dir); err != nil {
			return nil, fmt.Errorf("persistence: creating %s: %w", dir, err)
		}
	}
	existed, err := checkStoreDir(fs, dir, what)
	if err != nil {
		return nil, err
	}
	if !existed && po.ReadOnly {
		return nil, fmt.Errorf("persistence: there is no %s in %s: %w", what, dir, ErrNoStore)
	}
	// A store that was there must still be there: never let Pebble
	// quietly create an empty one in its place.
	po.ErrorIfNotExists = existed
	db, err := pebble.Open(dir, po)
	if err != nil {
		if ce, ok := walCheckError(err); ok {
			return nil, fmt.Errorf("persistence: opening %s %s: %w", what, dir, ce)
		}
		if pebble.IsCorruptionError(err) {
			return nil, fmt.Errorf("%w: opening %s %s: %w", ErrCorrupt, what, dir, err)
		}
		return nil, fmt.Errorf("persistence: opening %s %s: %w", what, dir, err)
	}
	if err := checkFormat(db, dir, po.ReadOnly); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
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
	if stray := strayPebbleFiles(names); len(stray) > 0 {
		return false, fmt.Errorf("%w: %s %s has no current manifest but holds %s",
			ErrCorrupt, what, dir, strings.Join(stray, ", "))
	}
	return false, nil
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
		return fmt.Errorf("persistence: reading format record of %s: %w", dir, err)
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
		d, err := fs.OpenDir(filepath.Dir(p))
		if err != nil {
			return err
		}
		err = d.Sync()
		if cerr := d.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("syncing %s: %w", filepath.Dir(p), err)
		}
	}
	return nil
}
