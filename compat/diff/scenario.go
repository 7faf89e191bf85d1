package diff

import (
	"fmt"
	"strings"

	"github.com/gozk/gozk/compat/zkwire"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// Scenario is a named list of steps run against one fresh server started
// with Server's configuration.
type Scenario struct {
	Name string
	// Doc says what the scenario shows, usually with the section of
	// spec/client-protocol.md it exercises.
	Doc    string
	Server ServerConfig
	Steps  []Step
}

// ServerConfig is a server configuration a group of scenarios needs.
// Both servers under comparison are started with it.
type ServerConfig struct {
	// Name identifies the group; "" is the default configuration.
	Name string
	// Config holds extra zoo.cfg lines ("key=value").
	Config []string
	// SystemProperties are JVM system properties for Java. A gozk
	// launcher receives them too; those named "zookeeper.<key>" are
	// equivalent to the zoo.cfg key "<key>".
	SystemProperties map[string]string
}

// GroupName returns the configuration's name, "default" for the zero
// value.
func (c ServerConfig) GroupName() string {
	if c.Name == "" {
		return "default"
	}
	return c.Name
}

// Server configurations used by the scenarios.
var (
	DefaultServer = ServerConfig{}
	// ExtendedTypesServer allows TTL nodes.
	ExtendedTypesServer = ServerConfig{
		Name:             "extended-types",
		SystemProperties: map[string]string{"zookeeper.extendedTypesEnabled": "true"},
	}
	// ReconfigServer has reconfigEnabled=true, which a standalone server
	// answers with Unimplemented instead of ReconfigDisabled.
	ReconfigServer = ServerConfig{
		Name:   "reconfig-enabled",
		Config: []string{"reconfigEnabled=true"},
	}
	// QuotaServer turns hard quotas into errors (QuotaExceeded).
	QuotaServer = ServerConfig{
		Name:             "enforce-quota",
		SystemProperties: map[string]string{"zookeeper.enforceQuota": "true"},
	}
	// EnforcedAuthServer requires digest authentication before any other
	// request (SessionClosedRequireSaslAuth).
	EnforcedAuthServer = ServerConfig{
		Name: "enforce-auth",
		SystemProperties: map[string]string{
			"zookeeper.enforce.auth.enabled": "true",
			"zookeeper.enforce.auth.schemes": "digest",
		},
	}
	// SuperDigestServer makes digest "super:secret" a super user.
	SuperDigestServer = ServerConfig{
		Name: "super-digest",
		SystemProperties: map[string]string{
			"zookeeper.DigestAuthenticationProvider.superDigest": "super:" + digestHash("super:secret"),
		},
	}
)

// Step is one action of a scenario. The constructors below make them.
type Step interface {
	apply(r *runner) error
}

// Request is one request a step sends: an opcode and a body, which is a
// jute record, raw bytes, or built when the step runs (for values that
// depend on the run, such as a relativeZxid).
type Request struct {
	Op proto.OpCode
	// Xid is used when FixedXid is set; otherwise the connection's next
	// xid (1, 2, 3, ...) is.
	Xid      int32
	FixedXid bool
	Body     jute.Record
	// Raw, when not nil, is sent as the body instead of Body.
	Raw []byte
	// Build, when not nil, makes the body when the step runs.
	Build func(marks map[string]int64) jute.Record
	// Desc replaces the generated description in the transcript.
	Desc string
}

// Conn shapes a connection's handshake.
type Conn struct {
	// TimeoutMs is the requested session timeout; nil means 30000.
	TimeoutMs *int32
	// Resume names the connection whose session (id and password) this
	// one resumes.
	Resume int
	// WrongPassword, with Resume, sends a corrupted password.
	WrongPassword bool
	// SessionID asks to resume an arbitrary session id with a zero
	// password.
	SessionID int64
	ReadOnly  bool
	OldClient bool
	// LastZxidSeen is sent as is, unless LastZxidFrom names a connection:
	// then that connection's highest reply zxid plus LastZxidDelta is sent.
	LastZxidSeen  int64
	LastZxidFrom  int
	LastZxidDelta int64
	// Pipeline requests are written behind the ConnectRequest in the same
	// write; the step waits for their replies.
	Pipeline []Request
	// RawConnect replaces the ConnectRequest payload.
	RawConnect []byte
}

// Ms returns a pointer to a timeout in milliseconds, for Conn.TimeoutMs.
func Ms(v int32) *int32 { return &v }

// D returns s as data; nil data is the null buffer, distinct from D("").
func D(s string) []byte { return []byte(s) }

// Open is world:anyone with every permission.
var Open = proto.OpenACLUnsafe

// Step constructors.

type connectStep struct {
	slot int
	opts Conn
}

// Connect opens connection s with a new session.
func Connect(s int) Step { return connectStep{slot: s} }

// ConnectWith opens connection s with the given handshake.
func ConnectWith(s int, opts Conn) Step { return connectStep{slot: s, opts: opts} }

type doStep struct {
	slot int
	reqs []Request
}

// Do sends req on connection s and waits for its reply (or the end of the
// connection), recording every frame that arrives until then.
func Do(s int, req Request) Step { return doStep{slot: s, reqs: []Request{req}} }

// Pipeline writes all reqs on connection s in a single write and then
// waits for all their replies.
func Pipeline(s int, reqs ...Request) Step { return doStep{slot: s, reqs: reqs} }

type sendStep struct {
	slot int
	req  Request
}

// SendOnly sends req on connection s without waiting for a reply, for
// requests a server may never answer; a reply that does come is recorded
// later as unsolicited.
func SendOnly(s int, req Request) Step { return sendStep{slot: s, req: req} }

type rawStep struct {
	slot int
	b    []byte
	desc string
}

// RawBytes writes b on connection s exactly as given, without waiting for
// anything; follow it with Expect or ExpectClosed.
func RawBytes(s int, b []byte, desc string) Step { return rawStep{slot: s, b: b, desc: desc} }

type rawRequestStep struct {
	slot  int
	op    proto.OpCode
	frame []byte
	desc  string
}

// RawRequest writes a complete, hand-made request frame on connection s
// and waits for one reply, which is decoded as a reply to op.
func RawRequest(s int, op proto.OpCode, frame []byte, desc string) Step {
	return rawRequestStep{slot: s, op: op, frame: frame, desc: desc}
}

type expectStep struct {
	slot   int
	frames int
	closed bool
}

// Expect waits until connection s has received n more frames (typically
// notifications) and records them.
func Expect(s int, n int) Step { return expectStep{slot: s, frames: n} }

// ExpectClosed records every frame on connection s until the server
// closes it.
func ExpectClosed(s int) Step { return expectStep{slot: s, closed: true} }

type dropStep struct{ slot int }

// Drop closes connection s from the client side without closing its
// session.
func Drop(s int) Step { return dropStep{slot: s} }

type markStep struct {
	slot int
	name string
}

// MarkZxid remembers the highest reply zxid connection s has seen under
// name, for requests built later (see SetWatchesAt).
func MarkZxid(s int, name string) Step { return markStep{slot: s, name: name} }

type noteStep struct{ text string }

// Note adds a comment line to the transcript.
func Note(text string) Step { return noteStep{text: text} }

// CloseSession sends closeSession on connection s and records everything
// until the server closes the connection.
func CloseSession(s int) []Step {
	return []Step{Do(s, CloseReq()), ExpectClosed(s)}
}

// Steps flattens steps and step lists into one list, so that helpers that
// return several steps can be used in a scenario table.
func Steps(items ...any) []Step {
	var out []Step
	for _, it := range items {
		switch v := it.(type) {
		case Step:
			out = append(out, v)
		case []Step:
			out = append(out, v...)
		default:
			panic(fmt.Sprintf("diff.Steps: %T is not a Step", it))
		}
	}
	return out
}

// Request constructors. Data arguments are sent as given: nil is the null
// buffer.

func record(op proto.OpCode, body jute.Record) Request { return Request{Op: op, Body: body} }

// Create is create (1) with world:anyone ALL.
func Create(path string, data []byte, flags int32) Request {
	return CreateACL(path, data, Open, flags)
}

// CreateACL is create (1) with an explicit ACL (nil is the null vector).
func CreateACL(path string, data []byte, acl []proto.ACL, flags int32) Request {
	return record(proto.OpCreate, &proto.CreateRequest{Path: path, Data: data, Acl: acl, Flags: flags})
}

// Create2 is create2 (15).
func Create2(path string, data []byte, flags int32) Request {
	return record(proto.OpCreate2, &proto.CreateRequest{Path: path, Data: data, Acl: Open, Flags: flags})
}

// CreateOp is a CreateRequest under any opcode, for the quirks of sending
// a mode with an opcode the Java client would not pick.
func CreateOp(op proto.OpCode, path string, data []byte, acl []proto.ACL, flags int32) Request {
	return record(op, &proto.CreateRequest{Path: path, Data: data, Acl: acl, Flags: flags})
}

// CreateContainer is createContainer (19) with flags 4.
func CreateContainer(path string, data []byte) Request {
	return record(proto.OpCreateContainer, &proto.CreateRequest{Path: path, Data: data, Acl: Open, Flags: int32(proto.ModeContainer)})
}

// CreateTTL is createTTL (21).
func CreateTTL(path string, data []byte, flags int32, ttl int64) Request {
	return record(proto.OpCreateTTL, &proto.CreateTTLRequest{Path: path, Data: data, Acl: Open, Flags: flags, Ttl: ttl})
}

// Delete is delete (2).
func Delete(path string, version int32) Request {
	return record(proto.OpDelete, &proto.DeleteRequest{Path: path, Version: version})
}

// Exists is exists (3).
func Exists(path string, watch bool) Request {
	return record(proto.OpExists, &proto.ExistsRequest{Path: path, Watch: watch})
}

// GetData is getData (4).
func GetData(path string, watch bool) Request {
	return record(proto.OpGetData, &proto.GetDataRequest{Path: path, Watch: watch})
}

// SetData is setData (5).
func SetData(path string, data []byte, version int32) Request {
	return record(proto.OpSetData, &proto.SetDataRequest{Path: path, Data: data, Version: version})
}

// GetACL is getACL (6).
func GetACL(path string) Request { return record(proto.OpGetACL, &proto.GetACLRequest{Path: path}) }

// SetACL is setACL (7).
func SetACL(path string, acl []proto.ACL, version int32) Request {
	return record(proto.OpSetACL, &proto.SetACLRequest{Path: path, Acl: acl, Version: version})
}

// GetChildren is getChildren (8).
func GetChildren(path string, watch bool) Request {
	return record(proto.OpGetChildren, &proto.GetChildrenRequest{Path: path, Watch: watch})
}

// GetChildren2 is getChildren2 (12).
func GetChildren2(path string, watch bool) Request {
	return record(proto.OpGetChildren2, &proto.GetChildren2Request{Path: path, Watch: watch})
}

// Sync is sync (9).
func Sync(path string) Request { return record(proto.OpSync, &proto.SyncRequest{Path: path}) }

// Ping is a ping (11) with the reserved xid -2.
func Ping() Request { return Request{Op: proto.OpPing, Xid: proto.XidPing, FixedXid: true} }

// Multi is multi (14).
func Multi(ops ...proto.MultiOp) Request {
	return record(proto.OpMulti, &proto.MultiRequest{Ops: ops})
}

// MultiRead is multiRead (22).
func MultiRead(ops ...proto.MultiOp) Request {
	return record(proto.OpMultiRead, &proto.MultiRequest{Ops: ops})
}

// RawMultiOp is one operation of a multi body built by hand, so that op
// types proto.MultiRequest refuses to encode can be sent.
type RawMultiOp struct {
	Type proto.OpCode
	Body jute.Record
}

// RawMulti builds a multi-style body (MultiHeaders, records, terminator)
// from any op types and sends it under op.
func RawMulti(op proto.OpCode, ops ...RawMultiOp) Request {
	w := jute.NewWriter(nil)
	var desc []string
	for _, o := range ops {
		h := proto.MultiHeader{Type: int32(o.Type), Done: false, Err: -1}
		h.Encode(w)
		if o.Body != nil {
			o.Body.Encode(w)
		}
		desc = append(desc, o.Type.String()+" "+describeRecord(o.Body))
	}
	end := proto.MultiHeader{Type: -1, Done: true, Err: -1}
	end.Encode(w)
	return Request{Op: op, Raw: w.Bytes(), Desc: op.String() + " raw-ops[" + strings.Join(desc, "; ") + "]"}
}

// CheckWatches is checkWatches (17).
func CheckWatches(path string, t proto.WatcherType) Request {
	return record(proto.OpCheckWatches, &proto.CheckWatchesRequest{Path: path, Type: int32(t)})
}

// RemoveWatches is removeWatches (18).
func RemoveWatches(path string, t proto.WatcherType) Request {
	return record(proto.OpRemoveWatches, &proto.RemoveWatchesRequest{Path: path, Type: int32(t)})
}

// SetWatches is setWatches (101) with xid -8.
func SetWatches(relativeZxid int64, dataW, existW, childW []string) Request {
	return Request{Op: proto.OpSetWatches, Xid: proto.XidSetWatches, FixedXid: true,
		Body: &proto.SetWatches{RelativeZxid: relativeZxid, DataWatches: dataW, ExistWatches: existW, ChildWatches: childW}}
}

// SetWatchesAt is setWatches with relativeZxid = the zxid marked under
// mark (see MarkZxid) plus delta.
func SetWatchesAt(mark string, delta int64, dataW, existW, childW []string) Request {
	return Request{Op: proto.OpSetWatches, Xid: proto.XidSetWatches, FixedXid: true,
		Desc: fmt.Sprintf("setWatches relativeZxid=mark(%s)%+d data=%s exist=%s child=%s", mark, delta, list(dataW), list(existW), list(childW)),
		Build: func(marks map[string]int64) jute.Record {
			return &proto.SetWatches{RelativeZxid: marks[mark] + delta, DataWatches: dataW, ExistWatches: existW, ChildWatches: childW}
		}}
}

// SetWatches2At is setWatches2 (105) with relativeZxid taken from a mark.
func SetWatches2At(mark string, delta int64, dataW, existW, childW, persistent, recursive []string) Request {
	return Request{Op: proto.OpSetWatches2, Xid: proto.XidSetWatches, FixedXid: true,
		Desc: fmt.Sprintf("setWatches2 relativeZxid=mark(%s)%+d data=%s exist=%s child=%s persistent=%s recursive=%s",
			mark, delta, list(dataW), list(existW), list(childW), list(persistent), list(recursive)),
		Build: func(marks map[string]int64) jute.Record {
			return &proto.SetWatches2{RelativeZxid: marks[mark] + delta, DataWatches: dataW, ExistWatches: existW,
				ChildWatches: childW, PersistentWatches: persistent, PersistentRecursiveWatches: recursive}
		}}
}

// AddWatch is addWatch (106).
func AddWatch(path string, mode proto.AddWatchMode) Request {
	return record(proto.OpAddWatch, &proto.AddWatchRequest{Path: path, Mode: int32(mode)})
}

// GetEphemerals is getEphemerals (103).
func GetEphemerals(prefix string) Request {
	return record(proto.OpGetEphemerals, &proto.GetEphemeralsRequest{PrefixPath: prefix})
}

// GetAllChildrenNumber is getAllChildrenNumber (104).
func GetAllChildrenNumber(path string) Request {
	return record(proto.OpGetAllChildrenNumber, &proto.GetAllChildrenNumberRequest{Path: path})
}

// WhoAmI is whoAmI (107), which has no body.
func WhoAmI() Request { return Request{Op: proto.OpWhoAmI} }

// Auth is an auth packet (100) with the reserved xid -4.
func Auth(scheme, auth string) Request {
	return Request{Op: proto.OpAuth, Xid: proto.XidAuth, FixedXid: true,
		Body: &proto.AuthPacket{Type: 0, Scheme: scheme, Auth: []byte(auth)}}
}

// SASL is a sasl request (102) carrying token.
func SASL(token []byte) Request {
	return record(proto.OpSASL, &proto.GetSASLRequest{Token: token})
}

// DeleteContainer is deleteContainer (20), which Java accepts from
// clients although only its container reaper is meant to send it. The
// body is sent as Java's reaper builds it, the bare path bytes without a
// length prefix; DeleteContainerBuffer sends the jute buffer form.
func DeleteContainer(path string) Request {
	return Request{Op: proto.OpDeleteContainer, Raw: []byte(path), Desc: "deleteContainer raw-path " + str(path)}
}

// DeleteContainerBuffer is deleteContainer with the path as a jute
// buffer (length-prefixed), the DeleteContainerRequest record's form.
func DeleteContainerBuffer(path string) Request {
	w := jute.NewWriter(nil)
	w.WriteBuffer([]byte(path))
	return Request{Op: proto.OpDeleteContainer, Raw: w.Bytes(), Desc: "deleteContainer buffer-path " + str(path)}
}

// Reconfig is reconfig (16).
func Reconfig(joining, leaving, members string, curConfigID int64) Request {
	return record(proto.OpReconfig, &proto.ReconfigRequest{JoiningServers: joining, LeavingServers: leaving, NewMembers: members, CurConfigId: curConfigID})
}

// CloseReq is closeSession (-11).
func CloseReq() Request { return Request{Op: proto.OpCloseSession} }

// RawOp sends body bytes under any opcode with the next xid.
func RawOp(op proto.OpCode, body []byte) Request { return Request{Op: op, Raw: body} }

// Multi operations, re-exported from zkwire so scenario tables read in
// one vocabulary.
var (
	MCreate      = zkwire.MultiCreate
	MCreateTTL   = zkwire.MultiCreateTTL
	MDelete      = zkwire.MultiDelete
	MSetData     = zkwire.MultiSetData
	MCheck       = zkwire.MultiCheck
	MGetData     = zkwire.MultiGetData
	MGetChildren = zkwire.MultiGetChildren
)

func list(l []string) string {
	if l == nil {
		return "null"
	}
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = str(s)
	}
	return "[" + strings.Join(q, " ") + "]"
}
