package persistence

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/rs/zerolog"

	"github.com/gozk/gozk/persistence/zkfiles"
)

// SnapshotDirName is the directory under StoreOptions.DataDir that holds
// the snapshot store.
const SnapshotDirName = "gozk-snap"

// StoreOptions configures a Store.
type StoreOptions struct {
	// DataDir is ZooKeeper's dataDir: snapshots and the epochs live in
	// DataDir/SnapshotDirName. Created if missing (unless ReadOnly).
	DataDir string
	// DataLogDir is ZooKeeper's dataLogDir: the txn log lives in
	// DataLogDir/StoreDirName. Empty means DataDir, as in zoo.cfg.
	DataLogDir string
	// ForceSync is zookeeper.forceSync for the txn log (see Options).
	// Snapshots and epochs are always written durably.
	ForceSync bool
	// SlowFsyncWarn is fsync.warningthresholdms (see Options).
	SlowFsyncWarn time.Duration
	// Logger receives warnings and Pebble's messages; nil discards them.
	Logger *zerolog.Logger
	// ReadOnly opens existing stores without writing anything (`gozk data
	// verify`); a missing store is then an error wrapping ErrNoStore.
	ReadOnly bool

	// FS is the file system both stores live on; nil means the operating
	// system's. Tests pass Pebble's crashable in-memory file system, or a
	// wrapper that injects faults (vfs/errorfs).
	FS vfs.FS
}

// Store is gozk's durable state for one server: the txn log (Log) in
// dataLogDir and the snapshot store in dataDir, which also keeps
// ZooKeeper's acceptedEpoch and currentEpoch. See the package comment for
// the layout. All methods are safe for concurrent use.
type Store struct {
	log      *TxnLog
	snaps    *pebble.DB
	snapDir  string
	fs       vfs.FS
	logger   zerolog.Logger
	readOnly bool

	// tmpSeq names the temporary table files of snapshot writers.
	tmpSeq atomic.Uint64

	// pages keeps the newest snapshot cached and drops the older ones.
	pages snapshotPages

	// life: Close waits for every reader and open SnapshotWriter that
	// got in before it.
	life gate
}

// OpenStore opens (or, unless ReadOnly, creates) the store of a server
// whose zoo.cfg says dataDir o.DataDir and dataLogDir o.DataLogDir. A
// damaged store is an error naming it and what is wrong (errors.Is
// ErrCorrupt); damage inside a snapshot or txn is found only when that is
// read (ReadSnapshot, TxnLog.Replay, TxnLog.Verify).
func OpenStore(o StoreOptions) (*Store, error) {
	if o.DataDir == "" {
		return nil, errors.New("persistence: StoreOptions.DataDir is empty")
	}
	logDir := o.DataLogDir
	if logDir == "" {
		logDir = o.DataDir
	}
	logger := zerolog.Nop()
	if o.Logger != nil {
		logger = *o.Logger
	}
	fs := o.FS
	if fs == nil {
		fs = vfs.Default
	}
	// The snapshot store first: it knows which WAL of the txn log must
	// hold records (liveWALKey).
	snapDir := filepath.Join(o.DataDir, SnapshotDirName)
	slog := logger.With().Str("component", "snapshots").Logger()
	po := pebbleOptions(fs, slog)
	// Snapshots arrive as ingested tables, never through the memtable;
	// only the epochs and deletions do.
	po.MemTableSize = 1 << 20
	po.ReadOnly = o.ReadOnly
	snaps, err := openPebble(snapDir, "snapshot store", po, nil)
	if err != nil {
		return nil, err
	}
	liveWAL, _, err := getInt64Meta(snaps, snapDir, liveWALKey)
	if err != nil {
		snaps.Close()
		return nil, err
	}
	log, err := Open(Options{
		Dir:            logDir,
		ForceSync:      o.ForceSync,
		Logger:         o.Logger,
		SlowFsyncWarn:  o.SlowFsyncWarn,
		ReadOnly:       o.ReadOnly,
		fs:             fs,
		walHeldRecords: uint64(liveWAL),
	})
	if err != nil {
		snaps.Close()
		return nil, err
	}
	if log.liveWAL != 0 {
		// Only now that its first record is synced: a crash before
		// leaves the older number, whose WAL this open has flushed.
		if err := snaps.Set(liveWALKey, int64MetaValue(int64(log.liveWAL)), pebble.Sync); err != nil {
			log.Close()
			snaps.Close()
			return nil, fmt.Errorf("persistence: writing to %s: %w", snapDir, err)
		}
	}
	s := &Store{log: log, snaps: snaps, snapDir: snapDir, fs: fs, logger: slog, readOnly: o.ReadOnly}
	if !o.ReadOnly {
		s.removeTempFiles()
	}
	return s, nil
}

