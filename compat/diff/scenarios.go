package diff

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/gozk/gozk/compat/zkwire"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// Create flags, spelled out for the tables.
const (
	fPersistent    = int32(proto.ModePersistent)
	fEphemeral     = int32(proto.ModeEphemeral)
	fSeq           = int32(proto.ModePersistentSequential)
	fEphSeq        = int32(proto.ModeEphemeralSequential)
	fContainer     = int32(proto.ModeContainer)
	fTTL           = int32(proto.ModePersistentWithTTL)
	fSeqTTL        = int32(proto.ModePersistentSequentialWithTTL)
	maxTTL         = proto.MaxTTL
	watcherAny     = proto.WatcherAny
	watcherData    = proto.WatcherData
	watcherChild   = proto.WatcherChildren
	modePersistent = proto.AddWatchPersistent
	modeRecursive  = proto.AddWatchPersistentRecursive
)

// ACLs used by the scenarios.
var (
	bobAll      = []proto.ACL{DigestACL(proto.PermAll, "bob", "pw")}
	readOnlyACL = proto.ReadACLUnsafe
	writeOnly   = []proto.ACL{{Perms: proto.PermWrite, Id: proto.AnyoneID}}
	nobody      = []proto.ACL{{Perms: 0, Id: proto.AnyoneID}}
	creatorAll  = proto.CreatorAllACL
)

// Scenarios returns every scenario. Each runs on a fresh server with its
// Server configuration; the comments name the section of
// spec/client-protocol.md a scenario exercises.
func Scenarios() []Scenario {
	var all []Scenario
	for _, part := range [][]Scenario{
		handshakeScenarios(),
		createScenarios(),
		pathScenarios(),
		writeErrorScenarios(),
		aclScenarios(),
		statScenarios(),
		multiScenarios(),
		watchScenarios(),
		sessionScenarios(),
		miscScenarios(),
		childOrderScenarios(),
		quotaScenarios(),
		frameScenarios(),
	} {
		all = append(all, part...)
	}
	return all
}

// Lookup returns the scenario with the given name.
func Lookup(name string) (Scenario, bool) {
	for _, sc := range Scenarios() {
		if sc.Name == name {
			return sc, true
		}
	}
	return Scenario{}, false
}

func handshakeScenarios() []Scenario {
	return []Scenario{
		{
			Name: "handshake/timeouts-and-flags",
			Doc:  "§2.2, §2.3 step 4, §12.2: clamping to [4000, 40000], readOnly reply flag, old clients",
			Steps: Steps(
				Connect(1),
				ConnectWith(2, Conn{TimeoutMs: Ms(1000)}),
				ConnectWith(3, Conn{TimeoutMs: Ms(100000)}),
				ConnectWith(4, Conn{TimeoutMs: Ms(0)}),
				ConnectWith(5, Conn{TimeoutMs: Ms(-5)}),
				ConnectWith(6, Conn{ReadOnly: true}),
				ConnectWith(7, Conn{OldClient: true}),
				Do(7, Exists("/", false)),
			),
		},
		{
			Name: "handshake/resume",
			Doc:  "§2.3 step 7: resume moves the session; a wrong password is refused but still kicks the live connection; the session survives; closed sessions cannot be resumed",
			Steps: Steps(
				Connect(1),
				Do(1, Create("/e", D("eph"), fEphemeral)),
				ConnectWith(2, Conn{Resume: 1}),
				ExpectClosed(1),
				Do(2, Exists("/e", false)),
				ConnectWith(3, Conn{Resume: 1, WrongPassword: true}),
				ExpectClosed(3),
				ExpectClosed(2),
				ConnectWith(4, Conn{Resume: 1}),
				Do(4, Exists("/e", false)),
				Do(4, GetEphemerals("/")),
				ConnectWith(5, Conn{SessionID: 0x0123456789abcdef}),
				ExpectClosed(5),
				CloseSession(4),
				ConnectWith(6, Conn{Resume: 1}),
				ExpectClosed(6),
				Connect(7),
				Do(7, Exists("/e", false)),
			),
		},
		{
			Name: "handshake/last-zxid-seen",
			Doc:  "§2.3 step 3: a client that has seen a newer zxid gets no reply at all",
			Steps: Steps(
				Connect(1),
				Do(1, Create("/a", nil, fPersistent)),
				ConnectWith(2, Conn{LastZxidFrom: 1}),
				ConnectWith(3, Conn{LastZxidFrom: 1, LastZxidDelta: 1000}),
				ConnectWith(4, Conn{LastZxidSeen: 1 << 40}),
				Do(2, Exists("/a", false)),
			),
		},
		{
			Name: "handshake/pipelined-behind-connect",
			Doc:  "§2.3 step 5: requests written with the ConnectRequest run after the session exists, in order",
			Steps: Steps(
				ConnectWith(1, Conn{Pipeline: []Request{
					Create("/p", D("x"), fPersistent),
					GetData("/p", true),
					Exists("/q", true),
					Sync("/p"),
					Ping(),
					SetData("/p", D("y"), -1),
					Create("/q", nil, fEphemeral),
				}}),
				Do(1, WhoAmI()),
			),
		},
		{
			Name: "handshake/malformed",
			Doc:  "§2.1: a truncated ConnectRequest closes the connection; extra bytes after readOnly are ignored; a new session's password length does not matter",
			Steps: Steps(
				ConnectWith(1, Conn{RawConnect: []byte{0, 0, 0, 0, 0, 0}}),
				ConnectWith(2, Conn{RawConnect: append(connectRequest(30000, 0, make([]byte, 16)), 1, 0xde, 0xad)}),
				Do(2, Exists("/", false)),
				ConnectWith(3, Conn{RawConnect: append(connectRequest(30000, 0, nil), 0)}),
				Do(3, Exists("/", false)),
				ConnectWith(4, Conn{RawConnect: append(connectRequest(30000, 0, []byte{1, 2, 3}), 0)}),
				Do(4, Exists("/", false)),
			),
		},
	}
}

// connectRequest encodes a ConnectRequest without the readOnly byte.
func connectRequest(timeout int32, session int64, password []byte) []byte {
	return jute.Marshal(&proto.ConnectRequest{TimeOut: timeout, SessionId: session, Passwd: password})
}

