package server

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// wantNotification is the payload 3.8.0 sends for a watch event: xid -1,
// zxid -1, error 0, then the WatcherEvent with state SyncConnected.
func wantNotification(typ proto.EventType, path string) []byte {
	var w jute.Writer
	w.WriteInt(-1)
	w.WriteLong(-1)
	w.WriteInt(0)
	w.WriteInt(int32(typ))
	w.WriteInt(int32(proto.StateSyncConnected))
	w.WriteString(path)
	return w.Bytes()
}

// TestFanOutFrames checks the frames one event sends to many connections:
// the same bytes for each, after any reply queued before them (the
// setter's own notification precedes its setData reply, as in Java), and
// none to a connection that may not READ the node.
func TestFanOutFrames(t *testing.T) {
	s := startTestServer(t, t.TempDir(), func(c *Config) { c.MaxClientCnxns = 0 })
	setter := dialBench(t, s)
	setter.queue(proto.OpAuth, &proto.AuthPacket{Scheme: "digest", Auth: []byte("u:p")})
	setter.queue(proto.OpCreate, &proto.CreateRequest{Path: "/fan", Acl: proto.OpenACLUnsafe})
	setter.queue(proto.OpCreate, &proto.CreateRequest{Path: "/private",
		Acl: []proto.ACL{{Perms: proto.PermAll, Id: proto.Id{Scheme: "auth"}}}})
	setter.flush(t)
	for range 3 {
		setter.readReply(t)
	}
	const watchers = 40
	ws := make([]*benchClient, watchers)
	for i := range ws {
		ws[i] = dialBench(t, s)
		ws[i].queue(proto.OpGetData, &proto.GetDataRequest{Path: "/fan", Watch: true})
		ws[i].queue(proto.OpExists, &proto.ExistsRequest{Path: "/private", Watch: true})
		ws[i].flush(t)
		ws[i].readReply(t)
		ws[i].readReply(t)
	}
	setter.queue(proto.OpGetData, &proto.GetDataRequest{Path: "/fan", Watch: true})
	setter.flush(t)
	setter.readReply(t)

	setter.queue(proto.OpSetData, &proto.SetDataRequest{Path: "/private", Data: []byte("x"), Version: -1})
	setter.queue(proto.OpSetData, &proto.SetDataRequest{Path: "/fan", Data: []byte("x"), Version: -1})
	setter.flush(t)
	setter.readReply(t) // /private: the setter watches nothing there
	want := wantNotification(proto.EventNodeDataChanged, "/fan")
	if f := setter.read(t); !bytes.Equal(f, want) {
		t.Fatalf("setter: frame %x, want the notification %x before its reply", f, want)
	}
	if f := setter.read(t); int32(binary.BigEndian.Uint32(f)) != setter.xid {
		t.Fatalf("setter: frame %x, want the reply of xid %d", f, setter.xid)
	}
	for i, w := range ws {
		// The anonymous watchers may not read /private: their first
		// frame must be /fan's event, and after it the reply of a
		// request sent now, not /private's.
		if f := w.read(t); !bytes.Equal(f, want) {
			t.Fatalf("watcher %d: frame %x, want %x", i, f, want)
		}
		w.queue(proto.OpExists, &proto.ExistsRequest{Path: "/fan"})
		w.flush(t)
		if f := w.read(t); int32(binary.BigEndian.Uint32(f)) != w.xid {
			t.Fatalf("watcher %d: frame %x, want the reply of xid %d", i, f, w.xid)
		}
	}
	if n := s.watches.WatchCount(); n != 0 {
		t.Errorf("%d watches left; the filtered ones are used up too", n)
	}
}
