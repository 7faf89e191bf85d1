package netio

import "encoding/binary"

// byteQueue is the inbound side of a transport as framing needs it. gnet's
// connection implements it; a bufio.Reader over a TLS connection can, with
// Buffered renamed.
type byteQueue interface {
	// InboundBuffered returns how many bytes can be peeked.
	InboundBuffered() int
	// Peek returns the next n bytes without consuming them; they stay
	// valid until Discard.
	Peek(n int) ([]byte, error)
	// Discard consumes n bytes.
	Discard(n int) (int, error)
}

// frameState says what the head of an inbound queue holds.
type frameState int

const (
	frameIncomplete frameState = iota // wait for more bytes
	frameComplete                     // a whole frame is buffered
	frameBadLength                    // the length is negative or too large
)

// frameLength is the header in front of every payload.
const frameLength = 4

// nextFrame looks at the head of q without consuming anything and reports
// whether a whole frame is there and its size including the header.
// A length is rejected as soon as its four bytes have arrived, before the
// payload: Java checks it in readLength.
func nextFrame(q byteQueue, maxFrame int) (size int, state frameState) {
	buffered := q.InboundBuffered()
	if buffered < frameLength {
		return 0, frameIncomplete
	}
	head, err := q.Peek(frameLength)
	if err != nil {
		return 0, frameIncomplete
	}
	n := int32(binary.BigEndian.Uint32(head))
	if n < 0 || int64(n) > int64(maxFrame) {
		return 0, frameBadLength
	}
	size = frameLength + int(n)
	if buffered < size {
		return size, frameIncomplete
	}
	return size, frameComplete
}

// appendFrameHeader appends the length prefix of a payload of n bytes.
func appendFrameHeader(b []byte, n int) []byte {
	return binary.BigEndian.AppendUint32(b, uint32(n))
}
