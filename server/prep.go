package server

import (
	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// prepStage turns write requests into txns, one at a time in arrival
// order. It checks each write exactly in the order Java's
// PrepRequestProcessor does, because the first failing check decides the
// error code a client sees.
type prepStage struct {
	srv     *Server
	changes *outstandingChanges
	// lastZxid is the zxid given to the newest txn; only prep touches it.
	lastZxid int64
	// now is the time of the txn being prepared (wall-clock ms): a new
	// node's ctime and mtime, a set node's mtime, in its change record.
	now    int64
	reader jute.Reader

	// The decoded requests of the commonest writes, reused from write to
	// write: each is zeroed before it is decoded into, so nothing it
	// holds (the ACL slice above all) is shared with an earlier write,
	// and no check keeps the struct itself beyond the write's prepare.
	create  proto.CreateRequest
	setData proto.SetDataRequest
	del     proto.DeleteRequest
}

// prepFailure aborts the checks of one operation with a ZooKeeper code.
type prepFailure struct{ code proto.ErrCode }

// prepare assigns a zxid to r and builds its txn, or an ErrorTxn when a
// check fails. A body that cannot be decoded still consumes a zxid and is
// logged as an ErrorTxn(MarshallingError), as in Java, which assigns the
// zxid before it decodes. now is the txn's time, wall-clock milliseconds.
func (p *prepStage) prepare(r *request, now int64) {
	p.now = now
	// Syncs take no zxid, so they come before the rollover check: a
	// sync never makes a leader whose counter ran out give up (Java's
	// leader checks at propose, which a sync never reaches).
	if r.syncReached != nil {
		// A learner's sync makes no txn: the leader answers it once
		// what was proposed before it commits.
		r.syncReached()
		return
	}
	if r.op == proto.OpSync {
		// A sync of the leader's own client makes no txn either: it
		// rides in its batch, which is applied, and the sync answered,
		// after every batch before it.
		return
	}
	if lr := p.srv.leading.Load(); lr != nil && uint32(p.lastZxid+1) == 0xffffffff {
		// Java's leader refuses to propose the counter's last value and
		// gives up leading; the request is dropped with its connection.
		r.dropped = true
		lr.rolledOver()
		return
	}
	// A createSession takes a zxid like any write, so it comes after
	// the rollover check, as every proposal meets Java's at propose.
	if r.op == proto.OpCreateSession {
		p.lastZxid++
		to := &proto.CreateSessionTxn{TimeOut: r.sessionTimeout}
		p.setTxn(r, now, proto.OpCreateSession, to)
		if lr := p.srv.leading.Load(); lr != nil {
			// A leader tracks the session from here, as Java's prep
			// does, so that the session's next request, prepared before
			// this one is applied, finds it.
			owner := lr.self
			if r.fromLearner {
				owner = r.owner
			}
			p.srv.tracker.setOwner(p.srv.tracker.add(r.sid, r.sessionTimeout), owner)
		}
		return
	}
	record, ok := p.decodeBody(r)
	if !ok {
		// Java assigns the zxid before it decodes, so an undecodable write
		// still consumes one and is logged as an error txn.
		p.lastZxid++
		p.setTxn(r, now, proto.OpError, &proto.ErrorTxn{Err: int32(proto.ErrMarshallingError)})
		r.err = proto.ErrMarshallingError
		return
	}
	p.lastZxid++
	zxid := p.lastZxid
	if lr := p.srv.leading.Load(); lr != nil && (r.conn != nil || r.fromLearner) {
		// A leader checks the session of every client request, its own
		// clients' and the learners', as Java's PrepRequestProcessor
		// does: expired, or moved to another server. Its own expiries
		// and reaping are not checked.
		owner := r.owner
		if !r.fromLearner {
			owner = lr.self
		}
		if code := p.srv.tracker.check(r.sid, owner); code != proto.ErrOK && (r.op != proto.OpCloseSession || code == proto.ErrSessionMoved) {
			r.err = code
			p.setTxn(r, now, proto.OpError, &proto.ErrorTxn{Err: int32(code)})
			return
		}
		if r.op == proto.OpCloseSession && r.session == nil {
			if sess := p.srv.tracker.get(r.sid); sess != nil {
				p.srv.tracker.markClosing(sess)
			}
		}
	}
	if r.session != nil && r.op != proto.OpCloseSession && !p.srv.tracker.isActive(r.session) {
		// The session began closing after this request was read.
		r.err = proto.ErrSessionExpired
		p.setTxn(r, now, proto.OpError, &proto.ErrorTxn{Err: int32(proto.ErrSessionExpired)})
		return
	}
	if r.op == proto.OpCloseSession && r.session != nil {
		p.srv.tracker.markClosing(r.session)
	}
	if r.op == proto.OpMulti {
		p.prepareMulti(r, zxid, now, record.(*proto.MultiRequest))
		return
	}
	typ, body, code := p.check(r, zxid, r.op, record)
	if code != proto.ErrOK {
		r.err = code
		p.setTxn(r, now, proto.OpError, &proto.ErrorTxn{Err: int32(code)})
		return
	}
	p.setTxn(r, now, typ, body)
}

func (p *prepStage) setTxn(r *request, now int64, typ proto.OpCode, body jute.Record) {
	w := r.write()
	w.txn = proto.TxnEntry{
		Header: proto.TxnHeader{ClientId: r.sid, Cxid: r.xid, Zxid: p.lastZxid, Time: now, Type: int32(typ)},
		Body:   body,
	}
	if p.changes.digests && typ != proto.OpError {
		// The tree's digest once this txn is applied, as Java's prep
		// puts it in every txn but a failed one: followers and recovery
		// check it.
		w.digest = proto.TxnDigest{Version: proto.DigestVersion, TreeDigest: p.changes.treeDigest()}
		w.txn.Digest = &w.digest
	}
	r.txn = &w.txn
	r.zxid = p.lastZxid
}

// addChange adds the change record rec of request r to the outstanding
// changes, in r's own storage while it lasts.
func (p *prepStage) addChange(r *request, rec changeRecord) {
	var stored *changeRecord
	if w := r.write(); w.nrecs < len(w.recs) {
		stored = &w.recs[w.nrecs]
		w.nrecs++
		*stored = rec
	} else {
		stored = new(changeRecord)
		*stored = rec
	}
	p.changes.add(stored)
}

// decodeBody decodes the request record of a write.
func (p *prepStage) decodeBody(r *request) (jute.Record, bool) {
	var rec jute.Record
	switch r.op {
	case proto.OpCreate, proto.OpCreate2, proto.OpCreateContainer:
		p.create = proto.CreateRequest{}
		rec = &p.create
	case proto.OpCreateTTL:
		rec = new(proto.CreateTTLRequest)
	case proto.OpDelete:
		p.del = proto.DeleteRequest{}
		rec = &p.del
	case proto.OpDeleteContainer:
		// The body is the raw path bytes, as Java's container manager
		// builds it; a client sending a jute string here gets its length
		// prefix read as part of the path, exactly as in Java.
		return &rawPath{string(r.body)}, true
	case proto.OpCheck:
		rec = new(proto.CheckVersionRequest)
	case proto.OpSetData:
		p.setData = proto.SetDataRequest{}
		rec = &p.setData
	case proto.OpSetACL:
		rec = new(proto.SetACLRequest)
	case proto.OpMulti:
		rec = new(proto.MultiRequest)
	case proto.OpReconfig:
		rec = new(proto.ReconfigRequest)
	case proto.OpCloseSession:
		return nil, true
	default:
		return nil, false
	}
	p.reader.Reset(r.body)
	p.reader.SetLimit(p.srv.fieldLimit)
	rec.Decode(&p.reader)
	if p.reader.Err() != nil {
		return nil, false
	}
	return rec, true
}

// check validates one operation (alone or inside a multi) and returns the
// txn type and record, adding its change records.
func (p *prepStage) check(r *request, zxid int64, op proto.OpCode, record jute.Record) (typ proto.OpCode, body jute.Record, code proto.ErrCode) {
	defer func() {
		if f := recover(); f != nil {
			pf, ok := f.(prepFailure)
			if !ok {
				panic(f)
			}
			typ, body, code = proto.OpError, nil, pf.code
		}
	}()
	switch op {
	case proto.OpCreate, proto.OpCreate2, proto.OpCreateContainer:
		req := record.(*proto.CreateRequest)
		return p.checkCreate(r, zxid, op, req.Path, req.Data, req.Acl, req.Flags, -1)
	case proto.OpCreateTTL:
		req := record.(*proto.CreateTTLRequest)
		return p.checkCreate(r, zxid, op, req.Path, req.Data, req.Acl, req.Flags, req.Ttl)
	case proto.OpDelete:
		return p.checkDelete(r, zxid, record.(*proto.DeleteRequest))
	case proto.OpDeleteContainer:
		if r.conn != nil {
			// Java reads a client's deleteContainer body including bytes
			// it does not expect there and always ends in BadArguments.
			return proto.OpError, nil, proto.ErrBadArguments
		}
		return p.checkDeleteContainer(r, zxid, record.(*rawPath).path)
	case proto.OpSetData:
		return p.checkSetData(r, zxid, record.(*proto.SetDataRequest))
	case proto.OpSetACL:
		return p.checkSetACL(r, zxid, record.(*proto.SetACLRequest))
	case proto.OpCheck:
		return p.checkVersion(r, record.(*proto.CheckVersionRequest))
	case proto.OpCloseSession:
		return p.checkCloseSession(r, zxid)
	case proto.OpReconfig:
		return p.checkReconfig()
	}
	return proto.OpError, nil, proto.ErrUnimplemented
}

func fail(code proto.ErrCode) { panic(prepFailure{code}) }

// lookup returns a node's state or fails with NoNode.
func (p *prepStage) lookup(path string) db.NodeInfo {
	n, ok := p.changes.lookup(path)
	if !ok {
		fail(proto.ErrNoNode)
	}
	return n
}

func (p *prepStage) requirePerm(acl []proto.ACL, perm int32, ids []proto.Id) {
	if !p.srv.acl.Allowed(acl, perm, ids) {
		fail(proto.ErrNoAuth)
	}
}

// checkVersionMatch returns current+1, or fails with BadVersion when the
// client named another version (-1 means any).
func checkVersionMatch(current, expected int32) int32 {
	if expected != -1 && expected != current {
		fail(proto.ErrBadVersion)
	}
	return current + 1
}

func containsNUL(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return true
		}
	}
	return false
}

