package persistence

import (
	"encoding/binary"
	"hash/crc32"
)

// Key prefixes. One byte each, so every kind of record owns one contiguous
// key range that a range delete or a bounded iterator can address.
const (
	metaPrefix     byte = 'm'
	snapshotPrefix byte = 's' // reserved: snapshots come in a later change
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
