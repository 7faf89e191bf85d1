package db

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// txnBuilder makes txns with increasing zxids and times.
type txnBuilder struct {
	zxid    int64
	session int64
}

func (b *txnBuilder) next(typ proto.OpCode, body jute.Record) *proto.TxnEntry {
	b.zxid++
	return &proto.TxnEntry{
		Header: proto.TxnHeader{ClientId: b.session, Zxid: b.zxid, Time: 1000 + b.zxid, Type: int32(typ)},
		Body:   body,
	}
}

func (b *txnBuilder) create(path string, data []byte, pcv int32) *proto.TxnEntry {
	return b.next(proto.OpCreate, &proto.CreateTxn{Path: path, Data: data, Acl: proto.OpenACLUnsafe, ParentCVersion: pcv})
}

func (b *txnBuilder) ephemeral(path string) *proto.TxnEntry {
	return b.next(proto.OpCreate, &proto.CreateTxn{Path: path, Acl: proto.OpenACLUnsafe, Ephemeral: true, ParentCVersion: -1})
}

func (b *txnBuilder) delete(path string) *proto.TxnEntry {
	return b.next(proto.OpDelete, &proto.DeleteTxn{Path: path})
}

func (b *txnBuilder) setData(path string, data []byte, version int32) *proto.TxnEntry {
	return b.next(proto.OpSetData, &proto.SetDataTxn{Path: path, Data: data, Version: version})
}

func mustApply(t *testing.T, tree *Tree, txn *proto.TxnEntry) Result {
	t.Helper()
	res := tree.Apply(txn)
	if res.Err != proto.ErrOK {
		t.Fatalf("apply %d %+v: %v", txn.Header.Type, txn.Body, res.Err)
	}
	return res
}

// withoutACL returns the events' types and paths, for tests that check
// those alone.
func withoutACL(evs []Event) []Event {
	out := make([]Event, len(evs))
	for i, ev := range evs {
		out[i] = Event{Type: ev.Type, Path: ev.Path}
	}
	return out
}

// TestEventACLs checks that each event carries the ACL Java 3.8.0 (with
// the CVE-2024-23944 fix) checks READ against before delivering it: the
// node's own for NodeCreated, NodeDataChanged and NodeDeleted, the
// parent's for NodeChildrenChanged.
func TestEventACLs(t *testing.T) {
	tree := New(Options{})
	b := &txnBuilder{session: 1}
	parentACL := []proto.ACL{{Perms: proto.PermAll, Id: proto.Id{Scheme: "digest", Id: "p:x"}}}
	childACL := []proto.ACL{{Perms: proto.PermRead, Id: proto.Id{Scheme: "ip", Id: "10.0.0.1"}}}
	mustApply(t, tree, b.next(proto.OpCreate, &proto.CreateTxn{Path: "/p", Acl: parentACL, ParentCVersion: -1}))
	check := func(what string, got []Event, want ...[]proto.ACL) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d events, want %d", what, len(got), len(want))
		}
		for i := range want {
			if !slices.Equal(got[i].ACL, want[i]) {
				t.Errorf("%s: event %d (%v %s) has ACL %v, want %v", what, i, got[i].Type, got[i].Path, got[i].ACL, want[i])
			}
		}
	}
	res := mustApply(t, tree, b.next(proto.OpCreate, &proto.CreateTxn{Path: "/p/c", Acl: childACL, ParentCVersion: -1}))
	check("create", res.Events, childACL, parentACL)
	check("setData", mustApply(t, tree, b.setData("/p/c", []byte("x"), 1)).Events, childACL)
	check("delete", mustApply(t, tree, b.delete("/p/c")).Events, childACL, parentACL)
	check("top-level create", mustApply(t, tree, b.create("/q", nil, -1)).Events, proto.OpenACLUnsafe, proto.OpenACLUnsafe)
}

