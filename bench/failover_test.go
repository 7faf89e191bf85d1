package bench

import (
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gozk/gozk/proto"
)

var testDialOptions = dialOptions{sessionTimeout: 30 * time.Second, ioTimeout: 30 * time.Second}

func TestDialSessionReattaches(t *testing.T) {
	addr := startGozk(t)
	c, err := dial(addr, testDialOptions)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := c.call(proto.OpCreate, &proto.CreateRequest{Path: "/e", Acl: proto.OpenACLUnsafe, Flags: int32(proto.ModeEphemeral)})
	if err != nil || rep.err != proto.ErrOK {
		t.Fatalf("create: %v %v", err, rep.err)
	}
	id, passwd := c.sessionID, c.passwd
	if len(passwd) != proto.PasswordLength {
		t.Fatalf("password of %d bytes kept", len(passwd))
	}
	c.abort()
	c.recycle()

	if _, err := dialSession(addr, testDialOptions, id, make([]byte, proto.PasswordLength), rep.zxid); err == nil {
		t.Fatal("reattached with a wrong password")
	}
	c2, err := dialSession(addr, testDialOptions, id, passwd, rep.zxid)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.close()
	if c2.sessionID != id {
		t.Fatalf("session 0x%x, want 0x%x", c2.sessionID, id)
	}
	// The ephemeral node is the session's: still there, with its owner.
	rep, err = c2.call(proto.OpExists, &proto.ExistsRequest{Path: "/e"})
	if err != nil || rep.err != proto.ErrOK {
		t.Fatalf("exists after the reattach: %v %v", err, rep.err)
	}
}

// A writer that loses its connection tries the next address (here one
// that refuses), then the next, until its session is back, and counts
// the first write issued after the kill.
func TestWriterReconnectsAfterLoss(t *testing.T) {
	addr := startGozk(t)
	refused, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	c, err := dial(addr, testDialOptions)
	if err != nil {
		t.Fatal(err)
	}
	if err := createIgnoreExists(c, failoverRoot, nil); err != nil {
		t.Fatal(err)
	}
	if err := createIgnoreExists(c, failoverRoot+"/w0", nil); err != nil {
		t.Fatal(err)
	}
	var killedAt atomic.Int64
	fc := FailoverConfig{}.withDefaults()
	w := &writer{fc: fc, addrs: []string{addr, "127.0.0.1:" + strconv.Itoa(refused)}, c: c, path: failoverRoot + "/w0",
		killedAt: &killedAt, acked: make(chan struct{}), sessionID: c.sessionID, passwd: c.passwd}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.run(stop)
	}()
	kill := time.Now()
	killedAt.Store(kill.UnixNano())
	c.abort() // the server "went away"
	select {
	case <-w.acked:
	case <-time.After(time.Minute):
		t.Fatalf("no write acknowledged after the loss (last error %v)", w.err)
	}
	close(stop)
	<-done
	if w.reconnects < 2 {
		t.Errorf("%d connection attempts, want the refused one and the good one", w.reconnects)
	}
	if w.ackAfterKill.Before(kill) {
		t.Errorf("acknowledgement at %v, before the loss at %v", w.ackAfterKill, kill)
	}
	if w.c != nil && w.c.sessionID != w.sessionID {
		t.Errorf("reconnected as session 0x%x, want 0x%x", w.c.sessionID, w.sessionID)
	}
	// The writer deleted its node on the way out.
	c3, err := dial(addr, testDialOptions)
	if err != nil {
		t.Fatal(err)
	}
	defer c3.close()
	if rep, err := c3.call(proto.OpExists, &proto.ExistsRequest{Path: failoverRoot + "/w0"}); err != nil || rep.err != proto.ErrNoNode {
		t.Errorf("the writer's node after it stopped: %v %v", err, rep.err)
	}
}
