package db

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

func sub(typ proto.OpCode, rec jute.Record) proto.Txn {
	return proto.Txn{Type: int32(typ), Data: jute.Marshal(rec)}
}

func TestMultiApplied(t *testing.T) {
	tree := New(Options{DigestEnabled: true, ExtendedTypesEnabled: true})
	b := &txnBuilder{session: 3}
	mustApply(t, tree, b.create("/p", []byte("v0"), -1))
	multi := b.next(proto.OpMulti, &proto.MultiTxn{Txns: []proto.Txn{
		sub(proto.OpCreate, &proto.CreateTxn{Path: "/p/a", Acl: proto.OpenACLUnsafe, ParentCVersion: 1}),
		sub(proto.OpCreate, &proto.CreateTxn{Path: "/p/s0000000001", Acl: proto.OpenACLUnsafe, ParentCVersion: 2, Ephemeral: true}),
		sub(proto.OpSetData, &proto.SetDataTxn{Path: "/p", Data: []byte("v1"), Version: 1}),
		sub(proto.OpCheck, &proto.CheckVersionTxn{Path: "/p", Version: 1}),
		sub(proto.OpDelete, &proto.DeleteTxn{Path: "/p/a"}),
		sub(proto.OpCreateContainer, &proto.CreateContainerTxn{Path: "/c", Acl: proto.OpenACLUnsafe, ParentCVersion: -1}),
		sub(proto.OpCreateTTL, &proto.CreateTTLTxn{Path: "/t", Acl: proto.OpenACLUnsafe, ParentCVersion: -1, Ttl: 100}),
	}})
	res := mustApply(t, tree, multi)
	z, tm := multi.Header.Zxid, multi.Header.Time
	newNode := proto.Stat{Czxid: z, Mzxid: z, Ctime: tm, Mtime: tm, Pzxid: z}
	pStat := proto.Stat{Czxid: 1, Mzxid: z, Ctime: 1001, Mtime: tm, Version: 1, Cversion: 3, DataLength: 2, NumChildren: 1, Pzxid: z}
	want := []proto.MultiResult{
		{Type: proto.OpCreate, Path: "/p/a"},
		{Type: proto.OpCreate, Path: "/p/s0000000001"},
		{Type: proto.OpSetData, Stat: proto.Stat{Czxid: 1, Mzxid: z, Ctime: 1001, Mtime: tm, Version: 1, Cversion: 2, DataLength: 2, NumChildren: 2, Pzxid: z}},
		{Type: proto.OpCheck},
		{Type: proto.OpDelete},
		{Type: proto.OpCreate2, Path: "/c", Stat: newNode},
		{Type: proto.OpCreate2, Path: "/t", Stat: newNode},
	}
	if !reflect.DeepEqual(res.Multi, want) {
		t.Errorf("results\n got %+v\nwant %+v", res.Multi, want)
	}
	if got, _, _ := tree.Exists("/p"); got != pStat {
		t.Errorf("/p stat %+v, want %+v", got, pStat)
	}
	wantEvents := []Event{
		{Type: proto.EventNodeCreated, Path: "/p/a"}, {Type: proto.EventNodeChildrenChanged, Path: "/p"},
		{Type: proto.EventNodeCreated, Path: "/p/s0000000001"}, {Type: proto.EventNodeChildrenChanged, Path: "/p"},
		{Type: proto.EventNodeDataChanged, Path: "/p"},
		{Type: proto.EventNodeDeleted, Path: "/p/a"}, {Type: proto.EventNodeChildrenChanged, Path: "/p"},
		{Type: proto.EventNodeCreated, Path: "/c"}, {Type: proto.EventNodeChildrenChanged, Path: "/"},
		{Type: proto.EventNodeCreated, Path: "/t"}, {Type: proto.EventNodeChildrenChanged, Path: "/"},
	}
	if !reflect.DeepEqual(withoutACL(res.Events), wantEvents) {
		t.Errorf("events\n got %v\nwant %v", res.Events, wantEvents)
	}
	if res.Err != proto.ErrOK || tree.LastProcessedZxid() != z || tree.EphemeralCount() != 1 {
		t.Errorf("err %v last %d eph %d", res.Err, tree.LastProcessedZxid(), tree.EphemeralCount())
	}
	assertDigestConsistent(t, tree)
}

