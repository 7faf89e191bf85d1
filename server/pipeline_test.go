package server

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gozk/gozk/proto"
)

// TestPipelinedWritesAnswerInOrderOnceDurable has sessions keep several
// writes in flight with forceSync on, so that batches are handed to the
// log while earlier ones are still on the disk. Every answer must come in
// the session's request order, with zxids rising, for a txn the log
// already counts as durable, and a write that fails in prep (a setData
// with a stale version) must fail in its place without holding up the
// others.
func TestPipelinedWritesAnswerInOrderOnceDurable(t *testing.T) {
	cfg := Defaults()
	cfg.ClientAddr = "127.0.0.1:0"
	cfg.DataDir = t.TempDir()
	cfg.ForceSync = true
	cfg.TickTime = 2 * time.Second
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	const (
		sessions = 8
		writes   = 300
		window   = 8
	)
	var wg sync.WaitGroup
	errs := make(chan string, sessions)
	for i := range sessions {
		c := dialBench(t, s)
		path := "/p-" + strconv.Itoa(i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fail := func(format string, a ...any) {
				errs <- path + ": " + fmt.Sprintf(format, a...)
			}
			// Request k: k == 0 creates the node, every 10th is a setData
			// with a version the node never has, the rest setData with
			// version -1.
			request := func(k int) {
				switch {
				case k == 0:
					c.queue(proto.OpCreate, &proto.CreateRequest{Path: path, Data: []byte("0"), Acl: proto.OpenACLUnsafe})
				case k%10 == 0:
					c.queue(proto.OpSetData, &proto.SetDataRequest{Path: path, Data: []byte("x"), Version: 1 << 30})
				default:
					c.queue(proto.OpSetData, &proto.SetDataRequest{Path: path, Data: []byte(strconv.Itoa(k)), Version: -1})
				}
			}
			sent, done := 0, 0
			lastZxid := int64(0)
			for done < writes {
				for sent < writes && sent-done < window {
					request(sent)
					sent++
				}
				if _, err := c.nc.Write(c.out.Bytes()); err != nil {
					fail("write: %v", err)
					return
				}
				c.out.Reset()
				f, err := c.readFrame()
				if err != nil || len(f) < 16 {
					fail("reply %d: %v (%d bytes)", done, err, len(f))
					return
				}
				xid := int32(binary.BigEndian.Uint32(f[0:]))
				zxid := int64(binary.BigEndian.Uint64(f[4:]))
				code := int32(binary.BigEndian.Uint32(f[12:]))
				if want := int32(done + 1); xid != want {
					fail("reply %d has xid %d, want %d", done, xid, want)
					return
				}
				wantCode := int32(0)
				if done > 0 && done%10 == 0 {
					wantCode = int32(proto.ErrBadVersion)
				}
				if code != wantCode {
					fail("reply %d: error %d, want %d", done, code, wantCode)
					return
				}
				if zxid < lastZxid {
					fail("reply %d: zxid 0x%x after 0x%x", done, zxid, lastZxid)
					return
				}
				if durable := s.txnLog.LastZxid(); code == 0 && durable < zxid {
					fail("reply %d for txn 0x%x came before it was durable (log at 0x%x)", done, zxid, durable)
					return
				}
				lastZxid = zxid
				done++
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