func (p *prepStage) checkCreate(r *request, zxid int64, op proto.OpCode, path string, data []byte, acl []proto.ACL, flags int32, ttl int64) (proto.OpCode, jute.Record, proto.ErrCode) {
	mode := proto.CreateMode(flags)
	if !mode.Valid() {
		fail(proto.ErrBadArguments)
	}
	if mode.IsTTL() && !p.srv.cfg.ExtendedTypesEnabled {
		fail(proto.ErrUnimplemented)
	}
	if mode.IsTTL() {
		if !proto.ValidTTL(ttl) {
			fail(proto.ErrBadArguments)
		}
	} else if op == proto.OpCreateTTL {
		// Java rejects ttl >= 0 here and lets a negative one fail while
		// being applied; both are bad arguments.
		fail(proto.ErrBadArguments)
	}
	parentPath, ok := proto.ParentPath(path)
	if !ok || containsNUL(path) {
		fail(proto.ErrBadArguments)
	}
	fixed, code := p.srv.acl.FixupACL(acl, r.ids)
	if code != proto.ErrOK {
		fail(code)
	}
	parent := p.lookup(parentPath)
	p.requirePerm(parent.ACL, proto.PermCreate, r.ids)
	parentCVersion := parent.Stat.Cversion
	if mode.IsSequential() {
		path = string(proto.AppendSequence([]byte(path), parentCVersion))
	}
	if proto.ValidatePath(path) != nil {
		fail(proto.ErrBadArguments)
	}
	if _, exists := p.changes.lookup(path); exists {
		fail(proto.ErrNodeExists)
	}
	if proto.KindOf(parent.Stat.EphemeralOwner, p.srv.cfg.ExtendedTypesEnabled) == proto.KindEphemeral {
		fail(proto.ErrNoChildrenForEphemerals)
	}
	if p.srv.cfg.EnforceQuota {
		if exceeded, hard := p.srv.tree.CheckQuota(path, 1, int64(len(data))); exceeded && hard {
			fail(proto.ErrQuotaExceeded)
		}
	}
	newCVersion := parentCVersion + 1

	var owner int64
	var typ = op
	var body jute.Record
	switch {
	case op == proto.OpCreateContainer:
		owner = proto.ContainerEphemeralOwner
		body = &proto.CreateContainerTxn{Path: path, Data: data, Acl: fixed, ParentCVersion: newCVersion}
	case op == proto.OpCreateTTL:
		owner = proto.TTLEphemeralOwner(ttl)
		body = &proto.CreateTTLTxn{Path: path, Data: data, Acl: fixed, ParentCVersion: newCVersion, Ttl: ttl}
	default:
		// A CONTAINER flag under opcode 1 or 15 is validated as a
		// container but stored as a plain node, exactly as Java does.
		if mode.IsEphemeral() {
			owner = r.sid
		}
		w := r.write()
		w.create = proto.CreateTxn{Path: path, Data: data, Acl: fixed, Ephemeral: mode.IsEphemeral(), ParentCVersion: newCVersion}
		body = &w.create
	}

	parent.Stat.Cversion = newCVersion
	parent.Stat.Pzxid = zxid
	parent.NumChildren++
	p.addChange(r, changeRecord{zxid: zxid, path: parentPath, node: parent})
	p.addChange(r, changeRecord{zxid: zxid, path: path, node: db.NodeInfo{
		Stat: proto.StatPersisted{Czxid: zxid, Mzxid: zxid, Pzxid: zxid, Ctime: p.now, Mtime: p.now, EphemeralOwner: owner},
		ACL:  fixed, DataLength: int32(len(data)), Data: data,
	}})
	return typ, body, proto.ErrOK
}

