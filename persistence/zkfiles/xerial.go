package zkfiles

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/golang/snappy"
)

// snappy-java's SnappyOutputStream framing (org.xerial.snappy, 1.1.8, the
// version Debian ships with ZooKeeper 3.8.0):
//
//	header  = 82 'S' 'N' 'A' 'P' 'P' 'Y' 00, int version (1), int min compatible version (1)
//	repeat  : int compressedLength (big endian), compressedLength bytes of a raw snappy block
//
// The writer compresses at most 32 KiB of input per block and writes the
// header even for an empty stream. SnappyInputStream ends the stream when
// fewer than 4 bytes of a length remain, accepts another full header
// where a length is expected (concatenated streams), and fails on a short
// block or a block that does not decompress.
var xerialMagic = [8]byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

const (
	xerialHeaderLen = 16
	xerialBlockSize = 32 << 10
	// xerialMaxBlock bounds one compressed block we accept: snappy-java
	// never writes more than MaxEncodedLen of a 32 KiB block; allow any
	// block size up to 4 MiB that a differently configured writer might use.
	xerialMaxBlock = 4 << 20
)

// ErrNotSnappy is returned for a .snappy stream without snappy-java's
// header.
var ErrNotSnappy = errors.New("zkfiles: not a snappy-java stream (bad magic)")

// xerialReader decodes a SnappyOutputStream stream.
type xerialReader struct {
	r    io.Reader
	comp []byte
	buf  []byte // decompressed bytes not yet returned
	err  error
}

// NewXerialReader returns a reader of the uncompressed bytes of a stream
// written by snappy-java's SnappyOutputStream. The header is checked
// first.
func NewXerialReader(r io.Reader) (io.Reader, error) {
	var hdr [xerialHeaderLen]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, ErrNotSnappy
		}
		return nil, err
	}
	if !bytes.Equal(hdr[:8], xerialMagic[:]) {
		return nil, ErrNotSnappy
	}
	return &xerialReader{r: r}, nil
}

func (x *xerialReader) Read(p []byte) (int, error) {
	for len(x.buf) == 0 {
		if x.err != nil {
			return 0, x.err
		}
		x.err = x.nextBlock()
	}
	n := copy(p, x.buf)
	x.buf = x.buf[n:]
	return n, nil
}

func (x *xerialReader) nextBlock() error {
	var lenb [4]byte
	n, err := io.ReadFull(x.r, lenb[:])
	if n < 4 {
		if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return io.EOF
		}
		return err
	}
	if bytes.Equal(lenb[:], xerialMagic[:4]) {
		// A concatenated stream: the rest of a header follows.
		var rest [xerialHeaderLen - 4]byte
		if _, err := io.ReadFull(x.r, rest[:]); err != nil {
			return fmt.Errorf("zkfiles: snappy stream: short header of a concatenated stream: %w", io.ErrUnexpectedEOF)
		}
		if !bytes.Equal(rest[:4], xerialMagic[4:]) {
			return io.EOF // Java's isValidHeader is false: end of data
		}
		if v := int32(binary.BigEndian.Uint32(rest[4:])); v < 1 {
			return fmt.Errorf("zkfiles: snappy stream: incompatible codec version %d", v)
		}
		return nil
	}
	size := int32(binary.BigEndian.Uint32(lenb[:]))
	if size < 0 || size > xerialMaxBlock {
		return fmt.Errorf("zkfiles: snappy stream: bad block length %d", size)
	}
	if cap(x.comp) < int(size) {
		x.comp = make([]byte, size)
	}
	x.comp = x.comp[:size]
	if _, err := io.ReadFull(x.r, x.comp); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("zkfiles: snappy stream: failed to read chunk: %w", io.ErrUnexpectedEOF)
		}
		return err
	}
	dlen, err := snappy.DecodedLen(x.comp)
	if err != nil || dlen > xerialMaxBlock {
		return fmt.Errorf("zkfiles: snappy stream: corrupt block of %d bytes", size)
	}
	out, err := snappy.Decode(make([]byte, dlen), x.comp)
	if err != nil {
		return fmt.Errorf("zkfiles: snappy stream: corrupt block of %d bytes: %w", size, err)
	}
	x.buf = out
	return nil
}

// xerialWriter writes SnappyOutputStream's framing with its 32 KiB blocks.
type xerialWriter struct {
	w      io.Writer
	in     []byte
	out    []byte
	header bool
}

// NewXerialWriter returns a writer that compresses into snappy-java's
// stream format; Close flushes the last block (and the header, for an
// empty stream) but does not close w.
func NewXerialWriter(w io.Writer) io.WriteCloser {
	return &xerialWriter{w: w, in: make([]byte, 0, xerialBlockSize)}
}

func (x *xerialWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(len(p), xerialBlockSize-len(x.in))
		x.in = append(x.in, p[:k]...)
		p, n = p[k:], n+k
		if len(x.in) == xerialBlockSize {
			if err := x.flushBlock(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

func (x *xerialWriter) flushBlock() error {
	x.out = x.out[:0]
	if !x.header {
		x.out = append(x.out, xerialMagic[:]...)
		x.out = binary.BigEndian.AppendUint32(x.out, 1)
		x.out = binary.BigEndian.AppendUint32(x.out, 1)
		x.header = true
	}
	if len(x.in) > 0 {
		enc := snappy.Encode(nil, x.in)
		x.out = binary.BigEndian.AppendUint32(x.out, uint32(len(enc)))
		x.out = append(x.out, enc...)
		x.in = x.in[:0]
	}
	if len(x.out) == 0 {
		return nil
	}
	_, err := x.w.Write(x.out)
	return err
}

func (x *xerialWriter) Close() error { return x.flushBlock() }
