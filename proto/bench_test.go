package proto_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// benchGetData is a getData reply with a 1 KiB value.
func benchGetData() *proto.GetDataResponse {
	return &proto.GetDataResponse{Data: bytes.Repeat([]byte{0xab}, 1024), Stat: seedStat}
}

// benchChildren is a getChildren reply with 1,000 sequential names.
func benchChildren() *proto.GetChildrenResponse {
	names := make([]string, 1000)
	for i := range names {
		names[i] = fmt.Sprintf("node-%010d", i)
	}
	return &proto.GetChildrenResponse{Children: names}
}

func benchFrame() []byte {
	return frame(42, proto.OpGetData, &proto.GetDataRequest{Path: "/service/config/node-0000000123", Watch: true})
}

func benchCreateTxn() *proto.TxnEntry {
	return &proto.TxnEntry{
		Header: proto.TxnHeader{ClientId: 0x1000001, Cxid: 7, Zxid: 0x100000009, Time: 1700000000000, Type: int32(proto.OpCreate)},
		Body: &proto.CreateTxn{Path: "/service/members/node-0000000123", Data: bytes.Repeat([]byte("v"), 128),
			Acl: proto.OpenACLUnsafe, Ephemeral: true, ParentCVersion: 123},
		Digest: &proto.TxnDigest{Version: proto.DigestVersion, TreeDigest: 0x5eed},
	}
}

// benchEncode measures encoding rec into a reused Writer.
func benchEncode(b *testing.B, rec jute.Record) {
	var w jute.Writer
	rec.Encode(&w)
	b.SetBytes(int64(w.Len()))
	b.ReportAllocs()
	for b.Loop() {
		w.Reset()
		rec.Encode(&w)
	}
}

// benchDecode measures decoding wire into a reused value.
func benchDecode(b *testing.B, wire []byte, rec jute.Record) {
	var r jute.Reader
	b.SetBytes(int64(len(wire)))
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(wire)
		rec.Decode(&r)
		if r.Err() != nil {
			b.Fatal(r.Err())
		}
	}
}

func BenchmarkGetDataResponseEncode(b *testing.B) { benchEncode(b, benchGetData()) }

func BenchmarkGetDataResponseDecode(b *testing.B) {
	benchDecode(b, jute.Marshal(benchGetData()), new(proto.GetDataResponse))
}

func BenchmarkGetChildrenResponseEncode(b *testing.B) { benchEncode(b, benchChildren()) }

func BenchmarkGetChildrenResponseDecode(b *testing.B) {
	benchDecode(b, jute.Marshal(benchChildren()), new(proto.GetChildrenResponse))
}

// BenchmarkFrameDecode decodes a getData request frame (RequestHeader and
// GetDataRequest) into reused values, as a connection's read loop would.
func BenchmarkFrameDecode(b *testing.B) {
	wire := benchFrame()
	var (
		r   jute.Reader
		hdr proto.RequestHeader
		req proto.GetDataRequest
	)
	b.SetBytes(int64(len(wire)))
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(wire)
		hdr.Decode(&r)
		if proto.OpCode(hdr.Type) != proto.OpGetData {
			b.Fatal("wrong opcode")
		}
		req.Decode(&r)
		if r.Err() != nil {
			b.Fatal(r.Err())
		}
	}
}

func BenchmarkTxnEntryEncodeCreate(b *testing.B) { benchEncode(b, benchCreateTxn()) }

func BenchmarkTxnEntryDecodeCreate(b *testing.B) {
	wire := benchCreateTxn().Marshal()
	b.SetBytes(int64(len(wire)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := proto.DecodeTxn(wire, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCodecAllocations pins the allocation counts the benchmarks report
// (counts, not times): encoding into a reused Writer allocates nothing,
// and decoding into a reused value allocates only the values themselves.
func TestCodecAllocations(t *testing.T) {
	encodes := map[string]jute.Record{
		"GetDataResponse":     benchGetData(),
		"GetChildrenResponse": benchChildren(),
		"TxnEntry":            benchCreateTxn(),
		"MultiResponse": &proto.MultiResponse{Results: []proto.MultiResult{
			{Type: proto.OpCreate, Path: "/a"}, {Type: proto.OpGetChildren, Children: []string{"x"}}, {Type: proto.OpError, Err: proto.ErrNoNode},
		}},
	}
	for name, rec := range encodes {
		var w jute.Writer
		rec.Encode(&w)
		if n := testing.AllocsPerRun(20, func() { w.Reset(); rec.Encode(&w) }); n != 0 {
			t.Errorf("encoding %s into a reused Writer: %v allocations", name, n)
		}
	}

	decodes := []struct {
		name string
		wire []byte
		rec  jute.Record
		want float64
	}{
		{"GetDataResponse", jute.Marshal(benchGetData()), new(proto.GetDataResponse), 1},             // the data
		{"GetChildrenResponse", jute.Marshal(benchChildren()), new(proto.GetChildrenResponse), 1000}, // the names
		{"Stat", jute.Marshal(&seedStat), new(proto.Stat), 0},
	}
	for _, d := range decodes {
		var r jute.Reader
		r.Reset(d.wire)
		d.rec.Decode(&r) // warm up: sizes the vectors
		n := testing.AllocsPerRun(20, func() {
			r.Reset(d.wire)
			d.rec.Decode(&r)
		})
		if r.Err() != nil {
			t.Fatal(r.Err())
		}
		if n != d.want {
			t.Errorf("decoding %s into a reused value: %v allocations, want %v", d.name, n, d.want)
		}
	}
}
