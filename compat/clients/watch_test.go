//go:build interop

package clients

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"
)

// ev is an event reduced to what the server decides.
type ev struct {
	typ  zk.EventType
	path string
}

func (e ev) String() string { return fmt.Sprintf("%v %s", e.typ, e.path) }

func created(p string) ev  { return ev{zk.EventNodeCreated, p} }
func deleted(p string) ev  { return ev{zk.EventNodeDeleted, p} }
func changed(p string) ev  { return ev{zk.EventNodeDataChanged, p} }
func children(p string) ev { return ev{zk.EventNodeChildrenChanged, p} }

// nodeEvents returns the node events c received so far, after a barrier.
func nodeEvents(t *testing.T, c *client) []ev {
	t.Helper()
	barrier(t, c)
	var out []ev
	for _, e := range c.rec.nodeEvents() {
		if e.State != zk.StateSyncConnected {
			t.Errorf("event %v %s has state %v, want StateSyncConnected", e.Type, e.Path, e.State)
		}
		out = append(out, ev{e.Type, e.Path})
	}
	return out
}

func wantEvents(t *testing.T, what string, got []ev, want ...ev) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: events %v, want %v", what, got, want)
	}
}

// notificationFrames counts the notification frames for path on c's
// connections.
func notificationFrames(c *client, path string) int {
	n := 0
	for _, f := range c.dial.tap.all() {
		if !f.out && f.xid == -1 && f.path == path {
			n++
		}
	}
	return n
}

// testWatchData: a data watch fires once, on setData or delete (§11).
func testWatchData(t *testing.T, e *env) {
	c, w := e.connect(t), e.connect(t)
	n := mustCreate(t, c, e.p("/n"), []byte("0"), 0, open)

	_, _, ch, err := w.GetW(n)
	must(t, "getw", err)
	_, err = c.Set(n, []byte("1"), -1)
	must(t, "set", err)
	got := nextEvent(t, "data watch", ch)
	if got.Type != zk.EventNodeDataChanged || got.Path != n || got.State != zk.StateSyncConnected {
		t.Errorf("data watch: %+v", got)
	}
	// One-shot: later changes are not reported.
	_, err = c.Set(n, []byte("2"), -1)
	must(t, "set", err)
	_, err = c.Set(n, []byte("3"), -1)
	must(t, "set", err)
	// setACL fires nothing.
	_, _, _, err = w.GetW(n)
	must(t, "getw", err)
	_, err = c.SetACL(n, open, -1)
	must(t, "setacl", err)
	wantEvents(t, "after a set, two more sets and a setACL", nodeEvents(t, w), changed(n))

	_, err = c.Set(n, []byte("4"), -1)
	must(t, "set", err)
	_, _, _, err = w.GetW(n)
	must(t, "getw", err)
	must(t, "delete", c.Delete(n, -1))
	wantEvents(t, "after a set and a delete", nodeEvents(t, w), changed(n), changed(n), deleted(n))
	wantEqual(t, "notification frames", notificationFrames(w, n), 3)
}

// testWatchExists: an exists watch is set whether or not the node exists.
func testWatchExists(t *testing.T, e *env) {
	c, w := e.connect(t), e.connect(t)
	n := e.p("/n")
	ok, _, ch, err := w.ExistsW(n)
	must(t, "existsw", err)
	if ok {
		t.Fatalf("%s exists", n)
	}
	mustCreate(t, c, n, nil, 0, open)
	got := nextEvent(t, "exists watch", ch)
	if got.Type != zk.EventNodeCreated || got.Path != n {
		t.Errorf("exists watch on a missing node: %+v", got)
	}

	_, _, _, err = w.ExistsW(n)
	must(t, "existsw", err)
	_, err = c.Set(n, []byte("x"), -1)
	must(t, "set", err)
	_, _, _, err = w.ExistsW(n)
	must(t, "existsw", err)
	must(t, "delete", c.Delete(n, -1))
	// Created and deleted again: the one-shot watch reports the creation
	// only.
	_, _, _, err = w.ExistsW(n)
	must(t, "existsw", err)
	mustCreate(t, c, n, nil, 0, open)
	must(t, "delete", c.Delete(n, -1))
	wantEvents(t, "exists watches", nodeEvents(t, w), created(n), changed(n), deleted(n), created(n))
}