func (p *prepStage) checkDelete(r *request, zxid int64, req *proto.DeleteRequest) (proto.OpCode, jute.Record, proto.ErrCode) {
	parentPath := parentForDelete(req.Path)
	parent := p.lookup(parentPath)
	p.requirePerm(parent.ACL, proto.PermDelete, r.ids)
	node := p.lookup(req.Path)
	checkVersionMatch(node.Stat.Version, req.Version)
	if node.NumChildren > 0 {
		fail(proto.ErrNotEmpty)
	}
	p.recordDelete(r, zxid, parentPath, parent, req.Path)
	return proto.OpDelete, &proto.DeleteTxn{Path: req.Path}, proto.ErrOK
}

// parentForDelete applies delete's only path checks: a '/', no NUL, not a
// reserved node.
func parentForDelete(path string) string {
	parent, ok := proto.ParentPath(path)
	if !ok || containsNUL(path) || proto.IsReservedPath(path) {
		fail(proto.ErrBadArguments)
	}
	return parent
}

func (p *prepStage) recordDelete(r *request, zxid int64, parentPath string, parent db.NodeInfo, path string) {
	parent.NumChildren--
	parent.Stat.Pzxid = zxid
	p.addChange(r, changeRecord{zxid: zxid, path: parentPath, node: parent})
	p.addChange(r, changeRecord{zxid: zxid, path: path, deleted: true})
}

