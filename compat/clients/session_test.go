//go:build interop

package clients

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// reconnected waits until c has lost its connection (at or after event
// index from) and then has a session again; it returns the index of the
// HasSession event.
func reconnected(t *testing.T, c *client, from int) int {
	t.Helper()
	i := c.waitSession(t, from, zk.StateDisconnected)
	return c.waitSession(t, i, zk.StateHasSession)
}

// testSessionExpiry: a session whose client goes silent expires, its
// ephemerals go with it, and the client learns it on reconnecting
// (§12.3).
func testSessionExpiry(t *testing.T, e *env) {
	// 4 s is the smallest timeout with tickTime 2000.
	a := connectTimeout(t, e.srv.Addr(), 4*time.Second)
	w := e.connect(t)
	sid := a.SessionID()
	eph := mustCreate(t, a, e.p("/eph"), nil, zk.FlagEphemeral, open)
	_, _, ch, err := w.ExistsW(eph)
	must(t, "existsw", err)
	_, _, _, err = w.ChildrenW(e.root)
	must(t, "childrenw", err)

	// Silence a: drop its connection and refuse new ones, so that it
	// neither pings nor resumes.
	a.dial.setRefuse(true)
	from := a.rec.count()
	a.dial.drop()
	got := nextEvent(t, "expiry of the ephemeral's session", ch)
	if got.Type != zk.EventNodeDeleted || got.Path != eph {
		t.Errorf("expiry: %+v", got)
	}
	wantEvents(t, "watcher", nodeEvents(t, w), deleted(eph), children(e.root))
	wantExists(t, w, eph, false)

	// Let a reconnect: the server refuses the old session, and the
	// client starts a new one.
	a.dial.setRefuse(false)
	i := a.waitSession(t, from, zk.StateExpired)
	a.waitSession(t, i, zk.StateHasSession)
	if a.SessionID() == sid || a.SessionID() == 0 {
		t.Errorf("session id after expiry: %#x (was %#x)", a.SessionID(), sid)
	}
	mustCreate(t, a, eph, nil, zk.FlagEphemeral, open)
	wantEqual(t, "new ephemeralOwner", mustStat(t, w, eph).EphemeralOwner, a.SessionID())
}

// testReconnectSameSession: dropping the TCP connection does not end the
// session; the client resumes it with its ephemerals, and its watches
// catch up on what changed meanwhile (§6.16).
func testReconnectSameSession(t *testing.T, e *env) {
	a := e.connect(t)
	sid := a.SessionID()
	eph := mustCreate(t, a, e.p("/eph"), []byte("e"), zk.FlagEphemeral, open)
	d := mustCreate(t, a, e.p("/d"), []byte("0"), 0, open)
	same := mustCreate(t, a, e.p("/same"), []byte("0"), 0, open)
	later := e.p("/later")

	// A plain drop: the client reconnects at once.
	from := a.rec.count()
	dials := a.dial.dialCount()
	a.dial.drop()
	reconnected(t, a, from)
	if a.dial.dialCount() == dials {
		t.Fatalf("the client did not dial again")
	}
	wantEqual(t, "session id after a drop", a.SessionID(), sid)
	wantEqual(t, "ephemeralOwner after a drop", mustStat(t, a, eph).EphemeralOwner, sid)

	// Changes while the client is away are reported by the SetWatches
	// the client sends when it is back.
	_, _, _, err := a.GetW(d)
	must(t, "getw", err)
	_, _, _, err = a.ChildrenW(d)
	must(t, "childrenw", err)
	_, _, _, err = a.GetW(same)
	must(t, "getw", err)
	_, _, _, err = a.ExistsW(later)
	must(t, "existsw", err)
	a.dial.setRefuse(true)
	from = a.rec.count()
	a.dial.drop()
	a.waitSession(t, from, zk.StateDisconnected)
	b := e.connect(t)
	_, err = b.Set(d, []byte("1"), -1)
	must(t, "set while away", err)
	mustCreate(t, b, d+"/k", nil, 0, open)
	mustCreate(t, b, later, nil, 0, open)
	a.dial.setRefuse(false)
	reconnected(t, a, from)
	wantEqual(t, "session id after being away", a.SessionID(), sid)
	// The catch-up events come before the SetWatches reply, so before the
	// reply of any later request.
	for _, want := range []ev{changed(d), created(later), children(d)} {
		a.rec.waitFor(t, 0, want.String(), func(got zk.Event) bool { return got.Type == want.typ && got.Path == want.path })
	}
	// SetWatches answers its data list, then its exist list, then its
	// child list.
	wantEvents(t, "catch-up events", nodeEvents(t, a), changed(d), created(later), children(d))

	// The unchanged node's watch was registered again and still works.
	_, err = b.Set(same, []byte("1"), -1)
	must(t, "set", err)
	a.rec.waitFor(t, 0, "data watch registered again", func(got zk.Event) bool {
		return got.Type == zk.EventNodeDataChanged && got.Path == same
	})
	wantEqual(t, "ephemeralOwner after being away", mustStat(t, b, eph).EphemeralOwner, sid)
	data, _ := mustGet(t, a, eph)
	wantEqual(t, "ephemeral data", string(data), "e")
}

