package db

import (
	"slices"
	"unicode/utf16"
	"unicode/utf8"
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
// reordering it). A bucket that reaches 9 paths doubles a table smaller
// than 64 (see javaGrow); in a larger table it becomes a tree, whose order
// is not modelled.
type JavaStringSet struct {
	capacity int
	next     uint64
	seq      map[string]uint64
}

// javaDefaultCapacity is the capacity of a new HashSet's first table.
const javaDefaultCapacity = 16

// newJavaStringSet returns an empty set. Its map is made by the first Add:
// most sessions end with no ephemerals, and closeSession asks for a copy
// of the set of every one.
func newJavaStringSet(capacity int) *JavaStringSet {
	return &JavaStringSet{capacity: capacity}
}

// Add adds p if it is not there, growing the table as Java does.
func (s *JavaStringSet) Add(p string) {
	if _, ok := s.seq[p]; ok {
		return
	}
	if s.seq == nil {
		s.seq = make(map[string]uint64)
	}
	s.seq[p] = s.next
	s.next++
	s.capacity = int(javaGrow(int32(s.capacity), len(s.seq), p, s.bucketCount))
}

// bucketCount counts the elements in bucket b of a table of the given
// capacity.
func (s *JavaStringSet) bucketCount(b, capacity uint32) int {
	k := 0
	for p := range s.seq {
		if javaSpreadHash(p)&(capacity-1) == b {
			k++
		}
	}
	return k
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

// JavaChildOrder returns names in the order a DataNode's children set
// iterates them once they were added to it in the given order (and none
// removed): the order Java prints or lists the children of a node it read
// from a snapshot that lists them so.
func JavaChildOrder(names []string) []string {
	s := newJavaStringSet(javaChildCapacity)
	for _, n := range names {
		s.Add(n)
	}
	return s.Paths()
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
// its UTF-16 code units, with the high half folded into the low half. It
// reads the UTF-8 the way []rune and utf16.Encode would (U+FFFD for each
// byte that does not start a valid sequence), without allocating.
func javaSpreadHash(s string) uint32 {
	var h uint32
	i := 0
	// Four ASCII bytes at a time: one multiply in the dependency chain
	// instead of four.
	for ; i+4 <= len(s); i += 4 {
		c0, c1, c2, c3 := uint32(s[i]), uint32(s[i+1]), uint32(s[i+2]), uint32(s[i+3])
		if c0|c1|c2|c3 >= utf8.RuneSelf {
			break
		}
		h = h*(31*31*31*31) + c0*(31*31*31) + c1*(31*31) + c2*31 + c3
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return javaSpreadHashFrom(h, s[i:])
		}
		h = 31*h + uint32(s[i])
	}
	return h ^ (h >> 16)
}

func javaSpreadHashFrom(h uint32, s string) uint32 {
	for _, r := range s {
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			h = 31*(31*h+uint32(hi)) + uint32(lo)
		} else {
			h = 31*h + uint32(r)
		}
	}
	return h ^ (h >> 16)
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
