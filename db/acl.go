package db

import (
	"hash/maphash"
	"slices"

	"github.com/gozk/gozk/proto"
)

// OpenACLID is the ACL id Java's snapshots use for OPEN_ACL_UNSAFE
// (world:anyone ALL); it never appears in the ACL map of a snapshot.
const OpenACLID int64 = -1

// aclEntry is one distinct ACL list, shared by every node that has it.
type aclEntry struct {
	id   int64
	acl  []proto.ACL
	refs int64
	hash uint64
	next *aclEntry // next entry with the same hash
	slot int32     // index in aclCache.slots, which nodes hold
}

// aclCache interns ACL lists the way Java's ReferenceCountedACLCache does:
// one entry per distinct list (order-sensitive equality), ids 1, 2, 3...
// in order of first use and never reused, entries dropped when no node
// references them. OPEN_ACL_UNSAFE (and a null list) is the permanent
// entry with id -1, so the common case costs nothing per node.
type aclCache struct {
	seed   maphash.Seed
	byHash map[uint64]*aclEntry
	open   *aclEntry
	lastID int64
	count  int

	// slots holds the entries by the index nodes keep (node.acl), so a
	// node holds no pointer; open is slot 0. free are the slots of
	// dropped entries.
	slots []*aclEntry
	free  []int32
}

func (c *aclCache) init() {
	c.seed = maphash.MakeSeed()
	c.byHash = make(map[uint64]*aclEntry)
	c.open = &aclEntry{id: OpenACLID, acl: proto.OpenACLUnsafe}
	c.slots = []*aclEntry{c.open}
}

func (c *aclCache) hashOf(acl []proto.ACL) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	var b [4]byte
	for i := range acl {
		a := &acl[i]
		b[0], b[1], b[2], b[3] = byte(a.Perms), byte(a.Perms>>8), byte(a.Perms>>16), byte(a.Perms>>24)
		h.Write(b[:])
		h.WriteString(a.Id.Scheme)
		h.WriteByte(0)
		h.WriteString(a.Id.Id)
		h.WriteByte(0)
	}
	return h.Sum64()
}

func (c *aclCache) find(acl []proto.ACL) (*aclEntry, uint64) {
	h := c.hashOf(acl)
	for e := c.byHash[h]; e != nil; e = e.next {
		if slices.Equal(e.acl, acl) {
			return e, h
		}
	}
	return nil, h
}

// intern returns the entry for acl and counts one more reference to it.
// The tree keeps acl itself when the list is new, so callers hand over a
// slice they will not modify.
func (c *aclCache) intern(acl []proto.ACL) *aclEntry {
	if acl == nil || slices.Equal(acl, proto.OpenACLUnsafe) {
		return c.open
	}
	e, h := c.find(acl)
	if e == nil {
		c.lastID++
		e = &aclEntry{id: c.lastID, acl: acl, hash: h, next: c.byHash[h]}
		c.byHash[h] = e
		c.count++
		e.slot = claimSlot(&c.slots, &c.free, e)
	}
	e.refs++
	return e
}

// release drops one reference and forgets the list when none is left.
func (c *aclCache) release(e *aclEntry) {
	if e == c.open {
		return
	}
	e.refs--
	if e.refs > 0 {
		return
	}
	head := c.byHash[e.hash]
	if head == e {
		if e.next == nil {
			delete(c.byHash, e.hash)
		} else {
			c.byHash[e.hash] = e.next
		}
	} else {
		for p := head; p != nil; p = p.next {
			if p.next == e {
				p.next = e.next
				break
			}
		}
	}
	e.next = nil
	c.count--
	c.slots[e.slot] = nil
	c.free = append(c.free, e.slot)
}

// releaseSlot is release for the entry a node refers to.
func (c *aclCache) releaseSlot(slot int32) { c.release(c.slots[slot]) }

func (c *aclCache) entries() []proto.ACLCacheEntry {
	out := make([]proto.ACLCacheEntry, 0, c.count)
	for _, e := range c.byHash {
		for ; e != nil; e = e.next {
			out = append(out, proto.ACLCacheEntry{Id: e.id, Acl: e.acl})
		}
	}
	slices.SortFunc(out, func(a, b proto.ACLCacheEntry) int {
		switch {
		case a.Id < b.Id:
			return -1
		case a.Id > b.Id:
			return 1
		}
		return 0
	})
	return out
}

// ACLCache returns the ACL map a Java-compatible snapshot starts with: one
// entry per distinct ACL list in use, by id, without OPEN_ACL_UNSAFE
// (id -1, which Java never stores). The lists are shared with the tree.
func (t *Tree) ACLCache() []proto.ACLCacheEntry {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.acls.entries()
}

// ACLCount is the number of distinct ACL lists in the cache (Java's
// aclCacheSize, which does not count OPEN_ACL_UNSAFE).
func (t *Tree) ACLCount() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.acls.count
}

// ACLID returns the snapshot id of an ACL list: -1 for OPEN_ACL_UNSAFE or a
// null list, the cache id for a list some node has, false otherwise.
func (t *Tree) ACLID(acl []proto.ACL) (int64, bool) {
	if acl == nil || slices.Equal(acl, proto.OpenACLUnsafe) {
		return OpenACLID, true
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	if e, _ := t.acls.find(acl); e != nil {
		return e.id, true
	}
	return 0, false
}
