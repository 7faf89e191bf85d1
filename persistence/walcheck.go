package persistence

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/rs/zerolog"
)

// The WAL check. Pebble replays the newest WAL up to its first chunk that
// does not read back, and calls everything from there on a torn tail
// unless a later chunk's sync offset proves the bad one was synced. Its
// read-ahead starts at the next 32 KiB block, so damage in the last block
// (where a small log keeps everything) cuts the log silently, and so do a
// WAL emptied or zero-filled. checkWAL reads each WAL Pebble is about to
// replay and accepts an unreadable tail only when it looks like what a
// crash in the middle of a write leaves; anything else stops Open with an
// error naming the file and offset. See "Damaged and torn WALs" in the
// package comment for the reasoning.

// Pebble's WAL format (pebble/record): 32 KiB blocks of chunks, each
// chunk a header and a payload that never crosses a block.
const (
	walBlockSize        = 32 << 10
	walLegacyHeader     = 7  // CRC (4), length (2), type (1)
	walRecyclableHeader = 11 // + log number (4)
	walSyncHeader       = 19 // + sync offset (8)
	// walSector is the unit a torn write loses: the device writes a
	// sector entirely or not at all.
	walSector = 512
)

// Chunk types: full, first, middle, last in the legacy (1-4), recyclable
// (5-8) and WAL sync (9-12) wire formats.
const (
	chunkFull = iota + 1
	chunkFirst
	chunkMiddle
	chunkLast
)

// walChunkCRC is Pebble's masked CRC32C of a chunk (type byte onwards).
func walChunkCRC(b []byte) uint32 {
	c := crc32.Update(0, castagnoli, b)
	return (c>>15 | c<<17) + 0xa282ead8
}

// walChunk is a chunk header as read at some offset.
type walChunk struct {
	header   int    // header size, 0 if the type byte is not a chunk type
	position int    // chunkFull..chunkLast
	length   int    // payload length
	logNum   uint32 // recyclable and sync formats
	syncOff  uint64 // sync format only: the WAL was synced up to here when the chunk was written
	crc      uint32
}

func readChunkHeader(b []byte) (walChunk, bool) {
	if len(b) < walLegacyHeader {
		return walChunk{}, false
	}
	c := walChunk{crc: binary.LittleEndian.Uint32(b), length: int(binary.LittleEndian.Uint16(b[4:]))}
	typ := int(b[6])
	switch {
	case typ >= 1 && typ <= 4:
		c.header, c.position = walLegacyHeader, typ
	case typ >= 5 && typ <= 8:
		c.header, c.position = walRecyclableHeader, typ-4
	case typ >= 9 && typ <= 12:
		c.header, c.position = walSyncHeader, typ-8
	default:
		return c, false
	}
	if len(b) < c.header {
		return c, false
	}
	if c.header >= walRecyclableHeader {
		c.logNum = binary.LittleEndian.Uint32(b[7:])
	}
	if c.header == walSyncHeader {
		c.syncOff = binary.LittleEndian.Uint64(b[11:])
	}
	return c, true
}

// validChunkAt reports whether a chunk of log logNum that reads back
// intact starts at off (it must fit in its block).
func validChunkAt(wal []byte, off int, logNum uint32) (walChunk, bool) {
	blockEnd := min((off/walBlockSize+1)*walBlockSize, len(wal))
	c, ok := readChunkHeader(wal[off:blockEnd])
	if !ok || c.header == walLegacyHeader || c.logNum != logNum {
		return c, false
	}
	end := off + c.header + c.length
	if end > blockEnd {
		return c, false
	}
	return c, walChunkCRC(wal[off+6:end]) == c.crc
}

// walScan is what checkWAL found in one WAL.
type walScan struct {
	records   int   // complete records that read back
	lastStart int   // offset of the last of them
	end       int   // offset just after it
	lastTxn   int64 // highest txn zxid in them, 0 if none
	// lastTxnRecord is the offset and end of the last record with txns.
	lastTxnRecord [2]int
	// stop is why reading stopped before the end of the file ("" when
	// the records ran into the file's end or its zeros) and stopAt where.
	stop   string
	stopAt int
	// trailer is set when the WAL ends with the EOF trailer Pebble
	// writes when it switches to a new WAL.
	trailer bool
	// zeroAt is where the records ran into zeros (-1: they did not).
	zeroAt int
}

