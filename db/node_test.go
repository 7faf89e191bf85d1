package db

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gozk/gozk/proto"
)

func TestNodeHoldsNameAndData(t *testing.T) {
	for _, c := range []struct {
		path string // the name, here
		data []byte
	}{
		{"", nil}, {"", []byte{}}, {"a", nil}, {"a", []byte{}}, {"b", []byte("x")},
		{string(make([]byte, 300)), make([]byte, 1000)},
	} {
		for _, wide := range []bool{false, true} {
			stat := proto.StatPersisted{Czxid: 5, Mzxid: 5, Pzxid: 5, Ctime: 9, Mtime: 9}
			if wide {
				stat.Mzxid, stat.Pzxid, stat.Mtime, stat.EphemeralOwner = 6, 7, 10, 11
				stat.Version, stat.Cversion, stat.Aversion = 1, 2, 3
			}
			const parent = 123456
			n := newNodeStat(c.path, parent, c.data, &stat)
			if n.wide() != wide {
				t.Errorf("%q: wide %v for %+v", c.path, n.wide(), stat)
			}
			if n.name() != c.path || n.parent() != parent {
				t.Errorf("name %q under %d, want %q under %d", n.name(), n.parent(), c.path, parent)
			}
			got := n.inlineData()
			if (got == nil) != (c.data == nil) || !slices.Equal(got, c.data) || n.dataLen() != len(c.data) {
				t.Errorf("%q: data %v (nil %v), want %v (nil %v)", c.path, got, got == nil, c.data, c.data == nil)
			}
			if cap(got) != len(got) {
				t.Errorf("%q: data capacity %d, length %d: an append would write into the node", c.path, cap(got), len(got))
			}
			if n.persisted() != stat {
				t.Errorf("%q: stat %+v, want %+v", c.path, n.persisted(), stat)
			}
			w := n.copyWith([]byte("new"), true)
			if !w.wide() || w.persisted() != stat || w.name() != c.path || w.parent() != parent || string(w.inlineData()) != "new" {
				t.Errorf("%q: wide copy has stat %+v, name %q under %d, data %q", c.path, w.persisted(), w.name(), w.parent(), w.inlineData())
			}
		}
	}
}

// TestSetDataReplacesNodeEverywhere checks that the allocation a setData
// makes takes the old one's place in every index: the path map (key
// included, so the old allocation is not kept alive by it), the parent's
// child list, the ephemeral and container indexes.
func TestSetDataReplacesNodeEverywhere(t *testing.T) {
	tree := New(Options{DigestEnabled: true, ExtendedTypesEnabled: true})
	const session = 7
	zxid := int64(1)
	apply := func(txn *proto.TxnEntry) {
		t.Helper()
		txn.Header.Zxid, txn.Header.Time = zxid, zxid
		zxid++
		if res := tree.Apply(txn); res.Err != proto.ErrOK {
			t.Fatalf("zxid %d: %v", txn.Header.Zxid, res.Err)
		}
	}
	apply(createTxn(0, "/p", nil, -1))
	eph := createTxn(0, "/p/e", []byte("1"), -1)
	eph.Header.ClientId = session
	eph.Body.(*proto.CreateTxn).Ephemeral = true
	apply(eph)
	apply(&proto.TxnEntry{
		Header: proto.TxnHeader{Type: int32(proto.OpCreateContainer)},
		Body:   &proto.CreateContainerTxn{Path: "/p/c", Data: []byte("1"), Acl: proto.OpenACLUnsafe, ParentCVersion: -1},
	})
	old := map[string]*node{}
	for _, p := range []string{"", "/p", "/p/e", "/p/c"} {
		old[p] = tree.lookup(p)
	}
	digest := tree.Digest()
	for _, p := range []string{"/", "/p", "/p/e", "/p/c"} {
		apply(setDataTxn(0, p, []byte("longer data "+p), 1))
	}
	if tree.Digest() == digest {
		t.Error("digest did not change")
	}
	for p, o := range old {
		n := tree.lookup(p)
		if n == o || o.slot != slotReplaced || tree.current(o) != n {
			t.Fatalf("%q: not replaced (old slot %d)", p, o.slot)
		}
		if string(tree.dataOf(n)) != "longer data "+cmpPath(p) {
			t.Errorf("%q: data %q", p, tree.dataOf(n))
		}
	}
	for n := range tree.nodes.all() {
		if tree.lookup(tree.pathOf(n)) != n {
			t.Errorf("the path index holds an old %q", tree.pathOf(n))
		}
	}
	p := tree.lookup("/p")
	for i := range tree.childList(p).ids {
		if c := tree.childList(p).at(i); c != tree.lookup(tree.pathOf(c)) {
			t.Errorf("child list of /p holds an old %q", tree.pathOf(c))
		}
	}
	if _, ok := tree.ephemerals[session][tree.lookup("/p/e")]; !ok || len(tree.ephemerals[session]) != 1 {
		t.Error("ephemeral index not updated")
	}
	if got := tree.javaEphemerals[session].Paths(); !slices.Equal(got, []string{"/p/e"}) {
		t.Errorf("ephemeral set holds %q", got)
	}
	if _, ok := tree.containers[tree.lookup("/p/c")]; !ok || len(tree.containers) != 1 {
		t.Error("container index not updated")
	}
	want := tree.Digest()
	tree.recomputeDigest()
	if got := tree.Digest(); got != want {
		t.Errorf("digest %d, recomputed %d", want, got)
	}

	// The walk finds the current nodes of what it queued before the
	// setData, and skips what was deleted since.
	w := tree.StartFuzzyWalk()
	first := w.Next(nil, 1) // the root, its child /p queued
	if len(first) != 1 || first[0].Path != "" {
		t.Fatalf("first batch %+v", first)
	}
	apply(setDataTxn(0, "/p", []byte("again"), 2))
	var rest []SnapshotNode
	for b := w.Next(nil, 1); len(b) > 0; b = w.Next(nil, 1) {
		rest = append(rest, keepNodes(b)...)
	}
	for _, sn := range rest {
		if sn.Path == "/p" && string(sn.Data) != "again" {
			t.Errorf("walk copied /p's old data %q", sn.Data)
		}
	}

	// Closing the session deletes the ephemeral through its new node.
	apply(&proto.TxnEntry{Header: proto.TxnHeader{ClientId: session, Type: int32(proto.OpCloseSession)}, Body: &proto.CloseSessionTxn{}})
	if tree.lookup("/p/e") != nil || tree.EphemeralCount() != 0 {
		t.Error("ephemeral survived its session")
	}
}

