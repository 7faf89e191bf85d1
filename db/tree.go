package db

import (
	"slices"
	"sync"

	"github.com/gozk/gozk/internal/invariants"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// Options configures a Tree.
type Options struct {
	// ExtendedTypesEnabled is zookeeper.extendedTypesEnabled: an
	// ephemeralOwner with a top byte of 0xFF marks a TTL node. Without it
	// such a value is an ordinary ephemeral owner, as in Java.
	ExtendedTypesEnabled bool
	// DigestEnabled maintains Java's version-2 tree digest
	// (zookeeper.digest.enabled).
	DigestEnabled bool
	// Logger receives quota-exceeded log lines (from CheckQuota, which
	// runs under the read lock and so possibly on several goroutines at
	// once); nil discards them. Java rate-limits these lines; a Logger
	// that wants the same must do it itself.
	Logger func(msg string)
}

// Event is one watch trigger, in the order Java fires them: a create of P
// gives {NodeCreated, P} then {NodeChildrenChanged, parent(P)}; a delete
// {NodeDeleted, P} then {NodeChildrenChanged, parent(P)} (the watch
// manager knows that NodeDeleted fires both the data and the child table
// of P); a setData {NodeDataChanged, P}. The parent of a top-level node is
// "/".
//
// ACL is the ACL of the node the event is about (of the parent for
// NodeChildrenChanged): 3.8.0 as Debian ships it and Apache ZooKeeper
// 3.8.4 on (the fix of CVE-2024-23944) deliver an event only to a
// connection with READ on it.
type Event struct {
	Type proto.EventType
	Path string
	ACL  []proto.ACL
}

// Result is what applying one txn produced.
type Result struct {
	// Err is OK, the code of an ErrorTxn, or the error the apply met (for
	// a multi: the first non-OK sub-result, as Java's ProcessTxnResult;
	// the server still answers a multi with header err 0).
	Err proto.ErrCode
	// Path is the path a create* txn named.
	Path string
	// Stat is the client-visible stat of the affected node after a create,
	// setData or setACL txn.
	Stat proto.Stat
	// Multi holds the per-op results of a multi as Java answers them.
	Multi []proto.MultiResult
	// Events are the watch triggers, in firing order; none for failed txns.
	Events []Event
}

// NodeInfo is what request preparation needs to know about a node.
type NodeInfo struct {
	// Stat is the stored stat: Cversion counts child creations, and
	// EphemeralOwner is the stored owner (container and TTL markers
	// included).
	Stat        proto.StatPersisted
	NumChildren int32
	ACL         []proto.ACL
	DataLength  int32
	// Data is the node's data, shared with the tree (never written to):
	// what a digest of the node's next state is computed over.
	Data []byte
}

// Tree is the data tree. The zero value is not usable; call New.
type Tree struct {
	mu sync.RWMutex
	treeState
}

// treeState is everything a Tree holds but its lock, apart so that
// Replace can move a whole tree's state in one assignment.
type treeState struct {
	opts Options

	root  *node
	nodes pathIndex // every node but the root

	// lists holds the child lists nodes refer to by index (node.kids);
	// 0 is never used. freeLists are indexes free for reuse.
	lists     []*childList
	freeLists []int32

	// datas holds the data of nodes whose data was set after they were
	// made (nodeExt.xdata), 0 unused; freeDatas are indexes free for
	// reuse.
	datas     [][]byte
	freeDatas []int32

	acls       aclCache
	sessions   map[int64]int32
	ephemerals map[int64]map[*node]struct{}
	numEphem   int
	containers map[*node]struct{}
	ttls       map[*node]struct{}
	quotas     quotaRoots

	dataSize      int64 // Java's approximateDataSize, kept up to date
	digest        int64 // wrapping sum of node digests
	digestBlock   [60]byte
	digestScratch []byte // path, data and stat block of nodeDigest
	lastZxid      int64

	// javaEphemerals mirrors ephemerals as Java's HashSets, for the
	// order clients see them in (see JavaStringSet).
	javaEphemerals map[int64]*JavaStringSet
}

// New returns a tree holding what every ZooKeeper tree starts with: "/",
// "/zookeeper" and "/zookeeper/quota" with empty data, zero stats and
// world:anyone ALL, and "/zookeeper/config" with empty data, world:anyone
// READ and aversion -1 (Java sets its ACL with version -1 at startup).
func New(opts Options) *Tree {
	t := &Tree{treeState: treeState{
		opts:       opts,
		sessions:   make(map[int64]int32),
		ephemerals: make(map[int64]map[*node]struct{}),
		containers: make(map[*node]struct{}),
		ttls:       make(map[*node]struct{}),
		lists:      make([]*childList, 1),
		datas:      make([][]byte, 1),
	}}
	t.acls.init()
	t.nodes.init()
	t.root = newNode("", rootParent, []byte{}, false)
	t.root.acl = t.acls.intern(nil).slot
	t.dataSize = rootAliasSize
	t.digestAdd(t.root)
	t.insertNew(proto.ZooKeeperPath, []byte{}, nil)
	t.insertNew(proto.QuotaPath, []byte{}, nil)
	config := t.widen(t.insertNew(proto.ConfigPath, []byte{}, proto.ReadACLUnsafe))
	config.ext().aversion = -1 // under /zookeeper/: outside the digest
	return t
}

// rootAliasSize accounts for Java keeping the root under both "" and "/":
// its approximateDataSize counts the one-character alias as well.
const rootAliasSize = 1

// insertNew adds a node with a zero stat under its parent, which is
// there; used for the built-in nodes.
func (t *Tree) insertNew(path string, data []byte, acl []proto.ACL) *node {
	parent := t.lookup(parentPath(path))
	n := newNode(baseName(path), t.indexOfParent(parent), data, false)
	n.acl = t.acls.intern(acl).slot
	t.link(parent, n, path)
	return n
}

// link makes n, whose path is path, part of the tree under parent: lookup
// map, parent's children, indexes, size and digest. It returns parent, or
// its replacement when it widened (see addChild).
func (t *Tree) link(parent, n *node, path string) *node {
	k, _ := t.nodes.insert(path, n)
	parent = t.addChild(parent, n, k)
	t.indexKind(n)
	t.dataSize += nodeSize(path, n.dataLen())
	t.digestAdd(n)
	return parent
}

// current is the node n stands for now: n itself, the node that replaced
// it (see replaceNode), or nil when it was deleted. A replaced n's path is
// found through its parent, which must still be in the tree (a walk that
// may meet a node whose parent went since keeps the paths itself).
func (t *Tree) current(n *node) *node {
	switch n.slot {
	case slotDeleted:
		return nil
	case slotReplaced:
		return t.lookup(t.nodes.pathOf(n))
	}
	return n
}

// hasPath reports whether n, a node of the tree or one replaced while its
// parent stays, has path.
func (t *Tree) hasPath(n *node, path string) bool {
	if n.nameLen() == 0 {
		return path == "" // the root
	}
	return t.nodes.holds(n, path)
}

// pathOf is n's full path, in a new string ("" for the root).
func (t *Tree) pathOf(n *node) string { return t.nodes.pathOf(n) }

// parentOf is n's parent; n is not the root.
func (t *Tree) parentOf(n *node) *node {
	if k := n.parent(); k != rootParent {
		return t.nodes.node(k)
	}
	return t.root
}

// indexOfNode is n's index in t.nodes; n is in the tree and not the root.
// A node in its parent's child list is found there, without hashing its
// path.
func (t *Tree) indexOfNode(n *node) uint32 {
	if n.slot >= 0 {
		return t.childList(t.parentOf(n)).ids[n.slot]
	}
	return t.nodes.indexOf(t.pathOf(n))
}

// indexOfParent is the parent index that a child of parent records.
func (t *Tree) indexOfParent(parent *node) uint32 {
	if parent == t.root {
		return rootParent
	}
	return t.indexOfNode(parent)
}

// dataOf is n's data (nil for null data), shared with the tree.
func (t *Tree) dataOf(n *node) []byte {
	if n.external() {
		return t.datas[n.ext().xdata]
	}
	return n.inlineData()
}

// setNodeData gives n new data and returns n, or its replacement. The
// first time, n is replaced by a wide copy without its data, which is
// kept in t.datas from then on: the tree keeps the caller's slice, as it
// may not write into a node's allocation (readers hold slices of it),
// and a node that was written once is likely to be written again, which
// then costs no allocation. The caller keeps the digest and the data
// size.
func (t *Tree) setNodeData(n *node, data []byte) *node {
	if !n.external() {
		n = t.replaceNode(n, n.copyWith(nil, true))
		x := int32(len(t.datas))
		if k := len(t.freeDatas); k > 0 {
			x = t.freeDatas[k-1]
			t.freeDatas = t.freeDatas[:k-1]
		} else {
			t.datas = append(t.datas, nil)
		}
		n.ext().xdata = x
	}
	t.datas[n.ext().xdata] = data
	n.dlen = int32(len(data))
	if data == nil {
		n.dlen = -1
	}
	return n
}

// dropData forgets the data of a node being deleted.
func (t *Tree) dropData(n *node) {
	if n.external() {
		x := n.ext().xdata
		t.datas[x] = nil
		t.freeDatas = append(t.freeDatas, x)
	}
}

// widen returns n, or a wide copy of n that replaces it, so that the
// caller can set its mzxid, mtime, owner or pzxid.
func (t *Tree) widen(n *node) *node {
	if n.wide() {
		return n
	}
	return t.replaceNode(n, n.copyWith(n.inlineData(), true))
}

// replaceNode puts nn, a copy of n with the same path, in n's place in
// the path map, the parent's child list and the kind indexes, and marks n
// replaced.
func (t *Tree) replaceNode(n, nn *node) *node {
	if n == t.root {
		t.root = nn
	} else {
		// The parent's child list holds the index, not the node.
		t.nodes.setNode(t.indexOfNode(n), nn)
	}
	n.slot = slotReplaced
	owner := nn.owner()
	switch proto.KindOf(owner, t.opts.ExtendedTypesEnabled) {
	case proto.KindEphemeral:
		if set := t.ephemerals[owner]; set != nil {
			if _, ok := set[n]; ok {
				delete(set, n)
				set[nn] = struct{}{}
			}
		}
	case proto.KindContainer:
		if _, ok := t.containers[n]; ok {
			delete(t.containers, n)
			t.containers[nn] = struct{}{}
		}
	case proto.KindTTL:
		if _, ok := t.ttls[n]; ok {
			delete(t.ttls, n)
			t.ttls[nn] = struct{}{}
		}
	}
	return nn
}

// indexKind records n in the ephemeral, container or TTL index its stored
// owner calls for.
func (t *Tree) indexKind(n *node) {
	owner := n.owner()
	switch proto.KindOf(owner, t.opts.ExtendedTypesEnabled) {
	case proto.KindEphemeral:
		set := t.ephemerals[owner]
		if set == nil {
			set = make(map[*node]struct{})
			t.ephemerals[owner] = set
		}
		if _, dup := set[n]; !dup {
			set[n] = struct{}{}
			t.numEphem++
			t.javaEphemeralAdd(owner, t.pathOf(n))
		}
		if invariants.Enabled {
			t.checkEphemerals(owner, n)
		}
	case proto.KindContainer:
		t.containers[n] = struct{}{}
	case proto.KindTTL:
		t.ttls[n] = struct{}{}
	}
}

func (t *Tree) unindexKind(n *node) {
	owner := n.owner()
	switch proto.KindOf(owner, t.opts.ExtendedTypesEnabled) {
	case proto.KindEphemeral:
		if set := t.ephemerals[owner]; set != nil {
			if _, ok := set[n]; ok {
				delete(set, n)
				t.numEphem--
				t.javaEphemeralRemove(owner, t.pathOf(n))
				if len(set) == 0 {
					delete(t.ephemerals, owner)
				}
			} else if invariants.Enabled {
				// Every ephemeral in the tree is in its owner's set
				// until closeSession drops the set whole.
				invariants.Violated("tree: ephemeral %s leaves the tree but is not among the ephemerals of its session 0x%x",
					t.pathOf(n), owner)
			}
			if invariants.Enabled {
				t.checkEphemerals(owner, n)
			}
		}
	case proto.KindContainer:
		delete(t.containers, n)
	case proto.KindTTL:
		delete(t.ttls, n)
	}
}

// checkEphemerals asserts that the session's ephemerals, as nodes and as
// Java's set of paths, agree in number, after n was added or removed.
func (t *Tree) checkEphemerals(owner int64, n *node) {
	nodes, paths := len(t.ephemerals[owner]), 0
	if js := t.javaEphemerals[owner]; js != nil {
		paths = js.Len()
	}
	if nodes != paths || t.numEphem < nodes {
		invariants.Violated("tree: after %s, session 0x%x has %d ephemeral nodes but %d paths in Java's order, and %d ephemerals in all",
			t.pathOf(n), owner, nodes, paths, t.numEphem)
	}
}

// nodeSize is one node's share of Java's approximateDataSize: the path
// length in UTF-16 code units (Java's String.length) plus the data length.
func nodeSize(path string, dataLen int) int64 {
	return int64(jute.UTF16Len(path) + dataLen)
}

// lookup finds a node; "" and "/" are both the root, as in Java.
func (t *Tree) lookup(path string) *node {
	if path == "" || path == "/" {
		return t.root
	}
	return t.nodes.get(path)
}

// visibleStat is the Stat a client sees: the cversion counts creations and
// deletions (2*creations - children, Java's own arithmetic), containers and
// TTL nodes show ephemeralOwner 0.
func (t *Tree) visibleStat(n *node) proto.Stat {
	nc := int32(t.numChildren(n))
	return proto.Stat{
		Czxid: n.czxid, Mzxid: n.mzxid(), Ctime: n.ctime, Mtime: n.mtime(),
		Version: n.version(), Cversion: n.cversion()*2 - nc, Aversion: n.aversion(),
		EphemeralOwner: proto.VisibleEphemeralOwner(n.owner(), t.opts.ExtendedTypesEnabled),
		DataLength:     int32(n.dataLen()), NumChildren: nc, Pzxid: n.pzxid(),
	}
}

// LastProcessedZxid is the highest zxid applied.
func (t *Tree) LastProcessedZxid() int64 {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.lastZxid
}

// SetLastProcessedZxid sets the zxid a loaded snapshot stands for.
func (t *Tree) SetLastProcessedZxid(z int64) {
	t.mu.Lock()
	t.lastZxid = z
	t.mu.Unlock()
}

// Node returns the stored view of a node, for request preparation. "" is
// the root, as in Java.
func (t *Tree) Node(path string) (NodeInfo, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	n := t.lookup(path)
	if n == nil {
		return NodeInfo{}, false
	}
	return NodeInfo{
		Stat:        n.persisted(),
		NumChildren: int32(t.numChildren(n)),
		ACL:         t.acls.slots[n.acl].acl,
		DataLength:  int32(n.dataLen()),
		Data:        t.dataOf(n),
	}, true
}

// NodeDigestOf is the digest of the node at path as the tree holds it (0
// for none, or one under /zookeeper/), for predicting the tree's digest
// after a txn not yet applied; block is the caller's scratch (see
// NodeDigestWith).
func (t *Tree) NodeDigestOf(path string, block *[60]byte) int64 {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if !t.opts.DigestEnabled {
		return 0
	}
	n := t.lookup(path)
	if n == nil {
		return 0
	}
	s := n.persisted()
	return nodeDigest(block, path, t.dataOf(n), &s)
}

// GetData returns a node's data (shared, never modified by the tree; nil
// for null data), its client-visible stat and its ACL.
func (t *Tree) GetData(path string) (data []byte, stat proto.Stat, acl []proto.ACL, ok bool) {
	t.mu.RLock()
	n := t.lookup(path)
	if n != nil {
		data, stat, acl, ok = t.dataOf(n), t.visibleStat(n), t.acls.slots[n.acl].acl, true
	}
	t.mu.RUnlock()
	return
}

// Exists returns a node's client-visible stat and its ACL.
func (t *Tree) Exists(path string) (stat proto.Stat, acl []proto.ACL, ok bool) {
	t.mu.RLock()
	n := t.lookup(path)
	if n != nil {
		stat, acl, ok = t.visibleStat(n), t.acls.slots[n.acl].acl, true
	}
	t.mu.RUnlock()
	return
}

// GetChildren appends the names of a node's children to dst[:0] in the
// order Java's HashSet iterates them (see childList) and returns them with
// the node's stat and ACL. The slice is never nil when ok, so an empty
// list encodes as an empty vector.
func (t *Tree) GetChildren(path string, dst []string) (children []string, stat proto.Stat, acl []proto.ACL, ok bool) {
	var buf [256]uint64 // the keys of most child lists, without allocating
	t.mu.RLock()
	n := t.lookup(path)
	if n == nil {
		t.mu.RUnlock()
		return nil, proto.Stat{}, nil, false
	}
	children = dst[:0]
	if children == nil {
		children = make([]string, 0, t.numChildren(n))
	}
	if l := t.childList(n); l != nil {
		for _, k := range l.javaOrder(buf[:0]) {
			children = append(children, l.index.node(l.ids[uint32(k)]).name())
		}
	}
	stat, acl = t.visibleStat(n), t.acls.slots[n.acl].acl
	t.mu.RUnlock()
	return children, stat, acl, true
}

// GetACL returns a node's ACL (shared with the tree) and its stat.
func (t *Tree) GetACL(path string) (acl []proto.ACL, stat proto.Stat, ok bool) {
	t.mu.RLock()
	n := t.lookup(path)
	if n != nil {
		acl, stat, ok = t.acls.slots[n.acl].acl, t.visibleStat(n), true
	}
	t.mu.RUnlock()
	return
}

// AllChildrenNumber answers getAllChildrenNumber as Java does: for "/" the
// node count minus the two root keys (so "/zookeeper" and its children
// count), for any other node the number of map keys that start with
// path+"/", which for "" includes Java's "/" alias of the root.
func (t *Tree) AllChildrenNumber(path string) (int32, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	n := t.lookup(path)
	if n == nil {
		return 0, false
	}
	switch path {
	case "/":
		return int32(t.nodes.len()), true
	case "":
		return int32(t.nodes.len() + 1), true
	}
	return int32(t.countDescendants(n)), true
}

func (t *Tree) countDescendants(n *node) int {
	l := t.childList(n)
	if l == nil {
		return 0
	}
	total := int(l.live)
	for i := range l.ids {
		if c := l.at(i); c != nil {
			total += t.countDescendants(c)
		}
	}
	return total
}

// Ephemerals returns the paths of a session's ephemeral nodes, sorted.
func (t *Tree) Ephemerals(session int64) []string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.sortedPaths(t.ephemerals[session])
}