// testContainers: containers are reaped once their last child is gone,
// bottom-up, and never if they never had a child (§8.4).
func testContainers(t *testing.T, e *env) {
	c := e.connect(t)
	ct, err := c.CreateContainer(e.p("/c"), []byte("c"), zk.FlagContainer, open)
	must(t, "create container", err)
	wantEqual(t, "container ephemeralOwner", mustStat(t, c, ct).EphemeralOwner, int64(0))
	never, err := c.CreateContainer(e.p("/never"), nil, zk.FlagContainer, open)
	must(t, "create container", err)
	// flags 4 in a create op of a multi make a real container (Java turns
	// the op into createContainer), answered with a create2-type result
	// that go-zookeeper cannot decode, hence ErrAPIError.
	m4 := e.p("/m4")
	_, err = c.Multi(&zk.CreateRequest{Path: m4, Acl: open, Flags: zk.FlagContainer})
	wantErr(t, "multi create with flags 4", err, zk.ErrAPIError)
	wantEqual(t, "multi container ephemeralOwner", mustStat(t, c, m4).EphemeralOwner, int64(0))
	mustCreate(t, c, m4+"/x", nil, 0, open)
	must(t, "delete", c.Delete(m4+"/x", -1))

	mustCreate(t, c, ct+"/x", nil, 0, open)
	mustCreate(t, c, ct+"/y", nil, zk.FlagEphemeral, open)
	wantErr(t, "delete a container with children", c.Delete(ct, -1), zk.ErrNotEmpty)
	must(t, "delete child", c.Delete(ct+"/x", -1))
	must(t, "delete child", c.Delete(ct+"/y", -1))
	waitGone(t, c, ct)
	waitGone(t, c, m4)
	// The passes that reaped ct and m4 saw this one too.
	wantExists(t, c, never, true)

	// Nested containers go bottom-up.
	o, err := c.CreateContainer(e.p("/o"), nil, zk.FlagContainer, open)
	must(t, "create outer", err)
	i, err := c.CreateContainer(o+"/i", nil, zk.FlagContainer, open)
	must(t, "create inner", err)
	mustCreate(t, c, i+"/x", nil, 0, open)
	w := e.connect(t)
	_, _, _, err = w.ExistsW(o)
	must(t, "existsw", err)
	_, _, _, err = w.ExistsW(i)
	must(t, "existsw", err)
	must(t, "delete", c.Delete(i+"/x", -1))
	waitGone(t, c, o)
	wantEvents(t, "reaping order", nodeEvents(t, w), deleted(i), deleted(o))

	// A container whose ephemeral child goes with its session.
	ce, err := c.CreateContainer(e.p("/ce"), nil, zk.FlagContainer, open)
	must(t, "create container", err)
	a := e.connect(t)
	mustCreate(t, a, ce+"/e", nil, zk.FlagEphemeral, open)
	a.Close()
	waitGone(t, c, ce)

	// A container can be deleted explicitly.
	cd, err := c.CreateContainer(e.p("/cd"), nil, zk.FlagContainer, open)
	must(t, "create container", err)
	must(t, "delete container", c.Delete(cd, 0))
}