func TestMultiFailedOrRefused(t *testing.T) {
	create := sub(proto.OpCreate, &proto.CreateTxn{Path: "/x", Acl: proto.OpenACLUnsafe, ParentCVersion: -1})
	cases := []struct {
		name    string
		txns    []proto.Txn
		err     proto.ErrCode
		results []proto.MultiResult
	}{
		{
			name: "error sub-txn: nothing applied, 0 before, code, -2 after",
			txns: []proto.Txn{create, create, sub(proto.OpError, &proto.ErrorTxn{Err: int32(proto.ErrNodeExists)}), sub(proto.OpError, &proto.ErrorTxn{Err: -2}), create},
			err:  proto.ErrNodeExists,
			results: []proto.MultiResult{
				{Type: proto.OpError, Err: 0}, {Type: proto.OpError, Err: 0}, {Type: proto.OpError, Err: proto.ErrNodeExists},
				{Type: proto.OpError, Err: proto.ErrRuntimeInconsistency}, {Type: proto.OpError, Err: proto.ErrRuntimeInconsistency},
			},
		},
		{name: "empty multi", txns: []proto.Txn{}, results: []proto.MultiResult{}},
		{name: "create2 sub-txn refused as Java's DataTree does", txns: []proto.Txn{create, sub(proto.OpCreate2, &proto.CreateTxn{Path: "/y", ParentCVersion: -1})}, err: proto.ErrMarshallingError},
		{name: "setACL sub-txn refused", txns: []proto.Txn{create, sub(proto.OpSetACL, &proto.SetACLTxn{Path: "/"})}, err: proto.ErrMarshallingError},
		{name: "corrupt sub-txn", txns: []proto.Txn{create, {Type: int32(proto.OpDelete), Data: []byte{0, 0}}}, err: proto.ErrMarshallingError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tree := New(Options{DigestEnabled: true})
			digest := tree.Digest()
			res := tree.Apply(&proto.TxnEntry{Header: proto.TxnHeader{Zxid: 5, Type: int32(proto.OpMulti)}, Body: &proto.MultiTxn{Txns: c.txns}})
			if res.Err != c.err || !reflect.DeepEqual(res.Multi, c.results) && !(len(res.Multi) == 0 && len(c.results) == 0) {
				t.Errorf("got %v %+v, want %v %+v", res.Err, res.Multi, c.err, c.results)
			}
			if len(res.Events) != 0 || tree.NodeCount() != 5 || tree.Digest() != digest {
				t.Errorf("tree changed: events %v nodes %d", res.Events, tree.NodeCount())
			}
			if info, _ := tree.Node("/"); info.Stat.Cversion != 0 {
				t.Errorf("root cversion moved to %d", info.Stat.Cversion)
			}
			if tree.LastProcessedZxid() != 5 {
				t.Errorf("zxid not consumed")
			}
		})
	}
}

// TestReplayOverFuzzyStateConverges replays, on top of a tree that already
// holds the effects of some txns, every txn from an earlier point, the way
// recovery replays a log over a fuzzy snapshot, and requires the exact
// state (dump, digest, sizes, quota stats) of applying each txn once.
func TestReplayOverFuzzyStateConverges(t *testing.T) {
	txns := generateTxns(400)
	want := New(Options{DigestEnabled: true, ExtendedTypesEnabled: true})
	for _, txn := range txns {
		want.Apply(txn)
	}
	var wantDump strings.Builder
	dumpTree(&wantDump, want)
	for _, split := range []struct{ applied, replayFrom int }{{100, 60}, {250, 0}, {399, 350}, {400, 1}} {
		t.Run(fmt.Sprint(split), func(t *testing.T) {
			got := New(Options{DigestEnabled: true, ExtendedTypesEnabled: true})
			for _, txn := range txns[:split.applied] {
				got.Apply(txn)
			}
			for _, txn := range txns[split.replayFrom:] {
				got.Apply(txn)
			}
			var gotDump strings.Builder
			dumpTree(&gotDump, got)
			if gotDump.String() != wantDump.String() {
				t.Errorf("replayed state differs:\n%s\nwant:\n%s", gotDump.String(), wantDump.String())
			}
			if got.Digest() != want.Digest() || got.ApproximateDataSize() != want.ApproximateDataSize() ||
				got.LastProcessedZxid() != want.LastProcessedZxid() || got.EphemeralCount() != want.EphemeralCount() {
				t.Errorf("digest %d/%d size %d/%d", got.Digest(), want.Digest(), got.ApproximateDataSize(), want.ApproximateDataSize())
			}
			assertDigestConsistent(t, got)
		})
	}
}