func TestNewTreeMatchesJava(t *testing.T) {
	tree := New(Options{DigestEnabled: true})
	cases := []struct {
		path     string
		children []string
		stat     proto.Stat
		acl      []proto.ACL
	}{
		{"/", []string{"zookeeper"}, proto.Stat{Cversion: -1, NumChildren: 1}, proto.OpenACLUnsafe},
		{"", []string{"zookeeper"}, proto.Stat{Cversion: -1, NumChildren: 1}, proto.OpenACLUnsafe},
		{"/zookeeper", []string{"config", "quota"}, proto.Stat{Cversion: -2, NumChildren: 2}, proto.OpenACLUnsafe},
		{"/zookeeper/quota", []string{}, proto.Stat{}, proto.OpenACLUnsafe},
		{"/zookeeper/config", []string{}, proto.Stat{Aversion: -1}, proto.ReadACLUnsafe},
	}
	for _, c := range cases {
		data, stat, acl, ok := tree.GetData(c.path)
		if !ok || data == nil || len(data) != 0 {
			t.Errorf("GetData(%q) = %q, %v; want empty non-null data", c.path, data, ok)
		}
		if stat != c.stat {
			t.Errorf("stat(%q) = %+v, want %+v", c.path, stat, c.stat)
		}
		if !slices.Equal(acl, c.acl) {
			t.Errorf("acl(%q) = %v, want %v", c.path, acl, c.acl)
		}
		children, _, _, _ := tree.GetChildren(c.path, nil)
		if children == nil || !slices.Equal(children, c.children) {
			t.Errorf("children(%q) = %#v, want %#v", c.path, children, c.children)
		}
	}
	if got := tree.NodeCount(); got != 5 {
		t.Errorf("NodeCount = %d, want 5", got)
	}
	if got, _ := tree.AllChildrenNumber("/"); got != 3 {
		t.Errorf("AllChildrenNumber(/) = %d, want 3", got)
	}
	if got := tree.ApproximateDataSize(); got != 44 {
		t.Errorf("ApproximateDataSize = %d, want 44", got)
	}
	// Printed by Java's DataTree for a fresh tree (testdata/scenarios).
	if got := tree.Digest(); got != 1371985504 {
		t.Errorf("Digest = %d, want 1371985504", got)
	}
	if got := tree.ACLCount(); got != 1 {
		t.Errorf("ACLCount = %d, want 1 (the config node's READ list)", got)
	}
	if info, ok := tree.Node(""); !ok || info.Stat.Cversion != 0 || info.NumChildren != 1 {
		t.Errorf("Node(\"\") = %+v, %v; want stored cversion 0 with one child", info, ok)
	}
	if New(Options{}).Digest() != 0 {
		t.Error("Digest with the digest disabled is not 0")
	}
}

func TestCversionStoredAndVisible(t *testing.T) {
	// Client §7.2: create x, delete x, create y under an empty parent.
	tree := New(Options{})
	b := &txnBuilder{}
	mustApply(t, tree, b.create("/p", nil, -1))
	steps := []struct {
		txn             *proto.TxnEntry
		stored, visible int32
		numChildren     int32
	}{
		{b.create("/p/x", nil, -1), 1, 1, 1},
		{b.delete("/p/x"), 1, 2, 0},
		{b.create("/p/y", nil, -1), 2, 3, 1},
		{b.create("/p/s0000000002", nil, 3), 3, 4, 2},
		{b.setData("/p", []byte("d"), 1), 3, 4, 2},
		{b.delete("/p/y"), 3, 5, 1},
		{b.delete("/p/s0000000002"), 3, 6, 0},
	}
	for i, s := range steps {
		mustApply(t, tree, s.txn)
		info, _ := tree.Node("/p")
		stat, _, _ := tree.Exists("/p")
		if info.Stat.Cversion != s.stored || stat.Cversion != s.visible || stat.NumChildren != s.numChildren {
			t.Errorf("step %d: stored %d visible %d children %d; want %d %d %d", i,
				info.Stat.Cversion, stat.Cversion, stat.NumChildren, s.stored, s.visible, s.numChildren)
		}
		if s.txn.Header.Type != int32(proto.OpSetData) && stat.Pzxid != s.txn.Header.Zxid {
			t.Errorf("step %d: pzxid %d, want %d", i, stat.Pzxid, s.txn.Header.Zxid)
		}
	}
}

func TestParentCversionAndPzxidRules(t *testing.T) {
	cases := []struct {
		name        string
		pcv         int32
		startCv     int32
		wantCv      int32
		wantPzxidUp bool
	}{
		{"minus one means one more", -1, 4, 5, true},
		{"higher value taken", 9, 4, 9, true},
		{"lower value ignored", 2, 4, 4, false},
		{"equal value ignored", 4, 4, 4, false},
		{"wrap at int32 max is not higher", -1, 2147483647, 2147483647, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tree := New(Options{DigestEnabled: true})
			b := &txnBuilder{}
			mustApply(t, tree, b.create("/p", nil, -1))
			mustApply(t, tree, b.create("/p/seed", nil, c.startCv))
			before, _ := tree.Node("/p")
			res := mustApply(t, tree, b.create("/p/new", nil, c.pcv))
			after, _ := tree.Node("/p")
			if after.Stat.Cversion != c.wantCv {
				t.Errorf("cversion %d, want %d", after.Stat.Cversion, c.wantCv)
			}
			if up := after.Stat.Pzxid != before.Stat.Pzxid; up != c.wantPzxidUp {
				t.Errorf("pzxid moved = %v, want %v", up, c.wantPzxidUp)
			}
			// The node is created either way, with its events.
			want := []Event{{Type: proto.EventNodeCreated, Path: "/p/new"}, {Type: proto.EventNodeChildrenChanged, Path: "/p"}}
			if !reflect.DeepEqual(withoutACL(res.Events), want) {
				t.Errorf("events %v, want %v", res.Events, want)
			}
			assertDigestConsistent(t, tree)
		})
	}
}

