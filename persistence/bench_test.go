package persistence

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gozk/gozk/proto"
)

// benchTxnPayload makes testTxn about 150 bytes, a typical small setData.
const benchTxnPayload = 86

// BenchmarkAppend measures one Append of a batch of ~150-byte txns. With
// sync=true each op includes the WAL fsync; fsyncs/op counts the real
// sync calls Pebble makes, to show one flush serves the whole batch.
func BenchmarkAppend(b *testing.B) {
	for _, forceSync := range []bool{true, false} {
		for _, size := range []int{1, 16, 128} {
			b.Run(fmt.Sprintf("sync=%t/batch=%d", forceSync, size), func(b *testing.B) {
				opts := Options{Dir: b.TempDir(), ForceSync: forceSync}
				syncs := countSyncs(&opts)
				l := openTest(b, opts)
				// One buffer per slot, its header zxid rewritten for
				// each op, so the loop itself allocates nothing.
				batch := make([]Entry, size)
				for i := range batch {
					batch[i].Data = testTxn(1, benchTxnPayload)
				}
				b.SetBytes(int64(size * len(batch[0].Data)))
				b.ReportAllocs()
				before := syncs.Load()
				zxid := int64(0)
				b.ResetTimer()
				for b.Loop() {
					for i := range batch {
						zxid++
						batch[i].Zxid = zxid
						binary.BigEndian.PutUint64(batch[i].Data[txnHeaderZxidOffset:], uint64(zxid))
					}
					if err := l.Append(batch); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(syncs.Load()-before)/float64(b.N), "fsyncs/op")
				b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "txns/s")
			})
		}
	}
}

// BenchmarkReplay measures reading back 100,000 txns from sstables, as a
// restart does.
func BenchmarkReplay(b *testing.B) {
	const total = 100_000
	l := openTest(b, Options{Dir: b.TempDir()})
	var bytesLogged int64
	for first := int64(1); first <= total; first += 1000 {
		batch := make([]Entry, 1000)
		for i := range batch {
			z := first + int64(i)
			batch[i] = Entry{Zxid: z, Data: testTxn(z, benchTxnPayload)}
			bytesLogged += int64(len(batch[i].Data))
		}
		if err := l.Append(batch); err != nil {
			b.Fatal(err)
		}
	}
	if err := l.db.Flush(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(bytesLogged)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		n := 0
		err := l.Replay(0, func(int64, []byte) error {
			n++
			return nil
		})
		if err != nil || n != total {
			b.Fatalf("replayed %d txns: %v", n, err)
		}
	}
	b.ReportMetric(float64(b.N*total)/b.Elapsed().Seconds(), "txns/s")
}

// BenchmarkSnapshotWrite measures writing and committing a snapshot of
// 100,000 znodes of 100 random bytes (ns/node, and the bytes of encoded
// records per second); the nodes are prepared beforehand, so the figure
// is the writer's: encoding, chunking, the table and its fsync.
func BenchmarkSnapshotWrite(b *testing.B) {
	const nodes = 100_000
	s := openTestStore(b, StoreOptions{DataDir: b.TempDir()})
	rng := rand.New(rand.NewPCG(1, 2))
	paths := make([]string, nodes)
	dns := make([]proto.DataNode, nodes)
	for i := range dns {
		if i > 0 {
			paths[i] = fmt.Sprintf("/bench/s%d-%d", i%64, i/64)
		}
		data := make([]byte, 100)
		for j := range data {
			data[j] = byte(rng.Uint32())
		}
		dns[i] = proto.DataNode{Data: data, Acl: -1, Stat: proto.StatPersisted{Czxid: int64(i), Mzxid: int64(i), Pzxid: int64(i), Ctime: 17e11, Mtime: 17e11}}
	}
	b.ReportAllocs()
	zxid := int64(0)
	var written int64
	for b.Loop() {
		zxid++
		w, err := s.CreateSnapshot(zxid)
		if err != nil {
			b.Fatal(err)
		}
		for i := range dns {
			if err := w.AddNode(paths[i], &dns[i]); err != nil {
				b.Fatal(err)
			}
		}
		info, err := w.Commit(nil)
		if err != nil {
			b.Fatal(err)
		}
		written += info.Bytes
		b.StopTimer()
		if err := s.DeleteSnapshot(zxid); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nodes), "ns/node")
	b.ReportMetric(float64(written)/1e6/b.Elapsed().Seconds(), "MB/s")
}
