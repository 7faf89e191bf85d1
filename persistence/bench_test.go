package persistence

import (
	"encoding/binary"
	"fmt"
	"testing"
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
