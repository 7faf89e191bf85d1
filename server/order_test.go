package server

import (
	"encoding/binary"
	"strconv"
	"testing"
	"time"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// Reads, pings and writes sent in one burst on one connection: each read
// waits for the writes ahead of it, so the replies come in request order
// (a ping's says -2) and each getData sees the setData just before it.
// Under the invariants tag the server checks the same order itself.
func TestReadsBehindWritesAnswerInRequestOrder(t *testing.T) {
	cfg := Defaults()
	cfg.ClientAddr = "127.0.0.1:0"
	cfg.DataDir = t.TempDir()
	cfg.ForceSync = true // writes stay in flight while the reads arrive
	cfg.TickTime = 2 * time.Second
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := dialBench(t, s)

	const rounds = 50
	type want struct {
		xid  int32
		data string // for a getData
	}
	var wants []want
	queue := func(op proto.OpCode, rec jute.Record, data string) {
		c.queue(op, rec)
		xid := c.xid
		if op == proto.OpPing {
			xid = proto.XidPing
		}
		wants = append(wants, want{xid, data})
	}
	queue(proto.OpCreate, &proto.CreateRequest{Path: "/o", Acl: proto.OpenACLUnsafe}, "")
	for i := range rounds {
		v := strconv.Itoa(i)
		queue(proto.OpSetData, &proto.SetDataRequest{Path: "/o", Data: []byte(v), Version: -1}, "")
		queue(proto.OpGetData, &proto.GetDataRequest{Path: "/o"}, v)
		queue(proto.OpPing, noBody{}, "")
		queue(proto.OpExists, &proto.ExistsRequest{Path: "/o"}, "")
	}
	c.flush(t)
	for i, w := range wants {
		f := c.read(t)
		if len(f) < 16 {
			t.Fatalf("reply %d: %d bytes", i, len(f))
		}
		xid := int32(binary.BigEndian.Uint32(f))
		if code := proto.ErrCode(int32(binary.BigEndian.Uint32(f[12:]))); code != proto.ErrOK {
			t.Fatalf("reply %d (xid %d): %s", i, xid, code.Name())
		}
		if xid != w.xid {
			t.Fatalf("reply %d has xid %d, want %d: replies out of request order", i, xid, w.xid)
		}
		if w.data == "" {
			continue
		}
		var resp proto.GetDataResponse
		if err := jute.Unmarshal(f[16:], &resp); err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
		if string(resp.Data) != w.data {
			t.Fatalf("getData %d read %q, want %q written just before it", i, resp.Data, w.data)
		}
	}
}

// noBody is the empty record of a ping.
type noBody struct{}

func (noBody) Encode(*jute.Writer) {}
func (noBody) Decode(*jute.Reader) {}