// testWatchChildren: a child watch fires on child creation and deletion
// and on the node's own deletion, and ignores everything else.
func testWatchChildren(t *testing.T, e *env) {
	c, w := e.connect(t), e.connect(t)
	n := mustCreate(t, c, e.p("/n"), nil, 0, open)

	_, _, ch, err := w.ChildrenW(n)
	must(t, "childrenw", err)
	mustCreate(t, c, n+"/a", nil, 0, open)
	got := nextEvent(t, "child watch", ch)
	if got.Type != zk.EventNodeChildrenChanged || got.Path != n {
		t.Errorf("child watch: %+v", got)
	}

	_, _, _, err = w.ChildrenW(n)
	must(t, "childrenw", err)
	_, err = c.Set(n, []byte("x"), -1)
	must(t, "set node", err)
	_, err = c.Set(n+"/a", []byte("x"), -1)
	must(t, "set child", err)
	mustCreate(t, c, n+"/a/g", nil, 0, open)
	must(t, "delete grandchild", c.Delete(n+"/a/g", -1))
	wantEvents(t, "after data changes and a grandchild", nodeEvents(t, w), children(n))

	must(t, "delete child", c.Delete(n+"/a", -1))
	_, _, _, err = w.ChildrenW(n)
	must(t, "childrenw", err)
	mustCreate(t, c, n+"/e", nil, zk.FlagEphemeral, open)
	_, _, _, err = w.ChildrenW(n)
	must(t, "childrenw", err)
	must(t, "delete child", c.Delete(n+"/e", -1))
	_, _, _, err = w.ChildrenW(n)
	must(t, "childrenw", err)
	must(t, "delete node", c.Delete(n, -1))
	wantEvents(t, "all child watch events", nodeEvents(t, w), children(n), children(n), children(n), children(n), deleted(n))
}

// testWatchFailedReadSetsNone: getData and getChildren on a missing or
// forbidden node set no watch (§6.4, §6.8).
func testWatchFailedReadSetsNone(t *testing.T, e *env) {
	c, w := e.connect(t), e.connect(t)
	n := e.p("/n")
	_, _, _, err := w.GetW(n)
	wantErr(t, "getw missing", err, zk.ErrNoNode)
	_, _, _, err = w.ChildrenW(n)
	wantErr(t, "childrenw missing", err, zk.ErrNoNode)
	wo := mustCreate(t, c, e.p("/wo"), nil, 0, zk.WorldACL(zk.PermWrite|zk.PermCreate))
	_, _, _, err = w.GetW(wo)
	wantErr(t, "getw forbidden", err, zk.ErrNoAuth)
	_, _, _, err = w.ChildrenW(wo)
	wantErr(t, "childrenw forbidden", err, zk.ErrNoAuth)

	mustCreate(t, c, n, nil, 0, open)
	mustCreate(t, c, n+"/x", nil, 0, open)
	_, err = c.Set(n, []byte("x"), -1)
	must(t, "set", err)
	_, err = c.Set(wo, []byte("x"), -1)
	must(t, "set", err)
	mustCreate(t, c, wo+"/x", nil, 0, open)
	wantEvents(t, "after failed reads", nodeEvents(t, w))
}

