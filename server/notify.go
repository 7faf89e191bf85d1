package server

import (
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/netio"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/watches"
)

// encodeNotification writes the payload of a watch notification frame:
// ZooKeeper 3.8 puts xid -1 and zxid -1 in the header of every one.
func encodeNotification(w *jute.Writer, ev proto.WatcherEvent) {
	hdr := proto.ReplyHeader{Xid: proto.XidNotification, Zxid: -1}
	hdr.Encode(w)
	ev.Encode(w)
}

// notifyWatchers delivers one event of the data tree to every connection
// the watch registry selected for it (watches.Manager.SetDelivery). It
// runs on the write goroutine, inside a batch: the frame is the same for
// every connection, so it is encoded once, and each connection's output is
// held like that of the batch's answers, so that releaseOutput writes each
// connection once, directly from this goroutine, instead of waking an
// event loop per connection. A notification queued behind a reply of the
// same connection stays behind it.
//
// As 3.8.0 with the fix of CVE-2024-23944 (Debian's 3.8.0, Apache's
// 3.8.4), a connection that may not READ the node the event is about
// (nodeACL) is not told; its watch is used up all the same.
func (s *Server) notifyWatchers(ev proto.WatcherEvent, nodeACL []proto.ACL, ws []watches.Watcher) {
	w := &s.notifyFrame
	w.Reset()
	encodeNotification(w, ev)
	frame := w.Bytes()
	// Identities only ever add permissions: when an anonymous connection
	// may read the node, every connection may, and nobody's identities
	// need looking at.
	everyone := s.acl.Allowed(nodeACL, proto.PermRead, nil)
	for _, x := range ws {
		c, ok := x.(*connection)
		if !ok {
			x.Notify(ev, nodeACL)
			continue
		}
		if c.closed.Load() || !everyone && !s.acl.Allowed(nodeACL, proto.PermRead, c.identities()) {
			continue
		}
		s.holdOutput(c)
		_ = c.nc.Send(frame)
		s.mon.sent(c, len(frame), 0, 0, false)
	}
	if w.Len() > maxReusedNotification {
		*w = jute.Writer{} // do not pin the buffer of a long path
	}
}

// maxReusedNotification bounds the notification buffer kept between
// events.
const maxReusedNotification = 4 << 10

// holdOutput holds c's output until the end of the write goroutine's
// current batch (releaseOutput), once however many answers and
// notifications the batch queues for it.
func (s *Server) holdOutput(c *connection) {
	if c.heldByFinal {
		return
	}
	c.heldByFinal = true
	c.nc.Hold()
	s.held = append(s.held, c)
}

// releaseOutput ends the batch's holds: each connection's queued output
// goes out in one write, shared with the event loops when a fan-out makes
// many (netio.ReleaseAll).
func (s *Server) releaseOutput() {
	for _, c := range s.held {
		c.heldByFinal = false
		s.releasing = append(s.releasing, c.nc)
	}
	netio.ReleaseAll(s.releasing)
	clear(s.held)
	s.held = s.held[:0]
	clear(s.releasing)
	s.releasing = s.releasing[:0]
}
