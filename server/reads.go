package server

import (
	"strings"

	"github.com/gozk/gozk/acl"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// executeRead answers every request that is not a write: reads, watches,
// ping, sync, whoAmI and the opcodes Java does not know. It holds the apply
// lock for reading, so the answer and any watch it registers are atomic
// with respect to txns being applied, and the reply follows every
// notification of the txns it reflects.
func (s *Server) executeRead(c *connection, xid int32, op proto.OpCode, body []byte, ids []proto.Id) {
	if c.closed.Load() {
		return
	}
	var r jute.Reader
	r.Reset(body)
	r.SetLimit(s.fieldLimit)

	s.applyMu.RLock()
	defer s.applyMu.RUnlock()
	zxid := s.tree.LastProcessedZxid()

	if startsWithNullPath(op, body) {
		// Java fails on the null path string while handling the request.
		c.reply(xid, zxid, proto.ErrMarshallingError, nil)
		return
	}

	switch op {
	case proto.OpPing:
		c.reply(proto.XidPing, zxid, proto.ErrOK, nil)
	case proto.OpExists:
		var req proto.ExistsRequest
		if !decodeOK(&r, &req) {
			c.reply(xid, zxid, proto.ErrMarshallingError, nil)
			return
		}
		if containsNUL(req.Path) {
			c.reply(xid, zxid, proto.ErrBadArguments, nil)
			return
		}
		stat, _, ok := s.tree.Exists(req.Path)
		if req.Watch {
			s.watches.AddDataWatch(req.Path, c)
		}
		if !ok {
			c.reply(xid, zxid, proto.ErrNoNode, nil)
			return
		}
		s.mon.readStat(req.Path, 0)
		w := c.beginReply(xid, zxid)
		resp := proto.ExistsResponse{Stat: stat}
		resp.Encode(w)
		c.sendReply(w, xid, zxid)
	case proto.OpGetData:
		var req proto.GetDataRequest
		if !decodeOK(&r, &req) {
			c.reply(xid, zxid, proto.ErrMarshallingError, nil)
			return
		}
		data, stat, nodeACL, ok := s.tree.GetData(req.Path)
		if code := s.readable(ok, nodeACL, ids); code != proto.ErrOK {
			c.reply(xid, zxid, code, nil)
			return
		}
		s.mon.readStat(req.Path, len(data))
		if req.Watch {
			s.watches.AddDataWatch(req.Path, c)
		}
		w := c.beginReply(xid, zxid)
		resp := proto.GetDataResponse{Data: data, Stat: stat}
		resp.Encode(w)
		c.sendReply(w, xid, zxid)
	case proto.OpGetChildren, proto.OpGetChildren2:
		var req proto.GetChildrenRequest // GetChildren2Request has the same layout
		if !decodeOK(&r, &req) {
			c.reply(xid, zxid, proto.ErrMarshallingError, nil)
			return
		}
		children, stat, nodeACL, ok := s.tree.GetChildren(req.Path, nil)
		if code := s.readable(ok, nodeACL, ids); code != proto.ErrOK {
			c.reply(xid, zxid, code, nil)
			return
		}
		s.mon.readStat(req.Path, nameBytes(children))
		if req.Watch {
			s.watches.AddChildWatch(req.Path, c)
		}
		w := c.beginReply(xid, zxid)
		if op == proto.OpGetChildren {
			resp := proto.GetChildrenResponse{Children: children}
			resp.Encode(w)
		} else {
			resp := proto.GetChildren2Response{Children: children, Stat: stat}
			resp.Encode(w)
		}
		c.sendReply(w, xid, zxid)
	case proto.OpGetACL:
		var req proto.GetACLRequest
		if !decodeOK(&r, &req) {
			c.reply(xid, zxid, proto.ErrMarshallingError, nil)
			return
		}
		nodeACL, stat, ok := s.tree.GetACL(req.Path)
		if !ok {
			c.reply(xid, zxid, proto.ErrNoNode, nil)
			return
		}
		admin := s.acl.Allowed(nodeACL, proto.PermAdmin, ids)
		if !admin && !s.acl.Allowed(nodeACL, proto.PermRead, ids) {
			c.reply(xid, zxid, proto.ErrNoAuth, nil)
			return
		}
		if !admin {
			nodeACL = acl.HideDigests(nodeACL)
		}
		c.reply(xid, zxid, proto.ErrOK, &proto.GetACLResponse{Acl: nodeACL, Stat: stat})
	case proto.OpGetAllChildrenNumber:
		var req proto.GetAllChildrenNumberRequest
		if !decodeOK(&r, &req) {
			c.reply(xid, zxid, proto.ErrMarshallingError, nil)
			return
		}
		_, nodeACL, ok := s.tree.Exists(req.Path)
		if code := s.readable(ok, nodeACL, ids); code != proto.ErrOK {
			c.reply(xid, zxid, code, nil)
			return
		}
		n, _ := s.tree.AllChildrenNumber(req.Path)
		c.reply(xid, zxid, proto.ErrOK, &proto.GetAllChildrenNumberResponse{TotalNumber: n})
	case proto.OpGetEphemerals:
		var req proto.GetEphemeralsRequest
		if !decodeOK(&r, &req) {
			c.reply(xid, zxid, proto.ErrMarshallingError, nil)
			return
		}
		sess := c.currentSession()
		all := s.tree.EphemeralSet(sess.id).Paths() // in Java's order
		prefix := req.PrefixPath
		out := make([]string, 0, len(all))
		for _, p := range all {
			if strings.TrimSpace(prefix) == "" || prefix == "/" || strings.HasPrefix(p, prefix) {
				out = append(out, p)
			}
		}
		c.reply(xid, zxid, proto.ErrOK, &proto.GetEphemeralsResponse{Ephemerals: out})
	case proto.OpWhoAmI:
		c.reply(xid, zxid, proto.ErrOK, &proto.WhoAmIResponse{ClientInfo: s.acl.WhoAmI(ids)})
	case proto.OpSync:
		var req proto.SyncRequest
		if !decodeOK(&r, &req) {
			c.reply(xid, zxid, proto.ErrMarshallingError, nil)
			return
		}
		c.reply(xid, zxid, proto.ErrOK, &proto.SyncResponse{Path: req.Path})
	case proto.OpSetWatches, proto.OpSetWatches2:
		var req proto.SetWatches2
		if op == proto.OpSetWatches {
			var old proto.SetWatches
			if !decodeOK(&r, &old) {
				c.reply(xid, zxid, proto.ErrMarshallingError, nil)
				return
			}
			req = proto.SetWatches2{RelativeZxid: old.RelativeZxid, DataWatches: old.DataWatches,
				ExistWatches: old.ExistWatches, ChildWatches: old.ChildWatches}
		} else if !decodeOK(&r, &req) {
			c.reply(xid, zxid, proto.ErrMarshallingError, nil)
			return
		}
		if !s.setWatches(c, &req, op == proto.OpSetWatches2) {
			// Java walks the lists in order and fails at a null one,
			// keeping what the earlier lists did.
			c.reply(xid, zxid, proto.ErrMarshallingError, nil)
			return
		}
		c.reply(xid, zxid, proto.ErrOK, nil)
	case proto.OpAddWatch:
		var req proto.AddWatchRequest
		if !decodeOK(&r, &req) || !proto.AddWatchMode(req.Mode).Valid() {
			c.reply(xid, zxid, proto.ErrMarshallingError, nil)
			return
		}
		s.watches.AddPersistentWatch(req.Path, c, proto.AddWatchMode(req.Mode) == proto.AddWatchPersistentRecursive)
		c.reply(xid, zxid, proto.ErrOK, &proto.ErrorResponse{Err: 0})
	case proto.OpCheckWatches, proto.OpRemoveWatches:
		var req proto.CheckWatchesRequest // RemoveWatchesRequest has the same layout
		if !decodeOK(&r, &req) || !proto.WatcherType(req.Type).Valid() {
			c.reply(xid, zxid, proto.ErrMarshallingError, nil)
			return
		}
		var found bool
		if op == proto.OpCheckWatches {
			found = s.watches.CheckWatches(req.Path, c, proto.WatcherType(req.Type))
		} else {
			found = s.watches.RemoveWatches(req.Path, c, proto.WatcherType(req.Type))
		}
		if !found {
			c.reply(xid, zxid, proto.ErrNoWatcher, nil)
			return
		}
		c.reply(xid, zxid, proto.ErrOK, nil)
	case proto.OpMultiRead:
		var req proto.MultiRequest
		// MultiRequest.Decode keeps its reader beyond the call, which
		// would move r to the heap for every read: give it a copy.
		mr := r
		if !decodeOK(&mr, &req) {
			c.reply(xid, zxid, proto.ErrMarshallingError, nil)
			return
		}
		results := make([]proto.MultiResult, 0, len(req.Ops))
		reads := 0
		for i := range req.Ops {
			if req.Ops[i].IsRead() {
				reads++
			}
		}
		switch {
		case reads > 0 && reads < len(req.Ops):
			// Java refuses to decode a request mixing reads and writes.
			c.reply(xid, zxid, proto.ErrMarshallingError, nil)
			return
		case reads == 0 && len(req.Ops) > 0:
			// Only writes: Java decodes it, refuses it, and still sends an
			// (empty) MultiResponse after the error header.
			w := writerPool.Get().(*jute.Writer)
			w.Reset()
			hdr := proto.ReplyHeader{Xid: xid, Zxid: zxid, Err: int32(proto.ErrMarshallingError)}
			hdr.Encode(w)
			empty := proto.MultiResponse{}
			empty.Encode(w)
			_ = c.nc.Send(w.Bytes())
			writerPool.Put(w)
			return
		}
		for i := range req.Ops {
			results = append(results, s.multiReadOne(&req.Ops[i], ids))
		}
		c.reply(xid, zxid, proto.ErrOK, &proto.MultiResponse{Results: results})
	case proto.OpSASL:
		var req proto.GetSASLRequest
		if !decodeOK(&r, &req) || req.Token == nil {
			// Java fails on a null token and drops the connection.
			c.nc.Close()
			return
		}
		s.handleSASL(c, xid, req.Token)
	default:
		// Java answers an unknown opcode with Unimplemented and zxid -1,
		// then drops the connection (the session survives).
		c.reply(xid, -1, proto.ErrUnimplemented, nil)
		c.nc.CloseAfterFlush()
	}
}

// readable applies the checks every read makes, in Java's order: the node
// must exist, then the caller needs READ on it.
func (s *Server) readable(exists bool, nodeACL []proto.ACL, ids []proto.Id) proto.ErrCode {
	switch {
	case !exists:
		return proto.ErrNoNode
	case !s.acl.Allowed(nodeACL, proto.PermRead, ids):
		return proto.ErrNoAuth
	}
	return proto.ErrOK
}

func decodeOK(r *jute.Reader, rec jute.Record) bool {
	rec.Decode(r)
	return r.Err() == nil
}

func (s *Server) multiReadOne(op *proto.MultiOp, ids []proto.Id) proto.MultiResult {
	if op.Type == proto.OpGetData {
		data, stat, nodeACL, ok := s.tree.GetData(op.GetData.Path)
		if code := s.readable(ok, nodeACL, ids); code != proto.ErrOK {
			return proto.MultiResult{Type: proto.OpError, Err: code}
		}
		s.mon.readStat(op.GetData.Path, len(data))
		return proto.MultiResult{Type: proto.OpGetData, Data: data, Stat: stat}
	}
	children, _, nodeACL, ok := s.tree.GetChildren(op.GetChildren.Path, nil)
	if code := s.readable(ok, nodeACL, ids); code != proto.ErrOK {
		return proto.MultiResult{Type: proto.OpError, Err: code}
	}
	s.mon.readStat(op.GetChildren.Path, nameBytes(children))
	return proto.MultiResult{Type: proto.OpGetChildren, Children: children}
}

// setWatches restores a reconnecting client's watches, answering at once
// those whose node changed since relativeZxid (client-protocol §6.16). It
// stops at the first null list and returns false.
func (s *Server) setWatches(c *connection, req *proto.SetWatches2, withPersistent bool) bool {
	rel := req.RelativeZxid
	notify := func(t proto.EventType, path string) {
		c.Notify(proto.WatcherEvent{Type: int32(t), State: int32(proto.StateSyncConnected), Path: path}, nil)
	}
	if req.DataWatches == nil {
		return false
	}
	for _, p := range req.DataWatches {
		stat, _, ok := s.tree.Exists(p)
		switch {
		case !ok:
			notify(proto.EventNodeDeleted, p)
		case stat.Mzxid > rel:
			notify(proto.EventNodeDataChanged, p)
		default:
			s.watches.AddDataWatch(p, c)
		}
	}
	if req.ExistWatches == nil {
		return false
	}
	for _, p := range req.ExistWatches {
		if _, _, ok := s.tree.Exists(p); ok {
			notify(proto.EventNodeCreated, p)
		} else {
			s.watches.AddDataWatch(p, c)
		}
	}
	if req.ChildWatches == nil {
		return false
	}
	for _, p := range req.ChildWatches {
		stat, _, ok := s.tree.Exists(p)
		switch {
		case !ok:
			notify(proto.EventNodeDeleted, p)
		case stat.Pzxid > rel:
			notify(proto.EventNodeChildrenChanged, p)
		default:
			s.watches.AddChildWatch(p, c)
		}
	}
	if !withPersistent {
		return true
	}
	if req.PersistentWatches == nil {
		return false
	}
	for _, p := range req.PersistentWatches {
		s.watches.AddPersistentWatch(p, c, false)
	}
	if req.PersistentRecursiveWatches == nil {
		return false
	}
	for _, p := range req.PersistentRecursiveWatches {
		s.watches.AddPersistentWatch(p, c, true)
	}
	return true
}

// startsWithNullPath reports a request whose leading path string is null
// (length -1), for the operations whose record starts with the path.
func startsWithNullPath(op proto.OpCode, body []byte) bool {
	switch op {
	case proto.OpExists, proto.OpGetData, proto.OpGetChildren, proto.OpGetChildren2,
		proto.OpGetACL, proto.OpGetAllChildrenNumber, proto.OpSync, proto.OpAddWatch,
		proto.OpCheckWatches, proto.OpRemoveWatches:
		return len(body) >= 4 && body[0] == 0xff && body[1] == 0xff && body[2] == 0xff && body[3] == 0xff
	}
	return false
}
