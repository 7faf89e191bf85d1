package zkfiles

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"os"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// Record is one record of a log file.
type Record struct {
	// Offset is where the record starts in the file.
	Offset int64
	// Checksum is the stored Adler32 (a long; Java compares all 64 bits).
	Checksum int64
	// Data is the txn entry: TxnHeader, record, optional TxnDigest.
	Data []byte
}

// Zxid returns the zxid of the record's TxnHeader (0 if too short).
func (r *Record) Zxid() int64 {
	if len(r.Data) < 20 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(r.Data[12:]))
}

// EndReason says why a log file's records ended.
type EndReason int

// Reasons a log file ends, as Java's FileTxnIterator sees them.
const (
	EndNone    EndReason = iota
	EndEOF               // the file ended (possibly inside a record)
	EndZero              // a zero length: the preallocated tail
	EndPartial           // a record without its 'B' marker
)

func (e EndReason) String() string {
	switch e {
	case EndEOF:
		return "end of file"
	case EndZero:
		return "zero padding"
	case EndPartial:
		return "partial record (no 'B' marker)"
	}
	return "not ended"
}

// ErrLogCorrupt is wrapped by the hard errors of a log file: a bad
// checksum, an impossible length.
var ErrLogCorrupt = errors.New("zkfiles: txn log is damaged")

// LogFileReader reads the records of one log file.
type LogFileReader struct {
	r      *bufio.Reader
	off    int64
	limit  int
	Header proto.FileHeader
	// End is why Next returned io.EOF.
	End EndReason
	// CheckCRC is on by default; the dump tool turns it off to report
	// damaged records instead of stopping at them.
	CheckCRC bool
}

// NewLogFileReader reads and checks the FileHeader. limit bounds a record
// (Java: jute.maxbuffer + extra + 512; <= 0 means the default).
func NewLogFileReader(r io.Reader, limit int) (*LogFileReader, error) {
	if limit <= 0 {
		limit = jute.DefaultFieldLimit + 512
	}
	lr := &LogFileReader{r: bufio.NewReaderSize(r, 64<<10), limit: limit, CheckCRC: true}
	var hb [16]byte
	if _, err := io.ReadFull(lr.r, hb[:]); err != nil {
		return nil, fmt.Errorf("zkfiles: reading the log header: %w", ErrTruncated)
	}
	lr.off = 16
	if err := jute.Unmarshal(hb[:], &lr.Header); err != nil {
		return nil, err
	}
	if lr.Header.Magic != LogMagic {
		return nil, fmt.Errorf("%w: log header has magic %#x, want %#x", ErrBadMagic, lr.Header.Magic, LogMagic)
	}
	return lr, nil
}

// Next returns the next record, io.EOF at the end of the file's records
// (End says why), or an error wrapping ErrLogCorrupt for damage Java
// refuses to read past.
func (lr *LogFileReader) Next() (Record, error) {
	if lr.End != EndNone {
		return Record{}, io.EOF
	}
	rec := Record{Offset: lr.off}
	var hb [12]byte
	if n, _ := io.ReadFull(lr.r, hb[:]); n < 12 {
		lr.off += int64(n)
		lr.End = EndEOF
		return Record{}, io.EOF
	}
	lr.off += 12
	rec.Checksum = int64(binary.BigEndian.Uint64(hb[:8]))
	length := int32(binary.BigEndian.Uint32(hb[8:]))
	switch {
	case length == 0:
		lr.End = EndZero
		return Record{}, io.EOF
	case length < 0 || int(length) > lr.limit:
		return Record{}, fmt.Errorf("%w: record at offset %d has length %d", ErrLogCorrupt, rec.Offset, length)
	}
	rec.Data = make([]byte, length)
	n, _ := io.ReadFull(lr.r, rec.Data)
	lr.off += int64(n)
	if n < int(length) {
		lr.End = EndEOF
		return Record{}, io.EOF
	}
	if lr.CheckCRC {
		if sum := int64(adler32.Checksum(rec.Data)); sum != rec.Checksum {
			return Record{}, fmt.Errorf("%w: CRC check failed for the record at offset %d (stored %#x, computed %#x)",
				ErrLogCorrupt, rec.Offset, rec.Checksum, sum)
		}
	}
	b, err := lr.r.ReadByte()
	if err != nil {
		lr.End = EndEOF
		return Record{}, io.EOF
	}
	lr.off++
	if b != 'B' {
		lr.End = EndPartial
		return Record{}, io.EOF
	}
	return rec, nil
}

// Offset is the position after the last byte read.
func (lr *LogFileReader) Offset() int64 { return lr.off }