func cmpPath(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// TestNodeHoldsNoPointers keeps the node header free of pointers: the
// allocation is made as plain words, which the collector does not scan.
func TestNodeHoldsNoPointers(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[node](), reflect.TypeFor[nodeExt]()} {
		for i := range typ.NumField() {
			if k := typ.Field(i).Type.Kind(); k != reflect.Int32 && k != reflect.Int64 {
				t.Errorf("%v.%s is a %v", typ, typ.Field(i).Name, k)
			}
		}
	}
	if nodeExtOffset%8 != 0 || nodeWideSize%8 != 0 {
		t.Errorf("the nodeExt starts at %d and a wide header is %d bytes: the nodeExt would be unaligned", nodeExtOffset, nodeWideSize)
	}
	// A narrow znode with a 6-byte name and 100 bytes of data (the
	// footprint benchmark's) fits the 144-byte size class.
	if nodeNarrowSize != 36 {
		t.Errorf("a narrow header is %d bytes, want 36", nodeNarrowSize)
	}
}

// TestNodesWidenWhenTheirStatNeedsIt: a persistent node stays narrow
// until it gets a child (pzxid) or data (mzxid, mtime); ephemerals are
// wide from the start; the stats clients see are the same either way.
func TestNodesWidenWhenTheirStatNeedsIt(t *testing.T) {
	tree := New(Options{DigestEnabled: true})
	tree.Apply(createTxn(2, "/a", []byte("x"), -1))
	tree.Apply(createTxn(3, "/b", nil, -1))
	eph := createTxn(4, "/e", nil, -1)
	eph.Body.(*proto.CreateTxn).Ephemeral = true
	tree.Apply(eph)
	if tree.lookup("/a").wide() || tree.lookup("/b").wide() || !tree.lookup("/e").wide() {
		t.Fatal("fresh persistent nodes should be narrow, ephemerals wide")
	}
	want, _, _ := tree.Exists("/a")
	tree.Apply(createTxn(5, "/a/c", nil, -1))
	tree.Apply(setDataTxn(6, "/b", []byte("y"), 1))
	if !tree.lookup("/a").wide() || !tree.lookup("/b").wide() || tree.lookup("/a/c").wide() {
		t.Fatal("a parent and a node with new data should be wide")
	}
	got, _, _ := tree.Exists("/a")
	want.Pzxid, want.Cversion, want.NumChildren = 5, 1, 1
	if got != want {
		t.Errorf("stat of /a after its first child: %+v, want %+v", got, want)
	}
	digest := tree.Digest()
	tree.recomputeDigest()
	if tree.Digest() != digest {
		t.Error("digest kept through widening differs from a recomputed one")
	}
}