func (p *prepStage) checkDeleteContainer(r *request, zxid int64, path string) (proto.OpCode, jute.Record, proto.ErrCode) {
	parentPath := parentForDelete(path)
	node := p.lookup(path)
	if node.NumChildren > 0 {
		fail(proto.ErrNotEmpty)
	}
	if proto.KindOf(node.Stat.EphemeralOwner, p.srv.cfg.ExtendedTypesEnabled) == proto.KindEphemeral {
		fail(proto.ErrBadVersion)
	}
	parent := p.lookup(parentPath)
	p.recordDelete(r, zxid, parentPath, parent, path)
	return proto.OpDeleteContainer, &proto.DeleteTxn{Path: path}, proto.ErrOK
}

func (p *prepStage) checkSetData(r *request, zxid int64, req *proto.SetDataRequest) (proto.OpCode, jute.Record, proto.ErrCode) {
	if proto.ValidatePath(req.Path) != nil {
		fail(proto.ErrBadArguments)
	}
	node := p.lookup(req.Path)
	p.requirePerm(node.ACL, proto.PermWrite, r.ids)
	if p.srv.cfg.EnforceQuota {
		if exceeded, hard := p.srv.tree.CheckQuota(req.Path, 0, int64(len(req.Data))-int64(node.DataLength)); exceeded && hard {
			fail(proto.ErrQuotaExceeded)
		}
	}
	newVersion := checkVersionMatch(node.Stat.Version, req.Version)
	node.Stat.Version = newVersion
	node.Stat.Mzxid = zxid
	node.Stat.Mtime = p.now
	node.DataLength = int32(len(req.Data))
	node.Data = req.Data
	p.addChange(r, changeRecord{zxid: zxid, path: req.Path, node: node})
	w := r.write()
	w.setData = proto.SetDataTxn{Path: req.Path, Data: req.Data, Version: newVersion}
	return proto.OpSetData, &w.setData, proto.ErrOK
}

func (p *prepStage) checkSetACL(r *request, zxid int64, req *proto.SetACLRequest) (proto.OpCode, jute.Record, proto.ErrCode) {
	if proto.ValidatePath(req.Path) != nil {
		fail(proto.ErrBadArguments)
	}
	fixed, code := p.srv.acl.FixupACL(req.Acl, r.ids)
	if code != proto.ErrOK {
		fail(code)
	}
	node := p.lookup(req.Path)
	p.requirePerm(node.ACL, proto.PermAdmin, r.ids)
	newVersion := checkVersionMatch(node.Stat.Aversion, req.Version)
	node.Stat.Aversion = newVersion
	node.ACL = fixed
	p.addChange(r, changeRecord{zxid: zxid, path: req.Path, node: node})
	return proto.OpSetACL, &proto.SetACLTxn{Path: req.Path, Acl: fixed, Version: newVersion}, proto.ErrOK
}

