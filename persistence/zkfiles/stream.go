package zkfiles

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/adler32"
	"io"
	"path/filepath"
	"strings"

	"github.com/gozk/gozk/jute"
)

// Compression is SnapStream's StreamMode: how a snapshot's bytes are
// stored. Reading picks it from the last dot-suffix of the file name.
type Compression int

// Compression modes (zookeeper.snapshot.compression.method).
const (
	Checked Compression = iota // plain bytes (Java's CHECKED)
	Gzip                       // ".gz"
	Snappy                     // ".snappy"
)

// Suffix is the file-name suffix of c, "" for Checked.
func (c Compression) Suffix() string {
	switch c {
	case Gzip:
		return ".gz"
	case Snappy:
		return ".snappy"
	}
	return ""
}

func (c Compression) String() string {
	switch c {
	case Gzip:
		return "gz"
	case Snappy:
		return "snappy"
	}
	return "none"
}

// ParseCompression reads a zookeeper.snapshot.compression.method value:
// "gz", "snappy", or "" / anything else for none, as Java's
// StreamMode.fromString does.
func ParseCompression(s string) Compression {
	switch strings.ToLower(s) {
	case "gz":
		return Gzip
	case "snappy":
		return Snappy
	}
	return Checked
}

// CompressionOf is SnapStream.getStreamMode: the last dot-suffix of name.
func CompressionOf(name string) Compression {
	name = filepath.Base(name)
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return Checked
	}
	return ParseCompression(name[i+1:])
}

// Decompress wraps r, the bytes of a snapshot file, so that it yields the
// uncompressed stream.
func Decompress(r io.Reader, c Compression) (io.Reader, error) {
	switch c {
	case Gzip:
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("zkfiles: gzip snapshot: %w", err)
		}
		return zr, nil
	case Snappy:
		return NewXerialReader(r)
	}
	return r, nil
}

// Compress wraps w so that what is written to the result is stored with
// c; closing the result flushes it (without closing w).
func Compress(w io.Writer, c Compression) io.WriteCloser {
	switch c {
	case Gzip:
		return gzip.NewWriter(w)
	case Snappy:
		return NewXerialWriter(w)
	}
	return nopCloser{w}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// ErrTruncated is wrapped by decoding errors at an unexpected end of a
// stream.
var ErrTruncated = errors.New("zkfiles: unexpected end of stream")

// checkedReader reads jute values from a stream while keeping Java's
// CheckedInputStream Adler32 of every byte consumed.
type checkedReader struct {
	r     *bufio.Reader
	sum   hash.Hash32
	limit int
	off   int64
	jr    jute.Reader
	tmp   []byte
}

func newCheckedReader(r io.Reader, limit int) *checkedReader {
	return newCheckedBufReader(bufio.NewReaderSize(r, 64<<10), limit)
}

// newCheckedBufReader reads from br itself, so that what follows the
// decoded part stays in br for its owner.
func newCheckedBufReader(br *bufio.Reader, limit int) *checkedReader {
	if limit <= 0 {
		limit = jute.DefaultFieldLimit
	}
	return &checkedReader{r: br, sum: adler32.New(), limit: limit}
}

func (c *checkedReader) full(b []byte, field string) error {
	n, err := io.ReadFull(c.r, b)
	c.sum.Write(b[:n])
	c.off += int64(n)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%w reading %s at offset %d", ErrTruncated, field, c.off)
		}
		return fmt.Errorf("zkfiles: reading %s at offset %d: %w", field, c.off, err)
	}
	return nil
}

// atEOF reports whether the stream has no more bytes.
func (c *checkedReader) atEOF() bool {
	_, err := c.r.Peek(1)
	return err != nil
}

func (c *checkedReader) int(field string) (int32, error) {
	var b [4]byte
	if err := c.full(b[:], field); err != nil {
		return 0, err
	}
	return int32(binary.BigEndian.Uint32(b[:])), nil
}

func (c *checkedReader) long(field string) (int64, error) {
	var b [8]byte
	if err := c.full(b[:], field); err != nil {
		return 0, err
	}
	return int64(binary.BigEndian.Uint64(b[:])), nil
}

// buffer reads a length-prefixed buffer into new memory (nil for null).
func (c *checkedReader) buffer(field string) ([]byte, error) {
	n, err := c.int(field)
	if err != nil {
		return nil, err
	}
	switch {
	case n == -1:
		return nil, nil
	case n < -1:
		return nil, fmt.Errorf("zkfiles: %s at offset %d: negative length %d", field, c.off-4, n)
	case int(n) > c.limit:
		return nil, fmt.Errorf("zkfiles: %s at offset %d: unreasonable length %d (limit %d)", field, c.off-4, n, c.limit)
	}
	b := make([]byte, n)
	if err := c.full(b, field); err != nil {
		return nil, err
	}
	return b, nil
}

// str reads a length-prefixed string in Java's encoding; null is "".
func (c *checkedReader) str(field string) (string, error) {
	b, err := c.buffer(field)
	if err != nil || len(b) == 0 {
		return "", err
	}
	// Decode through jute so that Java's surrogate encoding of
	// supplementary characters is undone the same way everywhere.
	c.tmp = binary.BigEndian.AppendUint32(c.tmp[:0], uint32(len(b)))
	c.tmp = append(c.tmp, b...)
	c.jr.Reset(c.tmp)
	c.jr.SetLimit(len(b) + 1)
	s := c.jr.ReadString(field)
	return s, c.jr.Err()
}

// record reads a fixed-size record of n bytes and decodes it.
func (c *checkedReader) record(rec jute.Record, n int, field string) error {
	if cap(c.tmp) < n {
		c.tmp = make([]byte, n)
	}
	c.tmp = c.tmp[:n]
	if err := c.full(c.tmp, field); err != nil {
		return err
	}
	c.jr.Reset(c.tmp)
	rec.Decode(&c.jr)
	return c.jr.Err()
}

// checkedWriter writes jute values through a buffer while keeping the
// Adler32 of every byte written (none when sum is nil: a SNAP stream has
// no seal).
type checkedWriter struct {
	w   *bufio.Writer
	sum hash.Hash32
	jw  jute.Writer
	err error
}

func newCheckedWriter(w io.Writer) *checkedWriter {
	return &checkedWriter{w: bufio.NewWriterSize(w, 64<<10), sum: adler32.New()}
}

// put writes what jw holds and empties it.
func (c *checkedWriter) put() {
	b := c.jw.Bytes()
	if c.err == nil {
		if c.sum != nil {
			c.sum.Write(b)
		}
		_, c.err = c.w.Write(b)
	}
	c.jw.Reset()
}
