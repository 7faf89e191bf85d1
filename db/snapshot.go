package db

import (
	"errors"
	"fmt"

	"github.com/gozk/gozk/proto"
)

// Walk calls fn for every node, parents before their children, the root
// first under the path "" (as Java's snapshots name it). Data and ACL are
// shared with the tree. It holds the read lock throughout, so Apply waits
// until it returns; fn must not call methods of t. The first error fn
// returns stops the walk and is returned.
func (t *Tree) Walk(fn func(path string, data []byte, acl []proto.ACL, stat proto.StatPersisted) error) error {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return walkNode(t.root, func(n *node) error {
		return fn(n.path, n.data, n.acl.acl, n.persisted())
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
	return walkNode(t.root, func(n *node) error {
		return fn(n.path, n.data, n.acl.id, n.persisted())
	})
}

func walkNode(n *node, fn func(*node) error) error {
	if err := fn(n); err != nil {
		return err
	}
	if n.children != nil {
		for _, c := range n.children.nodes {
			if err := walkNode(c, fn); err != nil {
				return err
			}
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
	if err := t.loadLocked(path, data, e, &stat); err != nil {
		t.acls.release(e)
		return err
	}
	return nil
}

// loadLocked is Load with the ACL entry already referenced for the node.
func (t *Tree) loadLocked(path string, data []byte, acl *aclEntry, stat *proto.StatPersisted) error {
	if n := t.lookup(path); n != nil {
		t.unindexKind(n)
		t.dataSize -= nodeSize(n.path, n.data)
		if n == t.root {
			t.dataSize -= int64(len(n.data))
		}
		t.acls.release(n.acl)
		n.acl = acl
		n.data = data
		n.setPersisted(stat)
		t.dataSize += nodeSize(n.path, n.data)
		if n == t.root {
			t.dataSize += int64(len(n.data))
		}
		t.indexKind(n)
		return nil
	}
	parentPath, _, ok := splitPath(path)
	if !ok {
		return fmt.Errorf("db: snapshot node %q: %w", path, proto.ErrBadArguments.Err())
	}
	parent := t.lookup(parentPath)
	if parent == nil {
		return fmt.Errorf("db: %q: %w (%q)", path, ErrMissingParent, parentPath)
	}
	n := &node{path: path, data: data, parent: parent, acl: acl}
	n.setPersisted(stat)
	t.nodes[n.path] = n
	parent.addChild(n)
	t.indexKind(n)
	t.dataSize += nodeSize(n.path, n.data)
	return nil
}

// FinishLoad completes a load: it rebuilds the quota roots and recounts
// every quota stats node (as Java does at startup) and recomputes the
// digest.
func (t *Tree) FinishLoad() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.setupQuotas()
	t.recomputeDigest()
}
