package fle

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
)

// ServerState is a server's state in a notification: Java's
// QuorumPeer.ServerState by ordinal.
type ServerState int32

// The states Java defines, in its order.
const (
	Looking ServerState = iota
	Following
	Leading
	Observing
)

func (s ServerState) String() string {
	switch s {
	case Looking:
		return "LOOKING"
	case Following:
		return "FOLLOWING"
	case Leading:
		return "LEADING"
	case Observing:
		return "OBSERVING"
	}
	return "state(" + strconv.Itoa(int(s)) + ")"
}

// Known reports whether s is a state Java knows. A voter's notification
// in another state is dropped by Java's receiver.
func (s ServerState) Known() bool { return s >= Looking && s <= Observing }

// NotificationVersion is the notification version ZooKeeper 3.5 and later
// send: the one that carries the sender's quorum configuration.
const NotificationVersion = 2

// The sizes a notification can have: 28 bytes before peer epochs (3.3);
// 40 bytes with the peer epoch and a version field that Java's receiver
// never reads in a message of exactly that size (3.4); otherwise a version
// at byte 36, and from version 2 on a configuration's length at byte 40
// and the configuration after it.
const (
	notificationLenNoPeerEpoch = 4 + 8 + 8 + 8
	notificationLenPeerEpoch   = notificationLenNoPeerEpoch + 8
	notificationLenOld         = notificationLenPeerEpoch + 4
	notificationHeaderLen      = notificationLenOld + 4
)

// Notification is one election message.
type Notification struct {
	State         ServerState
	Leader        int64 // the server id the sender votes for
	Zxid          int64 // the last zxid of that vote
	ElectionEpoch int64 // the sender's election round (logical clock)
	PeerEpoch     int64 // the epoch of the vote
	// Version is the sender's notification version: 0 for 28- and
	// 40-byte messages, which carry none.
	Version int32
	// Config is the sender's quorum configuration in dynamic-file form
	// (server.N=..., version=...), when Version is above 1. It aliases
	// the decoded buffer.
	Config []byte
}

// AppendTo appends the notification as ZooKeeper 3.8 sends it: version 2
// with its configuration (Version is ignored: what is written is version
// 2, as Java's sender always writes).
func (n *Notification) AppendTo(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(n.State))
	dst = binary.BigEndian.AppendUint64(dst, uint64(n.Leader))
	dst = binary.BigEndian.AppendUint64(dst, uint64(n.Zxid))
	dst = binary.BigEndian.AppendUint64(dst, uint64(n.ElectionEpoch))
	dst = binary.BigEndian.AppendUint64(dst, uint64(n.PeerEpoch))
	dst = binary.BigEndian.AppendUint32(dst, NotificationVersion)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(n.Config)))
	return append(dst, n.Config...)
}

// ErrMalformed is wrapped by every notification decoding error.
var ErrMalformed = errors.New("fle: malformed notification")

