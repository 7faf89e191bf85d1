package acl

import "github.com/gozk/gozk/proto"

// A Java server keeps a connection's identities in a set backed by a
// ConcurrentHashMap and hands out copies in the map's iteration order.
// That order reaches clients twice: whoAmI lists identities in it, and an
// "auth" ACL entry expands to one entry per identity in it. gozk keeps
// identities in a plain slice already sorted that way, so both come out
// as Java's would. The order is a function of the ids' Java hash codes
// and the table size, which only grows: 16 buckets, doubling when the
// set reaches 12, 24, 48... entries.

// initialTableSize and the load factor are ConcurrentHashMap's defaults.
const initialTableSize = 16

// tableSize is the map's bucket count once it holds n entries.
func tableSize(n int) int {
	size := initialTableSize
	for n >= size-size/4 {
		size *= 2
	}
	return size
}

// javaIDHash is the jute-generated Id.hashCode.
func javaIDHash(id proto.Id) int32 {
	h := int32(17)
	h = 37*h + javaStringHash(id.Scheme)
	h = 37*h + javaStringHash(id.Id)
	return h
}

// spreadHash is ConcurrentHashMap.spread: the high half folded into the
// low half, sign bit cleared.
func spreadHash(id proto.Id) uint32 {
	h := uint32(javaIDHash(id))
	return (h ^ h>>16) & 0x7FFFFFFF
}

// AddIdentity returns ids with id added, or ids itself when id is already
// there (Java's set ignores duplicates). ids must have been built with
// AddIdentity (starting from nil or a single IPIdentity); the result is
// again in the order Java iterates the same set, and is a new slice
// whenever something was added. Adding identities is rare (at connect and
// per auth packet), so clarity beats speed here.
//
// Not modelled: ConcurrentHashMap's resize when one bucket collects more
// than eight entries, which needs nine identities with colliding hashes.
func AddIdentity(ids []proto.Id, id proto.Id) []proto.Id {
	for _, have := range ids {
		if have == id {
			return ids
		}
	}
	oldSize := tableSize(len(ids))
	buckets := make([][]proto.Id, oldSize)
	for _, have := range ids {
		b := spreadHash(have) & uint32(oldSize-1)
		buckets[b] = append(buckets[b], have)
	}
	b := spreadHash(id) & uint32(oldSize-1)
	buckets[b] = append(buckets[b], id)
	if newSize := tableSize(len(ids) + 1); newSize > oldSize {
		buckets = splitBuckets(buckets, oldSize)
	}
	out := make([]proto.Id, 0, len(ids)+1)
	for _, bucket := range buckets {
		out = append(out, bucket...)
	}
	return out
}

// splitBuckets doubles the table the way ConcurrentHashMap.transfer does.
// Each bucket i splits into i and i+oldSize by the hash bit oldSize. The
// longest tail of the old list whose entries all go the same way is moved
// as it is; every entry before that tail is pushed onto the front of its
// new list, which reverses their order.
func splitBuckets(buckets [][]proto.Id, oldSize int) [][]proto.Id {
	next := make([][]proto.Id, 2*oldSize)
	for i, list := range buckets {
		if len(list) == 0 {
			continue
		}
		high := func(id proto.Id) bool { return spreadHash(id)&uint32(oldSize) != 0 }
		runStart := 0
		for j := 1; j < len(list); j++ {
			if high(list[j]) != high(list[runStart]) {
				runStart = j
			}
		}
		var low, up []proto.Id
		if high(list[runStart]) {
			up = append(up, list[runStart:]...)
		} else {
			low = append(low, list[runStart:]...)
		}
		for j := 0; j < runStart; j++ {
			if high(list[j]) {
				up = append([]proto.Id{list[j]}, up...)
			} else {
				low = append([]proto.Id{list[j]}, low...)
			}
		}
		next[i] = low
		next[i+oldSize] = up
	}
	return next
}
