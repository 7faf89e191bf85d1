package db

import (
	"slices"
	"unicode/utf16"
)

// JavaStringSet keeps what java.util.HashSet<String> needs to iterate in
// its own order: the capacity its table has grown to (it never shrinks)
// and the order elements were added in. Java's DataTree keeps each
// session's ephemeral paths in such a set, and that order is visible to
// clients: closeSession deletes the paths (and fires their watches) in it,
// and getEphemerals lists them in it.
//
// Iteration goes by bucket, spread(String.hashCode()) & (capacity-1),
// then by insertion within a bucket (a resize splits a bucket without
// reordering it). Treeified buckets (8 or more paths in one bucket of a
// table of 64 or more) are not modelled.
type JavaStringSet struct {
	capacity int
	next     uint64
	seq      map[string]uint64
}

// javaDefaultCapacity is the capacity of a new HashSet's first table.
const javaDefaultCapacity = 16

func newJavaStringSet(capacity int) *JavaStringSet {
	return &JavaStringSet{capacity: capacity, seq: make(map[string]uint64)}
}

// Add adds p if it is not there, growing the table as Java does when the
// size passes three quarters of the capacity.
func (s *JavaStringSet) Add(p string) {
	if _, ok := s.seq[p]; ok {
		return
	}
	s.seq[p] = s.next
	s.next++
	if len(s.seq) > s.capacity/4*3 {
		s.capacity *= 2
	}
}

// Remove takes p out; the table keeps its size.
func (s *JavaStringSet) Remove(p string) { delete(s.seq, p) }

// Len is the number of elements.
func (s *JavaStringSet) Len() int { return len(s.seq) }

// Paths returns the elements in Java's iteration order.
func (s *JavaStringSet) Paths() []string {
	type entry struct {
		path   string
		bucket uint32
		seq    uint64
	}
	es := make([]entry, 0, len(s.seq))
	mask := uint32(s.capacity - 1)
	for p, q := range s.seq {
		es = append(es, entry{p, javaSpreadHash(p) & mask, q})
	}
	slices.SortFunc(es, func(a, b entry) int {
		if a.bucket != b.bucket {
			return int(a.bucket) - int(b.bucket)
		}
		if a.seq < b.seq {
			return -1
		}
		return 1
	})
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.path
	}
	return out
}

// Clone is HashSet.clone(): a table sized for the current size (not the
// original's capacity), filled in the original's iteration order.
func (s *JavaStringSet) Clone() *JavaStringSet {
	n := len(s.seq)
	capacity := javaDefaultCapacity
	if n > 0 {
		capacity = javaTableSizeFor(int(float32(n)/float32(0.75) + 1))
	}
	c := newJavaStringSet(capacity)
	for _, p := range s.Paths() {
		c.Add(p)
	}
	return c
}

// javaTableSizeFor is HashMap.tableSizeFor: the smallest power of two at
// least c.
func javaTableSizeFor(c int) int {
	n := 1
	for n < c {
		n <<= 1
	}
	return n
}

// javaSpreadHash is HashMap.hash(key) for a String: String.hashCode over
// its UTF-16 code units, with the high half folded into the low half.
func javaSpreadHash(s string) uint32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	x := uint32(h)
	return x ^ (x >> 16)
}

// EphemeralSet returns what Java's DataTree.getEphemerals returns for a
// session: a clone of its set of ephemeral paths (empty when it has
// none), to be read in Java's order with Paths.
func (t *Tree) EphemeralSet(session int64) *JavaStringSet {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if s := t.javaEphemerals[session]; s != nil {
		return s.Clone()
	}
	return newJavaStringSet(javaDefaultCapacity)
}

func (t *Tree) javaEphemeralAdd(session int64, path string) {
	if t.javaEphemerals == nil {
		t.javaEphemerals = make(map[int64]*JavaStringSet)
	}
	s := t.javaEphemerals[session]
	if s == nil {
		s = newJavaStringSet(javaDefaultCapacity)
		t.javaEphemerals[session] = s
	}
	s.Add(path)
}

// javaEphemeralRemove keeps the session's set even when it empties, as
// Java does until the session ends.
func (t *Tree) javaEphemeralRemove(session int64, path string) {
	if s := t.javaEphemerals[session]; s != nil {
		s.Remove(path)
	}
}