// ParseNotification decodes a frame's payload as Java's receiver does:
//
//   - under 28 bytes it is refused;
//   - 28 bytes: no peer epoch (it is the epoch of the zxid), version 0;
//   - 40 bytes: a peer epoch, version 0 (the version field is not read);
//   - otherwise a peer epoch and a version, which must be there whole;
//     from version 2 on, a configuration of a length from 0 to the
//     payload's size, which must be there whole too. What follows is
//     ignored, as Java ignores it.
//
// The state is not checked (see ServerState.Known).
func ParseNotification(p []byte) (Notification, error) {
	var n Notification
	if len(p) < notificationLenNoPeerEpoch {
		return n, fmt.Errorf("%w: %d bytes, shorter than the oldest (%d)", ErrMalformed, len(p), notificationLenNoPeerEpoch)
	}
	n.State = ServerState(int32(binary.BigEndian.Uint32(p)))
	n.Leader = int64(binary.BigEndian.Uint64(p[4:]))
	n.Zxid = int64(binary.BigEndian.Uint64(p[12:]))
	n.ElectionEpoch = int64(binary.BigEndian.Uint64(p[20:]))
	if len(p) == notificationLenNoPeerEpoch {
		n.PeerEpoch = n.Zxid >> 32 // ZxidUtils.getEpochFromZxid
		return n, nil
	}
	if len(p) < notificationLenPeerEpoch {
		return n, fmt.Errorf("%w: %d bytes, too short for its peer epoch", ErrMalformed, len(p))
	}
	n.PeerEpoch = int64(binary.BigEndian.Uint64(p[28:]))
	if len(p) == notificationLenOld {
		return n, nil
	}
	if len(p) < notificationLenOld {
		return n, fmt.Errorf("%w: %d bytes, too short for its version", ErrMalformed, len(p))
	}
	n.Version = int32(binary.BigEndian.Uint32(p[36:]))
	if n.Version <= 1 {
		return n, nil
	}
	if len(p) < notificationHeaderLen {
		return n, fmt.Errorf("%w: version %d in %d bytes, too short for its configuration's length", ErrMalformed, n.Version, len(p))
	}
	size := int32(binary.BigEndian.Uint32(p[40:]))
	if size < 0 || int(size) > len(p) {
		return n, fmt.Errorf("%w: configuration length %d in a %d-byte notification", ErrMalformed, size, len(p))
	}
	rest := p[notificationHeaderLen:]
	if int(size) > len(rest) {
		return n, fmt.Errorf("%w: configuration of %d bytes, %d left in the notification", ErrMalformed, size, len(rest))
	}
	n.Config = rest[:size:size]
	return n, nil
}

// Protocol versions of the initial message: the first long a connecting
// server sends. A non-negative first long is the server id alone (servers
// before 3.5). ZooKeeper 3.8 sends ProtocolV1 unless
// zookeeper.multiAddress.enabled is set; it reads both.
const (
	ProtocolV1 int64 = -65536 // one election address
	ProtocolV2 int64 = -65535 // every election address, joined by |
)

// ObserverID is the server id an observer without one of its own sends;
// Java's receiver gives each such connection a negative id of its own.
const ObserverID int64 = 1<<63 - 1

// MaxInitialMessageAddrs bounds the address string of an initial message,
// as Java's receiver does.
const MaxInitialMessageAddrs = 2048

// MaxFrame is the largest frame a receiver takes (Java's PACKETMAXSIZE).
const MaxFrame = 512 * 1024

// InitialMessage is what a server sends first on an election connection
// it opens.
type InitialMessage struct {
	// Protocol is ProtocolV1, ProtocolV2 or, for a server before 3.5, the
	// server id itself (then Addrs is empty).
	Protocol int64
	SID      int64
	// Addrs are the sender's election addresses, host:port each
	// ([host]:port for IPv6). Wildcard addresses (0.0.0.0, ::) are left
	// out when reading, as Java leaves them out: the receiver then uses
	// the sender's address from its own configuration.
	Addrs []string
}

// AppendTo appends m: the protocol version, the id and the addresses
// joined by | as a length-prefixed UTF-8 string, or only the id for a
// non-negative Protocol.
func (m *InitialMessage) AppendTo(dst []byte) []byte {
	if m.Protocol >= 0 {
		return binary.BigEndian.AppendUint64(dst, uint64(m.SID))
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(m.Protocol))
	dst = binary.BigEndian.AppendUint64(dst, uint64(m.SID))
	addrs := strings.Join(m.Addrs, "|")
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(addrs)))
	return append(dst, addrs...)
}

// ErrInitialMessage is wrapped by every error of ReadInitialMessage about
// what the peer sent (not about reading it).
var ErrInitialMessage = errors.New("fle: bad initial message")