func (p *prepStage) checkVersion(r *request, req *proto.CheckVersionRequest) (proto.OpCode, jute.Record, proto.ErrCode) {
	if proto.ValidatePath(req.Path) != nil {
		fail(proto.ErrBadArguments)
	}
	node := p.lookup(req.Path)
	p.requirePerm(node.ACL, proto.PermRead, r.ids)
	next := checkVersionMatch(node.Stat.Version, req.Version)
	return proto.OpCheck, &proto.CheckVersionTxn{Path: req.Path, Version: next}, proto.ErrOK
}

func (p *prepStage) checkCloseSession(r *request, zxid int64) (proto.OpCode, jute.Record, proto.ErrCode) {
	paths := p.changes.pendingEphemerals(r.sid, p.srv.tree.EphemeralSet(r.sid))
	for _, path := range paths {
		if parentPath, ok := proto.ParentPath(path); ok {
			if parent, ok := p.changes.lookup(parentPath); ok {
				parent.NumChildren--
				parent.Stat.Pzxid = zxid
				p.changes.add(&changeRecord{zxid: zxid, path: parentPath, node: parent})
			}
		}
		p.changes.add(&changeRecord{zxid: zxid, path: path, deleted: true})
	}
	return proto.OpCloseSession, &proto.CloseSessionTxn{Paths2Delete: paths}, proto.ErrOK
}

// checkReconfig answers reconfig as a standalone Java server does.
func (p *prepStage) checkReconfig() (proto.OpCode, jute.Record, proto.ErrCode) {
	if !p.srv.cfg.ReconfigEnabled {
		fail(proto.ErrReconfigDisabled)
	}
	fail(proto.ErrUnimplemented)
	return proto.OpError, nil, proto.ErrOK
}

// prepareMulti checks every operation against the state the earlier ones
// leave behind. On the first failure the multi's change records are rolled
// back and the txn records the failing op as an ErrorTxn with its code and
// every later op as ErrorTxn(RuntimeInconsistency); earlier ops keep their
// real sub-txns, which the apply stage turns into no-ops, as in Java.
func (p *prepStage) prepareMulti(r *request, zxid int64, now int64, m *proto.MultiRequest) {
	for i := range m.Ops {
		op := &m.Ops[i]
		if op.IsRead() || !normaliseMultiCreate(op) {
			// Read ops under opcode 14, or a create op whose flags name a
			// TTL mode: Java cannot even build the request, so the whole
			// multi fails with MarshallingError and no results.
			r.err = proto.ErrMarshallingError
			p.setTxn(r, now, proto.OpError, &proto.ErrorTxn{Err: int32(proto.ErrMarshallingError)})
			return
		}
	}
	snap := p.changes.begin(zxid)
	txns := make([]proto.Txn, 0, len(m.Ops))
	var failed proto.ErrCode
	for i := range m.Ops {
		op := &m.Ops[i]
		var typ proto.OpCode
		var body jute.Record
		if failed != proto.ErrOK {
			typ, body = proto.OpError, &proto.ErrorTxn{Err: int32(proto.ErrRuntimeInconsistency)}
		} else {
			var code proto.ErrCode
			typ, body, code = p.check(r, zxid, op.Type, op.Record())
			if code != proto.ErrOK {
				failed = code
				p.changes.rollback(snap)
				typ, body = proto.OpError, &proto.ErrorTxn{Err: int32(code)}
			}
		}
		txns = append(txns, proto.Txn{Type: int32(typ), Data: jute.Marshal(body)})
	}
	p.setTxn(r, now, proto.OpMulti, &proto.MultiTxn{Txns: txns})
}

// normaliseMultiCreate gives a create op of a multi the opcode Java gives
// it while decoding the request, where the op's flags, not its type, pick
// the kind of create: CONTAINER flags make any of create, create2 and
// createContainer a container create, other flags make it a plain create,
// and TTL flags outside createTTL cannot be decoded at all (false).
func normaliseMultiCreate(op *proto.MultiOp) bool {
	switch op.Type {
	case proto.OpCreate, proto.OpCreate2, proto.OpCreateContainer:
		mode := proto.CreateMode(op.Create.Flags)
		switch {
		case mode.IsTTL():
			return false
		case mode.IsContainer():
			op.Type = proto.OpCreateContainer
		default:
			op.Type = proto.OpCreate
		}
	}
	return true
}

// rawPath is the body of a deleteContainer request.
type rawPath struct{ path string }

func (r *rawPath) Encode(w *jute.Writer) { w.WriteRaw([]byte(r.path)) }
func (r *rawPath) Decode(*jute.Reader)   {}