func createScenarios() []Scenario {
	return []Scenario{
		{
			Name: "create/modes-and-flags",
			Doc:  "§6.1, §8.1: every mode through every opcode, invalid flags, TTL off, ephemeral parents",
			Steps: Steps(
				Connect(1),
				Do(1, Create("/p", D("x"), fPersistent)),
				Do(1, Create2("/p/a", D("a"), fPersistent)),
				Do(1, Create2("/p/e", D("e"), fEphemeral)),
				Do(1, Create2("/p/s-", D("s"), fSeq)),
				Do(1, Create2("/p/es-", nil, fEphSeq)),
				Do(1, CreateContainer("/c", D("c"))),
				Do(1, Create("/p/c4", nil, fContainer)),
				Do(1, CreateOp(proto.OpCreate2, "/p/c4b", nil, Open, fContainer)),
				Do(1, Exists("/p/c4", false)),
				Do(1, Exists("/c", false)),
				Note("invalid flags"),
				Do(1, Create("/p/f7", nil, 7)),
				Do(1, Create2("/p/f99", nil, 99)),
				Do(1, Create("/p/fm1", nil, -1)),
				Do(1, CreateOp(proto.OpCreateContainer, "/p/cf0", nil, Open, fPersistent)),
				Do(1, CreateOp(proto.OpCreateContainer, "/p/cf1", nil, Open, fEphemeral)),
				Note("TTL modes while extended types are off"),
				Do(1, Create("/p/t5", nil, fTTL)),
				Do(1, Create2("/p/t6", nil, fSeqTTL)),
				Do(1, CreateTTL("/p/t", nil, fTTL, 1000)),
				Do(1, CreateTTL("/p/t", nil, fSeqTTL, 1000)),
				Do(1, CreateTTL("/p/t", nil, fPersistent, 1000)),
				Do(1, CreateTTL("/p/t", nil, fTTL, 0)),
				Note("existence and parents"),
				Do(1, Create("/p", nil, fPersistent)),
				Do(1, Create("/", nil, fPersistent)),
				Do(1, Create("/missing/child", nil, fPersistent)),
				Do(1, Create("/p/e/child", nil, fPersistent)),
				Do(1, Create("/p/e/child", nil, fEphemeral)),
				Do(1, CreateContainer("/p/e/child", nil)),
				Do(1, Create("/p/e/child-", nil, fSeq)),
				Do(1, Create("/p/e", nil, fPersistent)),
				Do(1, Create("/c/child", nil, fEphemeral)),
				Do(1, CreateContainer("/c/inner", nil)),
				Do(1, GetChildren2("/p", false)),
				Connect(2),
				Do(2, Create("/p/e/other", nil, fPersistent)),
			),
		},
		{
			Name:   "create/ttl",
			Server: ExtendedTypesServer,
			Doc:    "§6.1 step 2, §7.3, §8.2: TTL range, modes per opcode, TTL parents, stat shows owner 0",
			Steps: Steps(
				Connect(1),
				Do(1, CreateTTL("/t", D("t"), fTTL, 1000)),
				Do(1, CreateTTL("/ts-", nil, fSeqTTL, 1000)),
				Do(1, CreateTTL("/tmax", nil, fTTL, maxTTL)),
				Do(1, Exists("/t", false)),
				Do(1, GetData("/tmax", false)),
				Note("TTL range"),
				Do(1, CreateTTL("/bad", nil, fTTL, 0)),
				Do(1, CreateTTL("/bad", nil, fTTL, -5)),
				Do(1, CreateTTL("/bad", nil, fTTL, maxTTL+1)),
				Do(1, CreateTTL("/bad", nil, fSeqTTL, -1)),
				Note("modes that do not match the opcode"),
				Do(1, CreateTTL("/bad", nil, fPersistent, 100)),
				Do(1, CreateTTL("/bad", nil, fEphemeral, 100)),
				Do(1, CreateTTL("/bad", nil, fContainer, 100)),
				Do(1, CreateTTL("/bad", nil, 7, 100)),
				Do(1, Create("/bad", nil, fTTL)),
				Do(1, Create2("/bad", nil, fSeqTTL)),
				Do(1, CreateOp(proto.OpCreateContainer, "/bad", nil, Open, fTTL)),
				Note("TTL parents take any child"),
				Do(1, Create("/t/eph", nil, fEphemeral)),
				Do(1, CreateContainer("/t/cont", nil)),
				Do(1, CreateTTL("/t/ttl", nil, fTTL, 50)),
				Do(1, GetChildren2("/t", false)),
				Do(1, Multi(MCreateTTL("/m", D("m"), Open, fTTL, 10), MCreateTTL("/m/s-", nil, Open, fSeqTTL, 10))),
				Do(1, Multi(MCreateTTL("/m2", nil, Open, fTTL, 0))),
				Do(1, Exists("/m", false)),
			),
		},
		{
			Name: "create/sequential-shared-counter",
			Doc:  "§8.3: one counter per parent for every child creation; failures and deletes do not move it",
			Steps: Steps(
				Connect(1),
				Do(1, Create("/q", nil, fPersistent)),
				Do(1, Create("/q/a-", nil, fSeq)),
				Do(1, Create("/q/b-", nil, fEphSeq)),
				Do(1, Create("/q/a-", nil, fEphSeq)),
				Do(1, Create("/q/c", nil, fPersistent)),
				Do(1, Create("/q/b-", nil, fSeq)),
				Do(1, Create("/q/c", nil, fPersistent)),
				Do(1, Create("/q/d-", nil, fSeq)),
				Do(1, Multi(MCreate(proto.OpCreate, "/q/m-", nil, Open, fSeq), MCreate(proto.OpCreate, "/q/c", nil, Open, fPersistent))),
				Do(1, Create("/q/e-", nil, fSeq)),
				Do(1, Delete("/q/c", -1)),
				Do(1, Delete("/q/a-0000000000", -1)),
				Do(1, Create("/q/f-", nil, fSeq)),
				Do(1, Multi(MCreate(proto.OpCreate, "/q/g-", nil, Open, fSeq), MCreate(proto.OpCreate2, "/q/g-", nil, Open, fSeq))),
				Do(1, Create("/q/", nil, fSeq)),
				Do(1, Create("/r-", nil, fSeq)),
				Do(1, GetChildren2("/q", false)),
				Do(1, Exists("/", false)),
			),
		},
		{
			Name: "create/null-and-empty-data",
			Doc:  "§1.3, §6.4: null data stays null, empty stays empty, both have dataLength 0",
			Steps: Steps(
				Connect(1),
				Do(1, Create("/null", nil, fPersistent)),
				Do(1, Create("/empty", D(""), fPersistent)),
				Do(1, GetData("/null", false)),
				Do(1, GetData("/empty", false)),
				Do(1, SetData("/empty", nil, -1)),
				Do(1, GetData("/empty", false)),
				Do(1, SetData("/null", D(""), -1)),
				Do(1, GetData("/null", false)),
				Do(1, MultiRead(MGetData("/null"), MGetData("/empty"))),
				Do(1, Create("/bin", []byte{0, 1, 2, 0xff}, fPersistent)),
				Do(1, GetData("/bin", false)),
			),
		},
	}
}

// Paths from the table of §9 (with /a existing).
var oddPaths = []string{
	"", "a", "/a/", "/a/.", "/a/..", "/a//b", "/a/./b", "/a/../b", "/a/x/..",
	"noslash/x", "/a/\x00b", "/a\x00", "/", "//", "/...", "/.a", "/a.",
	"/ü", "/名", "/a\ufeff", "/\U0001F600", "/a\x01", "/a\x1f", "/a\x7f",
	"/a\u0085", "/a\u009f", "/a\ud7ff", "/a\ue000", "/a\uf8ff", "/a\uf900",
	"/a\ufff0", "/a\uffff", "/zookeeper/", "/zookeeper//quota",
}

func pathScenarios() []Scenario {
	perOp := func(name, doc string, mk func(p string) Request, extra ...Step) Scenario {
		steps := []Step{Connect(1), Do(1, Create("/a", D("a"), fPersistent))}
		for _, p := range oddPaths {
			steps = append(steps, Do(1, mk(p)))
		}
		steps = append(steps, extra...)
		steps = append(steps, Do(1, GetChildren("/", false)), Do(1, GetChildren("/a", false)))
		return Scenario{Name: name, Doc: doc, Steps: steps}
	}
	return []Scenario{
		perOp("paths/create", "§6.1, §9: parent lookup first, then full validation",
			func(p string) Request { return Create(p, nil, fPersistent) }),
		perOp("paths/create-sequential", "§6.1 step 9: the suffix is appended before validation",
			func(p string) Request { return Create(p, nil, fSeq) }),
		perOp("paths/setData", "§6.5, §9: setData validates the full path first",
			func(p string) Request { return SetData(p, D("v"), -1) }),
		perOp("paths/delete", "§6.2, §9: delete checks only slash, NUL and reserved nodes",
			func(p string) Request { return Delete(p, -1) }),
		perOp("paths/getData", "§6.4, §9: reads do not validate; \"\" is the root",
			func(p string) Request { return GetData(p, false) }),
		perOp("paths/exists", "§6.3, §9: exists rejects NUL only",
			func(p string) Request { return Exists(p, false) }),
		perOp("paths/getChildren", "§6.8, §9",
			func(p string) Request { return GetChildren(p, false) }),
		perOp("paths/getChildren2", "§6.8, §9",
			func(p string) Request { return GetChildren2(p, false) }),
		perOp("paths/getACL", "§6.6, §9",
			func(p string) Request { return GetACL(p) }),
		perOp("paths/setACL", "§6.7, §9",
			func(p string) Request { return SetACL(p, Open, -1) }),
		perOp("paths/getAllChildrenNumber", "§6.20, §9",
			func(p string) Request { return GetAllChildrenNumber(p) }),
		perOp("paths/sync", "§6.9: no validation at all",
			func(p string) Request { return Sync(p) }),
		perOp("paths/check-in-multi", "§6.11: check validates the path",
			func(p string) Request { return Multi(MCheck(p, -1)) }),
		perOp("paths/multiRead", "§6.13",
			func(p string) Request { return MultiRead(MGetData(p), MGetChildren(p)) }),
	}
}

func writeErrorScenarios() []Scenario {
	return []Scenario{
		{
			Name: "delete/errors",
			Doc:  "§6.2: check order NoNode, BadVersion before NotEmpty; reply has no body",
			Steps: Steps(
				Connect(1),
				Do(1, Create("/d", D("x"), fPersistent)),
				Do(1, Create("/d/c", nil, fPersistent)),
				Do(1, Delete("/d/missing", -1)),
				Do(1, Delete("/d/missing", 3)),
				Do(1, Delete("/d", -1)),
				Do(1, Delete("/d", 5)),
				Do(1, Delete("/d/c", 1)),
				Do(1, Delete("/d/c", 0)),
				Do(1, SetData("/d", D("y"), 0)),
				Do(1, Delete("/d", 0)),
				Do(1, Delete("/d", 1)),
				Do(1, Delete("/d", -1)),
			),
		},
		{
			Name: "setData/versions",
			Doc:  "§6.5, §7.1: BadVersion, NoNode whatever the version, identical data bumps version",
			Steps: Steps(
				Connect(1),
				Do(1, Create("/s", D("x"), fPersistent)),
				Do(1, SetData("/s", D("x"), -1)),
				Do(1, SetData("/s", D("x"), 1)),
				Do(1, SetData("/s", D("longer"), 0)),
				Do(1, SetData("/s", D("x"), 2)),
				Do(1, SetData("/missing", D("x"), -1)),
				Do(1, SetData("/missing", D("x"), 7)),
				Do(1, Exists("/s", false)),
			),
		},
		{
			Name: "setACL/versions-and-stat",
			Doc:  "§6.7, §7.1: aversion check, aversion+1 and nothing else changes",
			Steps: Steps(
				Connect(1),
				Do(1, Create("/s", D("x"), fPersistent)),
				Do(1, SetACL("/s", readOnlyACL, 1)),
				Do(1, SetACL("/s", Open, 0)),
				Do(1, SetACL("/s", Open, 0)),
				Do(1, SetACL("/s", Open, -1)),
				Do(1, SetACL("/missing", Open, -1)),
				Do(1, SetACL("/missing", nil, -1)),
				Do(1, GetACL("/s")),
				Do(1, Multi(MCheck("/s", 0), MCheck("/s", 2))),
				Do(1, Multi(MCheck("/s", -1), MCheck("/missing", -1))),
				Do(1, Multi(MCheck("/s", 0))),
			),
		},
		{
			Name: "zxid/consumption",
			Doc:  "§12.1: failed writes consume a zxid, undecodable ones included; reads and sync do not",
			Steps: Steps(
				Connect(1),
				Do(1, Create("/a", nil, fPersistent)),
				Do(1, Create("/a", nil, fPersistent)),
				Do(1, Create("/b", nil, fPersistent)),
				Do(1, Delete("/missing", -1)),
				Do(1, SetData("/missing", nil, -1)),
				Do(1, SetACL("/missing", Open, -1)),
				Do(1, Create("/c", nil, fPersistent)),
				Do(1, Sync("/")),
				Do(1, Sync("/a")),
				Do(1, GetData("/a", false)),
				Do(1, GetData("/missing", false)),
				Do(1, Ping()),
				Do(1, Create("/d", nil, fPersistent)),
				Do(1, Multi(MCreate(proto.OpCreate, "/e", nil, Open, fPersistent), MCreate(proto.OpCreate, "/a", nil, Open, fPersistent))),
				Do(1, Create("/f", nil, fPersistent)),
				Note("undecodable bodies"),
				Do(1, RawOp(proto.OpCreate, []byte{0, 0, 0, 9, '/'})),
				Do(1, Create("/g", nil, fPersistent)),
				Do(1, RawOp(proto.OpSetData, []byte{0, 0})),
				Do(1, Create("/h", nil, fPersistent)),
				Do(1, RawOp(proto.OpMulti, []byte{0, 0, 0, 1, 0})),
				Do(1, Create("/i", nil, fPersistent)),
				Do(1, Exists("/i", false)),
			),
		},
	}
}

