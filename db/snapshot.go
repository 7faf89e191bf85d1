package db

import (
	"errors"
	"fmt"

	"github.com/gozk/gozk/proto"
)

// Walk calls fn for every node, parents before their children, the root
// first under the path "" (as Java's snapshots name it), in the order
// Java's snapshots list them: depth first, each node's children in their
// Java iteration order (see childList), which is the order a restart
// rebuilds each parent's children in. Data and ACL are
// shared with the tree. It holds the read lock throughout, so Apply waits
// until it returns; fn must not call methods of t. The first error fn
// returns stops the walk and is returned.
func (t *Tree) Walk(fn func(path string, data []byte, acl []proto.ACL, stat proto.StatPersisted) error) error {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.walkNode(t.root, "", func(n *node, path string) error {
		return fn(path, t.dataOf(n), t.acls.slots[n.acl].acl, n.persisted())
	})
}

// WalkSnapshot is Walk for writers of Java's snapshot format: it first
// calls acls with the ACL map (see ACLCache), then fn for every node with
// the id of its ACL in that map (-1 for OPEN_ACL_UNSAFE), all under one
// read lock so the ids agree.
func (t *Tree) WalkSnapshot(acls func([]proto.ACLCacheEntry) error, fn func(path string, data []byte, aclID int64, stat proto.StatPersisted) error) error {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if err := acls(t.acls.entries()); err != nil {
		return err
	}
	return t.walkNode(t.root, "", func(n *node, path string) error {
		return fn(path, t.dataOf(n), t.acls.slots[n.acl].id, n.persisted())
	})
}

// walkNode calls fn for n, whose path is path, and its descendants.
func (t *Tree) walkNode(n *node, path string, fn func(*node, string) error) error {
	if err := fn(n, path); err != nil {
		return err
	}
	for _, c := range t.javaChildren(n) {
		if err := t.walkNode(c, path+"/"+c.name(), fn); err != nil {
			return err
		}
	}
	return nil
}

// ErrMissingParent is returned by Load for a node whose parent has not been
// loaded, which Java treats as a corrupt snapshot.
var ErrMissingParent = errors.New("snapshot node without a parent")

// Load adds one node read from a snapshot, in Walk order, to a tree fresh
// from New: the root comes as "" and replaces the built-in root's data,
// ACL and stat, and so do the built-in /zookeeper nodes. Loading a path
// twice keeps the later node. The session, ephemeral, container and TTL
// indexes are maintained as nodes arrive; call FinishLoad after the last
// one. The tree keeps data and acl.
func (t *Tree) Load(path string, data []byte, acl []proto.ACL, stat proto.StatPersisted) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.acls.intern(acl)
	if _, err := t.loadLocked(path, data, e, &stat, nil, true); err != nil {
		t.acls.release(e)
		return err
	}
	return nil
}

// loadLocked is Load with the ACL entry already referenced for the node.
//
// near, when not nil, is the node loaded last (see Loader). Only with
// replace does it look for an existing node at path (the built-in ones);
// without, a path loaded twice is an error, found without a second map
// access per node.
func (t *Tree) loadLocked(path string, data []byte, acl *aclEntry, stat *proto.StatPersisted, near *node, replace bool) (*node, error) {
	if replace {
		if n := t.lookup(path); n != nil {
			t.digestRemove(n)
			t.unindexKind(n)
			t.dataSize -= nodeSize(path, n.dataLen())
			if n == t.root {
				t.dataSize -= int64(n.dataLen())
			}
			t.acls.releaseSlot(n.acl)
			n = t.setNodeData(n, data)
			n.acl = acl.slot
			n.setPersisted(stat)
			t.dataSize += nodeSize(path, n.dataLen())
			if n == t.root {
				t.dataSize += int64(n.dataLen())
			}
			t.indexKind(n)
			t.digestAdd(n)
			if n == t.root {
				t.detachBuiltIns()
			} else if n.slot < 0 {
				t.addChild(t.lookup(parentPath(path)), n, t.nodes.indexOf(path))
			}
			return n, nil
		}
	}
	parentPath, name, ok := splitPath(path)
	if !ok {
		return nil, fmt.Errorf("db: snapshot node %q: %w", path, proto.ErrBadArguments.Err())
	}
	// In a snapshot's pre-order the parent is the previous node or one of
	// its ancestors (near, when the caller tracks them): found without
	// touching the (cold) path map.
	parent := near
	if parent != nil && parent.slot == slotReplaced {
		parent = t.current(parent)
	}
	if parent != nil && !t.hasPath(parent, parentPath) {
		parent = nil
	}
	if parent == nil && parentPath == "" {
		parent = t.root
	}
	if parent == nil {
		if parent = t.lookup(parentPath); parent == nil {
			return nil, fmt.Errorf("db: %q: %w (%q)", path, ErrMissingParent, parentPath)
		}
	}
	n := newNodeStat(name, t.indexOfParent(parent), data, stat)
	n.acl = acl.slot
	k, ok := t.nodes.insert(path, n)
	if !ok {
		return nil, fmt.Errorf("db: snapshot holds %q twice", path)
	}
	t.addChild(parent, n, k)
	t.indexKind(n)
	t.dataSize += nodeSize(path, n.dataLen())
	t.digestAdd(n)
	return n, nil
}

// builtInPaths are the nodes New makes below the root, parents first.
var builtInPaths = [...]string{proto.ZooKeeperPath, proto.QuotaPath, proto.ConfigPath}

// detachBuiltIns takes the built-in nodes out of their parents' child
// lists (slot -1 marks them) when a load begins with the root. Java's
// DataTree.deserialize starts from new nodes with no children and adds
// each node to its parent as its record comes, so the built-in nodes take
// the place the snapshot gives them among the loaded ones, in parents
// whose sets start at their first capacity.
func (t *Tree) detachBuiltIns() {
	for i := len(builtInPaths) - 1; i >= 0; i-- {
		n := t.nodes.get(builtInPaths[i])
		if n == nil || n.slot < 0 {
			continue
		}
		p := t.parentOf(n)
		t.removeChild(p, n)
		n.slot = slotDetached
		if t.numChildren(p) == 0 {
			t.dropChildList(p)
		}
	}
}

// FinishLoad completes a load: it puts back any built-in node the
// snapshot did not list, rebuilds the quota roots and recounts every
// quota stats node (as Java does at startup). The digest is kept up to
// date node by node as they load.
func (t *Tree) FinishLoad() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range builtInPaths {
		if n := t.nodes.get(p); n != nil && n.slot == slotDetached {
			t.addChild(t.lookup(parentPath(p)), n, t.nodes.indexOf(p))
		}
	}
	t.setupQuotas()
}
