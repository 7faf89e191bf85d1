package jute

import (
	"encoding/binary"
	"math"
)

// DefaultMaxBuffer is jute.maxbuffer's default: the largest frame Java
// accepts, 0xfffff bytes.
const DefaultMaxBuffer = 0xfffff

// DefaultFieldLimit is the largest buffer or string Java's reader accepts by
// default: jute.maxbuffer plus zookeeper.jute.maxbuffer.extrasize, which
// defaults to jute.maxbuffer.
const DefaultFieldLimit = 2 * DefaultMaxBuffer

// FieldLimit returns the buffer and string length limit Java derives from
// jute.maxbuffer and zookeeper.jute.maxbuffer.extrasize. Java never lets the
// extra allowance fall below 1024 bytes; extra < 0 means "not set", which
// makes it equal to maxBuffer.
func FieldLimit(maxBuffer, extra int) int {
	if extra < 0 {
		extra = maxBuffer
	}
	if extra < 1024 {
		extra = 1024
	}
	return maxBuffer + extra
}

// Reader decodes jute values from a byte slice. It never panics and never
// allocates more than the input can justify: every length is checked
// against the remaining bytes and against Limit first. The first failure is
// kept and every later read returns a zero value, so a decoder checks Err
// once at the end.
type Reader struct {
	buf   []byte
	off   int
	limit int
	err   error
}

// NewReader returns a Reader over b with the default field limit.
func NewReader(b []byte) *Reader {
	return &Reader{buf: b, limit: DefaultFieldLimit}
}

// Reset points the Reader at b, clears the error and keeps the limit (the
// default limit if none was set).
func (r *Reader) Reset(b []byte) {
	r.buf, r.off, r.err = b, 0, nil
	if r.limit == 0 {
		r.limit = DefaultFieldLimit
	}
}

// SetLimit sets the largest buffer or string length accepted; n <= 0
// restores the default (a negative limit would refuse even empty strings).
func (r *Reader) SetLimit(n int) {
	if n <= 0 {
		n = DefaultFieldLimit
	}
	r.limit = n
}

// Limit returns the largest buffer or string length accepted.
func (r *Reader) Limit() int {
	if r.limit == 0 {
		return DefaultFieldLimit
	}
	return r.limit
}

// Err returns the first error met, or nil.
func (r *Reader) Err() error { return r.err }

// Offset returns the number of bytes consumed.
func (r *Reader) Offset() int { return r.off }

// Remaining returns the number of bytes not yet consumed.
func (r *Reader) Remaining() int { return len(r.buf) - r.off }

// Rest returns the unconsumed bytes without copying.
func (r *Reader) Rest() []byte { return r.buf[r.off:] }

// Fail records err for field unless an error is already recorded.
func (r *Reader) Fail(field string, err error) {
	if r.err == nil {
		r.err = &DecodeError{Field: field, Offset: r.off, Err: err}
	}
}

func (r *Reader) fail(field string, err error, length, limit int64) {
	if r.err == nil {
		r.err = &DecodeError{Field: field, Offset: r.off, Length: length, Limit: limit, Err: err}
	}
}

// ExpectEnd records ErrTrailingBytes if any input is left.
func (r *Reader) ExpectEnd(field string) {
	if r.err == nil && r.off != len(r.buf) {
		r.fail(field, ErrTrailingBytes, int64(len(r.buf)-r.off), 0)
	}
}

// take returns the next n bytes, or nil after recording a truncation.
func (r *Reader) take(field string, n int) []byte {
	if r.err != nil {
		return nil
	}
	if len(r.buf)-r.off < n {
		r.fail(field, ErrTruncated, int64(n), int64(len(r.buf)-r.off))
		return nil
	}
	b := r.buf[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}

// ReadUint8 reads one byte (jute's byte).
func (r *Reader) ReadUint8(field string) byte {
	b := r.take(field, 1)
	if b == nil {
		return 0
	}
	return b[0]
}

// ReadBool reads a boolean; like Java, any non-zero byte is true.
func (r *Reader) ReadBool(field string) bool { return r.ReadUint8(field) != 0 }

// ReadInt reads a big-endian 32-bit integer.
func (r *Reader) ReadInt(field string) int32 {
	b := r.take(field, 4)
	if b == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(b))
}

// ReadLong reads a big-endian 64-bit integer.
func (r *Reader) ReadLong(field string) int64 {
	b := r.take(field, 8)
	if b == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

// ReadFloat reads an IEEE 754 single.
func (r *Reader) ReadFloat(field string) float32 {
	return math.Float32frombits(uint32(r.ReadInt(field)))
}

// ReadDouble reads an IEEE 754 double.
func (r *Reader) ReadDouble(field string) float64 {
	return math.Float64frombits(uint64(r.ReadLong(field)))
}

// readLength reads a buffer or string length and checks it. It returns -1
// for null and -2 after an error.
func (r *Reader) readLength(field string) int {
	start := r.off
	n := r.ReadInt(field)
	if r.err != nil {
		return -2
	}
	switch {
	case n == -1:
		return -1
	case n < -1:
		r.off = start
		r.fail(field, ErrNegativeLength, int64(n), 0)
		return -2
	case int(n) > r.Limit():
		r.off = start
		r.fail(field, ErrTooLarge, int64(n), int64(r.Limit()))
		return -2
	case int(n) > len(r.buf)-r.off:
		r.off = start
		r.fail(field, ErrTruncated, int64(n)+4, int64(len(r.buf)-start))
		return -2
	}
	return int(n)
}

// ReadBuffer reads a length-prefixed buffer into newly allocated memory;
// the null buffer is returned as nil and the empty one as a non-nil empty
// slice.
func (r *Reader) ReadBuffer(field string) []byte {
	b := r.ReadBufferNoCopy(field)
	if b == nil {
		return nil
	}
	out := make([]byte, len(b))
	copy(out, b)
	return out
}

// ReadBufferNoCopy is ReadBuffer without the copy: the result aliases the
// input and is only valid while the input is.
func (r *Reader) ReadBufferNoCopy(field string) []byte {
	n := r.readLength(field)
	if n < 0 {
		return nil
	}
	b := r.buf[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}

// ReadString reads a length-prefixed string in Java's encoding. The null
// string reads as "".
func (r *Reader) ReadString(field string) string {
	n := r.readLength(field)
	if n <= 0 {
		return ""
	}
	b := r.buf[r.off : r.off+n]
	r.off += n
	return decodeJavaString(b)
}

// ReadStringBytes reads a length-prefixed string and returns its raw bytes
// without copying or conversion (nil for the null string). The result
// aliases the input.
func (r *Reader) ReadStringBytes(field string) []byte { return r.ReadBufferNoCopy(field) }

// ReadVectorLen reads a vector's element count. minElemSize is the fewest
// bytes one element can take; counts the remaining input cannot hold are
// rejected before the caller allocates. null is true for the null vector
// (count -1).
func (r *Reader) ReadVectorLen(field string, minElemSize int) (n int, null bool) {
	start := r.off
	c := r.ReadInt(field)
	if r.err != nil {
		return 0, false
	}
	if c == -1 {
		return 0, true
	}
	if c < -1 {
		r.off = start
		r.fail(field, ErrNegativeLength, int64(c), 0)
		return 0, false
	}
	if minElemSize < 1 {
		minElemSize = 1
	}
	if int64(c)*int64(minElemSize) > int64(len(r.buf)-r.off) {
		r.off = start
		r.fail(field, ErrTruncated, int64(c)*int64(minElemSize)+4, int64(len(r.buf)-start))
		return 0, false
	}
	return int(c), false
}
