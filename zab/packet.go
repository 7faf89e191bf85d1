package zab

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// PacketType is a QuorumPacket's type (Java's Leader constants).
type PacketType int32

// The packet types of ZooKeeper 3.8.
const (
	Request           PacketType = 1
	Proposal          PacketType = 2
	Ack               PacketType = 3
	Commit            PacketType = 4
	Ping              PacketType = 5
	Revalidate        PacketType = 6
	Sync              PacketType = 7
	Inform            PacketType = 8
	CommitAndActivate PacketType = 9
	NewLeader         PacketType = 10
	FollowerInfo      PacketType = 11
	UpToDate          PacketType = 12
	Diff              PacketType = 13
	Trunc             PacketType = 14
	Snap              PacketType = 15
	ObserverInfo      PacketType = 16
	LeaderInfo        PacketType = 17
	AckEpoch          PacketType = 18
	InformAndActivate PacketType = 19
)

var packetNames = [...]string{
	Request: "REQUEST", Proposal: "PROPOSAL", Ack: "ACK", Commit: "COMMIT", Ping: "PING",
	Revalidate: "REVALIDATE", Sync: "SYNC", Inform: "INFORM", CommitAndActivate: "COMMITANDACTIVATE",
	NewLeader: "NEWLEADER", FollowerInfo: "FOLLOWERINFO", UpToDate: "UPTODATE", Diff: "DIFF",
	Trunc: "TRUNC", Snap: "SNAP", ObserverInfo: "OBSERVERINFO", LeaderInfo: "LEADERINFO",
	AckEpoch: "ACKEPOCH", InformAndActivate: "INFORMANDACTIVATE",
}

func (t PacketType) String() string {
	if t > 0 && int(t) < len(packetNames) {
		return packetNames[t]
	}
	return fmt.Sprintf("UNKNOWN(%d)", int32(t))
}

// Known reports whether t is a packet type of ZooKeeper 3.8.
func (t PacketType) Known() bool { return t > 0 && int(t) < len(packetNames) }

// ProtocolVersion is the learner protocol version of ZooKeeper 3.4 and
// later (LearnerInfo and LEADERINFO carry it).
const ProtocolVersion = 0x10000

// ErrMalformed is wrapped by every error about what a peer sent.
var ErrMalformed = errors.New("zab: malformed packet")

// ReadPacket reads one QuorumPacket from r. Lengths are bounded as Java's
// BinaryInputArchive bounds them: each buffer and string (data, and each
// authinfo scheme and id) at most limit bytes (Java's jute.maxbuffer plus
// its extra size); the authinfo vector's count is not bounded by Java,
// and is here only by the bytes that must follow it. Errors reading r come back as they are
// (io.EOF before the first byte, io.ErrUnexpectedEOF inside a packet).
func ReadPacket(r io.Reader, limit int) (proto.QuorumPacket, error) {
	var p proto.QuorumPacket
	var b [12]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return p, err
	}
	p.Type = int32(binary.BigEndian.Uint32(b[:4]))
	p.Zxid = int64(binary.BigEndian.Uint64(b[4:12]))
	data, null, err := readBuffer(r, limit, "data")
	if err != nil {
		return p, err
	}
	if !null {
		p.Data = data
	}
	n, err := readInt(r)
	if err != nil {
		return p, err
	}
	if n < -1 {
		return p, fmt.Errorf("%w: %s packet with an authinfo count of %d", ErrMalformed, PacketType(p.Type), n)
	}
	if n >= 0 {
		p.Authinfo = make([]proto.Id, 0, min(int(n), 16))
	}
	for i := int32(0); i < n; i++ {
		scheme, null, err := readBuffer(r, limit, "authinfo scheme")
		if err != nil {
			return p, err
		}
		if null {
			return p, fmt.Errorf("%w: authinfo with a null scheme", ErrMalformed)
		}
		id, null, err := readBuffer(r, limit, "authinfo id")
		if err != nil {
			return p, err
		}
		if null {
			return p, fmt.Errorf("%w: authinfo with a null id", ErrMalformed)
		}
		p.Authinfo = append(p.Authinfo, proto.Id{Scheme: string(scheme), Id: string(id)})
	}
	return p, nil
}

// readBuffer reads a length-prefixed byte string; length -1 is null.
func readBuffer(r io.Reader, limit int, field string) ([]byte, bool, error) {
	n, err := readInt(r)
	if err != nil {
		return nil, false, err
	}
	if n == -1 {
		return nil, true, nil
	}
	if n < 0 || int(n) > limit {
		return nil, false, fmt.Errorf("%w: %s of %d bytes (0 to %d)", ErrMalformed, field, n, limit)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, false, unexpected(err)
	}
	return buf, false, nil
}

func readInt(r io.Reader) (int32, error) {
	var b [4]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return 0, unexpected(err)
	}
	return int32(binary.BigEndian.Uint32(b[:])), nil
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// AppendPacket appends p's encoding to dst.
func AppendPacket(dst []byte, p *proto.QuorumPacket) []byte {
	w := jute.NewWriter(dst)
	p.Encode(w)
	return w.Bytes()
}

