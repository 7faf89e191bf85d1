package db

import (
	"strings"
	"unsafe"
)

// node is one znode, stored in a single allocation that holds no
// pointers: this header, then the path bytes, then the data bytes. A
// million znodes of 100 bytes are mostly this allocation, so it is kept
// small (80 bytes of header, no separate path, data or node objects, no
// size-class waste but the last word), and the collector marks it
// without scanning it: the ACL and the child list are indexes into
// tables of the tree, and the parent is found by its path.
//
// The path and data are never written after the node is made (readers
// keep slices of them past the read lock); new data means a new
// allocation that takes the node's place everywhere (see
// Tree.replaceData), and the old one is marked slotReplaced. Stat fields
// are updated in place.
type node struct {
	czxid, mzxid, ctime, mtime, owner, pzxid int64
	version, cversion, aversion              int32 // cversion: child creations

	// slot is the index in the parent's child list, or one of the
	// negative markers below.
	slot int32
	acl  int32 // index of the node's aclEntry in aclCache.slots
	kids int32 // index of the node's childList in Tree.lists; 0: none
	plen int32 // path length; "" for the root, as Java keys it
	dlen int32 // data length; -1 for null data, which stays distinct from empty
}

const nodeHeaderSize = int(unsafe.Sizeof(node{}))

// Negative node.slot values.
const (
	// slotDetached marks a built-in node taken out of its parent's list
	// while a snapshot loads (see detachBuiltIns).
	slotDetached = -1
	// slotDeleted marks a node removed from the tree.
	slotDeleted = -2
	// slotReplaced marks an allocation superseded by one with new data;
	// the current node has the same path.
	slotReplaced = -3
)

// emptyData is the data of a node with empty (not null) data: a
// zero-length slice into the node would point past its allocation.
var emptyData = []byte{}

// newNode allocates a node holding path and a copy of data (nil stays
// null), with a zero stat.
func newNode(path string, data []byte) *node {
	dlen := len(data)
	size := nodeHeaderSize + len(path) + dlen
	// Words, not bytes: the header needs 8-byte alignment, and the
	// element type tells the allocator there are no pointers.
	words := make([]uint64, (size+7)/8)
	n := (*node)(unsafe.Pointer(&words[0]))
	n.plen = int32(len(path))
	n.dlen = int32(dlen)
	if data == nil {
		n.dlen = -1
	}
	if len(path) > 0 {
		copy(unsafe.Slice(n.bytesAt(nodeHeaderSize), len(path)), path)
	}
	if dlen > 0 {
		copy(unsafe.Slice(n.bytesAt(nodeHeaderSize+len(path)), dlen), data)
	}
	return n
}

// bytesAt points off bytes into n's allocation; only for offsets inside it.
func (n *node) bytesAt(off int) *byte {
	return (*byte)(unsafe.Add(unsafe.Pointer(n), off))
}

// path is the node's full path, sharing n's allocation.
func (n *node) path() string {
	if n.plen == 0 {
		return ""
	}
	return unsafe.String(n.bytesAt(nodeHeaderSize), n.plen)
}

// data is the node's data (nil for null data), sharing n's allocation;
// its capacity is its length, so an append by a reader copies it.
func (n *node) data() []byte {
	switch {
	case n.dlen < 0:
		return nil
	case n.dlen == 0:
		return emptyData
	}
	return unsafe.Slice(n.bytesAt(nodeHeaderSize+int(n.plen)), n.dlen)
}

// dataLen is len(n.data()).
func (n *node) dataLen() int { return max(int(n.dlen), 0) }

func (n *node) name() string {
	p := n.path()
	return p[strings.LastIndexByte(p, '/')+1:]
}

// withData returns a new node with n's path, stat, ACL, child list and
// slot, and data.
func (n *node) withData(data []byte) *node {
	nn := newNode(n.path(), data)
	plen, dlen := nn.plen, nn.dlen
	*nn = *n
	nn.plen, nn.dlen = plen, dlen
	return nn
}

// parentPath is the path of the parent of a node at path (not the root):
// "" for a top-level node, the root's key.
func parentPath(path string) string { return path[:strings.LastIndexByte(path, '/')] }
