package db

import (
	"hash/maphash"
	"iter"
	"slices"
	"unsafe"
)

// pathIndex finds nodes by path. A map[string]*node costs about 50 bytes
// per node at a million nodes (a 24-byte slot of two pointers, at the
// load factor its tables average), all of it scanned by the collector.
// This index keeps the nodes in a chunked array (8 bytes each, the only
// pointers) and finds them through an open-addressing table of 8-byte
// slots without pointers, each holding 32 bits of the path's hash and the
// node's index in that array: about 24 bytes per node, and the key is
// the node's own path.
//
// The table uses linear probing with at most three quarters of its slots
// full, and backward-shift deletion (no tombstones): the hash bits in a
// slot give its home position, so nothing is rehashed from the paths.
//
// Nothing here takes time in proportion to the tree at once, as every
// write waits while the index changes: the node array grows a chunk at a
// time without moving what it holds, and when the table doubles, its
// entries move to the new one a few at a time with each later insert or
// removal (see step), lookups meanwhile trying both. Doubling a table of
// a million nodes at once held every write for 16 ms.
type pathIndex struct {
	seed  maphash.Seed
	slots []uint64 // hash<<32 | (node index + 1); 0: empty

	// old is the table before the last doubling while its entries move
	// to slots: old[:moved] have moved (or were removed), the rest are
	// only here. A removal marks an unmoved entry slotGone, keeping the
	// probe runs through it intact.
	old   []uint64
	moved int

	chunks [][]*node // the nodes by index; nil where one was removed (see free)
	next   uint32    // indexes below next have been handed out
	free   []uint32  // indexes of nil entries
	count  int
}

const (
	pathIndexMinSlots = 64

	// nodeChunkBits sizes a chunk of the node array: 65,536 pointers,
	// 512 KiB; smaller chunks made lookups in a large tree slower (more
	// TLB misses).
	nodeChunkBits = 16
	nodeChunkMask = 1<<nodeChunkBits - 1

	// slotGone marks a removed entry in the old table.
	slotGone = ^uint64(0)

	// moveStep is how many old slots each insert or removal moves: with
	// the new table twice the old, the move ends long before the new one
	// fills, and costs about a microsecond per write while it lasts.
	moveStep = 128
)

func (x *pathIndex) init() {
	x.seed = maphash.MakeSeed()
	x.slots = make([]uint64, pathIndexMinSlots)
}

func (x *pathIndex) hash(path string) uint32 { return uint32(maphash.String(x.seed, path)) }

func (x *pathIndex) len() int { return x.count }

// node is the node at index k, nil if it was removed.
func (x *pathIndex) node(k uint32) *node { return x.chunks[k>>nodeChunkBits][k&nodeChunkMask] }

func (x *pathIndex) setNode(k uint32, n *node) { x.chunks[k>>nodeChunkBits][k&nodeChunkMask] = n }

