package quorumauth

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// Magic starts every QuorumAuthPacket, so that a server can tell an
// authentication attempt from the election frame or quorum packet a peer
// that does not authenticate sends first. Java writes it as
// -0xa0dbcafecafe1234L, a negated negative literal: it is positive.
const Magic int64 = 0x5f2435013501edcc

// Status is a QuorumAuthPacket's status (Java's QuorumAuth.Status).
type Status int32

const (
	InProgress Status = 0
	Success    Status = 1
	Error      Status = -1
)

func (s Status) String() string {
	switch s {
	case InProgress:
		return "IN_PROGRESS"
	case Success:
		return "SUCCESS"
	case Error:
		return "ERROR"
	}
	return fmt.Sprintf("UNKNOWN(%d)", int32(s))
}

// ErrMalformed is wrapped by every error about a packet a peer sent.
var ErrMalformed = errors.New("quorumauth: malformed packet")

// AppendPacket appends the packet (status, token) to dst. A nil token is
// jute's null buffer, as Java sends when a mechanism has nothing to say.
func AppendPacket(dst []byte, s Status, token []byte) []byte {
	w := jute.NewWriter(dst)
	p := proto.QuorumAuthPacket{Magic: Magic, Status: int32(s), Token: token}
	p.Encode(w)
	return w.Bytes()
}

// ReadPacket reads one QuorumAuthPacket from r. The token may be at most
// limit bytes (jute.maxbuffer plus its extra size, as Java's reader
// bounds it); a null token comes back as nil. A packet with the wrong
// magic or an unknown status is malformed: Java reads the first as
// garbage and takes the second as ERROR. Errors reading r come back as
// they are (io.EOF before the first byte, io.ErrUnexpectedEOF inside).
func ReadPacket(r io.Reader, limit int) (Status, []byte, error) {
	var head [16]byte
	if _, err := io.ReadFull(r, head[:12]); err != nil {
		return 0, nil, err
	}
	magic := int64(binary.BigEndian.Uint64(head[:8]))
	status := Status(binary.BigEndian.Uint32(head[8:12]))
	if magic != Magic {
		return 0, nil, fmt.Errorf("%w: magic 0x%x, not a quorum authentication packet", ErrMalformed, uint64(magic))
	}
	if _, err := io.ReadFull(r, head[12:16]); err != nil {
		return 0, nil, unexpected(err)
	}
	n := int32(binary.BigEndian.Uint32(head[12:16]))
	switch {
	case n == -1:
		return checkStatus(status, nil)
	case n < 0 || int(n) > limit:
		return 0, nil, fmt.Errorf("%w: token of %d bytes (0 to %d)", ErrMalformed, n, limit)
	}
	token := make([]byte, n)
	if _, err := io.ReadFull(r, token); err != nil {
		return 0, nil, unexpected(err)
	}
	return checkStatus(status, token)
}

func checkStatus(s Status, token []byte) (Status, []byte, error) {
	switch s {
	case InProgress, Success, Error:
		return s, token, nil
	}
	return 0, nil, fmt.Errorf("%w: unknown status %d", ErrMalformed, int32(s))
}

// NextIsAuth reports whether the next bytes on r start a
// QuorumAuthPacket, without consuming them: a peer that does not
// authenticate goes straight on with its own protocol, whose first eight
// bytes are never the magic.
func NextIsAuth(r *bufio.Reader) (bool, error) {
	b, err := r.Peek(8)
	if err != nil {
		return false, unexpected(err)
	}
	return int64(binary.BigEndian.Uint64(b)) == Magic, nil
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