// TestNarrowNodesWidenForChildrenAndACL: a node whose stat stays narrow
// still widens for a child list (a multi creating a parent and its child
// gives both the same zxid; a snapshot may list such a parent) or a new
// ACL version.
func TestNarrowNodesWidenForChildrenAndACL(t *testing.T) {
	tree := New(Options{DigestEnabled: true})
	// The replayed create of a child whose parent already counted it: no
	// cversion or pzxid change, but a child list.
	tree.Apply(createTxn(2, "/p", nil, -1))
	tree.Apply(createTxn(3, "/p/c", nil, 0))
	if !tree.lookup("/p").wide() || tree.numChildren(tree.lookup("/p")) != 1 {
		t.Fatal("/p should be wide with one child")
	}
	if st, _, _ := tree.Exists("/p"); st.Pzxid != 2 || st.Cversion != -1 || st.NumChildren != 1 {
		t.Errorf("stat of /p %+v", st)
	}
	tree.Apply(&proto.TxnEntry{
		Header: proto.TxnHeader{Zxid: 4, Type: int32(proto.OpSetACL)},
		Body:   &proto.SetACLTxn{Path: "/p/c", Acl: proto.ReadACLUnsafe, Version: 1},
	})
	if st, acl, _ := tree.Exists("/p/c"); st.Aversion != 1 || !slices.Equal(acl, proto.ReadACLUnsafe) {
		t.Errorf("after setACL: %+v %v", st, acl)
	}

	// A snapshot whose parent has a narrow stat and children.
	dst := New(Options{DigestEnabled: true})
	ld := dst.NewLoader()
	narrow := proto.StatPersisted{Czxid: 7, Mzxid: 7, Pzxid: 7, Ctime: 1, Mtime: 1}
	for _, p := range []string{"", "/a", "/a/b", "/a/c", "/a/c/d", "/a/e", "/zookeeper", "/zookeeper/quota"} {
		var st proto.StatPersisted
		if p != "" && !strings.HasPrefix(p, "/zookeeper") {
			st = narrow
		}
		if err := ld.Node(p, nil, OpenACLID, &st); err != nil {
			t.Fatal(err)
		}
	}
	dst.FinishLoad()
	for p, want := range map[string][]string{"/a": {"b", "c", "e"}, "/a/c": {"d"}} {
		got, st, _, _ := dst.GetChildren(p, nil)
		slices.Sort(got)
		if !slices.Equal(got, want) || st.Pzxid != 7 || st.Cversion != -int32(len(want)) {
			t.Errorf("%s: children %q, stat %+v", p, got, st)
		}
	}
	if n := dst.NodeCount(); n != 10 {
		t.Errorf("%d nodes", n)
	}
}

// TestSetDataKeepsLaterDataOutside: the first setData moves a node's data
// out of its allocation; later ones replace it there without a new node
// or an allocation, and a delete frees its place.
func TestSetDataKeepsLaterDataOutside(t *testing.T) {
	tree := New(Options{DigestEnabled: true})
	tree.Apply(createTxn(2, "/a", []byte("inline"), -1))
	tree.Apply(setDataTxn(3, "/a", []byte("first"), 1))
	n := tree.lookup("/a")
	if !n.external() {
		t.Fatal("data not moved out by the first setData")
	}
	txn := setDataTxn(4, "/a", nil, 2)
	var res Result
	res.Events = make([]Event, 0, 4)
	if allocs := testing.AllocsPerRun(10, func() { tree.ApplyTo(txn, &res) }); allocs != 0 {
		t.Errorf("a later setData allocates %v times", allocs)
	}
	if tree.lookup("/a") != n {
		t.Error("a later setData replaced the node")
	}
	if data, st, _, _ := tree.GetData("/a"); data != nil || st.DataLength != 0 || st.Version != 2 || st.Mzxid != 4 {
		t.Errorf("null data set: %q (nil %v), %+v", data, data == nil, st)
	}
	tree.Apply(setDataTxn(5, "/a", []byte{}, 3))
	if data, _, _, _ := tree.GetData("/a"); data == nil || len(data) != 0 {
		t.Errorf("empty data set: %v (nil %v)", data, data == nil)
	}
	x := n.ext().xdata
	tree.Apply(deleteTxn(6, "/a"))
	if tree.datas[x] != nil || !slices.Contains(tree.freeDatas, x) {
		t.Error("a deleted node's data is still held")
	}
	want := tree.Digest()
	tree.recomputeDigest()
	if tree.Digest() != want {
		t.Error("digest differs from a recomputed one")
	}
}