// assertDigestConsistent checks the incrementally kept digest against a
// recomputation from every node.
func assertDigestConsistent(t *testing.T, tree *Tree) {
	t.Helper()
	tree.mu.Lock()
	kept := tree.digest
	tree.recomputeDigest()
	fresh := tree.digest
	tree.digest = kept
	tree.mu.Unlock()
	if kept != fresh {
		t.Errorf("digest drifted: kept %d, recomputed %d", kept, fresh)
	}
}

func TestNodeExistsReplayQuirks(t *testing.T) {
	for _, typ := range []proto.OpCode{proto.OpCreate, proto.OpCreate2} {
		t.Run(typ.String(), func(t *testing.T) {
			tree := New(Options{})
			b := &txnBuilder{}
			mustApply(t, tree, b.create("/p", nil, -1))
			mustApply(t, tree, b.create("/p/x", []byte("old"), -1))
			txn := b.next(typ, &proto.CreateTxn{Path: "/p/x", Data: []byte("new"), Acl: proto.CreatorAllACL, ParentCVersion: 7})
			res := tree.Apply(txn)
			if res.Err != proto.ErrNodeExists || len(res.Events) != 0 {
				t.Fatalf("got %v %v, want NodeExists and no events", res.Err, res.Events)
			}
			info, _ := tree.Node("/p")
			wantCv, wantPzxid := int32(1), int64(2)
			if typ == proto.OpCreate {
				wantCv, wantPzxid = 7, txn.Header.Zxid
			}
			if info.Stat.Cversion != wantCv || info.Stat.Pzxid != wantPzxid {
				t.Errorf("parent cversion %d pzxid %d, want %d %d", info.Stat.Cversion, info.Stat.Pzxid, wantCv, wantPzxid)
			}
			data, _, acl, _ := tree.GetData("/p/x")
			if string(data) != "old" || !slices.Equal(acl, proto.OpenACLUnsafe) {
				t.Errorf("existing node changed: %q %v", data, acl)
			}
			if tree.LastProcessedZxid() != txn.Header.Zxid {
				t.Errorf("failed txn did not advance lastProcessedZxid")
			}
		})
	}
}

func TestDeleteMovesParentPzxidEvenWhenMissing(t *testing.T) {
	tree := New(Options{DigestEnabled: true})
	b := &txnBuilder{}
	mustApply(t, tree, b.create("/p", nil, -1))
	res := tree.Apply(b.delete("/p/missing"))
	if res.Err != proto.ErrNoNode || len(res.Events) != 0 {
		t.Fatalf("got %v %v", res.Err, res.Events)
	}
	stat, _, _ := tree.Exists("/p")
	if stat.Pzxid != 2 || stat.Cversion != 0 {
		t.Errorf("parent pzxid %d cversion %d, want 2 0", stat.Pzxid, stat.Cversion)
	}
	// A replayed older delete never moves pzxid back.
	old := &proto.TxnEntry{Header: proto.TxnHeader{Zxid: 1, Type: int32(proto.OpDelete)}, Body: &proto.DeleteTxn{Path: "/p/missing"}}
	tree.Apply(old)
	if stat, _, _ = tree.Exists("/p"); stat.Pzxid != 2 {
		t.Errorf("pzxid went back to %d", stat.Pzxid)
	}
	if tree.LastProcessedZxid() != 2 {
		t.Errorf("lastProcessedZxid %d, want 2 (max)", tree.LastProcessedZxid())
	}
	assertDigestConsistent(t, tree)
}