// scanWAL reads the records of the WAL with number logNum.
func scanWAL(wal []byte, logNum uint32) walScan {
	s := walScan{zeroAt: -1}
	var record []byte
	inRecord := false
	recordStart := 0
	off := 0
	for off < len(wal) {
		blockEnd := min((off/walBlockSize+1)*walBlockSize, len(wal))
		rest := wal[off:blockEnd]
		if len(rest) < walLegacyHeader {
			off = blockEnd // the writer pads a block's last bytes with zeros
			continue
		}
		if allZero(rest[:walLegacyHeader]) {
			// A zeroed header: the end of the records, or the padding
			// of a block too short for another header.
			if len(rest) < walSyncHeader && allZero(rest) {
				off = blockEnd
				continue
			}
			if inRecord {
				s.stop, s.stopAt = "the record is cut short", off
			}
			s.zeroAt = off
			return s
		}
		c, ok := readChunkHeader(rest)
		if !ok {
			s.stop, s.stopAt = "chunk header is invalid", off
			return s
		}
		if c.header > walLegacyHeader && c.logNum != logNum {
			if isEOFTrailer(rest, logNum) && !inRecord {
				s.trailer = true
				return s
			}
			if _, intact := validChunkAt(wal, off, c.logNum); !intact {
				s.stop, s.stopAt = "chunk checksum mismatch", off
				return s
			}
			// An intact chunk of an older log: the rest of a file
			// Pebble recycled (an older gozk let it; see sizedWALFS).
			if inRecord {
				s.stop, s.stopAt = "the record is cut short", off
			}
			return s
		}
		end := off + c.header + c.length
		if end > blockEnd {
			s.stop, s.stopAt = "chunk runs past its block", off
			return s
		}
		if walChunkCRC(wal[off+6:end]) != c.crc {
			s.stop, s.stopAt = "chunk checksum mismatch", off
			return s
		}
		payload := wal[off+c.header : end]
		switch c.position {
		case chunkFull:
			record, recordStart = append(record[:0], payload...), off
		case chunkFirst:
			record, inRecord, recordStart = append(record[:0], payload...), true, off
		case chunkMiddle, chunkLast:
			if !inRecord {
				s.stop, s.stopAt = "chunk continues no record", off
				return s
			}
			record = append(record, payload...)
		}
		if c.position == chunkFull || c.position == chunkLast {
			inRecord = false
			s.records++
			s.lastStart, s.end = recordStart, end
			if z := lastTxnInBatch(record); z > 0 {
				s.lastTxn = max(s.lastTxn, z)
				s.lastTxnRecord = [2]int{recordStart, end}
			}
		}
		off = end
	}
	if inRecord {
		s.stop, s.stopAt = "the record is cut short", len(wal)
	}
	return s
}

// lastTxnInBatch returns the highest txn zxid set by a Pebble batch (a
// WAL record), 0 if none can be read.
func lastTxnInBatch(b []byte) int64 {
	const batchHeader = 12 // sequence number (8), count (4)
	if len(b) < batchHeader {
		return 0
	}
	var last int64
	p := b[batchHeader:]
	for len(p) > 0 {
		kind := p[0]
		p = p[1:]
		key, rest, ok := uvarintBytes(p)
		if !ok {
			return last
		}
		p = rest
		switch kind {
		case 0, 3, 7: // delete, log data, single delete: no value
		case 1, 2, 15: // set, merge, range delete: a value
			if _, p, ok = uvarintBytes(p); !ok {
				return last
			}
		default:
			return last
		}
		if kind == 1 {
			if z, ok := parseTxnKey(key); ok && z > last {
				last = z
			}
		}
	}
	return last
}

func uvarintBytes(p []byte) ([]byte, []byte, bool) {
	n, w := binary.Uvarint(p)
	if w <= 0 || uint64(len(p)-w) < n {
		return nil, nil, false
	}
	return p[w : w+int(n)], p[w+int(n):], true
}