// find returns the position of path in slots (or of the empty slot that
// ends its probe) and whether it is there.
func (x *pathIndex) find(path string, h uint32) (int, bool) {
	mask := uint32(len(x.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		e := x.slots[i]
		if e == 0 {
			return int(i), false
		}
		if uint32(e>>32) == h && x.holds(x.node(uint32(e)-1), path) {
			return int(i), true
		}
	}
}

// findOld returns the position of path among the entries of the old table
// that have not moved, and whether it is there.
func (x *pathIndex) findOld(path string, h uint32) (int, bool) {
	if x.old == nil {
		return 0, false
	}
	mask := uint32(len(x.old) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		e := x.old[i]
		switch {
		case e == 0:
			return 0, false
		case e == slotGone || int(i) < x.moved:
			// Removed, or moved (then it would have been found in
			// slots): the run goes on past it.
		case uint32(e>>32) == h && x.holds(x.node(uint32(e)-1), path):
			return int(i), true
		}
	}
}

// indexOfPath returns the index of the node with path and whether there
// is one.
func (x *pathIndex) indexOfPath(path string) (uint32, bool) {
	return x.indexOfHashed(path, x.hash(path))
}

// indexOfHashed is indexOfPath with path's hash h.
func (x *pathIndex) indexOfHashed(path string, h uint32) (uint32, bool) {
	if i, ok := x.find(path, h); ok {
		return uint32(x.slots[i]) - 1, true
	}
	if i, ok := x.findOld(path, h); ok {
		return uint32(x.old[i]) - 1, true
	}
	return 0, false
}

func (x *pathIndex) get(path string) *node {
	k, ok := x.indexOfPath(path)
	if !ok {
		return nil
	}
	return x.node(k)
}

// insert adds n, whose path is path, and returns its index, unless a node
// has that path already: then it reports false and changes nothing.
func (x *pathIndex) insert(path string, n *node) (uint32, bool) {
	h := x.hash(path)
	if _, ok := x.indexOfHashed(path, h); ok {
		return 0, false
	}
	// The move and a doubling change where path goes: found after them.
	x.step()
	if (x.count+1)*4 > len(x.slots)*3 {
		x.grow()
	}
	i, _ := x.find(path, h)
	var k uint32
	if f := len(x.free); f > 0 {
		k = x.free[f-1]
		x.free = x.free[:f-1]
	} else {
		k = x.next
		if k&nodeChunkMask == 0 {
			x.chunks = append(x.chunks, make([]*node, 1<<nodeChunkBits))
		}
		x.next++
	}
	x.setNode(k, n)
	x.slots[i] = uint64(h)<<32 | uint64(k+1)
	x.count++
	return k, true
}

// indexOf returns the index of the node with path, which must be there.
func (x *pathIndex) indexOf(path string) uint32 {
	k, _ := x.indexOfPath(path)
	return k
}

// holds reports whether path is n's path: n's name ends it, and the rest
// is its parent's path, checked the same way up to the root.
func (x *pathIndex) holds(n *node, path string) bool {
	for {
		name := n.name()
		cut := len(path) - len(name) - 1
		if cut < 0 || path[cut] != '/' || path[cut+1:] != name {
			return false
		}
		path = path[:cut]
		k := n.parent()
		if k == rootParent {
			return path == ""
		}
		if n = x.node(k); n == nil {
			return false
		}
	}
}

// pathSize is the length of n's path; for a node of the tree (its
// ancestors are), not the root.
func (x *pathIndex) pathSize(n *node) int {
	size := 0
	for {
		size += 1 + n.nameLen()
		k := n.parent()
		if k == rootParent {
			return size
		}
		n = x.node(k)
	}
}

// fillPath writes n's path into the end of dst, which is pathSize(n)
// long, names last to first.
func (x *pathIndex) fillPath(dst []byte, n *node) {
	end := len(dst)
	for {
		end -= copy(dst[end-n.nameLen():end], n.name())
		end--
		dst[end] = '/'
		k := n.parent()
		if k == rootParent {
			return
		}
		n = x.node(k)
	}
}

// pathOf is n's full path, in a new string: "" for the root.
func (x *pathIndex) pathOf(n *node) string {
	if n.nameLen() == 0 {
		return ""
	}
	b := make([]byte, x.pathSize(n))
	x.fillPath(b, n)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// appendPath appends n's full path to dst ("" for the root).
func (x *pathIndex) appendPath(dst []byte, n *node) []byte {
	if n.nameLen() == 0 {
		return dst
	}
	start, size := len(dst), x.pathSize(n)
	dst = slices.Grow(dst, size)[:start+size]
	x.fillPath(dst[start:], n)
	return dst
}

// remove takes the node with path out, if there is one.
func (x *pathIndex) remove(path string) {
	h := x.hash(path)
	i, ok := x.find(path, h)
	if !ok {
		if j, ok := x.findOld(path, h); ok {
			x.release(uint32(x.old[j]) - 1)
			x.old[j] = slotGone
			x.step()
		}
		return
	}
	x.release(uint32(x.slots[i]) - 1)
	// Backward shift: move up each following entry of the run whose home
	// is not between the hole and itself, so every probe still finds it.
	mask := uint32(len(x.slots) - 1)
	hole := uint32(i)
	for j := (hole + 1) & mask; ; j = (j + 1) & mask {
		e := x.slots[j]
		if e == 0 {
			break
		}
		home := uint32(e>>32) & mask
		if (j > hole && (home <= hole || home > j)) || (j < hole && home <= hole && home > j) {
			x.slots[hole] = e
			hole = j
		}
	}
	x.slots[hole] = 0
	x.step()
}

// release frees index k.
func (x *pathIndex) release(k uint32) {
	x.setNode(k, nil)
	x.free = append(x.free, k)
	x.count--
}

// grow doubles the table; its entries move over in later steps.
func (x *pathIndex) grow() {
	x.finishMove()
	x.old, x.moved = x.slots, 0
	x.slots = make([]uint64, 2*len(x.old))
	x.step()
}

// step moves the next moveStep slots of the old table, if any.
func (x *pathIndex) step() {
	if x.old == nil {
		return
	}
	end := min(x.moved+moveStep, len(x.old))
	for _, e := range x.old[x.moved:end] {
		if e != 0 && e != slotGone {
			x.put(e)
		}
	}
	x.moved = end
	if end == len(x.old) {
		x.old, x.moved = nil, 0
	}
}

// finishMove moves what is left of the old table.
func (x *pathIndex) finishMove() {
	for x.old != nil {
		x.step()
	}
}

// put stores entry e in slots at the first free place from its home.
func (x *pathIndex) put(e uint64) {
	mask := uint32(len(x.slots) - 1)
	i := uint32(e>>32) & mask
	for x.slots[i] != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = e
}

// reserve makes room for n more nodes without growing.
func (x *pathIndex) reserve(n int) {
	want := x.count + n
	size := len(x.slots)
	for want*4 > size*3 {
		size *= 2
	}
	if size > len(x.slots) {
		x.resize(size)
	}
}

// resize rehashes the table into size slots at once; for loads, before
// any client waits on the tree.
func (x *pathIndex) resize(size int) {
	x.finishMove()
	old := x.slots
	x.slots = make([]uint64, size)
	for _, e := range old {
		if e != 0 {
			x.put(e)
		}
	}
}

// all yields every node, in no particular order.
func (x *pathIndex) all() iter.Seq[*node] {
	return func(yield func(*node) bool) {
		for _, c := range x.chunks {
			for _, n := range c {
				if n != nil && !yield(n) {
					return
				}
			}
		}
	}
}