func TestApplyErrors(t *testing.T) {
	cases := []struct {
		name string
		typ  proto.OpCode
		body jute.Record
		want proto.ErrCode
	}{
		{"create without parent", proto.OpCreate, &proto.CreateTxn{Path: "/a/b", ParentCVersion: -1}, proto.ErrNoNode},
		{"create root", proto.OpCreate2, &proto.CreateTxn{Path: "/", ParentCVersion: -1}, proto.ErrNodeExists},
		{"create reserved", proto.OpCreate2, &proto.CreateTxn{Path: "/zookeeper", ParentCVersion: -1}, proto.ErrNodeExists},
		{"create relative", proto.OpCreate, &proto.CreateTxn{Path: "a", ParentCVersion: -1}, proto.ErrBadArguments},
		{"create empty name", proto.OpCreate, &proto.CreateTxn{Path: "/zookeeper/", ParentCVersion: -1}, proto.ErrBadArguments},
		{"create double slash", proto.OpCreate, &proto.CreateTxn{Path: "//x", ParentCVersion: -1}, proto.ErrBadArguments},
		{"ttl zero", proto.OpCreateTTL, &proto.CreateTTLTxn{Path: "/t", ParentCVersion: -1, Ttl: 0}, proto.ErrBadArguments},
		{"ttl too large", proto.OpCreateTTL, &proto.CreateTTLTxn{Path: "/t", ParentCVersion: -1, Ttl: proto.MaxTTL + 1}, proto.ErrBadArguments},
		{"delete root", proto.OpDelete, &proto.DeleteTxn{Path: "/"}, proto.ErrBadArguments},
		{"delete non-empty", proto.OpDelete, &proto.DeleteTxn{Path: "/zookeeper"}, proto.ErrNotEmpty},
		{"delete missing", proto.OpDelete, &proto.DeleteTxn{Path: "/x"}, proto.ErrNoNode},
		{"setData missing", proto.OpSetData, &proto.SetDataTxn{Path: "/x"}, proto.ErrNoNode},
		{"setACL missing", proto.OpSetACL, &proto.SetACLTxn{Path: "/x"}, proto.ErrNoNode},
		{"error txn", proto.OpError, &proto.ErrorTxn{Err: int32(proto.ErrBadVersion)}, proto.ErrBadVersion},
		{"wrong body", proto.OpCreate, &proto.DeleteTxn{Path: "/x"}, proto.ErrMarshallingError},
		{"no body", proto.OpSetData, nil, proto.ErrMarshallingError},
		{"unknown type", proto.OpGetData, &proto.DeleteTxn{Path: "/x"}, proto.ErrMarshallingError},
		{"multi body missing", proto.OpMulti, nil, proto.ErrMarshallingError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tree := New(Options{DigestEnabled: true, ExtendedTypesEnabled: true})
			digest, count := tree.Digest(), tree.NodeCount()
			res := tree.Apply(&proto.TxnEntry{Header: proto.TxnHeader{Zxid: 9, Type: int32(c.typ)}, Body: c.body})
			if res.Err != c.want {
				t.Errorf("err %v, want %v", res.Err, c.want)
			}
			if len(res.Events) != 0 {
				t.Errorf("events %v on a failed txn", res.Events)
			}
			if c.name != "delete non-empty" && c.name != "delete missing" && tree.Digest() != digest || tree.NodeCount() != count {
				t.Errorf("tree changed")
			}
			if tree.LastProcessedZxid() != 9 {
				t.Errorf("lastProcessedZxid %d, want 9", tree.LastProcessedZxid())
			}
		})
	}
}

func TestSetDataAndSetACLStats(t *testing.T) {
	tree := New(Options{DigestEnabled: true})
	b := &txnBuilder{}
	mustApply(t, tree, b.create("/n", []byte("abc"), -1))
	created, _, _ := tree.Exists("/n")

	set := b.setData("/n", nil, 1)
	res := mustApply(t, tree, set)
	want := created
	want.Mzxid, want.Mtime, want.Version, want.DataLength = set.Header.Zxid, set.Header.Time, 1, 0
	if res.Stat != want {
		t.Errorf("setData stat %+v, want %+v", res.Stat, want)
	}
	if data, _, _, _ := tree.GetData("/n"); data != nil {
		t.Errorf("null data read back as %q", data)
	}
	if !reflect.DeepEqual(withoutACL(res.Events), []Event{{Type: proto.EventNodeDataChanged, Path: "/n"}}) {
		t.Errorf("events %v", res.Events)
	}

	acl := []proto.ACL{{Perms: proto.PermRead, Id: proto.Id{Scheme: "digest", Id: "bob:x"}}}
	res = mustApply(t, tree, b.next(proto.OpSetACL, &proto.SetACLTxn{Path: "/n", Acl: acl, Version: 1}))
	want.Aversion = 1
	if res.Stat != want {
		t.Errorf("setACL stat %+v, want %+v (mzxid and mtime unchanged)", res.Stat, want)
	}
	if len(res.Events) != 0 {
		t.Errorf("setACL fired %v", res.Events)
	}
	if got, _, _ := tree.GetACL("/n"); !slices.Equal(got, acl) {
		t.Errorf("ACL %v", got)
	}
	assertDigestConsistent(t, tree)
}

func TestContainerAndTTLOwners(t *testing.T) {
	for _, ext := range []bool{true, false} {
		t.Run(fmt.Sprint("extended=", ext), func(t *testing.T) {
			tree := New(Options{ExtendedTypesEnabled: ext})
			b := &txnBuilder{session: 77}
			c := mustApply(t, tree, b.next(proto.OpCreateContainer, &proto.CreateContainerTxn{Path: "/c", Acl: proto.OpenACLUnsafe, ParentCVersion: -1}))
			ttl := mustApply(t, tree, b.next(proto.OpCreateTTL, &proto.CreateTTLTxn{Path: "/t", Acl: proto.OpenACLUnsafe, ParentCVersion: -1, Ttl: 5000}))
			e := mustApply(t, tree, b.ephemeral("/e"))
			if c.Stat.EphemeralOwner != 0 || e.Stat.EphemeralOwner != 77 {
				t.Errorf("visible owners container %d ephemeral %d", c.Stat.EphemeralOwner, e.Stat.EphemeralOwner)
			}
			info, _ := tree.Node("/t")
			if info.Stat.EphemeralOwner != proto.TTLEphemeralOwner(5000) {
				t.Errorf("stored TTL owner %#x", info.Stat.EphemeralOwner)
			}
			wantTTLVisible, wantEph := int64(0), 1
			if !ext {
				// Java: without extended types the TTL marker is just an owner.
				wantTTLVisible, wantEph = proto.TTLEphemeralOwner(5000), 2
			}
			if ttl.Stat.EphemeralOwner != wantTTLVisible {
				t.Errorf("TTL visible owner %#x, want %#x", ttl.Stat.EphemeralOwner, wantTTLVisible)
			}
			if tree.EphemeralCount() != wantEph {
				t.Errorf("EphemeralCount %d, want %d", tree.EphemeralCount(), wantEph)
			}
		})
	}
}