// testWatchOneFramePerConnection: several watches of one connection on
// one node give one notification frame (§11.3).
func testWatchOneFramePerConnection(t *testing.T, e *env) {
	c, w, w2 := e.connect(t), e.connect(t), e.connect(t)
	n := mustCreate(t, c, e.p("/n"), nil, 0, open)
	var chans []<-chan zk.Event
	for i := 0; i < 2; i++ {
		_, _, ch, err := w.GetW(n)
		must(t, "getw", err)
		chans = append(chans, ch)
	}
	_, _, ch, err := w.ExistsW(n)
	must(t, "existsw", err)
	chans = append(chans, ch)
	_, _, _, err = w2.GetW(n)
	must(t, "getw", err)
	_, err = c.Set(n, []byte("x"), -1)
	must(t, "set", err)
	for i, ch := range chans {
		if got := nextEvent(t, "watch", ch); got.Type != zk.EventNodeDataChanged {
			t.Errorf("watch %d: %+v", i, got)
		}
	}
	wantEvents(t, "first connection", nodeEvents(t, w), changed(n))
	wantEvents(t, "second connection", nodeEvents(t, w2), changed(n))
	wantEqual(t, "notification frames for three watches", notificationFrames(w, n), 1)

	// A data, a child and an exist watch on a deleted node: one frame.
	d := mustCreate(t, c, e.p("/d"), nil, 0, open)
	_, _, _, err = w.GetW(d)
	must(t, "getw", err)
	_, _, _, err = w.ChildrenW(d)
	must(t, "childrenw", err)
	_, _, _, err = w.ExistsW(d)
	must(t, "existsw", err)
	must(t, "delete", c.Delete(d, -1))
	wantEvents(t, "after delete", nodeEvents(t, w), changed(n), deleted(d))
	wantEqual(t, "notification frames for the deleted node", notificationFrames(w, d), 1)
}

// testWatchOrderWithinTxn: one transaction's events come in table order
// (§11.3): the node's own event, then its parent's.
func testWatchOrderWithinTxn(t *testing.T, e *env) {
	c, w := e.connect(t), e.connect(t)
	q := mustCreate(t, c, e.p("/q"), nil, 0, open)
	p := q + "/p"

	_, _, _, err := w.ExistsW(p)
	must(t, "existsw", err)
	_, _, _, err = w.ChildrenW(q)
	must(t, "childrenw", err)
	mustCreate(t, c, p, nil, 0, open)
	wantEvents(t, "create", nodeEvents(t, w), created(p), children(q))

	_, _, _, err = w.GetW(p)
	must(t, "getw", err)
	_, _, _, err = w.ChildrenW(q)
	must(t, "childrenw", err)
	must(t, "delete", c.Delete(p, -1))
	wantEvents(t, "delete", nodeEvents(t, w)[2:], deleted(p), children(q))

	// A multi fires per op, in op order.
	_, _, _, err = w.ExistsW(q + "/a")
	must(t, "existsw", err)
	_, _, _, err = w.ExistsW(q + "/b")
	must(t, "existsw", err)
	_, _, _, err = w.ChildrenW(q)
	must(t, "childrenw", err)
	_, err = c.Multi(&zk.CreateRequest{Path: q + "/a", Acl: open}, &zk.CreateRequest{Path: q + "/b", Acl: open})
	must(t, "multi", err)
	wantEvents(t, "multi", nodeEvents(t, w)[4:], created(q+"/a"), children(q), created(q+"/b"))
}

// testWatchOrderAcrossTxns: events of different transactions come in
// zxid order.
func testWatchOrderAcrossTxns(t *testing.T, e *env) {
	c, w := e.connect(t), e.connect(t)
	var paths []string
	for _, name := range []string{"/a", "/b", "/c", "/d"} {
		paths = append(paths, mustCreate(t, c, e.p(name), nil, 0, open))
	}
	for _, p := range paths {
		_, _, _, err := w.GetW(p)
		must(t, "getw", err)
	}
	order := []int{2, 0, 3, 1}
	var want []ev
	for _, i := range order {
		_, err := c.Set(paths[i], []byte("x"), -1)
		must(t, "set", err)
		want = append(want, changed(paths[i]))
	}
	wantEvents(t, "sets", nodeEvents(t, w), want...)
}