// LearnerInfoOf reads a FOLLOWERINFO or OBSERVERINFO body as Java's
// LearnerHandler does: the server id from 8 bytes on, the protocol
// version from 12, the configuration version from 20; shorter bodies
// (servers before 3.4, and before 3.5) leave the rest 0, and a body of
// fewer than 8 bytes (or none) carries no id at all.
func LearnerInfoOf(data []byte) (info proto.LearnerInfo, hasID bool) {
	if len(data) >= 8 {
		info.Serverid = int64(binary.BigEndian.Uint64(data))
		hasID = true
	}
	if len(data) >= 12 {
		info.ProtocolVersion = int32(binary.BigEndian.Uint32(data[8:]))
	}
	if len(data) >= 20 {
		info.ConfigVersion = int64(binary.BigEndian.Uint64(data[12:]))
	}
	return info, hasID
}

// AppendLearnerInfo appends a LearnerInfo body.
func AppendLearnerInfo(dst []byte, info proto.LearnerInfo) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(info.Serverid))
	dst = binary.BigEndian.AppendUint32(dst, uint32(info.ProtocolVersion))
	return binary.BigEndian.AppendUint64(dst, uint64(info.ConfigVersion))
}

// IntBody is the 4-byte body of LEADERINFO (the protocol version) and
// ACKEPOCH (the learner's current epoch, or -1).
func IntBody(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

// ReadIntBody reads a 4-byte body; Java reads the first four bytes of
// whatever it gets and fails on fewer.
func ReadIntBody(t PacketType, data []byte) (int32, error) {
	if len(data) < 4 {
		return 0, fmt.Errorf("%w: %s body of %d bytes, want 4", ErrMalformed, t, len(data))
	}
	return int32(binary.BigEndian.Uint32(data)), nil
}

// SessionTouch is one entry of a learner's PING reply: a session it saw
// activity on, with the session's timeout.
type SessionTouch struct {
	ID      int64
	Timeout int32
}

// AppendTouchTable appends a learner's PING reply body: (long id, int
// timeout) per session. Java's leader reads it without a null check, so
// an empty table is an empty body, never a null one.
func AppendTouchTable(dst []byte, touches []SessionTouch) []byte {
	for _, t := range touches {
		dst = binary.BigEndian.AppendUint64(dst, uint64(t.ID))
		dst = binary.BigEndian.AppendUint32(dst, uint32(t.Timeout))
	}
	return dst
}

// ReadTouchTable reads a PING reply body.
func ReadTouchTable(data []byte) ([]SessionTouch, error) {
	if len(data)%12 != 0 {
		return nil, fmt.Errorf("%w: PING touch table of %d bytes, not a multiple of 12", ErrMalformed, len(data))
	}
	out := make([]SessionTouch, 0, len(data)/12)
	for len(data) > 0 {
		out = append(out, SessionTouch{ID: int64(binary.BigEndian.Uint64(data)), Timeout: int32(binary.BigEndian.Uint32(data[8:]))})
		data = data[12:]
	}
	return out, nil
}

// AppendRevalidate appends a learner's REVALIDATE body: the session and
// its timeout.
func AppendRevalidate(dst []byte, session int64, timeout int32) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(session))
	return binary.BigEndian.AppendUint32(dst, uint32(timeout))
}

// ReadRevalidate reads a REVALIDATE request body.
func ReadRevalidate(data []byte) (session int64, timeout int32, err error) {
	if len(data) < 12 {
		return 0, 0, fmt.Errorf("%w: REVALIDATE body of %d bytes, want 12", ErrMalformed, len(data))
	}
	return int64(binary.BigEndian.Uint64(data)), int32(binary.BigEndian.Uint32(data[8:])), nil
}

// AppendRevalidateReply appends the leader's REVALIDATE answer: the
// session and whether it is valid.
func AppendRevalidateReply(dst []byte, session int64, valid bool) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(session))
	if valid {
		return append(dst, 1)
	}
	return append(dst, 0)
}

// ReadRevalidateReply reads the leader's REVALIDATE answer.
func ReadRevalidateReply(data []byte) (session int64, valid bool, err error) {
	if len(data) < 9 {
		return 0, false, fmt.Errorf("%w: REVALIDATE reply of %d bytes, want 9", ErrMalformed, len(data))
	}
	return int64(binary.BigEndian.Uint64(data)), data[8] != 0, nil
}

// ForwardedRequest is the body of a REQUEST: a client's request as the
// learner received it.
type ForwardedRequest struct {
	Session int64
	Cxid    int32
	Op      int32
	// Body is the request record after the client's RequestHeader, as
	// the client sent it (empty for ops without one).
	Body []byte
}

// AppendRequest appends a REQUEST body.
func AppendRequest(dst []byte, r ForwardedRequest) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(r.Session))
	dst = binary.BigEndian.AppendUint32(dst, uint32(r.Cxid))
	dst = binary.BigEndian.AppendUint32(dst, uint32(r.Op))
	return append(dst, r.Body...)
}

// ReadRequest reads a REQUEST body; Body aliases data.
func ReadRequest(data []byte) (ForwardedRequest, error) {
	if len(data) < 16 {
		return ForwardedRequest{}, fmt.Errorf("%w: REQUEST body of %d bytes, want at least 16", ErrMalformed, len(data))
	}
	return ForwardedRequest{
		Session: int64(binary.BigEndian.Uint64(data)),
		Cxid:    int32(binary.BigEndian.Uint32(data[8:])),
		Op:      int32(binary.BigEndian.Uint32(data[12:])),
		Body:    data[16:],
	}, nil
}