func TestContainerCandidates(t *testing.T) {
	tree := New(Options{ExtendedTypesEnabled: true})
	b := &txnBuilder{}
	container := func(path string) *proto.TxnEntry {
		return b.next(proto.OpCreateContainer, &proto.CreateContainerTxn{Path: path, Acl: proto.OpenACLUnsafe, ParentCVersion: -1})
	}
	ttl := func(path string, ms int64) *proto.TxnEntry {
		return b.next(proto.OpCreateTTL, &proto.CreateTTLTxn{Path: path, Acl: proto.OpenACLUnsafe, ParentCVersion: -1, Ttl: ms})
	}
	mustApply(t, tree, container("/used")) // zxid 1, time 1001
	mustApply(t, tree, b.create("/used/x", nil, -1))
	mustApply(t, tree, b.delete("/used/x"))
	mustApply(t, tree, container("/never")) // time 1004
	mustApply(t, tree, container("/full"))  // time 1005
	mustApply(t, tree, b.create("/full/x", nil, -1))
	mustApply(t, tree, ttl("/ttl", 100))    // time 1007
	mustApply(t, tree, ttl("/ttlkid", 100)) // time 1008
	mustApply(t, tree, b.create("/ttlkid/x", nil, -1))
	cases := []struct {
		now, neverUsed int64
		limit          int
		want           []string
	}{
		{1010, 0, 0, []string{"/used"}},
		{1107, 0, 0, []string{"/used"}},
		{1108, 0, 0, []string{"/ttl", "/used"}},
		{1108, 50, 0, []string{"/never", "/ttl", "/used"}},
		{1108, 50, 2, []string{"/never", "/ttl"}},
		{1054, 50, 0, []string{"/used"}},
		{1055, 50, 0, []string{"/never", "/used"}},
	}
	for _, c := range cases {
		got := tree.ContainerCandidates(c.now, c.neverUsed, c.limit)
		if !slices.Equal(got, c.want) {
			t.Errorf("ContainerCandidates(%d, %d, %d) = %v, want %v", c.now, c.neverUsed, c.limit, got, c.want)
		}
	}
}

