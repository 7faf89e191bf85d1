package db

import (
	"hash/maphash"
	"iter"
)

// pathIndex finds nodes by path. A map[string]*node costs about 50 bytes
// per node at a million nodes (a 24-byte slot of two pointers, at the
// load factor its tables average), all of it scanned by the collector.
// This index keeps the nodes in a slice (8 bytes each, the only pointers)
// and finds them through an open-addressing table of 8-byte slots without
// pointers, each holding 32 bits of the path's hash and the node's index
// in that slice: about 24 bytes per node, and the key is the node's own
// path.
//
// The table uses linear probing with at most three quarters of its slots
// full, and backward-shift deletion (no tombstones): the hash bits in a
// slot give its home position, so nothing is rehashed from the paths.
type pathIndex struct {
	seed  maphash.Seed
	slots []uint64 // hash<<32 | (index in nodes + 1); 0: empty
	nodes []*node  // nil where a node was removed (see free)
	free  []uint32 // indexes of nil entries of nodes
	count int
}

const pathIndexMinSlots = 64

func (x *pathIndex) init() {
	x.seed = maphash.MakeSeed()
	x.slots = make([]uint64, pathIndexMinSlots)
}

func (x *pathIndex) hash(path string) uint32 { return uint32(maphash.String(x.seed, path)) }

func (x *pathIndex) len() int { return x.count }

// find returns the position of path in slots (or of the empty slot that
// ends its probe) and whether it is there.
func (x *pathIndex) find(path string, h uint32) (int, bool) {
	mask := uint32(len(x.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		e := x.slots[i]
		if e == 0 {
			return int(i), false
		}
		if uint32(e>>32) == h && x.nodes[uint32(e)-1].path() == path {
			return int(i), true
		}
	}
}

func (x *pathIndex) get(path string) *node {
	i, ok := x.find(path, x.hash(path))
	if !ok {
		return nil
	}
	return x.nodes[uint32(x.slots[i])-1]
}

// insert adds n under its path and returns its index in x.nodes, unless
// a node has that path already: then it reports false and changes
// nothing.
func (x *pathIndex) insert(n *node) (uint32, bool) {
	path := n.path()
	h := x.hash(path)
	i, found := x.find(path, h)
	if found {
		return 0, false
	}
	if (x.count+1)*4 > len(x.slots)*3 {
		x.resize(len(x.slots) * 2)
		i, _ = x.find(path, h)
	}
	var k uint32
	if f := len(x.free); f > 0 {
		k = x.free[f-1]
		x.free = x.free[:f-1]
		x.nodes[k] = n
	} else {
		k = uint32(len(x.nodes))
		x.nodes = append(x.nodes, n)
	}
	x.slots[i] = uint64(h)<<32 | uint64(k+1)
	x.count++
	return k, true
}

// indexOf returns the index in x.nodes of the node with path, which must
// be there.
func (x *pathIndex) indexOf(path string) uint32 {
	i, _ := x.find(path, x.hash(path))
	return uint32(x.slots[i]) - 1
}

// replace puts nn in the place of the node with nn's path, which must be
// there.
func (x *pathIndex) replace(nn *node) {
	path := nn.path()
	i, _ := x.find(path, x.hash(path))
	x.nodes[uint32(x.slots[i])-1] = nn
}

// remove takes the node with path out, if there is one.
func (x *pathIndex) remove(path string) {
	i, ok := x.find(path, x.hash(path))
	if !ok {
		return
	}
	k := uint32(x.slots[i]) - 1
	x.nodes[k] = nil
	x.free = append(x.free, k)
	x.count--
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
	if cap(x.nodes)-len(x.nodes)+len(x.free) < n {
		nodes := make([]*node, len(x.nodes), len(x.nodes)+n)
		copy(nodes, x.nodes)
		x.nodes = nodes
	}
}

func (x *pathIndex) resize(size int) {
	old := x.slots
	x.slots = make([]uint64, size)
	mask := uint32(size - 1)
	for _, e := range old {
		if e == 0 {
			continue
		}
		i := uint32(e>>32) & mask
		for x.slots[i] != 0 {
			i = (i + 1) & mask
		}
		x.slots[i] = e
	}
}

// all yields every node, in no particular order.
func (x *pathIndex) all() iter.Seq[*node] {
	return func(yield func(*node) bool) {
		for _, n := range x.nodes {
			if n != nil && !yield(n) {
				return
			}
		}
	}
}
