package db

import "slices"

// childList is a node's children as Java's DataNode keeps them: a
// java.util.HashSet<String> created with capacity 8 on the first child,
// whose iteration order clients see (getChildren, and the order a
// snapshot lists children in, which a restart rebuilds the sets from).
//
// It holds the children in the order they were added, as their indexes
// in the tree's pathIndex (no pointers for the collector to follow; a
// removal leaves a hole, filled later by compact, which keeps the order
// and each child's node.slot) and the capacity Java's table has grown to, which
// never shrinks. Java iterates bucket by bucket, bucket being
// javaSpreadHash(name) & (capacity-1), and within a bucket in insertion
// order (a resize splits a bucket without reordering it), so sorting the
// positions by bucket, stably, gives Java's order: see javaOrder.
//
// The list stays when its last child goes, as Java's set does, because
// its capacity decides the order of later children.
//
// A bucket that reaches 9 names in a table of 64 or more becomes a
// red-black tree in Java, and iterates in an order that depends on the
// tree's shape; that is not modelled (the names keep insertion order in
// their bucket). It takes 9 names whose hashes agree in their low 6 or
// more bits under one parent.
type childList struct {
	ids      []uint32 // in insertion order; noChild where a child was removed
	live     int32    // entries of ids that are not noChild
	capacity int32    // capacity of Java's HashMap table
	index    *pathIndex
}

// noChild marks a hole in childList.ids.
const noChild = ^uint32(0)

// at is the child at position i, nil for a hole.
func (l *childList) at(i int) *node {
	k := l.ids[i]
	if k == noChild {
		return nil
	}
	return l.index.node(k)
}

const (
	// javaChildCapacity is DataNode's new HashSet<String>(8).
	javaChildCapacity = 8
	// javaTreeifyThreshold is HashMap.TREEIFY_THRESHOLD: adding to a
	// bucket that holds this many names turns it into a tree or, in a
	// table smaller than javaMinTreeifyCapacity, doubles the table.
	javaTreeifyThreshold   = 8
	javaMinTreeifyCapacity = 64
)

// childList is n's list, nil when n never had a child.
func (t *Tree) childList(n *node) *childList {
	if k := n.kids(); k != 0 {
		return t.lists[k]
	}
	return nil
}

func (t *Tree) numChildren(n *node) int {
	if k := n.kids(); k != 0 {
		return int(t.lists[k].live)
	}
	return 0
}

// newChildList gives n, which must be wide, an empty list.
func (t *Tree) newChildList(n *node) *childList {
	l := &childList{capacity: javaChildCapacity, index: &t.nodes}
	e := n.ext()
	e.kids = claimSlot(&t.lists, &t.freeLists, l)
	return l
}

// dropChildList forgets n's list, which must be empty.
func (t *Tree) dropChildList(n *node) {
	if k := n.kids(); k != 0 {
		t.lists[k] = nil
		t.freeLists = append(t.freeLists, k)
		n.ext().kids = 0
	}
}

// addChild adds c, whose index in t.nodes is k, to n's children, and
// returns n or, when n had to widen to hold a child list, its
// replacement.
func (t *Tree) addChild(n, c *node, k uint32) *node {
	l := t.childList(n)
	if l == nil {
		n = t.widen(n)
		l = t.newChildList(n)
	}
	c.slot = int32(len(l.ids))
	l.ids = append(l.ids, k)
	l.live++
	l.capacity = javaGrow(l.capacity, int(l.live), c.name(), l.bucketCount)
	return n
}

// javaGrow returns the capacity of a HashMap<String> table of the given
// capacity once name has been added to it, making its size size: Java
// doubles a table that is small for a bucket that reaches 9 names
// (treeifyBin), and one whose size passes three quarters of it.
// bucketCount counts the names already in a bucket (name included).
func javaGrow(capacity int32, size int, name string, bucketCount func(bucket, capacity uint32) int) int32 {
	if capacity < javaMinTreeifyCapacity && size > javaTreeifyThreshold {
		b := javaSpreadHash(name) & uint32(capacity-1)
		if bucketCount(b, uint32(capacity)) > javaTreeifyThreshold {
			capacity *= 2
		}
	}
	if size > int(capacity)/4*3 {
		capacity *= 2
	}
	return capacity
}

// bucketCount counts the children in bucket b of a table of the given
// capacity.
func (l *childList) bucketCount(b, capacity uint32) int {
	k := 0
	for i := range l.ids {
		if c := l.at(i); c != nil && javaSpreadHash(c.name())&(capacity-1) == b {
			k++
		}
	}
	return k
}

func (t *Tree) removeChild(n, c *node) {
	l := t.lists[n.kids()]
	l.ids[c.slot] = noChild
	l.live--
	// Holes at the end cost nothing to drop.
	last := len(l.ids)
	for last > 0 && l.ids[last-1] == noChild {
		last--
	}
	l.ids = l.ids[:last]
	if l.live == 0 {
		l.ids = nil
	} else if int(l.live)*2 < len(l.ids) {
		l.compact()
	}
}

// compact closes the holes, keeping the order (and so Java's order
// within each bucket). It runs when holes outnumber children, so its cost
// is spread over the removals that made them.
func (l *childList) compact() {
	old := l.ids
	list := old[:0]
	if cap(old) > 64 && int(l.live) < cap(old)/4 {
		// Give back memory after mass deletions under one parent.
		list = make([]uint32, 0, l.live*2)
	}
	for _, k := range old {
		if k != noChild {
			l.index.node(k).slot = int32(len(list))
			list = append(list, k)
		}
	}
	l.ids = list
}

// javaOrder appends to keys[:0] one key per child, bucket<<32 | position,
// sorted into Java's iteration order; the child is l.at(int(uint32(key))).
func (l *childList) javaOrder(keys []uint64) []uint64 {
	keys = keys[:0]
	if l == nil {
		return keys
	}
	mask := uint32(l.capacity - 1)
	for i, k := range l.ids {
		if k == noChild {
			continue
		}
		keys = append(keys, uint64(javaSpreadHash(l.index.node(k).name())&mask)<<32|uint64(i))
	}
	sortBuckets(keys, mask)
	return keys
}

// appendLive appends the children to dst in insertion order.
func (l *childList) appendLive(dst []*node) []*node {
	dst = slices.Grow(dst, int(l.live))
	for _, k := range l.ids {
		if k != noChild {
			dst = append(dst, l.index.node(k))
		}
	}
	return dst
}

// javaChildren returns n's children in Java's iteration order.
func (t *Tree) javaChildren(n *node) []*node {
	l := t.childList(n)
	if l == nil || l.live == 0 {
		return nil
	}
	keys := l.javaOrder(make([]uint64, 0, l.live))
	out := make([]*node, len(keys))
	for i, k := range keys {
		out[i] = l.at(int(uint32(k)))
	}
	return out
}

// claimSlot stores v in the most recently freed slot of slots, or in a new
// one, and returns its index: the ACL and child-list tables hand out
// int32 indexes that nodes keep instead of pointers.
func claimSlot[T any](slots *[]T, free *[]int32, v T) int32 {
	if k := len(*free); k > 0 {
		i := (*free)[k-1]
		*free = (*free)[:k-1]
		(*slots)[i] = v
		return i
	}
	*slots = append(*slots, v)
	return int32(len(*slots) - 1)
}
