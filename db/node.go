package db

import (
	"strings"
	"unsafe"

	"github.com/gozk/gozk/proto"
)

// node is one znode, stored in a single allocation that holds no
// pointers: this header, the rest of the stat when the node needs it
// (see nodeExt), then the path bytes, then the data bytes. A million
// znodes of 100 bytes are mostly this allocation, so it is kept small (no
// separate path, data or node objects, no size-class waste but the last
// word), and the collector marks it without scanning it: the ACL and the
// child list are indexes into tables of the tree, and the parent is found
// by its path.
//
// The path and data are never written after the node is made (readers
// keep slices of them past the read lock); new data means a new
// allocation that takes the node's place everywhere (see
// Tree.replaceNode), and the old one is marked slotReplaced. Stat fields
// are updated in place, but for a narrow node's (see nodeExt).
type node struct {
	czxid, ctime int64

	// slot is the index in the parent's child list, or one of the
	// negative markers below.
	slot int32
	acl  int32 // index of the node's aclEntry in aclCache.slots
	plen int32 // path length ("" for the root, as Java keys it), | nodeWide
	dlen int32 // data length; -1 for null data, which stays distinct from empty
}

// nodeExt is the rest of a wide node's stat and its child list, after its
// header. A node is narrow, and has none, when mzxid and pzxid are its
// czxid, its mtime is its ctime, it has no owner, its versions are 0 and
// it never had a child: every persistent node as its create left it
// until it gets a child, new data (which makes a new allocation anyway)
// or a new ACL; 48 bytes less.
type nodeExt struct {
	mzxid, mtime, owner, pzxid  int64
	version, cversion, aversion int32 // cversion: child creations
	kids                        int32 // index of the node's childList in Tree.lists; 0: none
	// xdata is the index of the node's data in Tree.datas, 0 when the
	// data is in the node's allocation (see Tree.setNodeData).
	xdata int32
	_     int32
}

const (
	nodeHeaderSize = int(unsafe.Sizeof(node{}))
	nodeWideSize   = nodeHeaderSize + int(unsafe.Sizeof(nodeExt{}))
	// nodeWide is the flag in node.plen of a node with a nodeExt.
	nodeWide = 1 << 30
)

// Negative node.slot values.
const (
	// slotDetached marks a built-in node taken out of its parent's list
	// while a snapshot loads (see detachBuiltIns).
	slotDetached = -1
	// slotDeleted marks a node removed from the tree.
	slotDeleted = -2
	// slotReplaced marks an allocation superseded by another (new data
	// or a wider stat); the current node has the same path.
	slotReplaced = -3
)

// emptyData is the data of a node with empty (not null) data: a
// zero-length slice into the node would point past its allocation.
var emptyData = []byte{}

// newNode allocates a node holding path and a copy of data (nil stays
// null), with a zero stat; wide gives it room for a nodeExt.
func newNode(path string, data []byte, wide bool) *node {
	hdr := nodeHeaderSize
	if wide {
		hdr = nodeWideSize
	}
	dlen := len(data)
	size := hdr + len(path) + dlen
	// Words, not bytes: the header needs 8-byte alignment, and the
	// element type tells the allocator there are no pointers.
	words := make([]uint64, (size+7)/8)
	n := (*node)(unsafe.Pointer(&words[0]))
	n.plen = int32(len(path))
	if wide {
		n.plen |= nodeWide
	}
	n.dlen = int32(dlen)
	if data == nil {
		n.dlen = -1
	}
	if len(path) > 0 {
		copy(unsafe.Slice(n.bytesAt(hdr), len(path)), path)
	}
	if dlen > 0 {
		copy(unsafe.Slice(n.bytesAt(hdr+len(path)), dlen), data)
	}
	return n
}

// newNodeStat is newNode with stat s, narrow when s allows.
func newNodeStat(path string, data []byte, s *proto.StatPersisted) *node {
	n := newNode(path, data, !narrowStat(s))
	n.setPersisted(s)
	return n
}

// narrowStat reports whether a node with stat s can be narrow.
func narrowStat(s *proto.StatPersisted) bool {
	return s.Mzxid == s.Czxid && s.Pzxid == s.Czxid && s.Mtime == s.Ctime && s.EphemeralOwner == 0 &&
		s.Version == 0 && s.Cversion == 0 && s.Aversion == 0
}

// bytesAt points off bytes into n's allocation; only for offsets inside it.
func (n *node) bytesAt(off int) *byte {
	return (*byte)(unsafe.Add(unsafe.Pointer(n), off))
}

func (n *node) wide() bool { return n.plen&nodeWide != 0 }

