package db

import (
	"slices"
	"strings"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// Apply applies one txn and advances LastProcessedZxid to the txn's zxid
// if that is higher, whatever the outcome (a failed write still consumes
// its zxid). Errors are reported in Result.Err, never by panicking, so a
// log can be replayed over a fuzzy snapshot: txns carry absolute values and
// re-applying one whose effect is already present converges.
//
// The tree keeps references to the txn's data and ACL slices; the caller
// must not modify them afterwards.
func (t *Tree) Apply(txn *proto.TxnEntry) Result {
	var res Result
	t.ApplyTo(txn, &res)
	return res
}

// ApplyTo is Apply with the result written to *res, whose Events array is
// reused: the events are appended to res.Events[:0], so a caller that
// hands in room for them applies a txn without allocating the list.
func (t *Tree) ApplyTo(txn *proto.TxnEntry, res *Result) {
	*res = Result{Events: res.Events[:0]}
	t.mu.Lock()
	defer t.mu.Unlock()
	hdr := &txn.Header
	if typ := proto.OpCode(hdr.Type); typ == proto.OpMulti {
		t.applyMulti(hdr, txn.Body, res)
	} else {
		out := t.applyOp(hdr, typ, txn.Body, &res.Events)
		res.Err, res.Path, res.Stat = out.err, out.path, out.stat
	}
	if len(res.Events) == 0 {
		res.Events = nil // as Apply answers a txn that fires nothing
	}
	if hdr.Zxid > t.lastZxid {
		t.lastZxid = hdr.Zxid
	}
}

// opOutcome is the result of one txn or multi sub-txn.
type opOutcome struct {
	err  proto.ErrCode
	path string
	stat proto.Stat
}

// applyOp applies a single (non-multi) txn of type typ, appending the
// events it causes.
func (t *Tree) applyOp(hdr *proto.TxnHeader, typ proto.OpCode, body jute.Record, events *[]Event) opOutcome {
	switch typ {
	case proto.OpCreate, proto.OpCreate2:
		b, ok := body.(*proto.CreateTxn)
		if !ok {
			return opOutcome{err: proto.ErrMarshallingError}
		}
		var owner int64
		if b.Ephemeral {
			owner = hdr.ClientId
		}
		out := t.create(b.Path, b.Data, b.Acl, owner, b.ParentCVersion, hdr, events)
		if typ == proto.OpCreate && out.err == proto.ErrNodeExists {
			// Java's fix for fuzzy snapshots: the child may have been
			// deleted and re-created (by another session) after the
			// parent was serialised, so the parent still gets the
			// cversion and pzxid the txn recorded. Only plain creates.
			out.err = t.raiseParentCversion(b.Path, b.ParentCVersion, hdr.Zxid)
			if out.err == proto.ErrOK {
				out.err = proto.ErrNodeExists
			}
		}
		return out
	case proto.OpCreateContainer:
		b, ok := body.(*proto.CreateContainerTxn)
		if !ok {
			return opOutcome{err: proto.ErrMarshallingError}
		}
		return t.create(b.Path, b.Data, b.Acl, proto.ContainerEphemeralOwner, b.ParentCVersion, hdr, events)
	case proto.OpCreateTTL:
		b, ok := body.(*proto.CreateTTLTxn)
		if !ok {
			return opOutcome{err: proto.ErrMarshallingError}
		}
		if !proto.ValidTTL(b.Ttl) {
			// Java throws while encoding the owner, before any change.
			return opOutcome{err: proto.ErrBadArguments, path: b.Path}
		}
		return t.create(b.Path, b.Data, b.Acl, proto.TTLEphemeralOwner(b.Ttl), b.ParentCVersion, hdr, events)
	case proto.OpDelete, proto.OpDeleteContainer:
		b, ok := body.(*proto.DeleteTxn)
		if !ok {
			return opOutcome{err: proto.ErrMarshallingError}
		}
		return opOutcome{err: t.deleteNode(b.Path, hdr.Zxid, events), path: b.Path}
	case proto.OpSetData, proto.OpReconfig:
		b, ok := body.(*proto.SetDataTxn)
		if !ok {
			return opOutcome{err: proto.ErrMarshallingError}
		}
		return t.setData(b.Path, b.Data, b.Version, hdr, events)
	case proto.OpSetACL:
		b, ok := body.(*proto.SetACLTxn)
		if !ok {
			return opOutcome{err: proto.ErrMarshallingError}
		}
		return t.setACL(b.Path, b.Acl, b.Version)
	case proto.OpCreateSession:
		var timeout int32
		if b, ok := body.(*proto.CreateSessionTxn); ok {
			timeout = b.TimeOut
		}
		t.sessions[hdr.ClientId] = timeout
		return opOutcome{}
	case proto.OpCloseSession:
		var listed []string
		if b, ok := body.(*proto.CloseSessionTxn); ok {
			listed = b.Paths2Delete
		}
		t.closeSession(hdr.ClientId, hdr.Zxid, listed, events)
		return opOutcome{}
	case proto.OpError:
		b, ok := body.(*proto.ErrorTxn)
		if !ok {
			return opOutcome{err: proto.ErrMarshallingError}
		}
		return opOutcome{err: proto.ErrCode(b.Err)}
	case proto.OpCheck:
		if b, ok := body.(*proto.CheckVersionTxn); ok {
			return opOutcome{path: b.Path}
		}
		return opOutcome{err: proto.ErrMarshallingError}
	}
	return opOutcome{err: proto.ErrMarshallingError}
}

// splitPath returns the parent path and the name of a path Apply may
// create or delete. Java would also accept paths no valid request produces
// (no '/', an empty name, "//") and corrupt its tree with them; those are
// BadArguments here.
func splitPath(path string) (parent, name string, ok bool) {
	parent, ok = proto.ParentPath(path)
	if !ok || strings.HasSuffix(parent, "/") {
		return "", "", false
	}
	name = path[len(parent)+1:]
	return parent, name, name != ""
}

// eventParent is the path a NodeChildrenChanged carries: "/" for the root.
func eventParent(parentPath string) string {
	if parentPath == "" {
		return "/"
	}
	return parentPath
}

// create is DataTree.createNode. The parent's stored cversion becomes the
// txn's parentCVersion (-1: one more than now) when that is higher, and
// then its pzxid the txn's zxid; the new node's stat is the txn's zxid and
// time with zero versions.
func (t *Tree) create(path string, data []byte, acl []proto.ACL, owner int64, parentCVersion int32, hdr *proto.TxnHeader, events *[]Event) opOutcome {
	out := opOutcome{path: path}
	parentPath, name, ok := splitPath(path)
	if !ok {
		if path == "/" {
			out.err = proto.ErrNodeExists
		} else {
			out.err = proto.ErrBadArguments
		}
		return out
	}
	parent := t.lookup(parentPath)
	if parent == nil {
		out.err = proto.ErrNoNode
		return out
	}
	if t.nodes.get(path) != nil {
		out.err = proto.ErrNodeExists
		return out
	}
	zxid := hdr.Zxid
	t.digestRemove(parent)
	if parentCVersion == -1 {
		parentCVersion = parent.cversion() + 1
	}
	if parentCVersion > parent.cversion() {
		parent = t.widen(parent)
		parent.ext().cversion = parentCVersion
		parent.ext().pzxid = zxid
	}
	t.digestAdd(parent)
	n := newNodeStat(name, t.indexOfParent(parent), data, &proto.StatPersisted{
		Czxid: zxid, Mzxid: zxid, Pzxid: zxid, Ctime: hdr.Time, Mtime: hdr.Time, EphemeralOwner: owner,
	})
	n.acl = t.acls.intern(acl).slot
	parent = t.link(parent, n, path)
	if t.quotaOnCreate(path, parentPath, name, int64(len(data))) {
		// The stats node of a quota root may be n itself or its parent.
		n, parent = t.current(n), t.current(parent)
	}
	out.stat = t.visibleStat(n)
	*events = append(*events,
		Event{Type: proto.EventNodeCreated, Path: path, ACL: t.acls.slots[n.acl].acl},
		Event{Type: proto.EventNodeChildrenChanged, Path: eventParent(parentPath), ACL: t.acls.slots[parent.acl].acl})
	return out
}

// raiseParentCversion is DataTree.setCversionPzxid for the parent of path.
func (t *Tree) raiseParentCversion(path string, cversion int32, zxid int64) proto.ErrCode {
	parentPath, ok := proto.ParentPath(path)
	if !ok {
		return proto.ErrNoNode
	}
	parentPath = strings.TrimSuffix(parentPath, "/")
	parent := t.lookup(parentPath)
	if parent == nil {
		return proto.ErrNoNode
	}
	if cversion == -1 {
		cversion = parent.cversion() + 1
	}
	if cversion > parent.cversion() {
		t.digestRemove(parent)
		parent = t.widen(parent)
		parent.ext().cversion = cversion
		parent.ext().pzxid = zxid
		t.digestAdd(parent)
	}
	return proto.ErrOK
}

// deleteNode is DataTree.deleteNode. As in Java the parent's pzxid moves
// forward before the node is looked up, so a replayed delete of a node a
// fuzzy snapshot no longer has still leaves the parent as the original
// delete did. The stored cversion of the parent is not touched.
func (t *Tree) deleteNode(path string, zxid int64, events *[]Event) proto.ErrCode {
	parentPath, name, ok := splitPath(path)
	if !ok {
		return proto.ErrBadArguments
	}
	parent := t.lookup(parentPath)
	if parent == nil {
		return proto.ErrNoNode
	}
	n := t.nodes.get(path)
	if zxid > parent.pzxid() {
		t.digestRemove(parent)
		parent = t.widen(parent)
		parent.ext().pzxid = zxid
		t.digestAdd(parent)
	}
	if n == nil {
		return proto.ErrNoNode
	}
	if t.numChildren(n) > 0 {
		// Java would drop the node and leave its children orphaned in its
		// path map; no valid log asks for this.
		return proto.ErrNotEmpty
	}
	nodeACL := t.acls.slots[n.acl].acl
	dataLen := int64(n.dataLen())
	t.unlink(parent, n, path)
	if t.quotaOnDelete(path, parentPath, name, dataLen) {
		parent = t.current(parent) // it may be a quota root's stats node
	}
	*events = append(*events,
		Event{Type: proto.EventNodeDeleted, Path: path, ACL: nodeACL},
		Event{Type: proto.EventNodeChildrenChanged, Path: eventParent(parentPath), ACL: t.acls.slots[parent.acl].acl})
	return proto.ErrOK
}

// unlink removes a childless node from the tree and every index, and
// marks it deleted (see closeSession and FuzzyWalk).
func (t *Tree) unlink(parent, n *node, path string) {
	t.digestRemove(n)
	t.nodes.remove(path)
	t.removeChild(parent, n)
	t.dropChildList(n)
	t.dropData(n)
	n.slot = slotDeleted
	t.unindexKind(n)
	t.acls.releaseSlot(n.acl)
	t.dataSize -= nodeSize(path, n.dataLen())
}

func (t *Tree) setData(path string, data []byte, version int32, hdr *proto.TxnHeader, events *[]Event) opOutcome {
	out := opOutcome{path: path}
	n := t.lookup(path)
	if n == nil {
		out.err = proto.ErrNoNode
		return out
	}
	oldLen := int64(n.dataLen())
	t.digestRemove(n)
	t.dataSize += int64(len(data)) - oldLen
	if n == t.root {
		t.dataSize += int64(len(data)) - oldLen // Java counts the root under "/" too
	}
	n = t.setNodeData(n, data)
	n.ext().mtime = hdr.Time
	n.ext().mzxid = hdr.Zxid
	n.ext().version = version
	t.digestAdd(n)
	if root := t.quotas.maxPrefix(path); root != "" {
		t.updateQuotaStats(root, 0, int64(len(data))-oldLen)
		n = t.current(n) // n may be the stats node
	}
	out.stat = t.visibleStat(n)
	*events = append(*events, Event{Type: proto.EventNodeDataChanged, Path: path, ACL: t.acls.slots[n.acl].acl})
	return out
}

// setACL replaces the ACL and sets aversion; mzxid and mtime stay.
func (t *Tree) setACL(path string, acl []proto.ACL, version int32) opOutcome {
	out := opOutcome{path: path}
	n := t.lookup(path)
	if n == nil {
		out.err = proto.ErrNoNode
		return out
	}
	n = t.widen(n)
	// Release before interning, as Java does: a list only this node used
	// gets a fresh id even when it is set again.
	t.acls.releaseSlot(n.acl)
	n.acl = t.acls.intern(acl).slot
	t.digestRemove(n)
	n.ext().aversion = version
	t.digestAdd(n)
	out.stat = t.visibleStat(n)
	return out
}

// closeSession removes the session and its ephemerals: first the paths the
// txn lists, in order (whoever owns them, as Java does), then any other
// ephemeral of the session, in path order. Missing nodes are skipped.
func (t *Tree) closeSession(session, zxid int64, listed []string, events *[]Event) {
	delete(t.sessions, session)
	owned := t.ephemerals[session]
	delete(t.ephemerals, session)
	delete(t.javaEphemerals, session)
	t.numEphem -= len(owned)
	for _, path := range listed {
		t.deleteNode(path, zxid, events)
	}
	if len(owned) == 0 {
		return
	}
	rest := make([]string, 0, len(owned))
	for n := range owned {
		if t.current(n) != nil { // not deleted as a listed path
			rest = append(rest, t.pathOf(n))
		}
	}
	slices.Sort(rest)
	for _, path := range rest {
		t.deleteNode(path, zxid, events)
	}
}

// multiSub is one decoded sub-txn of a multi.
type multiSub struct {
	typ    proto.OpCode
	record jute.Record
}

// applyMulti applies a MultiTxn. When any sub-txn is an ErrorTxn the
// prepared multi failed: nothing is applied and the results are the
// error codes Java answers (0 before the failing op, its code, -2 after).
// Otherwise every sub-txn is applied in order with the multi's zxid and
// time. Sub-txns are checked and decoded before anything is applied, so a
// corrupt multi, or one with a sub-txn type Java's DataTree refuses
// (create2, setACL, sessions), changes nothing and reports
// MarshallingError; Java would stop half-way.
func (t *Tree) applyMulti(hdr *proto.TxnHeader, body jute.Record, res *Result) {
	mt, ok := body.(*proto.MultiTxn)
	if !ok {
		res.Err = proto.ErrMarshallingError
		return
	}
	subs := make([]multiSub, len(mt.Txns))
	failed := false
	for i := range mt.Txns {
		typ := proto.OpCode(mt.Txns[i].Type)
		switch typ {
		case proto.OpCreate, proto.OpCreateTTL, proto.OpCreateContainer,
			proto.OpDelete, proto.OpDeleteContainer, proto.OpSetData, proto.OpCheck, proto.OpError:
		default:
			// Java's DataTree refuses any other sub-txn type, create2
			// included (a create2 op is logged as a create sub-txn).
			res.Err = proto.ErrMarshallingError
			return
		}
		rec, err := proto.DecodeSubTxn(&mt.Txns[i], 0)
		if err != nil {
			res.Err = proto.ErrMarshallingError
			return
		}
		subs[i] = multiSub{typ, rec}
		failed = failed || typ == proto.OpError
	}
	res.Multi = make([]proto.MultiResult, len(subs))
	events := res.Events
	afterError := false
	for i, sub := range subs {
		var out opOutcome
		switch {
		case sub.typ == proto.OpError:
			afterError = true
			out = t.applyOp(hdr, sub.typ, sub.record, &events)
		case failed && afterError:
			out.err = proto.ErrRuntimeInconsistency
		case failed:
			out.err = proto.ErrOK
		default:
			out = t.applyOp(hdr, sub.typ, sub.record, &events)
		}
		if out.err != proto.ErrOK && res.Err == proto.ErrOK {
			res.Err = out.err
		}
		res.Multi[i] = multiResult(sub.typ, failed, out)
	}
	res.Events = events
}

// multiResult is the result Java's FinalRequestProcessor builds for one
// sub-txn: create answers the path only (a create2 op of a multi request
// arrives here as a create), container and TTL creates the path and the
// stat.
func multiResult(typ proto.OpCode, failed bool, out opOutcome) proto.MultiResult {
	if failed || typ == proto.OpError || out.err != proto.ErrOK {
		return proto.MultiResult{Type: proto.OpError, Err: out.err}
	}
	switch typ {
	case proto.OpCreate:
		return proto.MultiResult{Type: proto.OpCreate, Path: out.path}
	case proto.OpCreateContainer, proto.OpCreateTTL:
		return proto.MultiResult{Type: proto.OpCreate2, Path: out.path, Stat: out.stat}
	case proto.OpDelete, proto.OpDeleteContainer:
		return proto.MultiResult{Type: proto.OpDelete}
	case proto.OpSetData:
		return proto.MultiResult{Type: proto.OpSetData, Stat: out.stat}
	}
	return proto.MultiResult{Type: proto.OpCheck}
}
