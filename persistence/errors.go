package persistence

import (
	"errors"
	"fmt"
)

var (
	// ErrClosed is returned by every method called after Close.
	ErrClosed = errors.New("persistence: txn log is closed")

	// ErrZxidOrder is wrapped by the error Append returns for a zxid that
	// does not increase strictly over the previous one.
	ErrZxidOrder = errors.New("persistence: zxids must increase strictly")

	// ErrBadTxn is wrapped by the error Append returns for an entry whose
	// data is not a txn with that zxid in its header.
	ErrBadTxn = errors.New("persistence: malformed txn")

	// ErrCorrupt is matched (errors.Is) by every CorruptionError.
	ErrCorrupt = errors.New("persistence: txn log is damaged")
)

// CorruptionError reports one damaged record of the store.
type CorruptionError struct {
	// Zxid is the zxid of the damaged txn, from its key. It is 0 when the
	// key itself is unreadable; Key then shows it.
	Zxid int64
	// Key is the raw Pebble key of the damaged record.
	Key []byte
	// Reason says what check failed.
	Reason string
}

func (e *CorruptionError) Error() string {
	if e.Zxid == 0 {
		return fmt.Sprintf("persistence: record with key %x is damaged: %s", e.Key, e.Reason)
	}
	return fmt.Sprintf("persistence: txn 0x%x is damaged: %s", e.Zxid, e.Reason)
}

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptionError) Is(target error) bool { return target == ErrCorrupt }