// isEOFTrailer reports whether b starts with the trailer Pebble ends a
// WAL with when it switches to the next: a recyclable header with no
// checksum, no payload and the next log's number.
func isEOFTrailer(b []byte, logNum uint32) bool {
	return len(b) >= walRecyclableHeader && binary.LittleEndian.Uint32(b) == 0 &&
		binary.LittleEndian.Uint16(b[4:]) == 0 && b[6] == 5 &&
		binary.LittleEndian.Uint32(b[7:]) == logNum+1
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// checkWAL decides whether the WAL in file name (number logNum, newest
// tells whether it is the live one, mustHoldRecords whether it is known to
// have held a synced record) may be replayed as Pebble will: nil when
// every record reads back, a *tornTail when the last write was cut short
// by a crash (Pebble drops it, and so nothing acknowledged), and a
// CorruptionError naming the file and offset when a record that was made
// durable does not read back.
func checkWAL(name string, wal []byte, logNum uint32, newest, mustHoldRecords bool) error {
	s := scanWAL(wal, logNum)
	damaged := func(at int, format string, args ...any) error {
		after := "its first record"
		if s.lastTxn > 0 {
			after = fmt.Sprintf("the record after txn 0x%x", s.lastTxn)
		} else if s.records > 0 {
			after = fmt.Sprintf("the record after %d intact ones", s.records)
		}
		return &CorruptionError{Store: filepath.Dir(name), File: name, Offset: int64(at),
			Reason: fmt.Sprintf("%s: %s", after, fmt.Sprintf(format, args...))}
	}
	if s.stop == "" && s.zeroAt >= 0 {
		// Zeros where a record that was synced should be.
		if p, c, ok := syncedPast(wal, s.zeroAt, logNum); ok {
			return damaged(s.zeroAt, "zeros where records were, and the chunk at offset %d says the log was synced up to offset %d", p, c.syncOff)
		}
	}
	if s.stop == "" {
		switch {
		case s.records == 0 && mustHoldRecords:
			return damaged(0, "it is %d bytes with no record, but it held records that were synced", len(wal))
		case s.records == 0 && len(wal) > 0 && allZero(wal):
			// Pebble sizes a WAL (and sizedWALFS sets its length) only
			// when writing to it: zeros alone are what is left of
			// records that were there.
			return damaged(0, "it is %d bytes of zeros: the records written to it are gone", len(wal))
		case !newest && !s.trailer:
			return damaged(s.end, "it ends without the trailer Pebble writes when it closes a WAL, so records after this point are lost")
		}
		return nil
	}
	at := s.stopAt
	// A later chunk that reads back and says the WAL was synced past the
	// bad one proves that one was complete and durable: damage, wherever
	// it is (Pebble's rule, applied within the block as well).
	if p, c, ok := syncedPast(wal, at, logNum); ok {
		return damaged(at, "%s, and the chunk at offset %d says the log was synced up to offset %d", s.stop, p, c.syncOff)
	}
	if !newest {
		return damaged(at, "%s in a WAL that was closed", s.stop)
	}
	if s.records == 0 && mustHoldRecords {
		return damaged(at, "%s, and no record before it reads back, but the WAL held records that were synced", s.stop)
	}
	if torn, why := looksTorn(wal, at, logNum); !torn {
		return damaged(at, "%s; %s", s.stop, why)
	}
	return &tornTail{at: at, lastTxn: s.lastTxn, reason: s.stop}
}

// tornTail is checkWAL's answer for a WAL whose last write was cut short
// by a crash: not damage, but worth a line in the log.
type tornTail struct {
	at      int
	lastTxn int64
	reason  string
}

func (t *tornTail) Error() string {
	return fmt.Sprintf("torn write at offset %d after txn 0x%x: %s", t.at, t.lastTxn, t.reason)
}

// syncedPast finds a chunk of log logNum after offset at that reads back
// and says the WAL was synced past at.
func syncedPast(wal []byte, at int, logNum uint32) (int, walChunk, bool) {
	for p := at + 1; p+walSyncHeader <= len(wal); p++ {
		if wal[p+6] < 9 || wal[p+6] > 12 {
			continue // not a WAL sync chunk (zeros, mostly)
		}
		if c, ok := validChunkAt(wal, p, logNum); ok && c.header == walSyncHeader && c.syncOff > uint64(at) {
			return p, c, true
		}
	}
	return 0, walChunk{}, false
}

// looksTorn reports whether the unreadable chunk at off, the last thing
// in the newest WAL, looks like a write the process or machine crashed in
// the middle of: a record is written after the zeros Pebble and
// sizedWALFS preallocate, so sectors the crash kept from the disk read as
// zeros, and the bytes of the chunk from some sector boundary on are then
// zero or missing (the file ends). A chunk whose bytes are all there
// (a flipped byte, a damaged header) was written whole, and its write was
// synced before the next batch, so it was acknowledged: damage. why says
// what made the chunk look whole.
func looksTorn(wal []byte, off int, logNum uint32) (bool, string) {
	blockEnd := min((off/walBlockSize+1)*walBlockSize, len(wal))
	if allZero(wal[off:min(off+walLegacyHeader, blockEnd)]) {
		return true, "" // a chunk of a record that never reached the disk
	}
	if recycledRemains(wal, off, logNum) {
		return true, ""
	}
	end := blockEnd
	if c, ok := readChunkHeader(wal[off:blockEnd]); ok && (c.header == walLegacyHeader || c.logNum == logNum) {
		end = off + c.header + c.length
		if end > len(wal) {
			return true, "" // the file ends inside the chunk
		}
		if end > blockEnd {
			return false, fmt.Sprintf("its header gives a length of %d bytes, past the end of its block", c.length)
		}
	} else if ok {
		// Another log's number in a header of this log's size: either
		// damage in the header or the remains of a recycled file.
		return false, fmt.Sprintf("its header carries log number %d, not %d", c.logNum, logNum)
	} else {
		// The header does not decode: torn only if its own bytes end in
		// zeros from a sector boundary on.
		end = min(off+walSyncHeader, blockEnd)
	}
	// The chunk is torn if, from some sector boundary inside it, its
	// bytes are all zero.
	firstBoundary := (off/walSector + 1) * walSector
	for b := firstBoundary; b < end; b += walSector {
		if allZero(wal[b:end]) {
			return true, ""
		}
	}
	return false, "every sector of the chunk was written, so the record was complete"
}

// recycledRemains reports whether the file holds, after off, intact
// chunks of an older log and none of logNum: a WAL file Pebble recycled,
// whose unwritten part holds the old log's bytes, not zeros. A torn write
// there leaves old bytes where sectors were lost, so the zero test of
// looksTorn cannot tell; such a tail is taken for torn. gozk no longer
// recycles WAL files (sizedWALFS), so only stores written before meet this.
func recycledRemains(wal []byte, off int, logNum uint32) bool {
	older := false
	for p := off + 1; p+walRecyclableHeader <= len(wal); p++ {
		c, ok := readChunkHeader(wal[p:min((p/walBlockSize+1)*walBlockSize, len(wal))])
		if !ok || c.header == walLegacyHeader {
			continue
		}
		if _, intact := validChunkAt(wal, p, c.logNum); !intact {
			continue
		}
		if c.logNum == logNum {
			return false
		}
		if c.logNum < logNum {
			older = true
		}
	}
	return older
}

// walCheckFS is the file system under the txn log's Pebble store while it
// opens: each WAL Pebble opens to replay is first checked by checkWAL,
// and damage fails the open.
type walCheckFS struct {
	vfs.FS
	dir string
	log zerolog.Logger
	// mustHoldRecords is the number of a WAL that is known to have held
	// a synced record (0: none known).
	mustHoldRecords uint64

	mu      sync.Mutex
	checked map[string]bool
}

func (fs *walCheckFS) Unwrap() vfs.FS { return fs.FS }

func (fs *walCheckFS) Open(name string, opts ...vfs.OpenOption) (vfs.File, error) {
	if num, ok := walNumber(name); ok && filepath.Dir(name) == filepath.Clean(fs.dir) {
		if err := fs.check(name, num); err != nil {
			return nil, err
		}
	}
	return fs.FS.Open(name, opts...)
}

func (fs *walCheckFS) check(name string, num uint64) error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.checked[name] {
		return nil
	}
	names, err := fs.FS.List(fs.dir)
	if err != nil {
		return err
	}
	newest := true
	for _, n := range names {
		if other, ok := walNumber(n); ok && other > num {
			newest = false
		}
	}
	f, err := fs.FS.Open(name)
	if err != nil {
		return err
	}
	wal, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("persistence: reading WAL %s: %w", name, err)
	}
	if err := checkWAL(name, wal, uint32(num), newest, num == fs.mustHoldRecords); err != nil {
		var torn *tornTail
		if !errors.As(err, &torn) {
			return err
		}
		// Pebble drops it too; the txn whose write was cut short was
		// never acknowledged.
		fs.log.Warn().Str("file", name).Int("offset", torn.at).Str("lastZxid", fmt.Sprintf("0x%x", torn.lastTxn)).
			Str("reason", torn.reason).Msg("the txn log WAL ends with a write cut short by a crash; replaying up to it")
	}
	if fs.checked == nil {
		fs.checked = map[string]bool{}
	}
	fs.checked[name] = true
	return nil
}

