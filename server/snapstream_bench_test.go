package server

import (
	"io"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// BenchmarkWriteSnapStream measures a SNAP stream of a 100,000-node tree
// (100 bytes of random data each, under 100 parents, a tenth of them with
// an ACL of their own list) to a writer that discards it: the leader's
// side of a learner's SNAP without the network. MB/s is the stream's
// bytes; allocs/op are the whole stream's.
func BenchmarkWriteSnapStream(b *testing.B) {
	const nodes = 100_000
	s := startBenchServer(b, false)
	rng := rand.New(rand.NewPCG(3, 4))
	zxid := s.LastZxid()
	apply := func(body jute.Record, op proto.OpCode) {
		zxid++
		s.tree.Apply(&proto.TxnEntry{Header: proto.TxnHeader{ClientId: 1, Zxid: zxid, Time: zxid, Type: int32(op)}, Body: body})
	}
	for p := range 100 {
		apply(&proto.CreateTxn{Path: "/p" + strconv.Itoa(p), Acl: proto.OpenACLUnsafe, ParentCVersion: int32(p + 1)}, proto.OpCreate)
	}
	for i := range nodes {
		data := make([]byte, 100)
		for j := range data {
			data[j] = byte(rng.Uint32())
		}
		acl := proto.OpenACLUnsafe
		if i%10 == 0 {
			acl = []proto.ACL{{Perms: proto.PermRead, Id: proto.Id{Scheme: "digest", Id: "u" + strconv.Itoa(i%50) + ":x"}}}
		}
		apply(&proto.CreateTxn{Path: "/p" + strconv.Itoa(i%100) + "/n" + strconv.Itoa(i), Data: data, Acl: acl, ParentCVersion: int32(i/100 + 1)}, proto.OpCreate)
	}
	var size int64
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		ss := s.StartSnapStream()
		n, err := ss.WriteTo(io.Discard)
		if err != nil {
			b.Fatal(err)
		}
		size = n
	}
	b.StopTimer()
	b.SetBytes(size)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nodes), "ns/node")
}