func aclScenarios() []Scenario {
	invalid := [][]proto.ACL{
		{},
		nil,
		creatorAll,
		{{Perms: proto.PermAll, Id: proto.Id{Scheme: "auth", Id: "whatever"}}},
		{{Perms: proto.PermAll, Id: proto.Id{Scheme: "world", Id: "foo"}}},
		{{Perms: proto.PermAll, Id: proto.Id{Scheme: "foo", Id: "bar"}}},
		{{Perms: proto.PermAll, Id: proto.Id{Scheme: "digest", Id: "nocolon"}}},
		{{Perms: proto.PermAll, Id: proto.Id{Scheme: "digest", Id: "a:b:c"}}},
		{{Perms: proto.PermAll, Id: proto.Id{Scheme: "ip", Id: "not-an-ip"}}},
		{{Perms: proto.PermAll, Id: proto.Id{Scheme: "ip", Id: "1.2.3"}}},
		{{Perms: proto.PermAll, Id: proto.Id{Scheme: "ip", Id: "10.0.0.0/33"}}},
		{{Perms: proto.PermAll, Id: proto.Id{Scheme: "ip", Id: "::1"}}},
		{{Perms: proto.PermAll, Id: proto.Id{Scheme: "super", Id: ""}}},
		{{Perms: proto.PermAll, Id: proto.AnyoneID}, {Perms: proto.PermAll, Id: proto.Id{Scheme: "world", Id: "foo"}}},
	}
	valid := [][]proto.ACL{
		{{Perms: proto.PermAll, Id: proto.Id{Scheme: "ip", Id: "127.0.0.1"}}},
		{{Perms: proto.PermAll, Id: proto.Id{Scheme: "ip", Id: "10.0.0.0/8"}}},
		{{Perms: proto.PermRead, Id: proto.AnyoneID}, {Perms: proto.PermRead, Id: proto.AnyoneID}, {Perms: proto.PermAll, Id: proto.AnyoneID}},
		{{Perms: 0x7fffffff, Id: proto.AnyoneID}},
		{{Perms: proto.PermAll, Id: proto.Id{Scheme: "digest", Id: "bob:hash"}}},
	}
	var invalidSteps, validSteps []Step
	for i, acl := range invalid {
		p := "/inv" + string(rune('a'+i))
		invalidSteps = append(invalidSteps,
			Do(1, CreateACL(p, nil, acl, fPersistent)),
			Do(1, CreateACL("/missing"+p, nil, acl, fPersistent)),
			Do(1, SetACL("/target", acl, -1)),
			Do(1, Multi(MCreate(proto.OpCreate, p, nil, acl, fPersistent))),
		)
	}
	for i, acl := range valid {
		p := "/val" + string(rune('a'+i))
		validSteps = append(validSteps, Do(1, CreateACL(p, nil, acl, fPersistent)), Do(1, GetACL(p)))
	}
	return []Scenario{
		{
			Name:  "acl/invalid",
			Doc:   "§10.4: InvalidACL on create, setACL and inside multi; InvalidACL wins over a missing parent",
			Steps: Steps(Connect(1), Do(1, Create("/target", nil, fPersistent)), invalidSteps, Do(1, GetACL("/target"))),
		},
		{
			Name:  "acl/valid-and-fixup",
			Doc:   "§10.4: duplicates removed, permission bits not validated, ip ACL matches loopback",
			Steps: Steps(Connect(1), validSteps, Do(1, GetData("/vala", false)), Do(1, GetData("/valb", false))),
		},
		{
			Name: "acl/auth-expansion",
			Doc:  "§10.4 step 4: auth:<anything> becomes one digest entry per authenticated identity",
			Steps: Steps(
				Connect(1),
				Do(1, Auth("digest", "carol:pw1")),
				Do(1, CreateACL("/one", nil, creatorAll, fPersistent)),
				Do(1, GetACL("/one")),
				Do(1, Auth("digest", "dave:pw2")),
				Do(1, CreateACL("/two", nil, []proto.ACL{{Perms: proto.PermRead | proto.PermAdmin, Id: proto.Id{Scheme: "auth", Id: "ignored"}}}, fPersistent)),
				Do(1, GetACL("/two")),
				Do(1, CreateACL("/mix", nil, []proto.ACL{{Perms: proto.PermRead, Id: proto.AnyoneID}, {Perms: proto.PermAll, Id: proto.AuthIDs}}, fPersistent)),
				Do(1, GetACL("/mix")),
				Do(1, Auth("ip", "10.1.1.1")),
				Do(1, WhoAmI()),
				Connect(2),
				Do(2, GetACL("/one")),
				Do(2, GetData("/one", false)),
				Do(2, Auth("digest", "carol:pw1")),
				Do(2, GetData("/one", false)),
				Do(2, SetACL("/one", creatorAll, -1)),
				Do(2, GetACL("/one")),
			),
		},
		{
			Name: "acl/no-auth",
			Doc:  "§10.1, §10.3: NoAuth for every operation that checks; exists and sync do not check in 3.8.0; NoAuth before NodeExists, NoNode and BadVersion",
			Steps: Steps(
				Connect(1),
				Do(1, Auth("digest", "bob:pw")),
				Do(1, CreateACL("/s", D("secret"), bobAll, fPersistent)),
				Do(1, CreateACL("/s/c", D("child"), bobAll, fPersistent)),
				Connect(2),
				Do(2, GetData("/s", true)),
				Do(2, SetData("/s", D("x"), -1)),
				Do(2, SetData("/s", D("x"), 99)),
				Do(2, GetChildren("/s", true)),
				Do(2, GetChildren2("/s", false)),
				Do(2, GetACL("/s")),
				Do(2, SetACL("/s", Open, -1)),
				Do(2, SetACL("/s", Open, 99)),
				Do(2, Create("/s/new", nil, fPersistent)),
				Do(2, Create("/s/c", nil, fPersistent)),
				Do(2, Create("/s/new-", nil, fSeq)),
				Do(2, CreateACL("/s/new", nil, []proto.ACL{}, fPersistent)),
				Do(2, Delete("/s/c", -1)),
				Do(2, Delete("/s/missing", -1)),
				Do(2, Delete("/s/c", 42)),
				Do(2, Exists("/s", false)),
				Do(2, Sync("/s")),
				Do(2, GetAllChildrenNumber("/s")),
				Do(2, Multi(MCheck("/s", -1))),
				Do(2, Multi(MSetData("/s", D("x"), -1))),
				Do(2, Multi(MCreate(proto.OpCreate, "/s/m", nil, Open, fPersistent))),
				Do(2, Multi(MDelete("/s/c", -1))),
				Do(2, MultiRead(MGetData("/s"), MGetChildren("/s"), MGetData("/"))),
				Do(2, AddWatch("/s", modePersistent)),
				Do(2, CheckWatches("/s", watcherAny)),
				Do(2, Auth("digest", "bob:wrong")),
				Do(2, GetData("/s", false)),
				Do(2, Auth("digest", "bob:pw")),
				Do(2, GetData("/s", false)),
				Do(2, GetChildren("/s", false)),
				Do(2, GetAllChildrenNumber("/s")),
				Do(2, SetData("/s", D("changed"), -1)),
				Do(2, Delete("/s/c", -1)),
				Do(2, SetACL("/s", Open, -1)),
				Connect(3),
				Do(3, GetData("/s", false)),
			),
		},
		{
			Name: "acl/getACL-digest-hiding",
			Doc:  "§6.6: READ or ADMIN is enough; without ADMIN digest ids show as user:x",
			Steps: Steps(
				Connect(1),
				Do(1, CreateACL("/r", nil, []proto.ACL{DigestACL(proto.PermAll, "bob", "pw"), {Perms: proto.PermRead, Id: proto.AnyoneID}}, fPersistent)),
				Do(1, CreateACL("/a", nil, []proto.ACL{DigestACL(proto.PermAll, "bob", "pw"), {Perms: proto.PermAdmin, Id: proto.AnyoneID}}, fPersistent)),
				Do(1, CreateACL("/w", nil, writeOnly, fPersistent)),
				Do(1, CreateACL("/n", nil, nobody, fPersistent)),
				Do(1, GetACL("/r")),
				Do(1, GetACL("/a")),
				Do(1, GetACL("/w")),
				Do(1, GetACL("/n")),
				Do(1, SetData("/w", D("w"), -1)),
				Do(1, GetData("/w", false)),
				Do(1, SetACL("/n", Open, -1)),
				Do(1, Delete("/n", -1)),
				Do(1, Auth("digest", "bob:pw")),
				Do(1, GetACL("/r")),
				Do(1, GetACL("/zookeeper")),
				Do(1, GetACL("/")),
				Do(1, GetACL("/zookeeper/config")),
				Do(1, GetACL("/zookeeper/quota")),
			),
		},
		{
			Name: "auth/digest-and-whoami",
			Doc:  "§6.21, §6.22: identities of a connection; auth replies carry zxid 0",
			Steps: Steps(
				Connect(1),
				Do(1, WhoAmI()),
				Do(1, Auth("digest", "carol:pw")),
				Do(1, WhoAmI()),
				Do(1, Auth("digest", "carol:pw")),
				Do(1, Auth("digest", "nocolon")),
				Do(1, WhoAmI()),
				Do(1, Auth("ip", "1.2.3.4")),
				Do(1, WhoAmI()),
				Do(1, CreateACL("/x", nil, creatorAll, fPersistent)),
				Do(1, GetACL("/x")),
				Connect(2),
				Do(2, Auth("foo", "bar")),
				ExpectClosed(2),
				Connect(3),
				Do(3, Auth("super", "x")),
				ExpectClosed(3),
				Connect(4),
				Do(4, Auth("digest", "")),
				Do(4, WhoAmI()),
				Connect(5),
				Do(5, Auth("x509", "CN=me")),
				ExpectClosed(5),
			),
		},
		{
			Name:   "auth/super-digest",
			Server: SuperDigestServer,
			Doc:    "§10.2.1, §10.3: a super digest passes every ACL check",
			Steps: Steps(
				Connect(1),
				Do(1, CreateACL("/n", D("n"), nobody, fPersistent)),
				Do(1, GetData("/n", false)),
				Connect(2),
				Do(2, Auth("digest", "super:secret")),
				Do(2, WhoAmI()),
				Do(2, GetData("/n", false)),
				Do(2, GetACL("/n")),
				Do(2, SetACL("/n", Open, -1)),
				Do(2, Create("/n/c", nil, fPersistent)),
				Do(2, SetData("/zookeeper/config", D(""), -1)),
				Do(2, Delete("/zookeeper/config", -1)),
			),
		},
	}
}