// testTTL: TTL nodes are reaped when their TTL has passed and they have
// no children (§8.4).
func testTTL(t *testing.T, e *env) {
	c := e.connect(t)
	ttl := 300 * time.Millisecond
	// kept is created first so that it expires no later than gone.
	kept, err := c.CreateTTL(e.p("/kept"), nil, zk.FlagTTL, open, ttl)
	must(t, "create ttl", err)
	mustCreate(t, c, kept+"/x", nil, 0, open)
	gone, err := c.CreateTTL(e.p("/gone"), []byte("g"), zk.FlagTTL, open, ttl)
	must(t, "create ttl", err)
	seq, err := c.CreateTTL(e.p("/s-"), nil, zk.FlagPersistentSequentialWithTTL, open, ttl)
	must(t, "create ttl sequential", err)
	wantEqual(t, "ttl sequential", seq, e.p("/s-0000000002"))
	long, err := c.CreateTTL(e.p("/long"), nil, zk.FlagTTL, open, time.Hour)
	must(t, "create ttl", err)
	for _, p := range []string{kept, gone, seq, long} {
		wantEqual(t, "ephemeralOwner of "+p, mustStat(t, c, p).EphemeralOwner, int64(0))
	}
	// Children of any kind are allowed.
	mustCreate(t, c, long+"/e", nil, zk.FlagEphemeral, open)
	_, err = c.CreateContainer(long+"/c", nil, zk.FlagContainer, open)
	must(t, "container under a ttl node", err)

	waitGone(t, c, gone)
	waitGone(t, c, seq)
	wantExists(t, c, kept, true)
	wantExists(t, c, long, true)
	must(t, "delete child", c.Delete(kept+"/x", -1))
	waitGone(t, c, kept)
	wantExists(t, c, long, true)
}

// testTTLDisabled: without extendedTypesEnabled TTL creates are
// Unimplemented (§6.1).
func testTTLDisabled(t *testing.T, e *env) {
	c := e.connect(t)
	_, err := c.CreateTTL("/t", nil, zk.FlagTTL, open, time.Hour)
	wantErr(t, "create ttl", err, errUnimplemented)
	_, err = c.CreateTTL("/t-", nil, zk.FlagPersistentSequentialWithTTL, open, time.Hour)
	wantErr(t, "create ttl sequential", err, errUnimplemented)
	wantExists(t, c, "/t", false)
	_, err = c.CreateContainer("/c", nil, zk.FlagContainer, open)
	must(t, "create container", err)
}

// nodeState is everything a client can see of one node.
type nodeState struct {
	data     []byte
	stat     zk.Stat
	acl      []zk.ACL
	children []string
}

// dumpTree reads the whole tree below root.
func dumpTree(t *testing.T, c *client, root string) map[string]nodeState {
	t.Helper()
	out := map[string]nodeState{}
	var walk func(p string)
	walk = func(p string) {
		data, st, err := c.Get(p)
		must(t, "get "+p, err)
		acl, _, err := c.GetACL(p)
		must(t, "getacl "+p, err)
		kids, _, err := c.Children(p)
		must(t, "children "+p, err)
		sort.Strings(kids)
		out[p] = nodeState{data: data, stat: *st, acl: acl, children: kids}
		for _, k := range kids {
			if p == "/" {
				walk("/" + k)
			} else {
				walk(p + "/" + k)
			}
		}
	}
	walk(root)
	return out
}