// testNotificationBeforeReply: the client that makes a change gets the
// notification before the change's reply (§3.4).
func testNotificationBeforeReply(t *testing.T, e *env) {
	c := e.connect(t)
	n := mustCreate(t, c, e.p("/n"), nil, 0, open)
	k := n + "/k"

	step := func(what string, op int32, path string, notifyType zk.EventType, notifyPath string, do func() error) {
		t.Helper()
		before := len(c.rec.nodeEvents())
		must(t, what, do())
		// The receive loop handles frames in order, so the event must
		// already be recorded when the reply has been returned.
		evs := c.rec.nodeEvents()
		if len(evs) <= before {
			t.Errorf("%s: the notification had not arrived when the reply did", what)
		}
		frames := c.dial.tap.all()
		xid := int32(0)
		for _, f := range frames {
			if f.out && f.op == op && f.path == path {
				xid = f.xid
			}
		}
		notify, reply := -1, -1
		for i, f := range frames {
			if f.out {
				continue
			}
			if f.xid == -1 && f.op == int32(notifyType) && f.path == notifyPath && notify < 0 {
				notify = i
			}
			if xid != 0 && f.xid == xid {
				reply = i
			}
		}
		if notify < 0 || reply < 0 || notify > reply {
			t.Errorf("%s: notification at frame %d, reply at frame %d; frames:\n%s", what, notify, reply, framesString(frames))
		}
	}

	_, _, _, err := c.GetW(n)
	must(t, "getw", err)
	step("set", 5, n, zk.EventNodeDataChanged, n, func() error { _, err := c.Set(n, []byte("x"), -1); return err })
	_, _, _, err = c.ExistsW(k)
	must(t, "existsw", err)
	step("create", 1, k, zk.EventNodeCreated, k, func() error { _, err := c.Create(k, nil, 0, open); return err })
	_, _, _, err = c.ChildrenW(n)
	must(t, "childrenw", err)
	_, _, _, err = c.GetW(k)
	must(t, "getw", err)
	step("delete", 2, k, zk.EventNodeDeleted, k, func() error { return c.Delete(k, -1) })
	wantEvents(t, "events", nodeEvents(t, c), changed(n), created(k), deleted(k), children(n))
}

func framesString(frames []frame) string {
	var b strings.Builder
	for _, f := range frames {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// testWatchRootChildren: a child watch on / reports path "/".
func testWatchRootChildren(t *testing.T, e *env) {
	c, w := e.connect(t), e.connect(t)
	_, _, _, err := w.ChildrenW("/")
	must(t, "childrenw /", err)
	p := mustCreate(t, c, e.root+"-rootchild", nil, zk.FlagEphemeral, open)
	wantEvents(t, "child of /", nodeEvents(t, w), children("/"))
	must(t, "delete", c.Delete(p, -1))
}

// testEphemeralsOnClose: closing a session deletes its ephemerals and
// fires their watches (§12).
func testEphemeralsOnClose(t *testing.T, e *env) {
	a, w := e.connect(t), e.connect(t)
	eph := mustCreate(t, a, e.p("/eph"), []byte("e"), zk.FlagEphemeral, open)
	es := mustCreate(t, a, e.p("/es-"), nil, zk.FlagEphemeralSequential, open)
	mustCreate(t, a, e.p("/keep"), nil, 0, open)
	_, _, _, err := w.ExistsW(eph)
	must(t, "existsw", err)
	_, _, _, err = w.GetW(es)
	must(t, "getw", err)
	_, _, _, err = w.ChildrenW(e.root)
	must(t, "childrenw", err)
	before := mustStat(t, w, e.root)

	a.Close()
	for _, want := range []ev{deleted(eph), deleted(es), children(e.root)} {
		w.rec.waitFor(t, 0, want.String(), func(got zk.Event) bool { return got.Type == want.typ && got.Path == want.path })
	}
	got := nodeEvents(t, w)
	sort.Slice(got, func(i, j int) bool { return got[i].String() < got[j].String() })
	wantEvents(t, "events (sorted)", got, children(e.root), deleted(eph), deleted(es))
	wantExists(t, w, eph, false)
	wantExists(t, w, es, false)
	wantExists(t, w, e.p("/keep"), true)
	after := mustStat(t, w, e.root)
	wantEqual(t, "parent cversion", after.Cversion, before.Cversion+2)
	wantEqual(t, "parent numChildren", after.NumChildren, before.NumChildren-2)
	if after.Pzxid <= before.Pzxid || after.Mzxid != before.Mzxid {
		t.Errorf("parent stat after the close: %+v (before %+v)", *after, *before)
	}
	// Removal by a session close does not advance the sequence counter.
	wantEqual(t, "next sequential", mustCreate(t, w, e.p("/s-"), nil, zk.FlagSequence, open), e.p("/s-0000000003"))
}
