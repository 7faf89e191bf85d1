package zkfiles

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// maxSnapshotCandidates is how many snapshots Java tries, newest first.
const maxSnapshotCandidates = 100

// snapshotTail is the "/" seal every complete plain snapshot ends with.
var snapshotTail = []byte{0, 0, 0, 1, '/'}

// IsValidSnapshot is SnapStream.isValidSnapshot: a parseable name and,
// for plain files, at least 10 bytes ending with the "/" seal; for gz and
// snappy files, their magic.
func IsValidSnapshot(path string) (bool, error) {
	name := path
	if i := bytes.LastIndexByte([]byte(path), '/'); i >= 0 {
		name = path[i+1:]
	}
	if ZxidFromName(name, SnapshotPrefix) == -1 {
		return false, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, err
	}
	switch CompressionOf(name) {
	case Gzip:
		var b [2]byte
		if _, err := io.ReadFull(f, b[:]); err != nil {
			return false, nil
		}
		return b[0] == 0x1f && b[1] == 0x8b, nil
	case Snappy:
		var b [8]byte
		if _, err := io.ReadFull(f, b[:]); err != nil {
			return false, nil
		}
		return bytes.Equal(b[:], xerialMagic[:]), nil
	}
	if st.Size() < 10 {
		return false, nil
	}
	var b [5]byte
	if _, err := f.ReadAt(b[:], st.Size()-5); err != nil {
		return false, err
	}
	return bytes.Equal(b[:], snapshotTail), nil
}

// SnapshotCandidates is FileSnap.findNValidSnapshots(100): the snapshots
// of dir that pass IsValidSnapshot, newest first.
func SnapshotCandidates(dir string) ([]File, error) {
	files, err := ListSnapshots(dir)
	if err != nil {
		return nil, err
	}
	var out []File
	for _, f := range files {
		ok, err := IsValidSnapshot(f.Path)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, f)
			if len(out) == maxSnapshotCandidates {
				break
			}
		}
	}
	return out, nil
}

// ReadSnapshotFile decodes the snapshot file path (compression from its
// name) through h.
func ReadSnapshotFile(path string, limit int, h SnapshotHandler) (SnapshotInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return SnapshotInfo{}, err
	}
	defer f.Close()
	r, err := Decompress(f, CompressionOf(path))
	if err != nil {
		return SnapshotInfo{}, fmt.Errorf("%s: %w", path, err)
	}
	info, err := DecodeSnapshot(r, limit, h)
	if err != nil {
		return info, fmt.Errorf("%s: %w", path, err)
	}
	return info, nil
}

// RestoreOptions shape Restore.
type RestoreOptions struct {
	// Limit bounds buffers, strings and log records (<= 0: Java's
	// defaults).
	Limit int
	// TrustEmptySnapshot is zookeeper.snapshot.trust.empty: replay logs
	// onto an empty tree when there is no snapshot.
	TrustEmptySnapshot bool
}

// RestoreHandler builds the state Restore reads.
type RestoreHandler struct {
	// Snapshot is called before each snapshot is tried, newest first; it
	// must start from an empty state (a snapshot that fails half way is
	// abandoned) and return the callbacks for this attempt.
	Snapshot func(f File) SnapshotHandler
	// SnapshotDone, when set, is called once the snapshot is loaded (with
	// File{} and a zero SnapshotInfo when there is none), before any txn.
	SnapshotDone func(f File, info SnapshotInfo) error
	// Txn is called for every log record with a zxid above the
	// snapshot's, in log order. An error stops the restore.
	Txn func(file string, rec Record) error
}

// RestoreResult says what Restore read.
type RestoreResult struct {
	// Snapshot is the snapshot used; Path is "" when there was none.
	Snapshot     File
	SnapshotInfo SnapshotInfo
	// Skipped lists the newer snapshots that failed to load, with why.
	Skipped []error
	// Txns is the number of log records replayed and LastZxid the
	// highest zxid reached (the snapshot's when no txn followed it).
	Txns     int
	LastZxid int64
}

// ErrNoSnapshot is returned when there are logs but no snapshot (Java
// refuses to start unless zookeeper.snapshot.trust.empty is set).
var ErrNoSnapshot = errors.New("zkfiles: no snapshot found, but there are log entries")

// Restore is FileTxnSnapLog.restore: load the newest snapshot of snapDir
// that fully decodes, then every txn of logDir after its zxid. Without
// any snapshot and without logs the result is the empty tree at zxid 0.
func Restore(snapDir, logDir string, opts RestoreOptions, h RestoreHandler) (RestoreResult, error) {
	var res RestoreResult
	cands, err := SnapshotCandidates(snapDir)
	if err != nil {
		return res, err
	}
	loaded := false
	for _, c := range cands {
		info, err := ReadSnapshotFile(c.Path, opts.Limit, h.Snapshot(c))
		if err != nil {
			res.Skipped = append(res.Skipped, err)
			continue
		}
		res.Snapshot, res.SnapshotInfo, loaded = c, info, true
		break
	}
	if len(cands) > 0 && !loaded {
		return res, fmt.Errorf("zkfiles: no valid snapshot in %s: %w", snapDir, errors.Join(res.Skipped...))
	}
	if !loaded {
		last, err := LastLoggedZxid(logDir, opts.Limit)
		if err != nil {
			return res, err
		}
		if last != -1 && !opts.TrustEmptySnapshot {
			return res, fmt.Errorf("%w (%s, last zxid %#x)", ErrNoSnapshot, logDir, last)
		}
		h.Snapshot(File{})
	}
	if h.SnapshotDone != nil {
		if err := h.SnapshotDone(res.Snapshot, res.SnapshotInfo); err != nil {
			return res, err
		}
	}
	res.LastZxid = res.Snapshot.Zxid
	err = ReadLogs(logDir, res.Snapshot.Zxid+1, opts.Limit, func(file string, rec Record) error {
		res.Txns++
		if z := rec.Zxid(); z > res.LastZxid {
			res.LastZxid = z
		}
		return h.Txn(file, rec)
	})
	return res, err
}
