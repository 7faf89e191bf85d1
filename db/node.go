package db

import (
	"strings"
	"unsafe"

	"github.com/gozk/gozk/proto"
)

// node is one znode, stored in a single allocation that holds no
// pointers: this header, the index of the parent, the rest of the stat
// when the node needs it (see nodeExt), then the node's name (the last
// component of its path), then the data bytes. A million znodes of 100
// bytes are mostly this allocation, so it is kept small (no separate
// name, data or node objects, no size-class waste but the last word, no
// copy of the parent's path), and the collector marks it without
// scanning it: the parent, the ACL and the child list are indexes into
// tables of the tree.
//
// The name and data are never written after the node is made (readers
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
	nlen int32 // name length ("" for the root), | nodeWide
	dlen int32 // data length; -1 for null data, which stays distinct from empty
	// The parent's index in the tree's pathIndex (rootParent for a child
	// of the root) follows, at nodeParentOffset: a field here would pad
	// the header to 40 bytes, and a narrow znode of the usual size into
	// the next size class.
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
	nodeHeaderSize   = int(unsafe.Sizeof(node{}))
	nodeParentOffset = nodeHeaderSize
	// nodeNarrowSize is where a narrow node's name starts.
	nodeNarrowSize = nodeParentOffset + 4
	// nodeExtOffset is where a wide node's nodeExt starts, 8-aligned.
	nodeExtOffset = (nodeNarrowSize + 7) &^ 7
	nodeWideSize  = nodeExtOffset + int(unsafe.Sizeof(nodeExt{}))
	// nodeWide is the flag in node.nlen of a node with a nodeExt.
	nodeWide = 1 << 30
	// rootParent is the parent index of the root's children (the root is
	// not in the pathIndex) and of the root itself.
	rootParent = ^uint32(0)
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

// newNode allocates a node named name under the node with index parent,
// holding a copy of data (nil stays null), with a zero stat; wide gives it
// room for a nodeExt.
func newNode(name string, parent uint32, data []byte, wide bool) *node {
	hdr := nodeNarrowSize
	if wide {
		hdr = nodeWideSize
	}
	dlen := len(data)
	size := hdr + len(name) + dlen
	// Words, not bytes: the header needs 8-byte alignment, and the
	// element type tells the allocator there are no pointers.
	words := make([]uint64, (size+7)/8)
	n := (*node)(unsafe.Pointer(&words[0]))
	n.nlen = int32(len(name))
	if wide {
		n.nlen |= nodeWide
	}
	n.dlen = int32(dlen)
	if data == nil {
		n.dlen = -1
	}
	n.setParent(parent)
	if len(name) > 0 {
		copy(unsafe.Slice(n.bytesAt(hdr), len(name)), name)
	}
	if dlen > 0 {
		copy(unsafe.Slice(n.bytesAt(hdr+len(name)), dlen), data)
	}
	return n
}

// newNodeStat is newNode with stat s, narrow when s allows.
func newNodeStat(name string, parent uint32, data []byte, s *proto.StatPersisted) *node {
	n := newNode(name, parent, data, !narrowStat(s))
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

func (n *node) wide() bool { return n.nlen&nodeWide != 0 }

// ext is the rest of a wide node's stat.
func (n *node) ext() *nodeExt { return (*nodeExt)(unsafe.Add(unsafe.Pointer(n), nodeExtOffset)) }

// parent is the index of n's parent in the tree's pathIndex, rootParent
// for a child of the root.
func (n *node) parent() uint32 { return *(*uint32)(unsafe.Add(unsafe.Pointer(n), nodeParentOffset)) }

func (n *node) setParent(k uint32) {
	*(*uint32)(unsafe.Add(unsafe.Pointer(n), nodeParentOffset)) = k
}

func (n *node) nameLen() int { return int(n.nlen &^ nodeWide) }

// nameOffset is where the name starts in n's allocation.
func (n *node) nameOffset() int {
	if n.wide() {
		return nodeWideSize
	}
	return nodeNarrowSize
}

// name is the last component of n's path ("" for the root), sharing n's
// allocation.
func (n *node) name() string {
	if n.nameLen() == 0 {
		return ""
	}
	return unsafe.String(n.bytesAt(n.nameOffset()), n.nameLen())
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
	return unsafe.Slice(n.bytesAt(n.nameOffset()+n.nameLen()), n.dlen)
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

// copyWith returns a new node with n's name, parent, stat, ACL, child
// list and slot, and data in its allocation; wide or as n is. An external
// n's data stays where it is.
func (n *node) copyWith(data []byte, wide bool) *node {
	wide = wide || n.wide()
	nn := newNode(n.name(), n.parent(), data, wide)
	nlen, dlen := nn.nlen, nn.dlen
	*nn = *n
	nn.nlen, nn.dlen = nlen, dlen
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

// baseName is the last component of a node's path.
func baseName(path string) string { return path[strings.LastIndexByte(path, '/')+1:] }
