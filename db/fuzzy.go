package db

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"unsafe"

	"github.com/gozk/gozk/proto"
)

// SnapshotNode is one node as a FuzzyWalk copied it. Data and ACL are
// shared with the tree, which never modifies them (a setData or setACL
// installs new slices). Path is only valid until the walk's next step:
// its bytes are reused.
type SnapshotNode struct {
	Path  string
	Data  []byte
	ACLID int64 // OpenACLID for OPEN_ACL_UNSAFE
	ACL   []proto.ACL
	Stat  proto.StatPersisted
}

// FuzzyWalk copies the tree for a snapshot while Apply goes on, as Java's
// fuzzy snapshots do: it takes the read lock for a bounded amount of work
// at a time (Next), so a write waits at most that long. Every node is
// copied whole under the lock, with its child list, so each node is
// consistent in itself and parents come before children; the nodes of
// one walk reflect different moments. What the walk yields holds every txn
// up to Zxid and possibly some later ones; replaying the log from Zxid+1
// over it gives the exact tree, because Apply converges on txns already
// reflected (see the package comment). Nodes come in Walk's order, so a
// tree loaded from them iterates children as the walked one did. A node deleted before the walk
// reaches it is skipped, one created after its parent was copied is not
// seen; replay settles both.
//
// The walk keeps the path of every node whose children it has stacked,
// and names each child by it: a node pushed before a pause may be
// replaced by the time it pops, and its parent gone, whose index the
// node's own record of it may then no longer stand for.
type FuzzyWalk struct {
	t     *Tree
	zxid  int64
	stack []walkEntry
	// dirs are the paths of the nodes whose children were stacked, as
	// spans of dirBytes, which only grows during the walk (a string per
	// parent would be an allocation per node in a tree of chains).
	dirs     []span
	dirBytes []byte
	names    []byte   // the bytes of the paths of one step's nodes
	keys     []uint64 // scratch for childList.javaOrder
	kids     []*node  // the children of a large child list, copied for pushKids
}

type span struct{ off, end int }

// walkEntry is a node on the walk's stack and the index in dirs of its
// parent's path (rootDir for the root itself).
type walkEntry struct {
	n   *node
	dir int32
}

const rootDir = -1

// StartFuzzyWalk begins a walk at the current LastProcessedZxid.
func (t *Tree) StartFuzzyWalk() *FuzzyWalk {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return &FuzzyWalk{t: t, zxid: t.lastZxid, stack: []walkEntry{{n: t.root, dir: rootDir}}}
}

// Zxid is the zxid the walk started at: the snapshot's zxid.
func (w *FuzzyWalk) Zxid() int64 { return w.zxid }

// Next appends the next nodes to dst[:0] and returns them, empty when the
// walk is over (never before); their paths are valid until the next call.
// It holds the read lock while it copies about budget nodes and child
// pointers, and not while the caller handles them. A node with more
// children than budget ends the step: its children are copied as they
// stand, as node pointers, and put in Java's order after the lock is
// released (hashing a million names takes longer than any write should
// wait); the pointers stay valid, as a node's name never changes, and
// current tells when they pop whether each was deleted or replaced since.
func (w *FuzzyWalk) Next(dst []SnapshotNode, budget int) []SnapshotNode {
	dst = dst[:0]
	w.names = w.names[:0]
	t := w.t
	t.mu.RLock()
	touchAhead(w.stack, budget)
	work := 0
	big, mask, bigDir := false, uint32(0), int32(0)
	for len(w.stack) > 0 && (work < budget || len(dst) == 0) {
		e := w.stack[len(w.stack)-1]
		w.stack[len(w.stack)-1] = walkEntry{}
		w.stack = w.stack[:len(w.stack)-1]
		work++
		path := w.pathOf(e)
		n := e.n
		switch n.slot {
		case slotDeleted:
			continue // deleted since its parent was copied
		case slotReplaced:
			if n = t.lookup(path); n == nil {
				continue
			}
		}
		acl := t.acls.slots[n.acl]
		dst = append(dst, SnapshotNode{Path: path, Data: t.dataOf(n), ACLID: acl.id, ACL: acl.acl, Stat: n.persisted()})
		l := t.childList(n)
		if l == nil || l.live == 0 {
			continue
		}
		dir := int32(len(w.dirs))
		w.dirs = append(w.dirs, span{len(w.dirBytes), len(w.dirBytes) + len(path)})
		w.dirBytes = append(w.dirBytes, path...)
		if int(l.live) > budget {
			w.kids = l.appendLive(w.kids[:0])
			big, mask, bigDir = true, uint32(l.capacity-1), dir
			break
		}
		// Sized once, not grown by appends: the keys and the stack of a
		// node with many children are large, and a snapshot's garbage
		// is GC work that the requests pay for. Twice the keys leaves
		// sortBuckets its scratch space.
		if cap(w.keys) < 2*int(l.live) {
			w.keys = make([]uint64, 0, 2*int(l.live))
		}
		w.keys = l.javaOrder(w.keys)
		w.stack = slices.Grow(w.stack, len(w.keys))
		// Pushed last to first, so that they come out in Java's order
		// (see Walk).
		for i := len(w.keys) - 1; i >= 0; i-- {
			w.stack = append(w.stack, walkEntry{n: l.at(int(uint32(w.keys[i]))), dir: dir})
		}
		work += len(w.keys)
	}
	t.mu.RUnlock()
	if big {
		w.pushKids(mask, bigDir)
	}
	return dst
}