func statScenarios() []Scenario {
	return []Scenario{
		{
			Name: "stat/changes",
			Doc:  "§7.1: every Stat field after create, child create and delete, setData, setACL",
			Steps: Steps(
				Connect(1),
				Do(1, Create2("/n", D("abc"), fPersistent)),
				Do(1, Create2("/n/c1", nil, fPersistent)),
				Do(1, Exists("/n", false)),
				Do(1, Create2("/n/c2", D("xy"), fEphemeral)),
				Do(1, Exists("/n", false)),
				Do(1, Delete("/n/c1", -1)),
				Do(1, Exists("/n", false)),
				Do(1, SetData("/n", D("abcdef"), -1)),
				Do(1, SetACL("/n", readOnlyACL, -1)),
				Do(1, GetData("/n", false)),
				Do(1, GetChildren2("/n", false)),
				Do(1, GetACL("/n")),
				Do(1, GetData("/n/c2", false)),
				Do(1, Multi(MCreate(proto.OpCreate2, "/m", D("1"), Open, fPersistent), MSetData("/m", D("22"), 0), MCreate(proto.OpCreate, "/m/k", nil, Open, fPersistent))),
				Do(1, GetData("/m", false)),
				Do(1, GetData("/m/k", false)),
			),
		},
		{
			Name: "stat/cversion",
			Doc:  "§7.2: visible cversion = 2*creations - children; the sequence uses creations",
			Steps: Steps(
				Connect(1),
				Do(1, Exists("/", false)),
				Do(1, Exists("/zookeeper", false)),
				Do(1, Exists("/zookeeper/quota", false)),
				Do(1, Exists("/zookeeper/config", false)),
				Do(1, Exists("", false)),
				Do(1, Create("/p", nil, fPersistent)),
				Do(1, Create("/p/x", nil, fPersistent)),
				Do(1, Delete("/p/x", -1)),
				Do(1, Create("/p/y", nil, fPersistent)),
				Do(1, Exists("/p", false)),
				Do(1, Create("/p/s-", nil, fSeq)),
				Do(1, Exists("/p", false)),
				Do(1, Delete("/p/y", -1)),
				Do(1, Delete("/p/s-0000000002", -1)),
				Do(1, Create("/p/s-", nil, fSeq)),
				Do(1, SetData("/p", D("d"), -1)),
				Do(1, Exists("/p", false)),
				Do(1, Create("/p/e", nil, fEphemeral)),
				Connect(2),
				Do(2, Create("/p/e2", nil, fEphemeral)),
				Do(2, Create("/p/e3", nil, fEphemeral)),
				Do(1, Exists("/p", false)),
				CloseSession(2),
				Do(1, Exists("/p", false)),
				Do(1, Create("/p/t-", nil, fSeq)),
				Do(1, Exists("/", false)),
			),
		},
		{
			Name: "reserved/nodes",
			Doc:  "§15: reserved nodes cannot be deleted; /zookeeper/config is read-only; \"\" reads the root",
			Steps: Steps(
				Connect(1),
				Do(1, Delete("/", -1)),
				Do(1, Delete("/zookeeper", -1)),
				Do(1, Delete("/zookeeper/quota", -1)),
				Do(1, Delete("/zookeeper/config", -1)),
				Do(1, Delete("/zookeeper/config", 5)),
				Do(1, Create("/", nil, fPersistent)),
				Do(1, Create("/zookeeper", nil, fPersistent)),
				Do(1, GetData("/zookeeper/config", false)),
				Do(1, GetData("/zookeeper", false)),
				Do(1, GetData("/zookeeper/quota", false)),
				Do(1, GetData("", false)),
				Do(1, GetChildren("/", false)),
				Do(1, GetChildren("/zookeeper", false)),
				Do(1, GetChildren2("", false)),
				Do(1, GetChildren("/zookeeper/quota", false)),
				Do(1, SetData("/zookeeper/config", D("x"), -1)),
				Do(1, SetACL("/zookeeper/config", Open, -1)),
				Do(1, SetData("/zookeeper", D("mine"), -1)),
				Do(1, Create("/zookeeper/child", D("c"), fPersistent)),
				Do(1, Create("/zookeeper/quota/q", nil, fPersistent)),
				Do(1, Delete("/zookeeper/child", -1)),
				Do(1, Exists("/zookeeper", false)),
				Do(1, GetAllChildrenNumber("/")),
				Do(1, GetAllChildrenNumber("/zookeeper")),
				Do(1, GetAllChildrenNumber("")),
			),
		},
	}
}