func (t *Tree) sortedPaths(set map[*node]struct{}) []string {
	paths := make([]string, 0, len(set))
	for n := range set {
		paths = append(paths, t.pathOf(n))
	}
	slices.Sort(paths)
	return paths
}

// Sessions returns a copy of the session table: id to timeout.
func (t *Tree) Sessions() map[int64]int32 {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make(map[int64]int32, len(t.sessions))
	for id, to := range t.sessions {
		out[id] = to
	}
	return out
}

// SetConfigNode writes an ensemble member's configuration into
// /zookeeper/config as Java's ZKDatabase.initConfigInZKDatabase does each
// time the member loads or receives a tree: the data is the quorum
// configuration's text, the version -1, mzxid the configuration's
// version and mtime the wall clock. The node is outside the digest, and
// nobody watches it yet.
func (t *Tree) SetConfigNode(data []byte, configVersion, mtime int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.nodes.get(proto.ConfigPath)
	if n == nil {
		return
	}
	t.dataSize += int64(len(data)) - int64(max(n.dataLen(), 0))
	n = t.widen(n)
	n = t.setNodeData(n, data)
	x := n.ext()
	x.version = -1
	x.mzxid = configVersion
	x.mtime = mtime
}

// Replace makes t hold from's nodes, sessions, digest and last zxid, as
// one step under t's lock: an ensemble member swaps in the tree a leader
// sent (SNAP) or the one it reloaded from its log, while monitoring
// commands keep reading t. from must not be used afterwards.
func (t *Tree) Replace(from *Tree) {
	from.mu.Lock()
	state := from.treeState
	from.treeState = treeState{}
	from.mu.Unlock()
	t.mu.Lock()
	t.treeState = state
	// Child lists find their nodes through the tree's index: point them
	// at the index's new home.
	for _, l := range t.lists {
		if l != nil {
			l.index = &t.nodes
		}
	}
	t.mu.Unlock()
}