// pathOf is the path of e's node, in w.names: its parent's path and its
// name.
func (w *FuzzyWalk) pathOf(e walkEntry) string {
	if e.dir == rootDir {
		return ""
	}
	start := len(w.names)
	d := w.dirs[e.dir]
	w.names = append(w.names, w.dirBytes[d.off:d.end]...)
	w.names = append(w.names, '/')
	w.names = append(w.names, e.n.name()...)
	// A string of bytes that stay as they are until the next step: the
	// appends of this step that grow names copy them to a new array and
	// leave this one alone.
	return unsafe.String(&w.names[start], len(w.names)-start)
}

// pushKids pushes w.kids, the children of one node copied under the lock,
// in Java's order: by bucket of their names in a table of mask+1 buckets,
// stably, as childList.javaOrder orders them. dir is the index of their
// parent's path in w.dirs.
func (w *FuzzyWalk) pushKids(mask uint32, dir int32) {
	if cap(w.keys) < 2*len(w.kids) {
		w.keys = make([]uint64, 0, 2*len(w.kids))
	}
	keys := w.keys[:0]
	for i, c := range w.kids {
		keys = append(keys, uint64(javaSpreadHash(c.name())&mask)<<32|uint64(i))
	}
	sortBuckets(keys, mask)
	w.stack = slices.Grow(w.stack, len(keys))
	for i := len(keys) - 1; i >= 0; i-- {
		w.stack = append(w.stack, walkEntry{n: w.kids[uint32(keys[i])], dir: dir})
	}
	clear(w.kids) // the walk must not keep deleted nodes alive
	w.kids = w.kids[:0]
	w.keys = keys
}

// touchAhead reads the stat of each of the last n nodes of stack, the
// next ones Next pops. A snapshot visits nodes in Java's hash order, not
// in the order they were allocated, so each is a cache miss; in this loop
// the loads do not depend on each other and the CPU has many of them in
// flight at once, while Next, copying one node at a time, would wait for
// each in turn.
func touchAhead(stack []walkEntry, n int) {
	var sink int32
	for _, e := range stack[max(len(stack)-n, 0):] {
		// The stat Next copies: the lines of the node's header.
		sink += e.n.persisted().Version
	}
	runtime.KeepAlive(sink) // keeps the loads
}

// End returns the zxid and the tree digest (0 when disabled) at the moment
// it is called, together: a snapshot records them as its ZxidDigest, which
// recovery compares once replay reaches that zxid.
func (w *FuzzyWalk) End() (zxid, digest int64) {
	w.t.mu.RLock()
	defer w.t.mu.RUnlock()
	return w.t.lastZxid, w.t.digest
}

// DigestEnabled reports whether the tree maintains its digest.
func (t *Tree) DigestEnabled() bool { return t.opts.DigestEnabled }

// SessionList returns the session table as snapshot records.
func (t *Tree) SessionList() []proto.SnapshotSession {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]proto.SnapshotSession, 0, len(t.sessions))
	for id, to := range t.sessions {
		out = append(out, proto.SnapshotSession{Id: id, Timeout: to})
	}
	return out
}

// Loader loads a snapshot's records into a tree fresh from New: ACL cache
// entries by their snapshot id, then nodes in snapshot order (parents
// first, the root as ""), as Load does but without hashing every node's
// ACL list. Call the tree's FinishLoad after the last node.
type Loader struct {
	t    *Tree
	acls map[int64][]proto.ACL
	ids  map[int64]*aclEntry
	// path is the node loaded last and its ancestors up to the root: in
	// a snapshot's pre-order they hold the next node's parent.
	path []*node
}

// NewLoader returns a Loader for t.
func (t *Tree) NewLoader() *Loader {
	return &Loader{t: t, acls: make(map[int64][]proto.ACL), ids: make(map[int64]*aclEntry)}
}

// ACL records the list a snapshot's ACL id stands for. The tree assigns
// its own ids (in order of first use), as it would have had the nodes
// been created; the snapshot's ids only link nodes to lists.
func (l *Loader) ACL(id int64, acl []proto.ACL) { l.acls[id] = acl }

// Node adds one node; aclID must be OpenACLID or an id given to ACL. The
// tree keeps path and data. The built-in nodes ("", /zookeeper...) replace
// the tree's own; any other path loaded twice is an error.
func (l *Loader) Node(path string, data []byte, aclID int64, stat *proto.StatPersisted) error {
	t := l.t
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.acls.open
	if aclID != OpenACLID {
		e = l.ids[aclID]
		if e == nil {
			acl, ok := l.acls[aclID]
			if !ok {
				return fmt.Errorf("db: snapshot node %q uses ACL id %d, which the snapshot does not hold", path, aclID)
			}
			e = t.acls.intern(acl)
			e.refs-- // counted per node below
			l.ids[aclID] = e
		}
		if e != t.acls.open {
			e.refs++
		}
	}
	builtIn := path == "" || strings.HasPrefix(path, proto.ZooKeeperPath)
	var near *node
	if parent, _, ok := splitPath(path); ok {
		for len(l.path) > 0 && !t.hasPath(l.path[len(l.path)-1], parent) {
			l.path = l.path[:len(l.path)-1]
		}
		if len(l.path) > 0 {
			near = l.path[len(l.path)-1]
		}
	} else {
		l.path = l.path[:0]
	}
	n, err := t.loadLocked(path, data, e, stat, near, builtIn)
	if err == nil {
		if k := len(l.path) - 1; k >= 0 && l.path[k].slot == slotReplaced {
			l.path[k] = t.current(l.path[k]) // widened for its first child
		}
		l.path = append(l.path, n)
	}
	return err
}

// Reserve makes room for n more nodes, sparing the path map its growth
// steps during a large load.
func (l *Loader) Reserve(n int) {
	t := l.t
	t.mu.Lock()
	defer t.mu.Unlock()
	t.nodes.reserve(n)
}