func multiScenarios() []Scenario {
	return []Scenario{
		{
			Name: "multi/success-every-op",
			Doc:  "§6.12, §5.3: result types per op (create2 answers type 1, container and TTL type 15), one zxid",
			Steps: Steps(
				Connect(1),
				Do(1, Create("/old", D("o"), fPersistent)),
				Do(1, Create("/gone", nil, fPersistent)),
				Do(1, Multi(
					MCreate(proto.OpCreate, "/m", D("m"), Open, fPersistent),
					MCreate(proto.OpCreate2, "/m/c2", nil, Open, fPersistent),
					MCreate(proto.OpCreateContainer, "/m/cont", nil, Open, fContainer),
					MCreate(proto.OpCreate, "/m/s-", nil, Open, fSeq),
					MCreate(proto.OpCreate2, "/m/s-", nil, Open, fEphSeq),
					MCreate(proto.OpCreate, "/m/e", nil, Open, fEphemeral),
					MSetData("/old", D("new"), 0),
					MCheck("/old", 1),
					MDelete("/gone", 0),
					MCheck("/m", 0),
				)),
				Do(1, GetChildren2("/m", false)),
				Do(1, GetData("/old", false)),
				Do(1, Exists("/gone", false)),
				Do(1, Multi(MCreate(proto.OpCreate, "/tmp", nil, Open, fPersistent), MDelete("/tmp", -1))),
				Do(1, Exists("/tmp", false)),
				Do(1, Multi(MCreate(proto.OpCreate, "/flag4", nil, Open, fContainer))),
				Do(1, Multi(MCreate(proto.OpCreateContainer, "/cont2", nil, Open, fPersistent))),
				Do(1, Exists("/flag4", false)),
			),
		},
		{
			Name: "multi/failures",
			Doc:  "§6.12: results 0..., code, -2...; nothing applied; one zxid consumed; per-op codes",
			Steps: Steps(
				Connect(1),
				Do(1, Create("/a", D("a"), fPersistent)),
				Do(1, Create("/a/c", nil, fPersistent)),
				Do(1, Create("/e", nil, fEphemeral)),
				Do(1, CreateACL("/locked", nil, nobody, fPersistent)),
				Do(1, GetData("/a", true)),
				Do(1, Multi(MCreate(proto.OpCreate, "/x", nil, Open, fPersistent), MCreate(proto.OpCreate, "/a", nil, Open, fPersistent), MSetData("/a", D("z"), -1))),
				Do(1, Multi(MSetData("/a", D("z"), -1), MCreate(proto.OpCreate, "/nope/x", nil, Open, fPersistent))),
				Do(1, Multi(MCreate(proto.OpCreate, "/e/x", nil, Open, fPersistent))),
				Do(1, Multi(MDelete("/a", -1), MCheck("/a", -1))),
				Do(1, Multi(MSetData("/a", D("z"), 5))),
				Do(1, Multi(MCheck("/a", 5), MDelete("/a/c", -1))),
				Do(1, Multi(MDelete("/a/c", 7))),
				Do(1, Multi(MCreate(proto.OpCreate, "/a/", nil, Open, fPersistent))),
				Do(1, Multi(MCreate(proto.OpCreate, "/y", nil, []proto.ACL{}, fPersistent))),
				Do(1, Multi(MCreate(proto.OpCreate, "/locked/x", nil, Open, fPersistent))),
				Do(1, Multi(MSetData("/locked", nil, -1))),
				Do(1, Multi(MDelete("/missing", -1), MDelete("/missing2", -1), MDelete("/missing3", -1))),
				Do(1, Multi(MCreate(proto.OpCreate, "/z", nil, Open, fPersistent), MCreate(proto.OpCreate, "/z/z", nil, Open, fPersistent), MDelete("/z", -1))),
				Do(1, Create("/after", nil, fPersistent)),
				Do(1, GetChildren2("/", false)),
				Do(1, GetData("/a", false)),
				Do(1, SetData("/a", D("fires"), -1)),
			),
		},
		{
			Name: "multi/malformed",
			Doc:  "§5.3: read ops in multi, write ops in multiRead, unknown op types and TTL flags under a create op fail the whole request with MarshallingError; other invalid flags fail only their op",
			Steps: Steps(
				Connect(1),
				Do(1, Create("/a", D("a"), fPersistent)),
				Do(1, Multi()),
				Do(1, MultiRead()),
				Do(1, Multi(MCreate(proto.OpCreate, "/x", nil, Open, fPersistent), MGetData("/a"))),
				Do(1, Multi(MGetData("/a"))),
				Do(1, MultiRead(MGetData("/a"), MCreate(proto.OpCreate, "/x", nil, Open, fPersistent))),
				Do(1, MultiRead(MCheck("/a", -1))),
				Do(1, Multi(MCreate(proto.OpCreate, "/x", nil, Open, 99))),
				Do(1, Multi(MCreate(proto.OpCreate, "/x", nil, Open, fTTL))),
				Do(1, Multi(MCreateTTL("/x", nil, Open, fTTL, 100))),
				Do(1, RawMulti(proto.OpMulti, RawMultiOp{Type: proto.OpExists, Body: &proto.ExistsRequest{Path: "/a"}})),
				Do(1, RawMulti(proto.OpMulti, RawMultiOp{Type: proto.OpCreate, Body: &proto.CreateRequest{Path: "/x", Acl: Open}}, RawMultiOp{Type: 99, Body: nil})),
				Do(1, RawMulti(proto.OpMultiRead, RawMultiOp{Type: proto.OpGetACL, Body: &proto.GetACLRequest{Path: "/a"}})),
				Do(1, Exists("/x", false)),
				Do(1, Create("/after", nil, fPersistent)),
			),
		},
		{
			Name: "multiRead/results",
			Doc:  "§6.13: each op independent, failures as error results, no atomicity",
			Steps: Steps(
				Connect(1),
				Do(1, Create("/a", D("a"), fPersistent)),
				Do(1, Create("/a/b", nil, fPersistent)),
				Do(1, Create("/a/c", D(""), fPersistent)),
				Do(1, CreateACL("/locked", D("l"), nobody, fPersistent)),
				Do(1, MultiRead(MGetData("/a"), MGetChildren("/a"), MGetData("/missing"), MGetChildren("/missing"),
					MGetData("/a/b"), MGetData("/a/c"), MGetData("/locked"), MGetChildren("/locked"), MGetChildren("/a/b"), MGetData(""))),
				Do(1, MultiRead(MGetData("/missing"))),
				Do(1, Create("/after", nil, fPersistent)),
			),
		},
	}
}

