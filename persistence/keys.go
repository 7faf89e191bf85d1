package persistence

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/cockroachdb/pebble/v2"
)

// Key prefixes. One byte each, so every kind of record owns one contiguous
// key range that a range delete or a bounded iterator can address.
const (
	metaPrefix     byte = 'm'
	snapshotPrefix byte = 's'
	txnPrefix      byte = 't'
)

// txnKeyLen is the prefix byte plus the big-endian zxid.
const txnKeyLen = 1 + 8

// checksumLen is the CRC32C stored in front of every txn.
const checksumLen = 4

// TxnHeader is {long clientId; int cxid; long zxid; long time; int type}:
// 32 bytes, with the zxid at offset 12.
const (
	txnHeaderLen        = 32
	txnHeaderZxidOffset = 12
)

// storeFormatVersion is written under formatKey when a store is created and
// checked on every open, so a future layout change is detected instead of
// misread.
const storeFormatVersion uint32 = 1

var (
	formatKey = []byte{metaPrefix, 'f', 'o', 'r', 'm', 'a', 't'}

	// purgedKey (txn log) holds TxnLog.PurgedBefore.
	purgedKey = []byte("mpurgedBefore")
	// acceptedEpochKey and currentEpochKey (snapshot store) hold
	// ZooKeeper's acceptedEpoch and currentEpoch.
	acceptedEpochKey = []byte("macceptedEpoch")
	currentEpochKey  = []byte("mcurrentEpoch")
	// liveWALKey (snapshot store) holds the number of the txn log's WAL
	// that an open began with a synced record (startWAL): that WAL may
	// not be found empty (see "Damaged and torn WALs").
	liveWALKey = []byte("mtxnLogWAL")

	// txnKeysStart and txnKeysEnd bound every txn key: [t, u).
	txnKeysStart = []byte{txnPrefix}
	txnKeysEnd   = []byte{txnPrefix + 1}
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// putTxnKey writes the key of zxid into dst, which must be txnKeyLen long.
// Zxids are positive (Append rejects others), so the unsigned big-endian
// encoding sorts like the numbers.
func putTxnKey(dst []byte, zxid int64) {
	dst[0] = txnPrefix
	binary.BigEndian.PutUint64(dst[1:], uint64(zxid))
}

func txnKey(zxid int64) []byte {
	k := make([]byte, txnKeyLen)
	putTxnKey(k, zxid)
	return k
}

// parseTxnKey returns the zxid of a txn key, false if k is not one.
func parseTxnKey(k []byte) (int64, bool) {
	if len(k) != txnKeyLen || k[0] != txnPrefix {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(k[1:])), true
}

// headerZxid reads the zxid field of an encoded TxnHeader.
func headerZxid(data []byte) int64 {
	return int64(binary.BigEndian.Uint64(data[txnHeaderZxidOffset:]))
}

func txnChecksum(data []byte) uint32 {
	return crc32.Checksum(data, castagnoli)
}

// An int64 meta value is the CRC32C of the 8 big-endian bytes that follow.
const int64MetaLen = checksumLen + 8

func int64MetaValue(v int64) []byte {
	b := make([]byte, int64MetaLen)
	binary.BigEndian.PutUint64(b[checksumLen:], uint64(v))
	binary.BigEndian.PutUint32(b, txnChecksum(b[checksumLen:]))
	return b
}

// readInt64Meta reads an int64 meta value, 0 when the key is absent.
func readInt64Meta(db *pebble.DB, dir string, key []byte) (int64, error) {
	v, ok, err := getInt64Meta(db, dir, key)
	if !ok {
		v = 0
	}
	return v, err
}

// getInt64Meta reads an int64 meta value and says whether it is there.
func getInt64Meta(db *pebble.DB, dir string, key []byte) (int64, bool, error) {
	v, closer, err := db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("persistence: reading %s from %s: %w", key[1:], dir, err)
	}
	defer closer.Close()
	if len(v) != int64MetaLen {
		return 0, false, &CorruptionError{Store: dir, Key: bytes.Clone(key), Reason: fmt.Sprintf("%s is %d bytes, want %d", key[1:], len(v), int64MetaLen)}
	}
	if stored, computed := binary.BigEndian.Uint32(v), txnChecksum(v[checksumLen:]); stored != computed {
		return 0, false, &CorruptionError{Store: dir, Key: bytes.Clone(key), Reason: fmt.Sprintf("%s: checksum mismatch: stored %08x, computed %08x", key[1:], stored, computed)}
	}
	return int64(binary.BigEndian.Uint64(v[checksumLen:])), true, nil
}