// ReadLogFile calls fn for every record of one log file.
func ReadLogFile(path string, limit int, fn func(Record) error) (*LogFileReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lr, err := NewLogFileReader(f, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for {
		rec, err := lr.Next()
		if err == io.EOF {
			return lr, nil
		}
		if err != nil {
			return lr, fmt.Errorf("%s: %w", path, err)
		}
		if err := fn(rec); err != nil {
			return lr, err
		}
	}
}

// LogsFrom returns the log files FileTxnIterator(dir, zxid) opens: every
// file whose start zxid is >= zxid plus the newest one that starts below
// it, oldest first.
func LogsFrom(files []File, zxid int64) []File {
	start := -1
	for i, f := range files {
		if f.Zxid < zxid {
			start = i
		}
	}
	if start < 0 {
		start = 0
	}
	// Every file after start has a zxid >= zxid (files are sorted).
	return files[start:]
}

// ReadLogs replays the txns of the log directory dir with zxid >= from,
// in file order, as Java's restore does (fast-forward). fn gets each
// record with the file it came from.
func ReadLogs(dir string, from int64, limit int, fn func(file string, rec Record) error) error {
	files, err := ListLogs(dir)
	if err != nil {
		return err
	}
	for _, f := range LogsFrom(files, from) {
		_, err := ReadLogFile(f.Path, limit, func(rec Record) error {
			if rec.Zxid() < from {
				return nil
			}
			return fn(f.Path, rec)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// LastLoggedZxid is FileTxnLog.getLastLoggedZxid: the zxid of the last
// valid record of the newest log file, -1 without logs.
func LastLoggedZxid(dir string, limit int) (int64, error) {
	files, err := ListLogs(dir)
	if err != nil || len(files) == 0 {
		return -1, err
	}
	last := int64(-1)
	// Java iterates from the newest file's start zxid, which also reads
	// later files; there are none after the newest.
	_, err = ReadLogFile(files[len(files)-1].Path, limit, func(rec Record) error {
		last = rec.Zxid()
		return nil
	})
	return last, err
}

// DefaultPreAllocSize is zookeeper.preAllocSize's default, 64 MiB.
const DefaultPreAllocSize = 64 << 20

// LogWriter writes a log file the way FileTxnLog does: header, records,
// and a zero tail up to a multiple of the preallocation size.
type LogWriter struct {
	f        *os.File
	w        *bufio.Writer
	pos      int64
	size     int64
	prealloc int64
	count    int
}

// CreateLogFile creates path (which must not exist). preAlloc <= 0 means
// DefaultPreAllocSize.
func CreateLogFile(path string, preAlloc int64) (*LogWriter, error) {
	if preAlloc <= 0 {
		preAlloc = DefaultPreAllocSize
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	lw := &LogWriter{f: f, w: bufio.NewWriterSize(f, 64<<10), prealloc: preAlloc}
	h := proto.FileHeader{Magic: LogMagic, Version: FormatV2, Dbid: LogDBID}
	if _, err := lw.w.Write(jute.Marshal(&h)); err != nil {
		f.Close()
		return nil, err
	}
	// FileTxnLog sets the padding's current size to the header's end.
	lw.pos, lw.size = 16, 16
	return lw, nil
}

// Append writes one txn entry as a record.
func (lw *LogWriter) Append(data []byte) error {
	var hb [12]byte
	binary.BigEndian.PutUint64(hb[:8], uint64(adler32.Checksum(data)))
	binary.BigEndian.PutUint32(hb[8:], uint32(len(data)))
	// FilePadding.padFile runs before each record: grow when within 4 KiB
	// of the preallocated end.
	lw.pad()
	if _, err := lw.w.Write(hb[:]); err != nil {
		return err
	}
	if _, err := lw.w.Write(data); err != nil {
		return err
	}
	if err := lw.w.WriteByte('B'); err != nil {
		return err
	}
	lw.pos += int64(13 + len(data))
	lw.count++
	return nil
}

func (lw *LogWriter) pad() {
	if lw.pos+4096 < lw.size {
		return
	}
	if lw.pos > lw.size {
		lw.size = lw.pos + lw.prealloc
		lw.size -= lw.size % lw.prealloc
	} else {
		lw.size += lw.prealloc
	}
}

// Close flushes, extends the file with zeros to its preallocated size
// (sparse), fsyncs and closes it.
func (lw *LogWriter) Close() error {
	err := lw.w.Flush()
	if err == nil && lw.size > lw.pos {
		err = lw.f.Truncate(lw.size)
	}
	if err == nil {
		err = lw.f.Sync()
	}
	if cerr := lw.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Count is the number of records appended.
func (lw *LogWriter) Count() int { return lw.count }