// walNumber parses the number of a WAL file name (000123.log).
func walNumber(name string) (uint64, bool) {
	base := filepath.Base(name)
	digits, ok := strings.CutSuffix(base, ".log")
	if !ok || digits == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	return n, err == nil
}

// walCheckError digs checkWAL's CorruptionError out of the error Pebble
// wraps it in.
func walCheckError(err error) (*CorruptionError, bool) {
	var ce *CorruptionError
	if errors.As(err, &ce) {
		return ce, true
	}
	return nil, false
}

// startWAL makes the first record of the WAL a writable open of the txn
// log begins with a synced one (walStartRecord),
// so that this WAL is never legitimately empty once OpenStore records its
// number in the snapshot store, and returns the number.
func startWAL(db *pebble.DB, fs vfs.FS, storeDir string) (uint64, error) {
	names, err := fs.List(storeDir)
	if err != nil {
		return 0, fmt.Errorf("persistence: listing %s: %w", storeDir, err)
	}
	// The live WAL is the newest: the others are older ones Pebble has
	// not deleted yet.
	var live uint64
	for _, n := range names {
		if num, ok := walNumber(n); ok && num > live {
			live = num
		}
	}
	if live == 0 {
		return 0, nil
	}
	// LogData: a record in the WAL that changes no key, so it adds
	// nothing to the tables (a key rewritten at each start would make
	// every flush overlap the previous one's table).
	if err := db.LogData(walStartRecord(live), pebble.Sync); err != nil {
		return 0, fmt.Errorf("persistence: writing to the txn log %s: %w", storeDir, err)
	}
	return live, nil
}

// walStartRecord is the content of the record startWAL writes: a name and
// the WAL's number, for a person reading the WAL.
func walStartRecord(wal uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte("gozk WAL start "), wal)
}

// sealWAL ends the live WAL of a log being closed with a synced record:
// its sync offset proves every record before it complete, so that damage
// to the last batch is told from a torn write at the next open (see
// checkWAL). Without it the last batch is the tail, where zeros look torn.
// Close calls it once every append is done, holding writeMu; a log that
// failed is not sealed (the write would reach Pebble's broken commit
// path, see walfault.go).
func (l *TxnLog) sealWAL() error {
	if l.readOnly || l.liveWAL == 0 || l.wal.failure() != nil {
		return nil
	}
	l.failMu.Lock()
	failed := l.failed
	l.failMu.Unlock()
	if failed != nil {
		return nil
	}
	return l.db.LogData(walEndRecord, pebble.Sync)
}

// walEndRecord is the content of the record sealWAL writes.
var walEndRecord = []byte("gozk WAL end")
