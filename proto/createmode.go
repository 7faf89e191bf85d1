package proto

// CreateMode is the flags field of a create request.
type CreateMode int32

// The create modes of ZooKeeper 3.8; any other flags value is
// BadArguments.
const (
	ModePersistent                  CreateMode = 0
	ModeEphemeral                   CreateMode = 1
	ModePersistentSequential        CreateMode = 2
	ModeEphemeralSequential         CreateMode = 3
	ModeContainer                   CreateMode = 4
	ModePersistentWithTTL           CreateMode = 5
	ModePersistentSequentialWithTTL CreateMode = 6
)

// Valid reports whether m is one of the seven create modes.
func (m CreateMode) Valid() bool { return m >= 0 && m <= 6 }

// IsEphemeral reports whether nodes of this mode die with their session.
func (m CreateMode) IsEphemeral() bool { return m == ModeEphemeral || m == ModeEphemeralSequential }

// IsSequential reports whether the server appends a sequence number.
func (m CreateMode) IsSequential() bool {
	return m == ModePersistentSequential || m == ModeEphemeralSequential || m == ModePersistentSequentialWithTTL
}

// IsContainer reports whether the mode is CONTAINER.
func (m CreateMode) IsContainer() bool { return m == ModeContainer }

// IsTTL reports whether the mode carries a time to live.
func (m CreateMode) IsTTL() bool {
	return m == ModePersistentWithTTL || m == ModePersistentSequentialWithTTL
}

func (m CreateMode) String() string {
	switch m {
	case ModePersistent:
		return "PERSISTENT"
	case ModeEphemeral:
		return "EPHEMERAL"
	case ModePersistentSequential:
		return "PERSISTENT_SEQUENTIAL"
	case ModeEphemeralSequential:
		return "EPHEMERAL_SEQUENTIAL"
	case ModeContainer:
		return "CONTAINER"
	case ModePersistentWithTTL:
		return "PERSISTENT_WITH_TTL"
	case ModePersistentSequentialWithTTL:
		return "PERSISTENT_SEQUENTIAL_WITH_TTL"
	}
	return "INVALID"
}

// The stored ephemeralOwner of a znode encodes its kind: 0 for persistent
// nodes, the owning session for ephemerals, Long.MIN_VALUE for containers,
// and for TTL nodes a top byte of 0xFF, a 16-bit extended type of 0 and the
// TTL in milliseconds in the low 40 bits.
const (
	ContainerEphemeralOwner int64 = -1 << 63
	ttlMarkerMask           int64 = -1 << 56 // top byte 0xFF
	extendedTypeMask        int64 = 0xFFFF << 40
	ttlValueMask            int64 = 1<<40 - 1
	// MaxTTL is the largest TTL the encoding holds (1099511627775 ms).
	MaxTTL int64 = ttlValueMask
)

// NodeKind classifies a znode by its stored ephemeralOwner.
type NodeKind uint8

// The znode kinds.
const (
	KindPersistent NodeKind = iota
	KindEphemeral
	KindContainer
	KindTTL
	// KindInvalid is a top byte of 0xFF with an unknown extended type.
	KindInvalid
)

// KindOf classifies an ephemeralOwner as Java's EphemeralType.get does. With
// extended types off, a TTL-looking value is just an ephemeral owner.
func KindOf(owner int64, extendedTypesEnabled bool) NodeKind {
	switch {
	case owner == 0:
		return KindPersistent
	case owner == ContainerEphemeralOwner:
		return KindContainer
	case extendedTypesEnabled && owner&ttlMarkerMask == ttlMarkerMask:
		if owner&extendedTypeMask != 0 {
			return KindInvalid
		}
		return KindTTL
	}
	return KindEphemeral
}

// TTLEphemeralOwner returns the stored ephemeralOwner of a TTL node.
func TTLEphemeralOwner(ttl int64) int64 { return ttlMarkerMask | ttl&ttlValueMask }

// TTLOf returns the TTL in milliseconds of a TTL node's ephemeralOwner.
func TTLOf(owner int64) int64 { return owner & ttlValueMask }

// ValidTTL reports whether ttl is in Java's accepted range 1..MaxTTL.
func ValidTTL(ttl int64) bool { return ttl > 0 && ttl <= MaxTTL }

// VisibleEphemeralOwner is the ephemeralOwner a client sees: containers and
// TTL nodes show 0.
func VisibleEphemeralOwner(owner int64, extendedTypesEnabled bool) int64 {
	switch KindOf(owner, extendedTypesEnabled) {
	case KindContainer, KindTTL:
		return 0
	}
	return owner
}