func diffTrees(t *testing.T, what string, before, after map[string]nodeState) {
	t.Helper()
	var paths []string
	for p := range before {
		paths = append(paths, p)
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	var diffs []string
	for _, p := range paths {
		b, inB := before[p]
		a, inA := after[p]
		switch {
		case !inA:
			diffs = append(diffs, p+": missing")
		case !inB:
			diffs = append(diffs, p+": appeared")
		default:
			if !bytes.Equal(a.data, b.data) || (a.data == nil) != (b.data == nil) {
				diffs = append(diffs, fmt.Sprintf("%s: data %q (nil %v), was %q (nil %v)", p, a.data, a.data == nil, b.data, b.data == nil))
			}
			if a.stat != b.stat {
				diffs = append(diffs, fmt.Sprintf("%s: stat %+v, was %+v", p, a.stat, b.stat))
			}
			if fmt.Sprint(a.acl) != fmt.Sprint(b.acl) {
				diffs = append(diffs, fmt.Sprintf("%s: acl %v, was %v", p, a.acl, b.acl))
			}
			if fmt.Sprint(a.children) != fmt.Sprint(b.children) {
				diffs = append(diffs, fmt.Sprintf("%s: children %v, was %v", p, a.children, b.children))
			}
		}
	}
	if len(diffs) > 0 {
		t.Errorf("%s: %d differences:\n%s", what, len(diffs), strings.Join(diffs, "\n"))
	}
}

func maxZxid(tree map[string]nodeState) int64 {
	var m int64
	for _, n := range tree {
		for _, z := range []int64{n.stat.Czxid, n.stat.Mzxid, n.stat.Pzxid} {
			if z > m {
				m = z
			}
		}
	}
	return m
}

// testRestartKeepsData: after a restart on the same data directory every
// node, stat, ACL and sequence counter is back.
func testRestartKeepsData(t *testing.T, e *env) {
	c := e.connect(t)
	must(t, "addauth", c.AddAuth("digest", []byte("alice:secret")))
	mustCreate(t, c, "/r", []byte("root"), 0, open)
	mustCreate(t, c, "/r/null", nil, 0, open)
	mustCreate(t, c, "/r/empty", []byte{}, 0, open)
	for i := 0; i < 3; i++ {
		mustCreate(t, c, "/r/s-", []byte(fmt.Sprint(i)), zk.FlagSequence, open)
	}
	must(t, "delete", c.Delete("/r/s-0000000003", -1))
	mustCreate(t, c, "/r/alice", []byte("secret"), 0, zk.AuthACL(zk.PermAll))
	mustCreate(t, c, "/r/ro", []byte("ro"), 0, zk.WorldACL(zk.PermRead))
	_, err := c.CreateContainer("/r/c", nil, zk.FlagContainer, open)
	must(t, "create container", err)
	mustCreate(t, c, "/r/c/x", nil, 0, open)
	_, err = c.CreateTTL("/r/t", []byte("ttl"), zk.FlagTTL, open, time.Hour)
	must(t, "create ttl", err)
	for i := 0; i < 3; i++ {
		_, err = c.Set("/r/empty", []byte(fmt.Sprint("v", i)), -1)
		must(t, "set", err)
	}
	_, err = c.SetACL("/r/null", zk.WorldACL(zk.PermRead|zk.PermWrite|zk.PermAdmin), -1)
	must(t, "setacl", err)
	mustCreate(t, c, "/r/big", bytes.Repeat([]byte("x"), 200000), 0, open)
	_, err = c.Multi(&zk.CreateRequest{Path: "/r/m1", Data: []byte("m"), Acl: open},
		&zk.SetDataRequest{Path: "/r", Data: []byte("root2"), Version: -1})
	must(t, "multi", err)
	seq := mustCreate(t, c, "/r/s-", nil, zk.FlagSequence, open)
	wantEqual(t, "sequential", seq, "/r/s-0000000011")

	for round := 1; round <= 2; round++ {
		before := dumpTree(t, c, "/")
		c.Close()
		e.srv.Restart(t)
		c = e.connect(t)
		must(t, "addauth", c.AddAuth("digest", []byte("alice:secret")))
		after := dumpTree(t, c, "/")
		diffTrees(t, fmt.Sprintf("tree after restart %d", round), before, after)

		// The counter goes on; new zxids are higher than every old one.
		want := fmt.Sprintf("/r/s-%010d", 11+round)
		p := mustCreate(t, c, "/r/s-", nil, zk.FlagSequence, open)
		wantEqual(t, "sequential after restart", p, want)
		if st := mustStat(t, c, p); st.Czxid <= maxZxid(before) {
			t.Errorf("czxid after restart %#x, not above the old maximum %#x", st.Czxid, maxZxid(before))
		}
		_, err = c.Set("/r", []byte(fmt.Sprint("round", round)), -1)
		must(t, "set after restart", err)
	}
	// The container is still a container.
	must(t, "delete", c.Delete("/r/c/x", -1))
	waitGone(t, c, "/r/c")
}