func TestSessionsAndCloseSession(t *testing.T) {
	tree := New(Options{DigestEnabled: true})
	s1 := &txnBuilder{session: 1}
	mustApply(t, tree, s1.next(proto.OpCreateSession, &proto.CreateSessionTxn{TimeOut: 30000}))
	s2 := &txnBuilder{session: 2, zxid: s1.zxid}
	mustApply(t, tree, s2.next(proto.OpCreateSession, &proto.CreateSessionTxn{TimeOut: 4000}))
	if got := tree.Sessions(); !reflect.DeepEqual(got, map[int64]int32{1: 30000, 2: 4000}) {
		t.Fatalf("sessions %v", got)
	}
	s1.zxid = s2.zxid
	mustApply(t, tree, s1.create("/d", nil, -1))
	for _, p := range []string{"/d/b", "/d/a", "/z", "/d/c"} {
		mustApply(t, tree, s1.ephemeral(p))
	}
	s2.zxid = s1.zxid
	mustApply(t, tree, s2.ephemeral("/other"))
	if got := tree.Ephemerals(1); !slices.Equal(got, []string{"/d/a", "/d/b", "/d/c", "/z"}) {
		t.Errorf("Ephemerals(1) = %v", got)
	}
	if tree.EphemeralCount() != 5 {
		t.Errorf("EphemeralCount %d", tree.EphemeralCount())
	}
	// The listed paths go first in their order (even one another session
	// owns, as Java does), then the rest in path order; missing ones are
	// skipped.
	s1.zxid = s2.zxid
	closeTxn := s1.next(proto.OpCloseSession, &proto.CloseSessionTxn{Paths2Delete: []string{"/z", "/gone", "/other"}})
	res := mustApply(t, tree, closeTxn)
	want := []Event{
		{Type: proto.EventNodeDeleted, Path: "/z"}, {Type: proto.EventNodeChildrenChanged, Path: "/"},
		{Type: proto.EventNodeDeleted, Path: "/other"}, {Type: proto.EventNodeChildrenChanged, Path: "/"},
		{Type: proto.EventNodeDeleted, Path: "/d/a"}, {Type: proto.EventNodeChildrenChanged, Path: "/d"},
		{Type: proto.EventNodeDeleted, Path: "/d/b"}, {Type: proto.EventNodeChildrenChanged, Path: "/d"},
		{Type: proto.EventNodeDeleted, Path: "/d/c"}, {Type: proto.EventNodeChildrenChanged, Path: "/d"},
	}
	if !reflect.DeepEqual(withoutACL(res.Events), want) {
		t.Errorf("events\n got %v\nwant %v", res.Events, want)
	}
	if tree.EphemeralCount() != 0 || len(tree.Ephemerals(1)) != 0 || len(tree.Ephemerals(2)) != 0 {
		t.Errorf("ephemerals left: %d", tree.EphemeralCount())
	}
	if got := tree.Sessions(); !reflect.DeepEqual(got, map[int64]int32{2: 4000}) {
		t.Errorf("sessions after close %v", got)
	}
	stat, _, _ := tree.Exists("/d")
	if stat.Pzxid != closeTxn.Header.Zxid || stat.Cversion != 6 {
		t.Errorf("/d pzxid %d cversion %d, want %d 6", stat.Pzxid, stat.Cversion, closeTxn.Header.Zxid)
	}
	// A closeSession logged without a body (ZooKeeper 3.5 and older).
	s2.zxid = closeTxn.Header.Zxid
	mustApply(t, tree, s2.ephemeral("/e2"))
	res = mustApply(t, tree, s2.next(proto.OpCloseSession, nil))
	if !reflect.DeepEqual(withoutACL(res.Events), []Event{{Type: proto.EventNodeDeleted, Path: "/e2"}, {Type: proto.EventNodeChildrenChanged, Path: "/"}}) {
		t.Errorf("bodyless close events %v", res.Events)
	}
	tree.SetSessions(map[int64]int32{9: 10})
	if got := tree.Sessions(); !reflect.DeepEqual(got, map[int64]int32{9: 10}) {
		t.Errorf("SetSessions: %v", got)
	}
	assertDigestConsistent(t, tree)
}

func TestGetChildrenSortedAndReused(t *testing.T) {
	tree := New(Options{})
	b := &txnBuilder{}
	mustApply(t, tree, b.create("/p", nil, -1))
	for _, n := range []string{"c", "a", "b", "d"} {
		mustApply(t, tree, b.create("/p/"+n, nil, -1))
	}
	mustApply(t, tree, b.delete("/p/a")) // swaps the last child into the hole
	dst := make([]string, 0, 8)
	got, stat, _, ok := tree.GetChildren("/p", dst)
	if !ok || !slices.Equal(got, []string{"b", "c", "d"}) || stat.NumChildren != 3 {
		t.Errorf("GetChildren = %v %+v", got, stat)
	}
	if &got[:1][0] != &dst[:1][0] {
		t.Error("dst not reused")
	}
	if _, _, _, ok := tree.GetChildren("/nope", nil); ok {
		t.Error("missing node found")
	}
	for _, p := range []string{"/p/b", "/p/c", "/p/d"} {
		mustApply(t, tree, b.delete(p))
	}
	got, _, _, _ = tree.GetChildren("/p", nil)
	if got == nil || len(got) != 0 {
		t.Errorf("empty children = %#v, want empty non-nil", got)
	}
}

func TestAllChildrenNumber(t *testing.T) {
	tree := New(Options{})
	b := &txnBuilder{}
	for _, p := range []string{"/a", "/a/b", "/a/b/c", "/a/d", "/ab"} {
		mustApply(t, tree, b.create(p, nil, -1))
	}
	cases := []struct {
		path string
		want int32
		ok   bool
	}{
		{"/", 8, true}, {"", 9, true}, {"/a", 3, true}, {"/a/b", 1, true}, {"/ab", 0, true},
		{"/zookeeper", 2, true}, {"/a/", 0, false}, {"/x", 0, false},
	}
	for _, c := range cases {
		got, ok := tree.AllChildrenNumber(c.path)
		if got != c.want || ok != c.ok {
			t.Errorf("AllChildrenNumber(%q) = %d, %v; want %d, %v", c.path, got, ok, c.want, c.ok)
		}
	}
}

func TestReadsDoNotAllocate(t *testing.T) {
	tree := New(Options{DigestEnabled: true})
	b := &txnBuilder{}
	mustApply(t, tree, b.create("/n", make([]byte, 100), -1))
	mustApply(t, tree, b.create("/n/c", nil, -1))
	dst := make([]string, 0, 4)
	allocs := testing.AllocsPerRun(100, func() {
		tree.GetData("/n")
		tree.Exists("/n")
		tree.GetACL("/n")
		tree.Node("/n")
		tree.GetChildren("/n", dst)
	})
	if allocs != 0 {
		t.Errorf("reads allocate %v times", allocs)
	}
}