// SetSessions replaces the session table (with a copy of m), e.g. from a
// snapshot.
func (t *Tree) SetSessions(m map[int64]int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sessions = make(map[int64]int32, len(m))
	for id, to := range m {
		t.sessions[id] = to
	}
}

// NodeCount is the node count Java's stat and mntr report: Java keys the
// root under both "" and "/", so a fresh tree counts 5.
func (t *Tree) NodeCount() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.nodes.len() + 2
}

// EphemeralCount is the number of ephemeral nodes of all sessions.
func (t *Tree) EphemeralCount() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.numEphem
}

// ApproximateDataSize is Java's DataTree.approximateDataSize: the sum over
// all keys of path length plus data length (the root counted under both of
// its keys).
func (t *Tree) ApproximateDataSize() int64 {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.dataSize
}

// Digest returns the tree digest, 0 when the digest is disabled.
func (t *Tree) Digest() int64 {
	if !t.opts.DigestEnabled {
		return 0
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.digest
}

// ContainerCandidates lists, sorted, what Java's ContainerManager would
// delete now: containers without children that had children (stored
// cversion > 0) or, when maxNeverUsedMillis > 0, whose mtime is more than
// that long ago; and TTL nodes without children whose mtime is more than
// their TTL ago. At most limit paths are returned when limit > 0.
func (t *Tree) ContainerCandidates(nowMillis, maxNeverUsedMillis int64, limit int) []string {
	t.mu.RLock()
	var out []string
	for n := range t.containers {
		if t.numChildren(n) > 0 {
			continue
		}
		if n.cversion() > 0 || (maxNeverUsedMillis != 0 && nowMillis-n.mtime() > maxNeverUsedMillis) {
			out = append(out, t.pathOf(n))
		}
	}
	for n := range t.ttls {
		if t.numChildren(n) > 0 {
			continue
		}
		if ttl := proto.TTLOf(n.owner()); ttl != 0 && nowMillis-n.mtime() > ttl {
			out = append(out, t.pathOf(n))
		}
	}
	t.mu.RUnlock()
	slices.Sort(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}
