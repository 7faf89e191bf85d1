package persistence

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/rs/zerolog"
)

// StoreDirName is the directory under Options.Dir that holds the Pebble
// store.
const StoreDirName = "gozk"

// DefaultSlowFsyncWarn is ZooKeeper's fsync.warningthresholdms default.
const DefaultSlowFsyncWarn = time.Second

// Options configures a TxnLog.
type Options struct {
	// Dir is ZooKeeper's dataLogDir; the store lives in Dir/StoreDirName.
	// Both are created if missing.
	Dir string
	// ForceSync is zookeeper.forceSync: fsync every batch before Append
	// returns. ZooKeeper's default is true (see DefaultOptions); false
	// trades durability for speed in tests and benchmarks.
	ForceSync bool
	// Logger receives slow-fsync warnings and Pebble's messages. Nil
	// discards them.
	Logger *zerolog.Logger
	// SlowFsyncWarn is fsync.warningthresholdms: a durable batch commit
	// slower than this is logged. Zero means DefaultSlowFsyncWarn.
	SlowFsyncWarn time.Duration

	// ReadOnly opens an existing store without writing anything to it
	// (`gozk data verify`); every write then fails with ErrReadOnly.
	ReadOnly bool

	// fs is the file system (vfs.Default when nil); tests use an
	// in-memory one.
	fs vfs.FS
	// walHeldRecords is the number of a WAL known to have held a synced
	// record (liveWALKey of the snapshot store); 0 when none is known.
	walHeldRecords uint64
	// wrapFS lets tests observe or break the file system under Pebble.
	wrapFS func(vfs.FS) vfs.FS
}

// DefaultOptions returns ZooKeeper's defaults for dir: ForceSync on and a
// one-second slow-fsync warning.
func DefaultOptions(dir string) Options {
	return Options{Dir: dir, ForceSync: true, SlowFsyncWarn: DefaultSlowFsyncWarn}
}

// Entry is one txn to log: its zxid and its whole encoding (TxnHeader
// first, whose zxid field must equal Zxid).
type Entry struct {
	Zxid int64
	Data []byte
}

// Stats are cumulative counters since Open, cheap to read at any time.
type Stats struct {
	// Batches counts Append calls that wrote something.
	Batches uint64
	// Txns counts txns appended.
	Txns uint64
	// Bytes counts txn bytes appended (the encoded txns, without keys and
	// checksums).
	Bytes uint64
	// Fsyncs counts durable batch commits: one per batch with ForceSync,
	// none without.
	Fsyncs uint64
	// SlowFsyncs counts durable commits slower than SlowFsyncWarn.
	SlowFsyncs uint64
	// LastFsync is how long the latest durable commit took (WAL write
	// and fsync, as ZooKeeper's fsync time).
	LastFsync time.Duration
}

// TxnLog is the durable, zxid-ordered log of txns.
//
// One goroutine (the sync stage) is expected to write; writers are
// serialised anyway, so concurrent calls cannot interleave or reorder a
// batch. Replay, LastZxid, FirstZxid and Stats may run alongside writers.
type TxnLog struct {
	db        *pebble.DB
	storeDir  string
	log       zerolog.Logger
	writeOpts *pebble.WriteOptions
	forceSync bool
	slowWarn  time.Duration
	readOnly  bool
	// liveWAL is the number of the WAL this open began with a synced
	// record (0 when read-only).
	liveWAL uint64

	// writeMu serialises Append, TruncateAfter, PurgeBefore and Close.
	writeMu sync.Mutex
	// submittedZxid is the highest zxid handed to Pebble, durable or not:
	// the ordering check of the next append. Guarded by writeMu.
	submittedZxid int64
	// pending counts appends not yet waited for; Close waits for them.
	pending sync.WaitGroup
	// failed is set when a commit failed: whether that batch reached the
	// disk is unknown, so appending after it could leave a gap.
	failMu sync.Mutex
	failed error
	// wal records a failed write or fsync of the WAL as it happens, so
	// that no batch reaches Pebble's commit path after one (walfault.go).
	wal *walFault

	// readers: Close waits for every reader that got in (Replay, Verify,
	// FirstZxid) before closing Pebble under them.
	readers gate

	lastZxid     atomic.Int64
	purgedBefore atomic.Int64

	batches, txns, bytes, fsyncs, slowFsyncs atomic.Uint64
	lastFsyncNanos                           atomic.Int64
}