func TestConcurrentReadsDuringApply(t *testing.T) {
	tree := New(Options{DigestEnabled: true})
	b := &txnBuilder{}
	mustApply(t, tree, b.create("/p", nil, -1))
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var dst []string
			for {
				select {
				case <-stop:
					return
				default:
				}
				tree.GetData("/p")
				dst, _, _, _ = tree.GetChildren("/p", dst)
				tree.Digest()
			}
		}()
	}
	for i := range 500 {
		mustApply(t, tree, b.create(fmt.Sprintf("/p/n%d", i), []byte("x"), -1))
		if i%3 == 0 {
			mustApply(t, tree, b.delete(fmt.Sprintf("/p/n%d", i)))
		}
	}
	close(stop)
	wg.Wait()
	if n, _ := tree.AllChildrenNumber("/p"); n != 333 {
		t.Errorf("children %d, want 333", n)
	}
}

func TestACLInterning(t *testing.T) {
	tree := New(Options{})
	b := &txnBuilder{}
	custom := func() []proto.ACL {
		return []proto.ACL{{Perms: proto.PermAll, Id: proto.Id{Scheme: "digest", Id: "u:h"}}}
	}
	other := []proto.ACL{{Perms: proto.PermRead, Id: proto.AnyoneID}, {Perms: proto.PermAll, Id: proto.Id{Scheme: "ip", Id: "10.0.0.1"}}}
	for i := range 100 {
		// A fresh but equal slice each time: the tree keeps one.
		mustApply(t, tree, b.next(proto.OpCreate, &proto.CreateTxn{Path: fmt.Sprintf("/n%d", i), Acl: custom(), ParentCVersion: -1}))
	}
	mustApply(t, tree, b.next(proto.OpCreate, &proto.CreateTxn{Path: "/o", Acl: other, ParentCVersion: -1}))
	mustApply(t, tree, b.next(proto.OpCreate, &proto.CreateTxn{Path: "/open", Acl: []proto.ACL{{Perms: proto.PermAll, Id: proto.AnyoneID}}, ParentCVersion: -1}))
	a0, _, _ := tree.GetACL("/n0")
	a99, _, _ := tree.GetACL("/n99")
	if &a0[0] != &a99[0] {
		t.Error("equal ACL lists are not shared")
	}
	// Ids: READ_ACL_UNSAFE of /zookeeper/config got 1 at startup.
	wantCache := []proto.ACLCacheEntry{{Id: 1, Acl: proto.ReadACLUnsafe}, {Id: 2, Acl: custom()}, {Id: 3, Acl: other}}
	if got := tree.ACLCache(); !reflect.DeepEqual(got, wantCache) {
		t.Errorf("ACLCache = %v, want %v", got, wantCache)
	}
	for _, c := range []struct {
		acl []proto.ACL
		id  int64
		ok  bool
	}{{nil, -1, true}, {proto.OpenACLUnsafe, -1, true}, {custom(), 2, true}, {other, 3, true}, {proto.CreatorAllACL, 0, false}} {
		if id, ok := tree.ACLID(c.acl); id != c.id || ok != c.ok {
			t.Errorf("ACLID(%v) = %d, %v; want %d, %v", c.acl, id, ok, c.id, c.ok)
		}
	}
	for i := range 100 {
		mustApply(t, tree, b.delete(fmt.Sprintf("/n%d", i)))
	}
	if got := tree.ACLCount(); got != 2 {
		t.Errorf("ACLCount after deletes = %d, want 2", got)
	}
	// Ids are never reused; a list set again after its last user left gets a
	// new one, as in Java.
	mustApply(t, tree, b.next(proto.OpSetACL, &proto.SetACLTxn{Path: "/o", Acl: custom(), Version: 1}))
	if id, _ := tree.ACLID(custom()); id != 4 {
		t.Errorf("re-added list id %d, want 4", id)
	}
	mustApply(t, tree, b.next(proto.OpSetACL, &proto.SetACLTxn{Path: "/o", Acl: custom(), Version: 2}))
	if id, _ := tree.ACLID(custom()); id != 5 {
		t.Errorf("list set again on its only node: id %d, want 5 (Java releases before interning)", id)
	}
}