// ext is the rest of a wide node's stat.
func (n *node) ext() *nodeExt { return (*nodeExt)(unsafe.Add(unsafe.Pointer(n), nodeHeaderSize)) }

func (n *node) pathLen() int { return int(n.plen &^ nodeWide) }

// pathOffset is where the path starts in n's allocation.
func (n *node) pathOffset() int {
	if n.wide() {
		return nodeWideSize
	}
	return nodeHeaderSize
}

// path is the node's full path, sharing n's allocation.
func (n *node) path() string {
	if n.pathLen() == 0 {
		return ""
	}
	return unsafe.String(n.bytesAt(n.pathOffset()), n.pathLen())
}

// inlineData is the data held in n's allocation (nil for null data),
// which is n's data unless it was set after n was made (see
// Tree.dataOf); its capacity is its length, so an append by a reader
// copies it.
func (n *node) inlineData() []byte {
	switch {
	case n.dlen < 0:
		return nil
	case n.dlen == 0:
		return emptyData
	}
	return unsafe.Slice(n.bytesAt(n.pathOffset()+n.pathLen()), n.dlen)
}

func (n *node) mzxid() int64 {
	if n.wide() {
		return n.ext().mzxid
	}
	return n.czxid
}

func (n *node) mtime() int64 {
	if n.wide() {
		return n.ext().mtime
	}
	return n.ctime
}

func (n *node) pzxid() int64 {
	if n.wide() {
		return n.ext().pzxid
	}
	return n.czxid
}

// owner is the stored ephemeral owner (container and TTL markers
// included).
func (n *node) owner() int64 {
	if n.wide() {
		return n.ext().owner
	}
	return 0
}

func (n *node) version() int32 {
	if n.wide() {
		return n.ext().version
	}
	return 0
}

// cversion counts child creations (the stored cversion).
func (n *node) cversion() int32 {
	if n.wide() {
		return n.ext().cversion
	}
	return 0
}

func (n *node) aversion() int32 {
	if n.wide() {
		return n.ext().aversion
	}
	return 0
}

// kids is the index of n's childList in Tree.lists, 0 for none.
func (n *node) kids() int32 {
	if n.wide() {
		return n.ext().kids
	}
	return 0
}

func (n *node) persisted() proto.StatPersisted {
	if !n.wide() {
		return proto.StatPersisted{Czxid: n.czxid, Mzxid: n.czxid, Ctime: n.ctime, Mtime: n.ctime, Pzxid: n.czxid}
	}
	e := n.ext()
	return proto.StatPersisted{
		Czxid: n.czxid, Mzxid: e.mzxid, Ctime: n.ctime, Mtime: e.mtime,
		Version: e.version, Cversion: e.cversion, Aversion: e.aversion,
		EphemeralOwner: e.owner, Pzxid: e.pzxid,
	}
}

// setPersisted sets n's stat; n must be wide unless narrowStat(s).
func (n *node) setPersisted(s *proto.StatPersisted) {
	n.czxid, n.ctime = s.Czxid, s.Ctime
	if n.wide() {
		e := n.ext()
		e.mzxid, e.mtime, e.owner, e.pzxid = s.Mzxid, s.Mtime, s.EphemeralOwner, s.Pzxid
		e.version, e.cversion, e.aversion = s.Version, s.Cversion, s.Aversion
	}
}

// dataLen is the length of n's data, wherever it is.
func (n *node) dataLen() int { return max(int(n.dlen), 0) }

func (n *node) childNameOffset() int { return n.pathLen() + 1 }

func (n *node) name() string {
	p := n.path()
	return p[strings.LastIndexByte(p, '/')+1:]
}

// copyWith returns a new node with n's path, stat, ACL, child list and
// slot, and data in its allocation; wide or as n is. An external n's
// data stays where it is.
func (n *node) copyWith(data []byte, wide bool) *node {
	wide = wide || n.wide()
	nn := newNode(n.path(), data, wide)
	plen, dlen := nn.plen, nn.dlen
	*nn = *n
	nn.plen, nn.dlen = plen, dlen
	if wide {
		s := n.persisted()
		nn.setPersisted(&s)
		nn.ext().kids = n.kids()
		if n.external() {
			nn.ext().xdata = n.ext().xdata
			nn.dlen = n.dlen
		}
	}
	return nn
}

// external reports whether n's data is in Tree.datas.
func (n *node) external() bool { return n.wide() && n.ext().xdata != 0 }

// parentPath is the path of the parent of a node at path (not the root):
// "" for a top-level node, the root's key.
func parentPath(path string) string { return path[:strings.LastIndexByte(path, '/')] }