// ReadInitialMessage reads the initial message a connecting server sends,
// with Java's checks: a protocol version it knows, an address string of 1
// to MaxInitialMessageAddrs bytes (UTF-8, split on | whatever the
// version), each address host:port with a numeric port. Errors reading r
// are returned as they are (io.ErrUnexpectedEOF for a message cut short).
// Quorum SASL, when enabled, starts after this message; without it
// nothing else precedes the frames.
func ReadInitialMessage(r io.Reader) (InitialMessage, error) {
	var m InitialMessage
	var b [8]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return m, err
	}
	m.Protocol = int64(binary.BigEndian.Uint64(b[:]))
	if m.Protocol >= 0 {
		m.SID = m.Protocol
		return m, nil
	}
	if m.Protocol != ProtocolV1 && m.Protocol != ProtocolV2 {
		return m, fmt.Errorf("%w: unknown protocol version %d", ErrInitialMessage, m.Protocol)
	}
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return m, unexpected(err)
	}
	m.SID = int64(binary.BigEndian.Uint64(b[:]))
	if _, err := io.ReadFull(r, b[:4]); err != nil {
		return m, unexpected(err)
	}
	size := int32(binary.BigEndian.Uint32(b[:4]))
	if size <= 0 || size > MaxInitialMessageAddrs {
		return m, fmt.Errorf("%w: server %d sent an address string of %d bytes (1 to %d)", ErrInitialMessage, m.SID, size, MaxInitialMessageAddrs)
	}
	addrs := make([]byte, size)
	if _, err := io.ReadFull(r, addrs); err != nil {
		return m, unexpected(err)
	}
	for _, a := range strings.Split(string(addrs), "|") {
		host, err := splitHostPort(a)
		if err != nil {
			return m, fmt.Errorf("%w: server %d: %w", ErrInitialMessage, m.SID, err)
		}
		if !isWildcard(host) {
			m.Addrs = append(m.Addrs, a)
		}
	}
	return m, nil
}

// isWildcard reports whether host is the any-address of IPv4 or IPv6.
func isWildcard(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsUnspecified()
}

// splitHostPort checks one address as Java's ConfigUtils.getHostAndPort
// and the port's Integer.parseInt do (host:port, or [v6]:port) and
// returns its host.
func splitHostPort(a string) (string, error) {
	var host, port string
	if strings.HasPrefix(a, "[") {
		end := strings.Index(a, "]")
		if end < 0 {
			return "", fmt.Errorf("badly formed address %q", a)
		}
		if len(a) == end+1 || a[end+1] != ':' {
			return "", fmt.Errorf("no port in address %q", a)
		}
		host, port = a[1:end], a[end+2:]
	} else {
		parts := strings.Split(a, ":")
		if len(parts) != 2 {
			return "", fmt.Errorf("badly formed address %q", a)
		}
		host, port = parts[0], parts[1]
	}
	if _, err := strconv.ParseInt(port, 10, 32); err != nil {
		return "", fmt.Errorf("bad port number %q in address %q", port, a)
	}
	return host, nil
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// KeepsConnection reports whether a connection that server from opened to
// server to is kept: only when from has the larger id. The other side
// closes it, and the one with the larger id connects back. (A server that
// receives a connection from its own id keeps nothing.)
func KeepsConnection(from, to int64) bool { return from > to }

// AppendFrame appends payload behind its 4-byte big-endian length.
func AppendFrame(dst, payload []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(payload)))
	return append(dst, payload...)
}

// ErrFrame is wrapped by ReadFrame's errors about a frame's length.
var ErrFrame = errors.New("fle: bad frame")

// ReadFrame reads one frame's payload into buf (grown as needed): a length
// of 1 to MaxFrame bytes, as Java's receiver requires, then the payload.
func ReadFrame(r io.Reader, buf []byte) ([]byte, error) {
	var b [4]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return buf, err
	}
	size := int32(binary.BigEndian.Uint32(b[:]))
	if size <= 0 || size > MaxFrame {
		return buf, fmt.Errorf("%w: length %d (1 to %d)", ErrFrame, size, MaxFrame)
	}
	if cap(buf) < int(size) {
		buf = make([]byte, size)
	}
	buf = buf[:size]
	if _, err := io.ReadFull(r, buf); err != nil {
		return buf, unexpected(err)
	}
	return buf, nil
}