func watchScenarios() []Scenario {
	return []Scenario{
		{
			Name: "watches/one-shot",
			Doc:  "§11.2, §11.3: getData, exists and getChildren watches fire once, collapse per connection, precede later replies",
			Steps: Steps(
				Connect(1),
				Connect(2),
				Do(1, Create("/w", D("1"), fPersistent)),
				Do(2, GetData("/w", true)),
				Do(2, GetData("/w", true)),
				Do(2, Exists("/w", true)),
				Do(2, GetChildren("/w", true)),
				Do(1, SetData("/w", D("2"), -1)),
				Expect(2, 1),
				Do(1, SetData("/w", D("3"), -1)),
				Do(1, SetData("/w", D("4"), -1)),
				Do(1, Create("/w/c", nil, fPersistent)),
				Expect(2, 1),
				Do(1, Create("/w/c/grand", nil, fPersistent)),
				Do(2, GetChildren("/w", true)),
				Do(1, SetData("/w/c", D("x"), -1)),
				Do(1, Delete("/w/c/grand", -1)),
				Do(2, GetData("/w", true)),
				Do(2, Exists("/w", true)),
				Do(1, Delete("/w/c", -1)),
				Expect(2, 1),
				Do(2, GetChildren("/w", true)),
				Do(1, Delete("/w", -1)),
				Expect(2, 1),
				Note("the writer's own watch fires before its reply"),
				Do(1, Exists("/self", true)),
				Do(1, Create("/self", nil, fPersistent)),
				Do(1, GetData("/self", true)),
				Do(1, GetChildren("/self", true)),
				Do(1, Delete("/self", -1)),
				Note("child watch on the root"),
				Do(2, GetChildren("/", true)),
				Do(1, Create("/rootchild", nil, fPersistent)),
				Expect(2, 1),
			),
		},
		{
			Name: "watches/exists-on-missing",
			Doc:  "§6.3, §6.4: exists sets a watch on a missing node, getData does not; failed reads set nothing",
			Steps: Steps(
				Connect(1),
				Connect(2),
				Do(2, Exists("/later", true)),
				Do(2, GetData("/later2", true)),
				Do(2, GetChildren("/later3", true)),
				Do(2, CheckWatches("/later", watcherData)),
				Do(2, CheckWatches("/later", watcherChild)),
				Do(2, CheckWatches("/later2", watcherAny)),
				Do(2, CheckWatches("/later3", watcherAny)),
				Do(1, Create("/later", nil, fPersistent)),
				Expect(2, 1),
				Do(1, Create("/later2", nil, fPersistent)),
				Do(1, Create("/later3", nil, fPersistent)),
				Do(1, Create("/later3/x", nil, fPersistent)),
				Do(2, CheckWatches("/later", watcherAny)),
			),
		},
		{
			Name: "watches/persistent",
			Doc:  "§11.3: the PERSISTENT sequence, registered before the node exists",
			Steps: Steps(
				Connect(1),
				Connect(2),
				Do(2, AddWatch("/p", modePersistent)),
				Do(2, AddWatch("/p", modePersistent)),
				Do(1, Create("/p", nil, fPersistent)),
				Expect(2, 1),
				Do(1, SetData("/p", D("1"), -1)),
				Do(1, SetData("/p", D("2"), -1)),
				Expect(2, 2),
				Do(1, Create("/p/c", nil, fPersistent)),
				Expect(2, 1),
				Do(1, SetData("/p/c", D("x"), -1)),
				Do(1, Create("/p/c/g", nil, fPersistent)),
				Do(1, Delete("/p/c/g", -1)),
				Do(1, Delete("/p/c", -1)),
				Expect(2, 1),
				Do(1, SetACL("/p", readOnlyACL, -1)),
				Do(1, SetACL("/p", Open, -1)),
				Do(1, Delete("/p", -1)),
				Expect(2, 1),
				Do(1, Create("/p", nil, fPersistent)),
				Expect(2, 1),
				Do(1, Create("/px", nil, fPersistent)),
				Do(2, CheckWatches("/p", watcherChild)),
				Do(2, CheckWatches("/p", watcherData)),
				Do(2, CheckWatches("/p", watcherAny)),
			),
		},
		{
			Name: "watches/persistent-recursive",
			Doc:  "§11.3: the PERSISTENT_RECURSIVE sequence; never NodeChildrenChanged; overlapping watches collapse; ephemerals removed by close",
			Steps: Steps(
				Connect(1),
				Connect(2),
				Connect(3),
				Do(2, AddWatch("/r", modeRecursive)),
				Do(1, Create("/r", nil, fPersistent)),
				Expect(2, 1),
				Do(1, Create("/r/a", nil, fPersistent)),
				Expect(2, 1),
				Do(1, Create("/r/a/b", nil, fPersistent)),
				Expect(2, 1),
				Do(1, SetData("/r/a/b", D("x"), -1)),
				Expect(2, 1),
				Do(1, Delete("/r/a/b", -1)),
				Expect(2, 1),
				Do(1, Create("/rx", nil, fPersistent)),
				Do(1, SetData("/rx", D("x"), -1)),
				Do(2, AddWatch("/r/a", modeRecursive)),
				Do(1, Create("/r/a/y", nil, fPersistent)),
				Expect(2, 1),
				Do(3, Create("/r/eph", nil, fEphemeral)),
				Expect(2, 1),
				CloseSession(3),
				Expect(2, 1),
				Do(1, Multi(MCreate(proto.OpCreate, "/r/m1", nil, Open, fPersistent), MSetData("/r/m1", D("1"), 0), MDelete("/r/m1", -1))),
				Expect(2, 3),
				Do(2, CheckWatches("/r", watcherData)),
				Do(2, CheckWatches("/r", watcherChild)),
				Do(2, RemoveWatches("/r", watcherAny)),
				Do(2, CheckWatches("/r", watcherAny)),
				Do(1, Create("/r/after", nil, fPersistent)),
				Do(1, Create("/r/a/after", nil, fPersistent)),
				Expect(2, 1),
			),
		},
		{
			Name: "watches/add-watch-modes",
			Doc:  "§6.17: bad modes are MarshallingError and the connection stays; no path checks",
			Steps: Steps(
				Connect(1),
				Do(1, AddWatch("/x", 2)),
				Do(1, AddWatch("/x", -1)),
				Do(1, AddWatch("/x", 100)),
				Do(1, AddWatch("", modePersistent)),
				Do(1, AddWatch("bad//path", modeRecursive)),
				Do(1, AddWatch("/", modeRecursive)),
				Do(1, Create("/x", nil, fPersistent)),
				Do(1, GetData("/", false)),
			),
		},
		{
			Name: "watches/check-and-remove",
			Doc:  "§6.15: the watcher type table, types 4 and 5 rejected in 3.8, NoWatcher, other watches unaffected",
			Steps: Steps(
				Connect(1),
				Connect(2),
				Do(1, Create("/n", nil, fPersistent)),
				Do(1, CheckWatches("/n", watcherAny)),
				Do(1, RemoveWatches("/n", watcherAny)),
				Do(1, GetData("/n", true)),
				Do(1, GetChildren("/n", true)),
				Do(2, GetData("/n", true)),
				Do(1, CheckWatches("/n", watcherData)),
				Do(1, CheckWatches("/n", watcherChild)),
				Do(1, CheckWatches("/n", watcherAny)),
				Do(1, CheckWatches("/n", 4)),
				Do(1, CheckWatches("/n", 5)),
				Do(1, CheckWatches("/n", 0)),
				Do(1, CheckWatches("/n", 6)),
				Do(1, RemoveWatches("/n", 4)),
				Do(1, RemoveWatches("/n", 5)),
				Do(1, RemoveWatches("/n", 0)),
				Do(1, RemoveWatches("/n", watcherData)),
				Do(1, CheckWatches("/n", watcherData)),
				Do(1, RemoveWatches("/n", watcherData)),
				Do(1, CheckWatches("/n", watcherChild)),
				Do(1, SetData("/n", D("x"), -1)),
				Expect(2, 1),
				Do(1, Create("/n/c", nil, fPersistent)),
				Do(1, RemoveWatches("/n", watcherChild)),
				Do(1, CheckWatches("/missing", watcherAny)),
				Do(1, Exists("/missing", true)),
				Do(1, RemoveWatches("/missing", watcherAny)),
				Do(1, Create("/missing", nil, fPersistent)),
				Do(1, AddWatch("/n", modePersistent)),
				Do(1, CheckWatches("/n", watcherData)),
				Do(1, CheckWatches("/n", watcherChild)),
				Do(1, RemoveWatches("/n", watcherData)),
				Do(1, SetData("/n", D("y"), -1)),
				Do(1, Create("/n/d", nil, fPersistent)),
				Do(1, RemoveWatches("/n", watcherAny)),
				Do(1, CheckWatches("/n", watcherAny)),
				Do(1, SetData("/n", D("z"), -1)),
				Do(1, AddWatch("/n", modeRecursive)),
				Do(1, CheckWatches("/n", watcherChild)),
				Do(1, RemoveWatches("/n", watcherChild)),
				Do(1, CheckWatches("/n", watcherAny)),
				Do(1, SetData("/n", D("w"), -1)),
			),
		},
		{
			Name: "watches/set-watches",
			Doc:  "§6.16: catch-up events by list, relativeZxid rules, registration of unchanged paths",
			Steps: Steps(
				Connect(1),
				Do(1, Create("/same", D("s"), fPersistent)),
				Do(1, Create("/changed", D("c"), fPersistent)),
				Do(1, Create("/parent", nil, fPersistent)),
				Do(1, Create("/quiet", nil, fPersistent)),
				Do(1, Create("/gone", nil, fPersistent)),
				MarkZxid(1, "before"),
				Do(1, SetData("/changed", D("c2"), -1)),
				Do(1, Create("/parent/kid", nil, fPersistent)),
				Do(1, Delete("/gone", -1)),
				Connect(2),
				Do(2, SetWatchesAt("before", 0,
					[]string{"/same", "/changed", "/gone", "/parent"},
					[]string{"/same", "/nothere", "/gone"},
					[]string{"/parent", "/quiet", "/gone", "/changed"})),
				Do(1, SetData("/same", D("s2"), -1)),
				Expect(2, 1),
				Do(1, Create("/nothere", nil, fPersistent)),
				Expect(2, 1),
				Do(1, Create("/quiet/kid", nil, fPersistent)),
				Expect(2, 1),
				Connect(3),
				Do(3, SetWatches(0, []string{"/same", "", "bad//path"}, []string{"/"}, []string{"/quiet"})),
				Connect(4),
				Do(4, SetWatches(1<<40, []string{"/same"}, []string{"/same"}, []string{"/quiet"})),
				Do(1, SetData("/same", D("s3"), -1)),
				Do(1, Create("/quiet/kid2", nil, fPersistent)),
				Expect(4, 2),
				Connect(5),
				Do(5, SetWatches(0, nil, nil, nil)),
				Do(5, SetWatches(0, []string{}, []string{}, []string{})),
			),
		},
		{
			Name: "watches/set-watches2",
			Doc:  "§6.16: persistent and recursive watches from setWatches2 get no catch-up events",
			Steps: Steps(
				Connect(1),
				Do(1, Create("/p", nil, fPersistent)),
				Do(1, Create("/r", nil, fPersistent)),
				Do(1, Create("/d", nil, fPersistent)),
				MarkZxid(1, "before"),
				Do(1, SetData("/p", D("1"), -1)),
				Do(1, Create("/r/x", nil, fPersistent)),
				Do(1, SetData("/d", D("1"), -1)),
				Connect(2),
				Do(2, SetWatches2At("before", 0, []string{"/d"}, []string{}, []string{}, []string{"/p"}, []string{"/r"})),
				Connect(3),
				Do(3, SetWatches2At("before", -1000, []string{}, []string{}, []string{}, []string{"/p"}, []string{"/r"})),
				Do(1, SetData("/p", D("2"), -1)),
				Expect(2, 1),
				Expect(3, 1),
				Do(1, Create("/r/x/y", nil, fPersistent)),
				Expect(2, 1),
				Expect(3, 1),
				Do(1, Create("/p/c", nil, fPersistent)),
				Expect(2, 1),
				Expect(3, 1),
				Do(2, CheckWatches("/p", watcherAny)),
				Do(2, CheckWatches("/r", watcherAny)),
				Do(2, CheckWatches("/d", watcherAny)),
				Note("null lists (clients always send empty ones)"),
				Connect(4),
				Do(4, SetWatches2At("before", 0, []string{"/d"}, nil, nil, []string{"/p"}, nil)),
				Do(4, CheckWatches("/p", watcherAny)),
				Do(4, SetWatches2At("before", 0, []string{}, []string{}, []string{}, []string{}, nil)),
			),
		},
		{
			Name: "watches/resume-without-set-watches",
			Doc:  "§11.2: watches belong to the connection; a resumed session without SetWatches gets no events",
			Steps: Steps(
				Connect(1),
				Connect(2),
				Do(1, Create("/w", nil, fPersistent)),
				Do(2, GetData("/w", true)),
				Do(2, AddWatch("/", modeRecursive)),
				Drop(2),
				ConnectWith(3, Conn{Resume: 2}),
				Do(1, SetData("/w", D("x"), -1)),
				Do(1, Create("/w/c", nil, fPersistent)),
				Do(3, CheckWatches("/w", watcherAny)),
				Do(3, GetData("/w", false)),
			),
		},
	}
}

