package server

import (
	"math/rand/v2"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// BenchmarkTakeSnapshot measures one snapshot of a tree shaped like the
// one the create workload leaves: 200,000 znodes of 100 bytes under one
// parent, with 64 sessions' worth of names ("/bench/s12-3456"). The values
// are random bytes (nothing to compress) or text, as `gozk bench` writes
// (very compressible). One setData before each snapshot gives it a new
// zxid. ns/node is the snapshot's cost per znode written, the figure that,
// times the tree size and divided by the txns between snapshots, a create
// pays for snapshots; cpu-ns/node is the process's CPU time for the same,
// which is what shares the machine with the requests.
func BenchmarkTakeSnapshot(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	b.Run("random", func(b *testing.B) {
		benchmarkTakeSnapshot(b, func(data []byte) {
			for j := range data {
				data[j] = byte(rng.Uint32())
			}
		})
	})
	b.Run("text", func(b *testing.B) {
		benchmarkTakeSnapshot(b, func(data []byte) {
			for j := range data {
				data[j] = byte('a' + j%26)
			}
		})
	})
}

func benchmarkTakeSnapshot(b *testing.B, fill func([]byte)) {
	const nodes = 200_000
	s := startBenchServer(b, false)
	zxid := s.LastZxid()
	apply := func(body jute.Record, op proto.OpCode) {
		zxid++
		s.tree.Apply(&proto.TxnEntry{Header: proto.TxnHeader{ClientId: 1, Zxid: zxid, Time: zxid, Type: int32(op)}, Body: body})
	}
	apply(&proto.CreateTxn{Path: "/bench", Acl: proto.OpenACLUnsafe, ParentCVersion: 1}, proto.OpCreate)
	for i := range nodes {
		data := make([]byte, 100)
		fill(data)
		path := "/bench/s" + strconv.Itoa(i%64) + "-" + strconv.Itoa(i/64)
		apply(&proto.CreateTxn{Path: path, Data: data, Acl: proto.OpenACLUnsafe, ParentCVersion: int32(i + 1)}, proto.OpCreate)
	}
	b.ReportAllocs()
	cpu0 := processCPU(b)
	b.ResetTimer()
	for b.Loop() {
		apply(&proto.SetDataTxn{Path: "/bench", Data: []byte{byte(zxid)}, Version: -1}, proto.OpSetData)
		info, err := s.TakeSnapshot()
		if err != nil {
			b.Fatal(err)
		}
		if info.Nodes < nodes {
			b.Fatalf("snapshot of %d nodes", info.Nodes)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nodes), "ns/node")
	b.ReportMetric(float64((processCPU(b)-cpu0).Nanoseconds())/float64(b.N*nodes), "cpu-ns/node")
}

// processCPU is the CPU time (user and system) the process used so far:
// a snapshot's work is spread over goroutines (and Pebble's), and its wall
// time includes waiting for the disk.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
