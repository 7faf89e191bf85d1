package jute

import (
	"encoding/binary"
	"math"
)

// Writer appends jute encodings to a byte slice. The zero value is ready to
// use; Reset keeps the capacity so a Writer can be reused without
// allocating.
type Writer struct {
	buf []byte
}

// NewWriter returns a Writer that appends to buf (which may be nil).
func NewWriter(buf []byte) *Writer { return &Writer{buf: buf} }

// Bytes returns the bytes written so far. They stay valid until the next
// write or Reset.
func (w *Writer) Bytes() []byte { return w.buf }

// Len returns the number of bytes written so far.
func (w *Writer) Len() int { return len(w.buf) }

// Reset discards the contents and keeps the capacity.
func (w *Writer) Reset() { w.buf = w.buf[:0] }

// Truncate drops everything after the first n bytes.
func (w *Writer) Truncate(n int) { w.buf = w.buf[:n] }

// Grow makes room for n more bytes without another allocation.
func (w *Writer) Grow(n int) {
	if cap(w.buf)-len(w.buf) < n {
		nb := make([]byte, len(w.buf), 2*cap(w.buf)+n)
		copy(nb, w.buf)
		w.buf = nb
	}
}

// WriteRaw appends bytes without a length prefix.
func (w *Writer) WriteRaw(b []byte) { w.buf = append(w.buf, b...) }

// WriteByte appends one byte. It never fails; the error result only
// satisfies io.ByteWriter.
func (w *Writer) WriteByte(v byte) error {
	w.buf = append(w.buf, v)
	return nil
}

// WriteBool appends 0x01 for true and 0x00 for false, as Java does.
func (w *Writer) WriteBool(v bool) {
	if v {
		w.buf = append(w.buf, 1)
	} else {
		w.buf = append(w.buf, 0)
	}
}

// WriteInt appends a big-endian 32-bit integer.
func (w *Writer) WriteInt(v int32) { w.buf = binary.BigEndian.AppendUint32(w.buf, uint32(v)) }

// WriteLong appends a big-endian 64-bit integer.
func (w *Writer) WriteLong(v int64) { w.buf = binary.BigEndian.AppendUint64(w.buf, uint64(v)) }

// WriteFloat appends an IEEE 754 single in big-endian order.
func (w *Writer) WriteFloat(v float32) {
	w.buf = binary.BigEndian.AppendUint32(w.buf, math.Float32bits(v))
}

// WriteDouble appends an IEEE 754 double in big-endian order.
func (w *Writer) WriteDouble(v float64) {
	w.buf = binary.BigEndian.AppendUint64(w.buf, math.Float64bits(v))
}

// WriteBuffer appends a length-prefixed buffer; nil is written as the null
// buffer (length -1), an empty non-nil slice as length 0.
func (w *Writer) WriteBuffer(b []byte) {
	if b == nil {
		w.WriteInt(-1)
		return
	}
	w.WriteInt(int32(len(b)))
	w.buf = append(w.buf, b...)
}

// WriteString appends a length-prefixed string in Java's encoding (see the
// package comment).
func (w *Writer) WriteString(s string) {
	if !hasFourByteSequence(s) {
		w.WriteInt(int32(len(s)))
		w.buf = append(w.buf, s...)
		return
	}
	at := len(w.buf)
	w.WriteInt(0)
	w.buf = appendJavaString(w.buf, s)
	binary.BigEndian.PutUint32(w.buf[at:], uint32(len(w.buf)-at-4))
}

// WriteVectorHeader appends the element count n of a vector, or -1 for
// the null vector when null is true.
func (w *Writer) WriteVectorHeader(n int, null bool) {
	if null {
		w.WriteInt(-1)
		return
	}
	w.WriteInt(int32(n))
}

// BeginLength reserves four bytes for a length prefix and returns their
// position; EndLength fills them with the number of bytes written since.
// Frames use this to avoid encoding twice.
func (w *Writer) BeginLength() int {
	at := len(w.buf)
	w.buf = append(w.buf, 0, 0, 0, 0)
	return at
}

// EndLength completes a length prefix reserved by BeginLength.
func (w *Writer) EndLength(at int) {
	binary.BigEndian.PutUint32(w.buf[at:], uint32(len(w.buf)-at-4))
}
