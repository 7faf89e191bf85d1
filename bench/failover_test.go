package bench

import (
	"strconv"
	"strings"
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
	c.abort() // the server "went away"
	// Marked once the connection is gone, as MeasureFailover marks the
	// leader's death: a write issued before could still be answered.
	kill := time.Now()
	killedAt.Store(kill.UnixNano())
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

func TestWriterCountsOnlyWritesIssuedAfterTheKill(t *testing.T) {
	var killedAt atomic.Int64
	w := &writer{killedAt: &killedAt, acked: make(chan struct{})}
	t0 := time.Unix(1000, 0)
	w.acknowledged(t0, t0.Add(time.Millisecond)) // before any kill
	kill := t0.Add(time.Second)
	killedAt.Store(kill.UnixNano())
	w.acknowledged(kill.Add(-time.Millisecond), kill.Add(300*time.Millisecond)) // issued before, answered after
	if !w.ackAfterKill.IsZero() {
		t.Fatalf("a write issued before the kill counted: %v", w.ackAfterKill)
	}
	w.acknowledged(kill.Add(400*time.Millisecond), kill.Add(500*time.Millisecond))
	w.acknowledged(kill.Add(600*time.Millisecond), kill.Add(700*time.Millisecond)) // only the first counts
	if got := w.ackAfterKill.Sub(kill); got != 500*time.Millisecond {
		t.Fatalf("acknowledged %v after the kill, want 500ms", got)
	}
	select {
	case <-w.acked:
	default:
		t.Fatal("acked not closed")
	}
}

func TestWriteFailoversMarksMissingServer(t *testing.T) {
	fs := []*Failover{{Server: "gozk", Run: 1, Killed: "gozk3", NewLeader: "gozk2", ExistingMs: 500, ExistingAllMs: 510, NewSessionMs: 520}}
	var b strings.Builder
	WriteFailovers(&b, fs, SummarizeFailovers(fs))
	out := b.String()
	for _, want := range []string{"gozk3", "500.0", "520.0", "over 1 gozk and 0 Java runs"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Java's column and the ratios are dashes, not zeros.
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "new session: connect + create") {
			if f := strings.Fields(line); len(f) < 3 || f[len(f)-1] != "-" || f[len(f)-2] != "-" || f[len(f)-3] != "520.0" {
				t.Errorf("summary line %q", line)
			}
		}
	}
}