// removeTempFiles deletes the table files of snapshot writers that never
// finished (a crash while writing a snapshot).
func (s *Store) removeTempFiles() {
	names, err := s.fs.List(s.snapDir)
	if err != nil {
		return
	}
	for _, n := range names {
		if strings.HasPrefix(n, tempPrefix) && strings.HasSuffix(n, tempSuffix) {
			if err := s.fs.Remove(filepath.Join(s.snapDir, n)); err != nil {
				s.logger.Warn().Err(err).Str("file", n).Msg("cannot remove an unfinished snapshot file")
			}
		}
	}
}

// Log returns the txn log. It is closed by Store.Close.
func (s *Store) Log() *TxnLog { return s.log }

// SnapshotDir returns the directory of the snapshot store.
func (s *Store) SnapshotDir() string { return s.snapDir }

func (s *Store) acquire() bool { return s.life.enter() }

func (s *Store) release() { s.life.leave() }

// Close waits for running readers and open snapshot writers, then closes
// both stores. A second Close returns ErrClosed.
func (s *Store) Close() error {
	if err := s.life.close(); err != nil {
		return err
	}
	s.pages.close()
	var errs []error
	if err := s.snaps.Close(); err != nil {
		errs = append(errs, fmt.Errorf("persistence: closing %s: %w", s.snapDir, err))
	}
	if err := s.log.Close(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Epochs are ZooKeeper's acceptedEpoch and currentEpoch (the files of
// those names in Java's dataDir/version-2), one type with zkfiles' and
// zab's. A standalone server does not use them; Zab and the Java data
// directory import/export do. The store writes each atomically, so the
// epochs it reads never have a CurrentTmp.
type Epochs = zkfiles.Epochs

// Epochs reads both epochs.
func (s *Store) Epochs() (Epochs, error) {
	if !s.acquire() {
		return Epochs{}, ErrClosed
	}
	defer s.release()
	var e Epochs
	var err error
	if e.Accepted, e.HasAccepted, err = getInt64Meta(s.snaps, s.snapDir, acceptedEpochKey); err != nil {
		return Epochs{}, err
	}
	if e.Current, e.HasCurrent, err = getInt64Meta(s.snaps, s.snapDir, currentEpochKey); err != nil {
		return Epochs{}, err
	}
	return e, nil
}

// SetAcceptedEpoch durably records acceptedEpoch.
func (s *Store) SetAcceptedEpoch(epoch int64) error {
	return s.setMeta(acceptedEpochKey, epoch)
}

// SetCurrentEpoch durably records currentEpoch.
func (s *Store) SetCurrentEpoch(epoch int64) error {
	return s.setMeta(currentEpochKey, epoch)
}

func (s *Store) setMeta(key []byte, v int64) error {
	if s.readOnly {
		return ErrReadOnly
	}
	if !s.acquire() {
		return ErrClosed
	}
	defer s.release()
	if err := s.snaps.Set(key, int64MetaValue(v), pebble.Sync); err != nil {
		return fmt.Errorf("persistence: writing %s to %s: %w", key[1:], s.snapDir, err)
	}
	return nil
}

// PurgeResult says what Purge removed.
type PurgeResult struct {
	// Snapshots are the zxids of the snapshots deleted.
	Snapshots []int64
	// LogBefore is the zxid before which txns were dropped (0: none).
	LogBefore int64
}

// MinSnapRetainCount is the smallest autopurge.snapRetainCount Java
// accepts; Purge raises smaller counts to it.
const MinSnapRetainCount = 3

// Purge keeps the retain newest complete snapshots (at least
// MinSnapRetainCount) and deletes older ones, then drops the txns that
// recovery from the oldest kept snapshot does not need (those up to its
// zxid), as Java's autopurge does with its files. Damaged snapshots older
// than the oldest kept one go too; with fewer complete snapshots than
// retain nothing is deleted.
func (s *Store) Purge(retain int) (PurgeResult, error) {
	retain = max(retain, MinSnapRetainCount)
	infos, err := s.Snapshots()
	if err != nil {
		return PurgeResult{}, err
	}
	kept := 0
	var oldestKept int64 = -1
	var res PurgeResult
	for _, info := range infos { // newest first
		if kept < retain {
			if info.Err == nil {
				kept++
				oldestKept = info.Zxid
			}
			continue
		}
		if err := s.DeleteSnapshot(info.Zxid); err != nil {
			return res, err
		}
		res.Snapshots = append(res.Snapshots, info.Zxid)
	}
	if kept < retain {
		return res, nil
	}
	if oldestKept+1 > s.log.PurgedBefore() && s.log.LastZxid() > 0 {
		if err := s.log.PurgeBefore(oldestKept + 1); err != nil {
			return res, err
		}
		res.LogBefore = s.log.PurgedBefore()
	}
	return res, nil
}
