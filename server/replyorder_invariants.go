//go:build invariants

package server

import (
	"sync"

	"github.com/gozk/gozk/internal/invariants"
	"github.com/gozk/gozk/proto"
)

// replyOrder checks, under the invariants tag, that a connection's replies
// go out in the order of its requests, as a client's pending queue
// expects (Java's client matches each reply against the head of it). It
// remembers the xid each request's reply will carry; a reply must match
// one of them, and every request ahead of that one has had its reply or
// gets none (a check sent alone, a read after the connection closed).
// Auth replies and the handshake answer at once and are not counted;
// notifications are not replies.
type replyOrder struct {
	mu      sync.Mutex
	waiting []int32 // reply xids, oldest request first
}

// requested records a request whose reply is due in arrival order.
func (o *replyOrder) requested(xid int32, op proto.OpCode) {
	if op == proto.OpPing {
		xid = proto.XidPing // whatever the ping's xid, its reply says -2
	}
	o.mu.Lock()
	o.waiting = append(o.waiting, xid)
	o.mu.Unlock()
}

// replied checks a reply carrying xid against the requests awaiting one.
func (o *replyOrder) replied(xid int32) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i, w := range o.waiting {
		if w == xid {
			n := copy(o.waiting, o.waiting[i+1:])
			o.waiting = o.waiting[:n]
			return
		}
	}
	invariants.Violated("reply order: a reply with xid %d matches no request still awaiting one (awaiting xids %v, oldest first): replies must follow request order",
		xid, o.waiting)
}
