package persistence

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrClosed is returned by every method called after Close.
	ErrClosed = errors.New("persistence: store is closed")

	// ErrZxidOrder is wrapped by the error Append returns for a zxid that
	// does not increase strictly over the previous one.
	ErrZxidOrder = errors.New("persistence: zxids must increase strictly")

	// ErrBadTxn is wrapped by the error Append returns for an entry whose
	// data is not a txn with that zxid in its header.
	ErrBadTxn = errors.New("persistence: malformed txn")

	// ErrCorrupt is matched (errors.Is) by every CorruptionError and by
	// Pebble's own corruption errors as this package returns them.
	ErrCorrupt = errors.New("persistence: store is damaged")

	// ErrNoStore is wrapped by the error a ReadOnly open returns when the
	// store does not exist.
	ErrNoStore = errors.New("persistence: no store")

	// ErrSnapshotExists is returned by CreateSnapshot for a zxid that
	// already has a complete snapshot.
	ErrSnapshotExists = errors.New("persistence: a snapshot at this zxid exists")

	// ErrNoSnapshot is wrapped by the error ReadSnapshot and
	// DeleteSnapshot return for a zxid without a snapshot.
	ErrNoSnapshot = errors.New("persistence: no such snapshot")

	// ErrReadOnly is returned by every write to a store opened ReadOnly.
	ErrReadOnly = errors.New("persistence: store is open read-only")
)

// CorruptionError reports one damaged record of a store, precisely enough
// for an operator to know what is lost: the store, the snapshot or txn,
// the Pebble key and the check that failed.
type CorruptionError struct {
	// Store is the directory of the Pebble store.
	Store string
	// InSnapshot is set when the record belongs to a snapshot; Snapshot is
	// then that snapshot's zxid (0 is a valid snapshot zxid).
	InSnapshot bool
	Snapshot   int64
	// Zxid is the zxid of the damaged txn, from its key (0 when the
	// record is not a txn or the key itself is unreadable).
	Zxid int64
	// Key is the raw Pebble key of the damaged record.
	Key []byte
	// Reason says what check failed.
	Reason string
	// File and Offset locate damage found in a file rather than in a
	// record (a WAL that does not read back): File is its path.
	File   string
	Offset int64
}

func (e *CorruptionError) Error() string {
	where := ""
	if e.Store != "" {
		where = " in " + e.Store
	}
	switch {
	case e.File != "":
		return fmt.Sprintf("persistence: txn log file %s is damaged at offset %d, %s", e.File, e.Offset, e.Reason)
	case e.InSnapshot:
		return fmt.Sprintf("persistence: snapshot 0x%x%s is damaged: record %x: %s", e.Snapshot, where, e.Key, e.Reason)
	case e.Zxid != 0:
		return fmt.Sprintf("persistence: txn 0x%x%s is damaged: %s", e.Zxid, where, e.Reason)
	}
	return fmt.Sprintf("persistence: record %x%s is damaged: %s", e.Key, where, e.Reason)
}

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptionError) Is(target error) bool { return target == ErrCorrupt }

// pebbleError keeps a Pebble error's chain (errors.Is still finds its
// corruption marker) but says only its first line: Pebble joins to a
// corruption error a detail carrier meant for its own event listener,
// which would print as a second line, "<corruption detail carrier>".
type pebbleError struct{ err error }

func (e pebbleError) Error() string {
	msg, _, _ := strings.Cut(e.err.Error(), "\n")
	return msg
}

func (e pebbleError) Unwrap() error { return e.err }
