package db

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"unsafe"

	"github.com/gozk/gozk/proto"
)

func createTxn(zxid int64, path string, data []byte, pcv int32) *proto.TxnEntry {
	return &proto.TxnEntry{
		Header: proto.TxnHeader{ClientId: 1, Zxid: zxid, Time: zxid, Type: int32(proto.OpCreate)},
		Body:   &proto.CreateTxn{Path: path, Data: data, Acl: proto.OpenACLUnsafe, ParentCVersion: pcv},
	}
}

func setDataTxn(zxid int64, path string, data []byte, version int32) *proto.TxnEntry {
	return &proto.TxnEntry{
		Header: proto.TxnHeader{ClientId: 1, Zxid: zxid, Time: zxid, Type: int32(proto.OpSetData)},
		Body:   &proto.SetDataTxn{Path: path, Data: data, Version: version},
	}
}

func BenchmarkGetData(b *testing.B) {
	tree := New(Options{DigestEnabled: true})
	tree.Apply(createTxn(1, "/bench", nil, -1))
	tree.Apply(createTxn(2, "/bench/node", make([]byte, 100), -1))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, _, _, ok := tree.GetData("/bench/node"); !ok {
				b.Fatal("missing")
			}
		}
	})
}

func BenchmarkExists(b *testing.B) {
	tree := New(Options{DigestEnabled: true})
	tree.Apply(createTxn(1, "/bench", nil, -1))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, ok := tree.Exists("/bench"); !ok {
			b.Fatal("missing")
		}
	}
}

func BenchmarkGetChildren(b *testing.B) {
	tree := New(Options{DigestEnabled: true})
	tree.Apply(createTxn(1, "/bench", nil, -1))
	for i := range 100 {
		tree.Apply(createTxn(int64(i+2), fmt.Sprintf("/bench/n%010d", i), nil, -1))
	}
	var dst []string
	b.ReportAllocs()
	for b.Loop() {
		dst, _, _, _ = tree.GetChildren("/bench", dst)
	}
}

func BenchmarkApplyCreate(b *testing.B) {
	for _, digest := range []bool{false, true} {
		b.Run(fmt.Sprintf("digest=%v", digest), func(b *testing.B) {
			tree := New(Options{DigestEnabled: digest})
			tree.Apply(createTxn(1, "/bench", nil, -1))
			data := make([]byte, 100)
			txns := make([]*proto.TxnEntry, b.N)
			for i := range txns {
				txns[i] = createTxn(int64(i+2), fmt.Sprintf("/bench/n%010d", i), data, -1)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for _, txn := range txns {
				if res := tree.Apply(txn); res.Err != proto.ErrOK {
					b.Fatal(res.Err)
				}
			}
		})
	}
}

func BenchmarkApplySetData(b *testing.B) {
	tree := New(Options{DigestEnabled: true})
	tree.Apply(createTxn(1, "/bench", nil, -1))
	data := make([]byte, 100)
	txn := setDataTxn(2, "/bench", data, 1)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		txn.Header.Zxid = int64(i + 2)
		if res := tree.Apply(txn); res.Err != proto.ErrOK {
			b.Fatal(res.Err)
		}
	}
}

// BenchmarkBuildMillionNodes builds a tree of 1,000,000 znodes with 100
// bytes of data each (1000 parents of 1000 children) and reports the heap
// the tree holds per node after a GC. It runs only with -bench.
func BenchmarkBuildMillionNodes(b *testing.B) {
	const parents, perParent, dataLen = 1000, 1000, 100
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		tree := millionTree(parents, perParent, dataLen)
		runtime.GC()
		runtime.ReadMemStats(&after)
		nodes := float64(tree.NodeCount())
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/nodes, "heap-B/node")
		b.ReportMetric(nodes, "nodes")
		runtime.KeepAlive(tree)
	}
}

// millionTree builds a tree of parents x perParent znodes of dataLen
// bytes: /bench-PPPP/node-CCCCCCCCCC.
func millionTree(parents, perParent, dataLen int) *Tree {
	tree := New(Options{DigestEnabled: true})
	zxid := int64(1)
	txn := &proto.TxnEntry{Header: proto.TxnHeader{ClientId: 1, Type: int32(proto.OpCreate)}}
	data := make([]byte, dataLen)
	for p := range parents {
		parent := fmt.Sprintf("/bench-%04d", p)
		txn.Header.Zxid, txn.Header.Time = zxid, zxid
		txn.Body = &proto.CreateTxn{Path: parent, Acl: proto.OpenACLUnsafe, ParentCVersion: -1}
		tree.Apply(txn)
		zxid++
		for c := range perParent {
			path := fmt.Sprintf("%s/node-%010d", parent, c)
			txn.Header.Zxid, txn.Header.Time = zxid, zxid
			txn.Body = &proto.CreateTxn{Path: path, Data: data, Acl: proto.OpenACLUnsafe, ParentCVersion: -1}
			tree.Apply(txn)
			zxid++
		}
	}
	return tree
}

// BenchmarkGetDataMillion reads random nodes of a tree of 1,000,000, so
// that the lookup's memory accesses miss the caches as a server's do.
// Each path is written into one buffer first, as a server decodes it
// from a request: the strings the tree was built from are not read (a
// tree that kept them as its keys would find them in the cache).
func BenchmarkGetDataMillion(b *testing.B) {
	const parents, perParent = 1000, 1000
	tree := millionTree(parents, perParent, 100)
	rng := rand.New(rand.NewPCG(1, 2))
	order := make([]int32, 1<<16)
	for i := range order {
		order[i] = int32(rng.IntN(parents * perParent))
	}
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		k := int(order[i&(len(order)-1)])
		buf = fmt.Appendf(buf[:0], "/bench-%04d/node-%010d", k/perParent, k%perParent)
		if _, _, _, ok := tree.GetData(unsafe.String(&buf[0], len(buf))); !ok {
			b.Fatal("missing")
		}
	}
}

// BenchmarkGCMillion times a full collection with a tree of 1,000,000
// znodes live: the marking every cycle of a server holding it pays.
func BenchmarkGCMillion(b *testing.B) {
	tree := millionTree(1000, 1000, 100)
	runtime.GC()
	b.ResetTimer()
	for b.Loop() {
		runtime.GC()
	}
	runtime.KeepAlive(tree)
}