// Open opens the txn log in opts.Dir, creating it if needed (unless
// ReadOnly). A store that exists but is damaged (lost manifest, missing or
// unknown format record, Pebble corruption) is an error naming the store
// and what is wrong.
func Open(opts Options) (*TxnLog, error) {
	if opts.Dir == "" {
		return nil, errors.New("persistence: Options.Dir is empty")
	}
	storeDir := filepath.Join(opts.Dir, StoreDirName)
	log := zerolog.Nop()
	if opts.Logger != nil {
		log = opts.Logger.With().Str("component", "txnlog").Logger()
	}
	fs := opts.filesystem()
	wal := new(walFault)
	po := pebbleOptions(walFaultFS{&walCheckFS{FS: sizedWALFS{fs}, dir: storeDir, log: log, mustHoldRecords: opts.walHeldRecords}, wal}, log)
	po.ReadOnly = opts.ReadOnly
	var liveWAL uint64
	db, err := openPebble(storeDir, "txn log", po, func(db *pebble.DB) (err error) {
		if !opts.ReadOnly {
			liveWAL, err = startWAL(db, fs, storeDir)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	l := &TxnLog{
		db:        db,
		storeDir:  storeDir,
		log:       log,
		writeOpts: pebble.NoSync,
		forceSync: opts.ForceSync,
		slowWarn:  opts.SlowFsyncWarn,
		readOnly:  opts.ReadOnly,
		wal:       wal,
		liveWAL:   liveWAL,
	}
	if opts.ForceSync {
		l.writeOpts = pebble.Sync
	}
	if l.slowWarn <= 0 {
		l.slowWarn = DefaultSlowFsyncWarn
	}
	last, err := l.boundaryZxid(true)
	if err == nil {
		l.lastZxid.Store(last)
		l.submittedZxid = last
		var purged int64
		purged, err = readInt64Meta(db, storeDir, purgedKey)
		l.purgedBefore.Store(purged)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return l, nil
}

// filesystem is the file system the store lives on.
func (o *Options) filesystem() vfs.FS {
	fs := o.fs
	if fs == nil {
		fs = vfs.Default
	}
	if o.wrapFS != nil {
		fs = o.wrapFS(fs)
	}
	return fs
}

// boundaryZxid returns the highest (last) or lowest logged zxid, 0 if the
// log is empty.
func (l *TxnLog) boundaryZxid(last bool) (int64, error) {
	it, err := l.db.NewIter(&pebble.IterOptions{LowerBound: txnKeysStart, UpperBound: txnKeysEnd})
	if err != nil {
		return 0, fmt.Errorf("persistence: reading %s: %w", l.storeDir, err)
	}
	var found bool
	if last {
		found = it.Last()
	} else {
		found = it.First()
	}
	var zxid int64
	var bad error
	if found {
		var ok bool
		if zxid, ok = parseTxnKey(it.Key()); !ok || zxid <= 0 {
			bad = &CorruptionError{Store: l.storeDir, Key: append([]byte(nil), it.Key()...), Reason: "not a txn key"}
		}
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return 0, fmt.Errorf("persistence: reading %s: %w", l.storeDir, err)
	}
	return zxid, bad
}

// Append durably logs batch, in order, as one Pebble batch committed with
// one fsync (ForceSync). Zxids must increase strictly within the batch and
// over every txn already logged; otherwise nothing is written and the
// error wraps ErrZxidOrder. Each Data must be a txn whose header carries
// Zxid (ErrBadTxn otherwise). It returns after the batch is durable; once
// a commit has failed, every later Append fails too, with the same error
// (a *WALError when the WAL's write or fsync failed). The failed fsync is
// never retried: the log is usable again only once reopened.
func (l *TxnLog) Append(batch []Entry) error {
	p, err := l.AppendAsync(batch)
	if err != nil {
		return err
	}
	return p.Wait()
}

// PendingAppend is a batch handed to the log by AppendAsync whose fsync
// may still be under way. Its zero value is a batch with nothing to wait
// for.
type PendingAppend struct {
	l       *TxnLog
	b       *pebble.Batch // nil when committed without an fsync to wait for
	last    int64         // highest zxid of the batch
	txns    int
	payload int
	start   time.Time
}

// AppendAsync hands batch to the log as Append does but returns once the
// txns are in the log's write queue, before the fsync completes, so the
// caller can prepare the next batch (or answer the previous one) while
// the disk works: the next batch's fsync then follows this one's without
// a gap. Nothing in the batch is durable, and LastZxid does not cover it,
// until Wait returns nil. The caller must Wait every PendingAppend, in the
// order they were appended, and before Close.
func (l *TxnLog) AppendAsync(batch []Entry) (PendingAppend, error) {
	if len(batch) == 0 {
		return PendingAppend{}, nil
	}
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	if err := l.writable(); err != nil {
		return PendingAppend{}, err
	}

	prev := l.submittedZxid
	size, payload := 0, 0
	for i := range batch {
		e := &batch[i]
		if e.Zxid <= prev {
			return PendingAppend{}, fmt.Errorf("%w: txn 0x%x (entry %d of %d) follows 0x%x", ErrZxidOrder, e.Zxid, i, len(batch), prev)
		}
		if len(e.Data) < txnHeaderLen {
			return PendingAppend{}, fmt.Errorf("%w: txn 0x%x is %d bytes, shorter than a TxnHeader", ErrBadTxn, e.Zxid, len(e.Data))
		}
		if hz := headerZxid(e.Data); hz != e.Zxid {
			return PendingAppend{}, fmt.Errorf("%w: entry zxid 0x%x but its TxnHeader says 0x%x", ErrBadTxn, e.Zxid, hz)
		}
		prev = e.Zxid
		payload += len(e.Data)
		// Pebble's record: kind byte, two varint lengths, key, value.
		size += 1 + 2*binaryMaxVarintLen32 + txnKeyLen + checksumLen + len(e.Data)
	}

	b := l.db.NewBatchWithSize(batchHeaderLen + size)
	for i := range batch {
		e := &batch[i]
		op := b.SetDeferred(txnKeyLen, checksumLen+len(e.Data))
		putTxnKey(op.Key, e.Zxid)
		binary.BigEndian.PutUint32(op.Value, txnChecksum(e.Data))
		copy(op.Value[checksumLen:], e.Data)
		if err := op.Finish(); err != nil {
			b.Close()
			return PendingAppend{}, fmt.Errorf("persistence: building batch: %w", err)
		}
	}

	p := PendingAppend{l: l, last: prev, txns: len(batch), payload: payload, start: time.Now()}
	var err error
	if l.forceSync {
		// The fsync is waited for in Wait. Pebble's log writer syncs
		// whatever is queued when the previous fsync returns, so batches
		// appended while one is on the disk share the next fsync.
		err = l.db.ApplyNoSyncWait(b, l.writeOpts)
		if err == nil {
			p.b = b
		}
	} else {
		err = b.Commit(l.writeOpts)
		b.Close()
	}
	if err != nil {
		// A batch Pebble refused was never queued: nothing to wait for.
		return PendingAppend{}, l.fail(err)
	}
	l.submittedZxid = prev
	l.pending.Add(1)
	return p, nil
}

// Syncing reports whether Wait has an fsync to wait for (false for an
// empty batch, without forceSync, or once waited).
func (p *PendingAppend) Syncing() bool { return p.b != nil }

// Wait returns once the batch is durable (or the log failed); then
// LastZxid covers it. Waiting a second time, or on the zero value, returns
// nil at once.
func (p *PendingAppend) Wait() error {
	l := p.l
	if l == nil {
		return nil
	}
	p.l = nil
	defer l.pending.Done()
	if p.b != nil {
		err := p.b.SyncWait()
		p.b.Close()
		p.b = nil
		if err != nil {
			return l.fail(err)
		}
	}
	took := time.Since(p.start)
	// Concurrent Appends may finish out of append order. A batch becomes
	// durable only after those appended before it (the WAL is written and
	// synced in order), so LastZxid takes the highest zxid waited for and
	// never moves back.
	for {
		prev := l.lastZxid.Load()
		if p.last <= prev || l.lastZxid.CompareAndSwap(prev, p.last) {
			break
		}
	}
	l.batches.Add(1)
	l.txns.Add(uint64(p.txns))
	l.bytes.Add(uint64(p.payload))
	if l.forceSync {
		l.fsyncs.Add(1)
		l.lastFsyncNanos.Store(int64(took))
		if took > l.slowWarn {
			l.slowFsyncs.Add(1)
			// ZooKeeper's FileTxnLog warns the same way.
			l.log.Warn().Dur("tookMs", took).Dur("thresholdMs", l.slowWarn).
				Int("txns", p.txns).Int("bytes", p.payload).Str("store", l.storeDir).
				Msg("fsync of the txn log was slow; this adds to the latency of every write")
		}
	}
	return nil
}

// fail records that a commit failed: whether its txns, and those of every
// batch queued behind it, reached the disk is unknown, so every later
// append is refused. The WAL's own record of the failure, when there is
// one, names the operation and the file better than Pebble's error.
func (l *TxnLog) fail(err error) error {
	l.failMu.Lock()
	defer l.failMu.Unlock()
	if l.failed == nil {
		where := "in " + l.storeDir + "; "
		if w := l.wal.failure(); w != nil {
			err, where = w, "" // it names the WAL file
		}
		l.failed = fmt.Errorf("persistence: %w (%sthe last txn known durable is 0x%x; the log takes no more txns until reopened)",
			err, where, l.lastZxid.Load())
	}
	return l.failed
}

// Pebble batch framing, for sizing a batch buffer up front.
const (
	batchHeaderLen       = 12
	binaryMaxVarintLen32 = 5
)

// LastZxid returns the highest logged zxid, or 0 when the log is empty
// (ZooKeeper's getLastLoggedZxid says -1; no txn ever has zxid 0).
func (l *TxnLog) LastZxid() int64 { return l.lastZxid.Load() }

// FirstZxid returns the lowest logged zxid, 0 when the log is empty. A
// leader can send a DIFF to a follower only from zxids the log still holds.
func (l *TxnLog) FirstZxid() (int64, error) {
	if !l.acquireReader() {
		return 0, ErrClosed
	}
	defer l.readers.leave()
	return l.boundaryZxid(false)
}

func (l *TxnLog) acquireReader() bool { return l.readers.enter() }

// Replay calls fn for every logged txn with zxid >= from, in zxid order,
// after checking its checksum and header. data is only valid during the
// call. It stops at the first error: fn's own error is returned as is, a
// damaged txn as a *CorruptionError naming its zxid. fn must not call
// Close (Close waits for Replay to end).
func (l *TxnLog) Replay(from int64, fn func(zxid int64, data []byte) error) error {
	return l.scan(from, func(zxid int64, key, value []byte) error {
		data, err := checkTxnValue(zxid, key, value)
		if err != nil {
			err.Store = l.storeDir
			return err
		}
		return fn(zxid, data)
	})
}

// Verify checks every logged txn, calls damaged for each one that fails
// (and goes on), and returns how many txns it read. Its error reports only
// failures that stop the walk, such as Pebble's own corruption errors.
func (l *TxnLog) Verify(damaged func(*CorruptionError)) (int, error) {
	n := 0
	err := l.scan(0, func(zxid int64, key, value []byte) error {
		n++
		if _, err := checkTxnValue(zxid, key, value); err != nil {
			err.Store = l.storeDir
			damaged(err)
		}
		return nil
	})
	return n, err
}

// scan walks the txn keys from zxid from on. fn's key and value are only
// valid during the call.
func (l *TxnLog) scan(from int64, fn func(zxid int64, key, value []byte) error) (err error) {
	if !l.acquireReader() {
		return ErrClosed
	}
	defer l.readers.leave()
	lower := txnKeysStart
	if from > 0 {
		lower = txnKey(from)
	}
	it, err := l.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: txnKeysEnd})
	if err != nil {
		return fmt.Errorf("persistence: reading %s: %w", l.storeDir, err)
	}
	defer func() {
		if cerr := it.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("persistence: reading %s: %w", l.storeDir, cerr)
		}
	}()
	var lastGood int64
	for valid := it.First(); valid; valid = it.Next() {
		key := it.Key()
		zxid, ok := parseTxnKey(key)
		if !ok || zxid <= 0 {
			return &CorruptionError{Store: l.storeDir, Key: append([]byte(nil), key...), Reason: fmt.Sprintf("not a txn key (after txn 0x%x)", lastGood)}
		}
		value, err := it.ValueAndErr()
		if err != nil {
			return fmt.Errorf("persistence: reading txn 0x%x from %s: %w", zxid, l.storeDir, err)
		}
		if err := fn(zxid, key, value); err != nil {
			return err
		}
		lastGood = zxid
	}
	if err := it.Error(); err != nil {
		// Name the last txn read intact so damage can be located.
		if pebble.IsCorruptionError(err) {
			return fmt.Errorf("%w: reading %s after txn 0x%x: %w", ErrCorrupt, l.storeDir, lastGood, pebbleError{err})
		}
		return fmt.Errorf("persistence: reading %s after txn 0x%x: %w", l.storeDir, lastGood, err)
	}
	return nil
}

// checkTxnValue returns the txn bytes of a stored value after checking
// its checksum and that its header carries the zxid of its key.
func checkTxnValue(zxid int64, key, value []byte) ([]byte, *CorruptionError) {
	if len(value) < checksumLen+txnHeaderLen {
		return nil, &CorruptionError{Zxid: zxid, Key: append([]byte(nil), key...),
			Reason: fmt.Sprintf("stored value is %d bytes, too short for a checksum and a TxnHeader", len(value))}
	}
	data := value[checksumLen:]
	if stored, computed := binary.BigEndian.Uint32(value), txnChecksum(data); stored != computed {
		return nil, &CorruptionError{Zxid: zxid, Key: append([]byte(nil), key...),
			Reason: fmt.Sprintf("checksum mismatch: stored %08x, computed %08x over %d bytes", stored, computed, len(data))}
	}
	if hz := headerZxid(data); hz != zxid {
		return nil, &CorruptionError{Zxid: zxid, Key: append([]byte(nil), key...),
			Reason: fmt.Sprintf("its TxnHeader carries zxid 0x%x", hz)}
	}
	return data, nil
}

// TruncateAfter durably drops every txn with a zxid greater than zxid, as a
// follower does on a TRUNC from its leader. (Java cuts after the first
// record >= zxid, which differs only when zxid itself is absent; a leader
// never asks for that.) Appends still pending must have been waited for.
func (l *TxnLog) TruncateAfter(zxid int64) error {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	if err := l.writable(); err != nil {
		return err
	}
	if zxid >= l.submittedZxid {
		return nil
	}
	from := txnKeysStart
	if zxid > 0 {
		from = txnKey(zxid + 1)
	}
	if err := l.db.DeleteRange(from, txnKeysEnd, l.writeOpts); err != nil {
		return fmt.Errorf("persistence: truncating %s after 0x%x: %w", l.storeDir, zxid, err)
	}
	last, err := l.boundaryZxid(true)
	if err != nil {
		return err
	}
	l.lastZxid.Store(last)
	l.submittedZxid = last
	return nil
}

// PurgeBefore drops txns with a zxid below zxid, once a snapshot makes
// them unnecessary, and records the bound as PurgedBefore in the same
// atomic write. It always keeps the newest txn, so LastZxid, and with it
// the ordering check of Append, survive a purge and a restart.
func (l *TxnLog) PurgeBefore(zxid int64) error {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	if err := l.writable(); err != nil {
		return err
	}
	bound := min(zxid, l.lastZxid.Load())
	if bound <= 0 || bound <= l.purgedBefore.Load() {
		return nil
	}
	b := l.db.NewBatch()
	defer b.Close()
	err := b.DeleteRange(txnKeysStart, txnKey(bound), nil)
	if err == nil {
		err = b.Set(purgedKey, int64MetaValue(bound), nil)
	}
	if err == nil {
		err = b.Commit(l.writeOpts)
	}
	if err != nil {
		return fmt.Errorf("persistence: purging %s before 0x%x: %w", l.storeDir, bound, err)
	}
	l.purgedBefore.Store(bound)
	return nil
}

// PurgedBefore is the bound of the latest PurgeBefore: txns with a lower
// zxid may be gone, every logged txn from it on is still there. It is 0
// for a log never purged. Recovery from a snapshot at zxid Z needs
// PurgedBefore <= Z+1.
func (l *TxnLog) PurgedBefore() int64 { return l.purgedBefore.Load() }

// writable returns why the log cannot be written now, if it cannot; the
// caller holds writeMu.
func (l *TxnLog) writable() error {
	switch {
	case l.readers.isClosed():
		return ErrClosed
	case l.readOnly:
		return ErrReadOnly
	}
	if w := l.wal.failure(); w != nil {
		// Pebble would panic on this commit, or the next (walfault.go).
		return l.fail(w)
	}
	l.failMu.Lock()
	defer l.failMu.Unlock()
	return l.failed
}

// Stats returns the counters since Open.
func (l *TxnLog) Stats() Stats {
	return Stats{
		Batches:    l.batches.Load(),
		Txns:       l.txns.Load(),
		Bytes:      l.bytes.Load(),
		Fsyncs:     l.fsyncs.Load(),
		SlowFsyncs: l.slowFsyncs.Load(),
		LastFsync:  time.Duration(l.lastFsyncNanos.Load()),
	}
}

// Dir returns the directory of the Pebble store.
func (l *TxnLog) Dir() string { return l.storeDir }

// Close waits for running readers and writers, then closes the store.
// Everything Append acknowledged is already durable; Close adds nothing
// to that. A second Close returns ErrClosed.
func (l *TxnLog) Close() error {
	// Readers first: a Replay callback that writes gets ErrClosed and
	// returns instead of waiting for Close, which waits for it.
	if err := l.readers.close(); err != nil {
		return err
	}
	// Pending appends are waited for by their owner (the sync stage),
	// which stops before the store is closed.
	l.pending.Wait()
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	var errs []error
	if err := l.sealWAL(); err != nil {
		errs = append(errs, fmt.Errorf("persistence: sealing the WAL of %s: %w", l.storeDir, err))
	}
	if err := l.db.Close(); err != nil {
		errs = append(errs, fmt.Errorf("persistence: closing %s: %w", l.storeDir, err))
	}
	return errors.Join(errs...)
}