// generateTxns makes a deterministic txn stream the way a leader's prep
// would: explicit parentCVersions read from a model tree, new versions,
// sessions with ephemerals closed later, and a quota.
func generateTxns(n int) []*proto.TxnEntry {
	model := New(Options{ExtendedTypesEnabled: true})
	var out []*proto.TxnEntry
	zxid := int64(0)
	emit := func(session int64, typ proto.OpCode, body jute.Record) {
		zxid++
		txn := &proto.TxnEntry{Header: proto.TxnHeader{ClientId: session, Zxid: zxid, Time: 5000 + zxid, Type: int32(typ)}, Body: body}
		model.Apply(txn)
		out = append(out, txn)
	}
	pcv := func(path string) int32 {
		parent, _ := proto.ParentPath(path)
		info, _ := model.Node(parent)
		return info.Stat.Cversion + 1
	}
	emit(0, proto.OpCreate, &proto.CreateTxn{Path: "/q", Acl: proto.OpenACLUnsafe, ParentCVersion: pcv("/q")})
	emit(0, proto.OpCreate, &proto.CreateTxn{Path: "/zookeeper/quota/q", ParentCVersion: pcv("/zookeeper/quota/q")})
	emit(0, proto.OpCreate, &proto.CreateTxn{Path: "/zookeeper/quota/q/zookeeper_limits", Data: []byte("count=100"), ParentCVersion: 1})
	emit(0, proto.OpCreate, &proto.CreateTxn{Path: "/zookeeper/quota/q/zookeeper_stats", Data: []byte("count=0,bytes=0"), ParentCVersion: 2})
	seed := uint32(7)
	rnd := func(k int) int {
		seed = seed*1664525 + 1013904223
		return int(seed>>8) % k
	}
	dirs := []string{"/q", "/q/a", "/d", "/d/e"}
	for len(out) < n {
		session := int64(1 + rnd(3))
		dir := dirs[rnd(len(dirs))]
		path := fmt.Sprintf("%s/n%d", dir, rnd(6))
		info, exists := model.Node(path)
		_, dirExists := model.Node(dir)
		switch op := rnd(10); {
		case !dirExists:
			emit(0, proto.OpCreate, &proto.CreateTxn{Path: dir, Data: []byte(dir), Acl: proto.OpenACLUnsafe, ParentCVersion: pcv(dir)})
		case op == 9:
			// Close a session: its ephemerals listed, as prep lists them.
			emit(session, proto.OpCloseSession, &proto.CloseSessionTxn{Paths2Delete: model.Ephemerals(session)})
		case !exists && op < 5:
			emit(session, proto.OpCreate, &proto.CreateTxn{Path: path, Data: []byte(path[:rnd(len(path))]), Acl: proto.OpenACLUnsafe, Ephemeral: op == 0, ParentCVersion: pcv(path)})
		case !exists:
			emit(session, proto.OpMulti, &proto.MultiTxn{Txns: []proto.Txn{
				sub(proto.OpCreateContainer, &proto.CreateContainerTxn{Path: path, Acl: proto.OpenACLUnsafe, ParentCVersion: pcv(path)}),
				sub(proto.OpSetData, &proto.SetDataTxn{Path: dir, Data: []byte{byte(op)}, Version: 0}),
			}})
		case op < 4 && info.NumChildren == 0:
			emit(session, proto.OpDelete, &proto.DeleteTxn{Path: path})
		case op < 7:
			emit(session, proto.OpSetData, &proto.SetDataTxn{Path: path, Data: []byte(strings.Repeat("d", rnd(20))), Version: info.Stat.Version + 1})
		default:
			emit(session, proto.OpSetACL, &proto.SetACLTxn{Path: path, Acl: []proto.ACL{{Perms: int32(1 + rnd(31)), Id: proto.AnyoneID}}, Version: info.Stat.Aversion + 1})
		}
	}
	return out
}
