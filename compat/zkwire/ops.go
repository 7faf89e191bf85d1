package zkwire

import (
	"fmt"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// ServerError is a reply whose header carries a non-zero error code.
type ServerError struct {
	Op     proto.OpCode
	Header proto.ReplyHeader
}

// Code returns the error code of the reply.
func (e *ServerError) Code() proto.ErrCode { return proto.ErrCode(e.Header.Err) }

func (e *ServerError) Error() string {
	return fmt.Sprintf("zkwire: %v: %v (%s, xid %d, zxid %#x)",
		e.Op, e.Code(), e.Code().Name(), e.Header.Xid, e.Header.Zxid)
}

// Unwrap returns the proto.ErrCode, so errors.Is(err, proto.ErrNoNode)
// works.
func (e *ServerError) Unwrap() error { return e.Code() }

// call sends a request with the next xid and decodes a successful reply
// into resp (which may be nil for body-less replies).
func (c *Client) call(op proto.OpCode, xid int32, req any, resp jute.Record) error {
	f, err := c.CallXid(op, xid, req)
	if err != nil {
		return err
	}
	return finish(op, f, resp)
}

func finish(op proto.OpCode, f Frame, resp jute.Record) error {
	if f.Short {
		return fmt.Errorf("zkwire: %v: reply of %d bytes is shorter than a ReplyHeader", op, len(f.Payload))
	}
	if f.Header.Err != 0 {
		return &ServerError{Op: op, Header: f.Header}
	}
	if resp == nil {
		return nil
	}
	if err := decodeRecord(f.Body, resp); err != nil {
		return fmt.Errorf("zkwire: %v: decoding reply: %w", op, err)
	}
	return nil
}

// Create sends create (1) and returns the actual path. Every argument is
// sent as given: a nil acl is the null vector (InvalidACL on a server);
// pass proto.OpenACLUnsafe for the usual open ACL.
func (c *Client) Create(path string, data []byte, acl []proto.ACL, flags int32) (string, error) {
	var resp proto.CreateResponse
	req := &proto.CreateRequest{Path: path, Data: data, Acl: acl, Flags: flags}
	err := c.call(proto.OpCreate, c.NextXid(), req, &resp)
	return resp.Path, err
}

// Create2 sends create2 (15) and returns the path and the new node's stat.
func (c *Client) Create2(path string, data []byte, acl []proto.ACL, flags int32) (*proto.Create2Response, error) {
	var resp proto.Create2Response
	req := &proto.CreateRequest{Path: path, Data: data, Acl: acl, Flags: flags}
	err := c.call(proto.OpCreate2, c.NextXid(), req, &resp)
	return &resp, err
}

// CreateContainer sends createContainer (19) with flags 4 (CONTAINER).
func (c *Client) CreateContainer(path string, data []byte, acl []proto.ACL) (*proto.Create2Response, error) {
	var resp proto.Create2Response
	req := &proto.CreateRequest{Path: path, Data: data, Acl: acl, Flags: int32(proto.ModeContainer)}
	err := c.call(proto.OpCreateContainer, c.NextXid(), req, &resp)
	return &resp, err
}

// CreateTTL sends createTTL (21).
func (c *Client) CreateTTL(path string, data []byte, acl []proto.ACL, flags int32, ttl int64) (*proto.Create2Response, error) {
	var resp proto.Create2Response
	req := &proto.CreateTTLRequest{Path: path, Data: data, Acl: acl, Flags: flags, Ttl: ttl}
	err := c.call(proto.OpCreateTTL, c.NextXid(), req, &resp)
	return &resp, err
}

// Delete sends delete (2); version -1 matches any version.
func (c *Client) Delete(path string, version int32) error {
	return c.call(proto.OpDelete, c.NextXid(), &proto.DeleteRequest{Path: path, Version: version}, nil)
}

// Exists sends exists (3). A missing node is a *ServerError with NoNode.
func (c *Client) Exists(path string, watch bool) (*proto.Stat, error) {
	var resp proto.ExistsResponse
	err := c.call(proto.OpExists, c.NextXid(), &proto.ExistsRequest{Path: path, Watch: watch}, &resp)
	return &resp.Stat, err
}

// GetData sends getData (4). Null data comes back as a nil slice, empty
// data as an empty non-nil one.
func (c *Client) GetData(path string, watch bool) (*proto.GetDataResponse, error) {
	var resp proto.GetDataResponse
	err := c.call(proto.OpGetData, c.NextXid(), &proto.GetDataRequest{Path: path, Watch: watch}, &resp)
	return &resp, err
}

// SetData sends setData (5); nil data is sent as the null buffer.
func (c *Client) SetData(path string, data []byte, version int32) (*proto.Stat, error) {
	var resp proto.SetDataResponse
	err := c.call(proto.OpSetData, c.NextXid(), &proto.SetDataRequest{Path: path, Data: data, Version: version}, &resp)
	return &resp.Stat, err
}

// GetACL sends getACL (6).
func (c *Client) GetACL(path string) (*proto.GetACLResponse, error) {
	var resp proto.GetACLResponse
	err := c.call(proto.OpGetACL, c.NextXid(), &proto.GetACLRequest{Path: path}, &resp)
	return &resp, err
}

// SetACL sends setACL (7); acl is sent as given (nil is the null vector).
func (c *Client) SetACL(path string, acl []proto.ACL, version int32) (*proto.Stat, error) {
	var resp proto.SetACLResponse
	err := c.call(proto.OpSetACL, c.NextXid(), &proto.SetACLRequest{Path: path, Acl: acl, Version: version}, &resp)
	return &resp.Stat, err
}

// GetChildren sends getChildren (8).
func (c *Client) GetChildren(path string, watch bool) ([]string, error) {
	var resp proto.GetChildrenResponse
	err := c.call(proto.OpGetChildren, c.NextXid(), &proto.GetChildrenRequest{Path: path, Watch: watch}, &resp)
	return resp.Children, err
}

// GetChildren2 sends getChildren2 (12).
func (c *Client) GetChildren2(path string, watch bool) (*proto.GetChildren2Response, error) {
	var resp proto.GetChildren2Response
	err := c.call(proto.OpGetChildren2, c.NextXid(), &proto.GetChildren2Request{Path: path, Watch: watch}, &resp)
	return &resp, err
}

// Sync sends sync (9) and returns the echoed path.
func (c *Client) Sync(path string) (string, error) {
	var resp proto.SyncResponse
	err := c.call(proto.OpSync, c.NextXid(), &proto.SyncRequest{Path: path}, &resp)
	return resp.Path, err
}

// Ping sends a ping (11) with xid -2 and waits for its reply.
func (c *Client) Ping() error {
	return c.call(proto.OpPing, proto.XidPing, nil, nil)
}

// Multi sends multi (14). Per-operation failures are in the results; the
// error is only set when the reply header carries one.
func (c *Client) Multi(ops ...proto.MultiOp) (*proto.MultiResponse, error) {
	var resp proto.MultiResponse
	err := c.call(proto.OpMulti, c.NextXid(), &proto.MultiRequest{Ops: ops}, &resp)
	return &resp, err
}

// MultiRead sends multiRead (22).
func (c *Client) MultiRead(ops ...proto.MultiOp) (*proto.MultiResponse, error) {
	var resp proto.MultiResponse
	err := c.call(proto.OpMultiRead, c.NextXid(), &proto.MultiRequest{Ops: ops}, &resp)
	return &resp, err
}

// CheckWatches sends checkWatches (17) for a WatcherType.
func (c *Client) CheckWatches(path string, watcherType proto.WatcherType) error {
	return c.call(proto.OpCheckWatches, c.NextXid(), &proto.CheckWatchesRequest{Path: path, Type: int32(watcherType)}, nil)
}

// RemoveWatches sends removeWatches (18) for a WatcherType.
func (c *Client) RemoveWatches(path string, watcherType proto.WatcherType) error {
	return c.call(proto.OpRemoveWatches, c.NextXid(), &proto.RemoveWatchesRequest{Path: path, Type: int32(watcherType)}, nil)
}

// SetWatches sends setWatches (101) with xid -8, as clients do.
func (c *Client) SetWatches(req *proto.SetWatches) error {
	return c.call(proto.OpSetWatches, proto.XidSetWatches, req, nil)
}

// SetWatches2 sends setWatches2 (105) with xid -8.
func (c *Client) SetWatches2(req *proto.SetWatches2) error {
	return c.call(proto.OpSetWatches2, proto.XidSetWatches, req, nil)
}

// AddWatch sends addWatch (106).
func (c *Client) AddWatch(path string, mode proto.AddWatchMode) error {
	var resp proto.ErrorResponse
	if err := c.call(proto.OpAddWatch, c.NextXid(), &proto.AddWatchRequest{Path: path, Mode: int32(mode)}, &resp); err != nil {
		return err
	}
	if resp.Err != 0 {
		return fmt.Errorf("zkwire: addWatch: body carries error %d with header err 0", resp.Err)
	}
	return nil
}

// GetEphemerals sends getEphemerals (103).
func (c *Client) GetEphemerals(prefix string) ([]string, error) {
	var resp proto.GetEphemeralsResponse
	err := c.call(proto.OpGetEphemerals, c.NextXid(), &proto.GetEphemeralsRequest{PrefixPath: prefix}, &resp)
	return resp.Ephemerals, err
}

// GetAllChildrenNumber sends getAllChildrenNumber (104).
func (c *Client) GetAllChildrenNumber(path string) (int32, error) {
	var resp proto.GetAllChildrenNumberResponse
	err := c.call(proto.OpGetAllChildrenNumber, c.NextXid(), &proto.GetAllChildrenNumberRequest{Path: path}, &resp)
	return resp.TotalNumber, err
}

// WhoAmI sends whoAmI (107).
func (c *Client) WhoAmI() ([]proto.ClientInfo, error) {
	var resp proto.WhoAmIResponse
	err := c.call(proto.OpWhoAmI, c.NextXid(), nil, &resp)
	return resp.ClientInfo, err
}

// Auth sends an auth packet (100) with xid -4. On failure Java answers
// AuthFailed and closes the connection.
func (c *Client) Auth(scheme string, auth []byte) error {
	return c.call(proto.OpAuth, proto.XidAuth, &proto.AuthPacket{Type: 0, Scheme: scheme, Auth: auth}, nil)
}

// Reconfig sends reconfig (16).
func (c *Client) Reconfig(req *proto.ReconfigRequest) (*proto.GetDataResponse, error) {
	var resp proto.GetDataResponse
	err := c.call(proto.OpReconfig, c.NextXid(), req, &resp)
	return &resp, err
}

// CloseSession sends closeSession (-11) and waits for its reply; the
// server then closes the connection. (Close only drops the connection.)
func (c *Client) CloseSession() error {
	return c.call(proto.OpCloseSession, c.NextXid(), nil, nil)
}

// Operations for Multi and MultiRead.

// MultiCreate is a create operation; op is OpCreate, OpCreate2 or
// OpCreateContainer.
func MultiCreate(op proto.OpCode, path string, data []byte, acl []proto.ACL, flags int32) proto.MultiOp {
	return proto.MultiOp{Type: op, Create: proto.CreateRequest{Path: path, Data: data, Acl: acl, Flags: flags}}
}

// MultiCreateTTL is a createTTL operation.
func MultiCreateTTL(path string, data []byte, acl []proto.ACL, flags int32, ttl int64) proto.MultiOp {
	return proto.MultiOp{Type: proto.OpCreateTTL, CreateTTL: proto.CreateTTLRequest{Path: path, Data: data, Acl: acl, Flags: flags, Ttl: ttl}}
}

// MultiDelete is a delete operation.
func MultiDelete(path string, version int32) proto.MultiOp {
	return proto.MultiOp{Type: proto.OpDelete, Delete: proto.DeleteRequest{Path: path, Version: version}}
}

// MultiSetData is a setData operation.
func MultiSetData(path string, data []byte, version int32) proto.MultiOp {
	return proto.MultiOp{Type: proto.OpSetData, SetData: proto.SetDataRequest{Path: path, Data: data, Version: version}}
}

// MultiCheck is a version check operation.
func MultiCheck(path string, version int32) proto.MultiOp {
	return proto.MultiOp{Type: proto.OpCheck, Check: proto.CheckVersionRequest{Path: path, Version: version}}
}

// MultiGetData is a getData operation (multiRead).
func MultiGetData(path string) proto.MultiOp {
	return proto.MultiOp{Type: proto.OpGetData, GetData: proto.GetDataRequest{Path: path}}
}

// MultiGetChildren is a getChildren operation (multiRead).
func MultiGetChildren(path string) proto.MultiOp {
	return proto.MultiOp{Type: proto.OpGetChildren, GetChildren: proto.GetChildrenRequest{Path: path}}
}