func sessionScenarios() []Scenario {
	return []Scenario{
		{
			Name: "session/close-removes-ephemerals",
			Doc:  "§6.24, §12.1: closeSession deletes ephemerals with watch events; the session cannot be resumed",
			Steps: Steps(
				Connect(1),
				Connect(2),
				Connect(3),
				Do(2, Create("/eph", nil, fPersistent)),
				Do(1, Create("/eph/a", D("a"), fEphemeral)),
				Do(1, Create("/eph2", nil, fEphemeral)),
				Do(1, Create("/eph/s-", nil, fEphSeq)),
				Do(1, GetEphemerals("/")),
				Do(2, GetData("/eph/a", true)),
				Do(3, Exists("/eph2", true)),
				Do(2, GetEphemerals("/")),
				// Nothing is pipelined behind closeSession: Java answers
				// such a request with SessionExpired or drops it, depending
				// on timing (§6.0).
				CloseSession(1),
				Expect(3, 1),
				Do(2, GetChildren2("/eph", false)),
				Do(2, Exists("/eph2", false)),
				ConnectWith(4, Conn{Resume: 1}),
				ExpectClosed(4),
			),
		},
		{
			Name: "session/get-ephemerals",
			Doc:  "§6.19: own ephemerals only, plain string prefix, empty list when nothing matches",
			Steps: Steps(
				Connect(1),
				Connect(2),
				Do(1, Create("/a", nil, fPersistent)),
				Do(1, Create("/ab", nil, fEphemeral)),
				Do(1, Create("/a/x", nil, fEphemeral)),
				Do(1, Create("/a/y-", nil, fEphSeq)),
				Do(1, Create("/b", nil, fEphemeral)),
				Do(2, Create("/a/other", nil, fEphemeral)),
				Do(1, GetEphemerals("")),
				Do(1, GetEphemerals("/")),
				Do(1, GetEphemerals("/a")),
				Do(1, GetEphemerals("/a/")),
				Do(1, GetEphemerals("/ab")),
				Do(1, GetEphemerals("/none")),
				Do(1, GetEphemerals(" ")),
				Do(1, RawOp(proto.OpGetEphemerals, []byte{0xff, 0xff, 0xff, 0xff})),
				Do(2, GetEphemerals("/")),
				Connect(3),
				Do(3, GetEphemerals("/")),
			),
		},
		{
			Name: "session/unknown-opcodes",
			Doc:  "§4: Unimplemented with zxid -1, then the server closes the connection; the session survives; check (13) alone gets no reply but spends a zxid",
			Steps: Steps(
				Connect(1),
				Do(1, Create("/e", nil, fEphemeral)),
				Do(1, RawOp(10, nil)),
				ExpectClosed(1),
				ConnectWith(2, Conn{Resume: 1}),
				Do(2, Exists("/e", false)),
				SendOnly(2, RawOp(proto.OpCheck, jute.Marshal(&proto.CheckVersionRequest{Path: "/e", Version: -1}))),
				Do(2, Exists("/e", false)),
				Do(2, Create("/after-check", nil, fPersistent)),
				Drop(2),
				ConnectWith(3, Conn{Resume: 1}),
				Do(3, RawOp(999, []byte{1, 2, 3})),
				ExpectClosed(3),
				ConnectWith(4, Conn{Resume: 1}),
				Do(4, RawOp(0, nil)),
				ExpectClosed(4),
				ConnectWith(5, Conn{Resume: 1}),
				Do(5, RawOp(-3, nil)),
				ExpectClosed(5),
				ConnectWith(6, Conn{Resume: 1}),
				Do(6, GetEphemerals("/")),
			),
		},
		{
			Name: "session/ping",
			Doc:  "§6.10: reply xid is -2 whatever was sent; zxid is the last processed one",
			Steps: Steps(
				Connect(1),
				Do(1, Ping()),
				Do(1, Create("/a", nil, fPersistent)),
				Do(1, Ping()),
				Do(1, Request{Op: proto.OpPing, Xid: 77, FixedXid: true}),
				Do(1, Request{Op: proto.OpPing}),
				Do(1, RawOp(proto.OpPing, []byte{1, 2, 3, 4})),
				Pipeline(1, Ping(), Ping(), GetData("/a", false), Ping()),
			),
		},
		{
			Name: "session/pipelined-requests",
			Doc:  "§3.4: requests written together are executed and answered in order",
			Steps: Steps(
				Connect(1),
				Connect(2),
				Do(2, Exists("/a", true)),
				Pipeline(1,
					Create("/a", D("1"), fPersistent),
					Create("/a/b", nil, fPersistent),
					SetData("/a", D("2"), -1),
					GetData("/a", true),
					GetChildren2("/a", true),
					Create("/a", nil, fPersistent),
					Delete("/a/b", -1),
					SetData("/a", D("3"), 0),
					Delete("/a", -1),
					Exists("/a", false),
					Sync("/"),
					Ping(),
				),
				Expect(2, 1),
			),
		},
	}
}

func miscScenarios() []Scenario {
	return []Scenario{
		{
			Name: "misc/sync",
			Doc:  "§6.9: no validation, no ACL check, no zxid",
			Steps: Steps(
				Connect(1),
				Do(1, Create("/a", nil, fPersistent)),
				Do(1, CreateACL("/n", nil, nobody, fPersistent)),
				Do(1, Sync("/a")),
				Do(1, Sync("/missing")),
				Do(1, Sync("/n")),
				Do(1, Sync("")),
				Do(1, Sync("bad//")),
				Do(1, Create("/b", nil, fPersistent)),
			),
		},
		{
			Name: "misc/get-all-children-number",
			Doc:  "§6.20: all descendants; the root counts the system nodes",
			Steps: Steps(
				Connect(1),
				Do(1, GetAllChildrenNumber("/")),
				Do(1, Create("/a", nil, fPersistent)),
				Do(1, Create("/a/b", nil, fPersistent)),
				Do(1, Create("/a/b/c", nil, fPersistent)),
				Do(1, Create("/a/d", nil, fEphemeral)),
				Do(1, Create("/ab", nil, fPersistent)),
				Do(1, CreateACL("/n", nil, nobody, fPersistent)),
				Do(1, GetAllChildrenNumber("/")),
				Do(1, GetAllChildrenNumber("/a")),
				Do(1, GetAllChildrenNumber("/a/b/c")),
				Do(1, GetAllChildrenNumber("/missing")),
				Do(1, GetAllChildrenNumber("/n")),
				Do(1, GetAllChildrenNumber("/zookeeper")),
			),
		},
		{
			Name: "misc/reconfig-disabled",
			Doc:  "§6.14: reconfig on a default standalone server",
			Steps: Steps(
				Connect(1),
				Do(1, Reconfig("", "", "server.1=127.0.0.1:2888:3888;2181", -1)),
				Do(1, Reconfig("server.2=127.0.0.1:2889:3889;2182", "", "", -1)),
				Do(1, Create("/after", nil, fPersistent)),
			),
		},
		{
			Name:   "misc/reconfig-standalone",
			Server: ReconfigServer,
			Doc:    "§6.14 step 2: reconfigEnabled on a standalone server is Unimplemented",
			Steps: Steps(
				Connect(1),
				Do(1, Reconfig("", "", "server.1=127.0.0.1:2888:3888;2181", -1)),
				Do(1, Create("/after", nil, fPersistent)),
			),
		},
		{
			Name: "misc/sasl-without-sasl",
			Doc:  "§6.23: a server without SASL answers sasl with err 0 and a null token",
			Steps: Steps(
				Connect(1),
				Do(1, SASL([]byte{})),
				Do(1, SASL([]byte("token"))),
				Do(1, SASL(nil)),
				Do(1, WhoAmI()),
			),
		},
		{
			Name: "misc/delete-container",
			Doc:  "§6.18: Java 3.8.0 answers every deleteContainer a client sends with BadArguments (and spends a zxid), whatever the node and however the path is encoded",
			Steps: Steps(
				Connect(1),
				Do(1, CreateContainer("/c", nil)),
				Do(1, Create("/c/x", nil, fPersistent)),
				Do(1, DeleteContainerBuffer("/c")),
				Do(1, DeleteContainer("/c")),
				Do(1, Delete("/c/x", -1)),
				Do(1, Create("/e", nil, fEphemeral)),
				Do(1, DeleteContainer("/e")),
				Do(1, Create("/locked", nil, fPersistent)),
				Do(1, Create("/locked/p", nil, fPersistent)),
				Do(1, Create("/locked/q", nil, fPersistent)),
				Do(1, SetACL("/locked", nobody, -1)),
				Do(1, Delete("/locked/p", -1)),
				Do(1, DeleteContainer("/locked/p")),
				Do(1, DeleteContainer("/missing")),
				Do(1, DeleteContainer("/")),
				Do(1, DeleteContainer("/zookeeper")),
				Do(1, DeleteContainer("nope")),
				Do(1, DeleteContainer("")),
				Do(1, DeleteContainer("/c")),
				Do(1, GetChildren("/locked", false)),
				Do(1, GetChildren("/", false)),
			),
		},
		{
			Name: "misc/children-lists",
			Doc:  "§6.8: empty vectors (never null) for leaves and ephemerals",
			Steps: Steps(
				Connect(1),
				Do(1, Create("/leaf", nil, fPersistent)),
				Do(1, Create("/eph", nil, fEphemeral)),
				Do(1, GetChildren("/leaf", false)),
				Do(1, GetChildren2("/eph", false)),
				Do(1, Create("/many", nil, fPersistent)),
				Do(1, Create("/many/z", nil, fPersistent)),
				Do(1, Create("/many/a", nil, fPersistent)),
				Do(1, Create("/many/m-", nil, fSeq)),
				Do(1, Create("/many/名", nil, fPersistent)),
				Do(1, GetChildren("/many", false)),
			),
		},
	}
}

// Quota nodes for /q: a limit of 3 nodes and 10 bytes (the format zkCli's
// setquota writes, §16.2), and the stats node the server fills in.
const (
	quotaLimits = "count=-1,bytes=-1=;byteHardLimit=10;countHardLimit=3"
	quotaSoft   = "count=3,bytes=10"
)

func quotaSteps(limits string) []Step {
	return Steps(
		Connect(1),
		Do(1, Create("/q", D("12345"), fPersistent)),
		Do(1, Create("/zookeeper/quota/q", nil, fPersistent)),
		Do(1, Create("/zookeeper/quota/q/zookeeper_limits", D(limits), fPersistent)),
		Do(1, Create("/zookeeper/quota/q/zookeeper_stats", D("count=0,bytes=0"), fPersistent)),
		Do(1, GetData("/zookeeper/quota/q/zookeeper_stats", false)),
		Do(1, Create("/q/a", D("67"), fPersistent)),
		Do(1, Create("/q/b", nil, fPersistent)),
		Do(1, GetData("/zookeeper/quota/q/zookeeper_stats", false)),
		Do(1, Create("/q/c", nil, fPersistent)),
		Do(1, SetData("/q/a", D("678901"), -1)),
		Do(1, SetData("/q/a", D("6789"), -1)),
		Do(1, SetData("/q/a", D(""), -1)),
		Do(1, Multi(MCreate(proto.OpCreate, "/q/m", nil, Open, fPersistent))),
		Do(1, Create("/qq", D("outside the quota"), fPersistent)),
		Do(1, GetData("/zookeeper/quota/q/zookeeper_stats", false)),
		Do(1, Delete("/q/b", -1)),
		Do(1, Create("/q/c", nil, fPersistent)),
		Do(1, GetData("/zookeeper/quota/q/zookeeper_stats", false)),
		Do(1, GetAllChildrenNumber("/zookeeper/quota")),
	)
}