func TestWalkLoadRoundTrip(t *testing.T) {
	src := New(Options{DigestEnabled: true, ExtendedTypesEnabled: true})
	b := &txnBuilder{session: 5}
	mustApply(t, src, b.next(proto.OpCreateSession, &proto.CreateSessionTxn{TimeOut: 6000}))
	mustApply(t, src, b.create("/app", []byte("root"), -1))
	mustApply(t, src, b.create("/app/a", []byte("12345"), -1))
	mustApply(t, src, b.ephemeral("/app/e"))
	mustApply(t, src, b.next(proto.OpCreateContainer, &proto.CreateContainerTxn{Path: "/c", Acl: proto.OpenACLUnsafe, ParentCVersion: -1}))
	mustApply(t, src, b.next(proto.OpCreateTTL, &proto.CreateTTLTxn{Path: "/t", Acl: proto.ReadACLUnsafe, ParentCVersion: -1, Ttl: 10}))
	mustApply(t, src, b.create("/zookeeper/quota/app", nil, -1))
	mustApply(t, src, b.create("/zookeeper/quota/app/zookeeper_limits", []byte("count=10,bytes=100"), -1))
	mustApply(t, src, b.create("/zookeeper/quota/app/zookeeper_stats", []byte("count=0,bytes=0"), -1))
	mustApply(t, src, b.setData("/", []byte("r"), 1))

	type rec struct {
		path string
		data []byte
		acl  []proto.ACL
		stat proto.StatPersisted
	}
	var recs []rec
	seen := map[string]bool{}
	err := src.Walk(func(path string, data []byte, acl []proto.ACL, stat proto.StatPersisted) error {
		parent, _ := proto.ParentPath(path)
		if path != "" && !seen[parent] {
			t.Errorf("%q before its parent", path)
		}
		seen[path] = true
		recs = append(recs, rec{path, data, acl, stat})
		return nil
	})
	if err != nil || recs[0].path != "" || len(recs) != src.NodeCount()-1 {
		t.Fatalf("walk: %v, first %q, %d nodes", err, recs[0].path, len(recs))
	}

	dst := New(Options{DigestEnabled: true, ExtendedTypesEnabled: true})
	for _, r := range recs {
		if err := dst.Load(r.path, r.data, r.acl, r.stat); err != nil {
			t.Fatal(err)
		}
	}
	// Spoil the stats node: FinishLoad recounts it, as Java does at startup.
	dst.mu.Lock()
	dst.rewriteData(dst.lookup("/zookeeper/quota/app/zookeeper_stats"), []byte("count=99,bytes=99"))
	dst.mu.Unlock()
	dst.SetSessions(src.Sessions())
	dst.FinishLoad()
	dst.SetLastProcessedZxid(src.LastProcessedZxid())

	var want, got strings.Builder
	dumpTree(&want, src)
	dumpTree(&got, dst)
	if got.String() != want.String() {
		t.Errorf("loaded tree differs:\n%s\nwant:\n%s", got.String(), want.String())
	}
	if dst.Digest() != src.Digest() || dst.ApproximateDataSize() != src.ApproximateDataSize() || dst.EphemeralCount() != 1 {
		t.Errorf("digest %d/%d size %d/%d eph %d", dst.Digest(), src.Digest(), dst.ApproximateDataSize(), src.ApproximateDataSize(), dst.EphemeralCount())
	}
	if !reflect.DeepEqual(dst.ContainerCandidates(1<<40, 0, 0), src.ContainerCandidates(1<<40, 0, 0)) {
		t.Error("container/TTL indexes differ")
	}
	// Quota tracking works after the load.
	mustApply(t, dst, b.create("/app/b", []byte("xy"), -1))
	data, _, _, _ := dst.GetData("/zookeeper/quota/app/zookeeper_stats")
	if string(data) != "count=4,bytes=11" {
		t.Errorf("stats after load and create: %q", data)
	}

	if err := New(Options{}).Load("/a/b", nil, nil, proto.StatPersisted{}); !errors.Is(err, ErrMissingParent) {
		t.Errorf("missing parent: %v", err)
	}
	stop := errors.New("stop")
	if err := src.Walk(func(string, []byte, []proto.ACL, proto.StatPersisted) error { return stop }); err != stop {
		t.Errorf("walk error %v", err)
	}
}

func TestWalkSnapshotACLIDs(t *testing.T) {
	tree := New(Options{})
	b := &txnBuilder{}
	mine := []proto.ACL{{Perms: proto.PermAll, Id: proto.Id{Scheme: "digest", Id: "u:h"}}}
	mustApply(t, tree, b.next(proto.OpCreate, &proto.CreateTxn{Path: "/m", Acl: mine, ParentCVersion: -1}))
	mustApply(t, tree, b.create("/o", nil, -1))
	var table []proto.ACLCacheEntry
	ids := map[string]int64{}
	err := tree.WalkSnapshot(func(e []proto.ACLCacheEntry) error { table = e; return nil },
		func(path string, _ []byte, id int64, _ proto.StatPersisted) error { ids[path] = id; return nil })
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"": -1, "/zookeeper": -1, "/zookeeper/quota": -1, "/zookeeper/config": 1, "/m": 2, "/o": -1}
	if !reflect.DeepEqual(ids, want) || len(table) != 2 || table[1].Id != 2 {
		t.Errorf("ids %v table %v", ids, table)
	}
}