func quotaScenarios() []Scenario {
	return []Scenario{
		{
			Name:   "quota/enforced",
			Server: QuotaServer,
			Doc:    "§16.3, §16.4: hard limits give QuotaExceeded; the stats node follows usage",
			Steps:  quotaSteps(quotaLimits),
		},
		{
			Name:   "quota/soft-limits-enforced",
			Server: QuotaServer,
			Doc:    "§16.4: soft limits are only logged even with enforceQuota",
			Steps:  quotaSteps(quotaSoft),
		},
		{
			Name:  "quota/not-enforced",
			Doc:   "§16.3: without enforceQuota hard limits are only logged; the stats node still follows usage",
			Steps: quotaSteps(quotaLimits),
		},
		{
			Name:   "auth/enforced",
			Server: EnforcedAuthServer,
			Doc:    "§10.5: without a digest identity every request but auth gets SessionClosedRequireSaslAuth (zxid 0) and the connection closes",
			Steps: Steps(
				Connect(1),
				Do(1, GetData("/", false)),
				ExpectClosed(1),
				Connect(2),
				Do(2, Ping()),
				ExpectClosed(2),
				Connect(3),
				Do(3, Auth("ip", "127.0.0.1")),
				Do(3, Exists("/", false)),
				ExpectClosed(3),
				Connect(4),
				Do(4, Auth("digest", "carol:pw")),
				Do(4, Create("/a", D("a"), fPersistent)),
				Do(4, GetData("/a", false)),
				Do(4, WhoAmI()),
				ConnectWith(5, Conn{Pipeline: []Request{Auth("digest", "dave:pw"), Exists("/a", false)}}),
			),
		},
	}
}

func frameScenarios() []Scenario {
	const maxBuffer = jute.DefaultMaxBuffer
	// A create whose frame payload is exactly n bytes: header (8) plus
	// CreateRequest{path "/big", data, [world:anyone ALL], 0}.
	bigCreate := func(n int) []byte {
		fixed := 8 + (4 + 4) + 4 + (4 + 4 + 4 + 5 + 4 + 6) + 4
		data := bytes.Repeat([]byte{'x'}, n-fixed)
		frame, _ := zkwire.EncodeRequest(1000, proto.OpCreate, &proto.CreateRequest{Path: "/big", Data: data, Acl: Open})
		if got := len(frame) - 4; got != n {
			panic("bigCreate: payload is " + itoa(got) + " bytes, want " + itoa(n))
		}
		return frame
	}
	lengthOnly := func(n int32) []byte {
		b := make([]byte, 4)
		binary.BigEndian.PutUint32(b, uint32(n))
		return b
	}
	return []Scenario{
		{
			Name: "frames/max-buffer",
			Doc:  "§1.2: a frame of jute.maxbuffer bytes is accepted; one byte more closes the connection without a reply; the session survives",
			Steps: Steps(
				Connect(1),
				Do(1, Create("/e", nil, fEphemeral)),
				RawRequest(1, proto.OpCreate, bigCreate(maxBuffer), "create /big with a payload of exactly 1048575 bytes"),
				Do(1, Exists("/big", false)),
				Do(1, Delete("/big", -1)),
				RawBytes(1, bigCreate(maxBuffer+1), "create /big with a payload of 1048576 bytes"),
				ExpectClosed(1),
				ConnectWith(2, Conn{Resume: 1}),
				Do(2, Exists("/big", false)),
				Do(2, Exists("/e", false)),
			),
		},
		{
			Name: "frames/bad-lengths",
			Doc:  "§1.2: negative and huge lengths close the connection; the session survives",
			Steps: Steps(
				Connect(1),
				Do(1, Create("/e", nil, fEphemeral)),
				RawBytes(1, lengthOnly(-1), "length -1"),
				ExpectClosed(1),
				ConnectWith(2, Conn{Resume: 1}),
				RawBytes(2, []byte("abcd"), "ASCII \"abcd\" as a length"),
				ExpectClosed(2),
				ConnectWith(3, Conn{Resume: 1}),
				Do(3, Exists("/e", false)),
			),
		},
		{
			Name: "frames/malformed-records",
			Doc:  "undecodable request bodies, short frames, trailing bytes",
			Steps: Steps(
				Connect(1),
				Do(1, Create("/a", D("a"), fPersistent)),
				Do(1, RawOp(proto.OpGetData, append(jute.Marshal(&proto.GetDataRequest{Path: "/a"}), 0xde, 0xad))),
				Do(1, RawOp(proto.OpExists, append(jute.Marshal(&proto.ExistsRequest{Path: "/a"}), 1, 2, 3, 4, 5))),
				Do(1, RawOp(proto.OpGetData, []byte{0, 0, 0, 2, '/'})),
				Connect(2),
				Do(2, RawOp(proto.OpExists, []byte{0xff, 0xff, 0xff, 0xff, 0})),
				Connect(3),
				RawBytes(3, append(lengthOnly(4), 0, 0, 0, 1), "a 4-byte frame (no opcode)"),
				Do(3, Ping()),
				Connect(4),
				RawBytes(4, lengthOnly(0), "an empty frame"),
				Do(4, Ping()),
			),
		},
	}
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// childOrderScenarios check the order getChildren lists children in:
// Java's, that of the parent's HashSet (created with capacity 8, doubled
// as it fills), which clients show as is (zkCli's ls).
func childOrderScenarios() []Scenario {
	var grow []Step
	names := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"}
	for i := 1; i <= 30; i++ {
		names = append(names, fmt.Sprintf("n%02d", i))
	}
	for i, name := range names {
		grow = append(grow, Do(1, Create("/p/"+name, nil, fPersistent)))
		switch i + 1 {
		case 6, 7, 12, 13, 24, 25:
			grow = append(grow, Do(1, GetChildren("/p", false)))
		}
	}
	var collide []Step
	// Names whose hashes share their low 5 bits: the ninth in one bucket
	// doubles the table, and so does the tenth.
	for _, name := range []string{"a", "b", "k70", "k0", "k92", "k81", "k609", "k719", "k708", "k818", "k807", "k917", "k829", "k939"} {
		collide = append(collide, Do(1, Create("/t/"+name, nil, fPersistent)))
	}
	var empty []Step
	for i := range 13 {
		empty = append(empty, Do(1, Create(fmt.Sprintf("/e/c%d", i), nil, fPersistent)))
	}
	for i := range 13 {
		empty = append(empty, Do(1, Delete(fmt.Sprintf("/e/c%d", i), -1)))
	}
	for _, i := range []int{5, 1, 9, 3, 12, 0, 7} {
		empty = append(empty, Do(1, Create(fmt.Sprintf("/e/c%d", i), nil, fPersistent)))
	}
	return []Scenario{
		{
			Name: "children/order",
			Doc:  "§6.6: getChildren, getChildren2 and multiRead list children in the parent's hash-set order",
			Steps: Steps(
				Connect(1),
				Do(1, GetChildren("/", false)),
				Do(1, GetChildren("/zookeeper", false)),
				Do(1, Create("/p", nil, fPersistent)),
				grow,
				Note("a name deleted and created again goes to the end of its bucket"),
				Do(1, Delete("/p/beta", -1)),
				Do(1, Delete("/p/n03", -1)),
				Do(1, Delete("/p/alpha", -1)),
				Do(1, GetChildren2("/p", false)),
				Do(1, Create("/p/n03", nil, fPersistent)),
				Do(1, Create("/p/beta", nil, fPersistent)),
				Do(1, Create("/p/alpha", nil, fPersistent)),
				Do(1, GetChildren2("/p", false)),
				Do(1, MultiRead(MGetChildren("/p"), MGetChildren("/"))),
				Note("non-ASCII names hash over UTF-16 code units"),
				Do(1, Create("/u", nil, fPersistent)),
				Do(1, Create("/u/é", nil, fPersistent)),
				Do(1, Create("/u/zürich", nil, fPersistent)),
				Do(1, Create("/u/日本", nil, fPersistent)),
				Do(1, Create("/u/Ωmega", nil, fPersistent)),
				Do(1, Create("/u/straße", nil, fPersistent)),
				Do(1, Create("/u/ü", nil, fPersistent)),
				Do(1, Create("/u/Ж", nil, fPersistent)),
				Do(1, GetChildren("/u", false)),
				Do(1, Create("/t", nil, fPersistent)),
				collide,
				Do(1, GetChildren("/t", false)),
				Note("a set keeps its capacity once its children are gone"),
				Do(1, Create("/e", nil, fPersistent)),
				empty,
				Do(1, GetChildren("/e", false)),
				Do(1, Create("/zz", nil, fPersistent)),
				Do(1, Create("/zookeeper1", nil, fPersistent)),
				Do(1, Create("/keeper", nil, fPersistent)),
				Do(1, GetChildren("/", false)),
			),
		},
	}
}
