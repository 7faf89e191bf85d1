package server

import (
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/netio"
)

// startTestServer runs a server on a free loopback port with its data in a
// temporary directory.
func startTestServer(t *testing.T, dir string, tweak func(*Config)) *Server {
	t.Helper()
	cfg := Defaults()
	cfg.ClientAddr = "127.0.0.1:0"
	cfg.DataDir = dir
	cfg.ForceSync = false
	cfg.TickTime = 200 * time.Millisecond
	if tweak != nil {
		tweak(&cfg)
	}
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func connect(t *testing.T, s *Server) (*zk.Conn, <-chan zk.Event) {
	t.Helper()
	c, ev, err := zk.Connect([]string{s.Addr().String()}, 4*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	deadline := time.After(10 * time.Second)
	for c.State() != zk.StateHasSession {
		select {
		case <-ev:
		case <-deadline:
			t.Fatal("no session")
		}
	}
	return c, ev
}

func TestCreateGetSetDelete(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	c, _ := connect(t, s)
	p, err := c.Create("/a", []byte("one"), 0, zk.WorldACL(zk.PermAll))
	if err != nil || p != "/a" {
		t.Fatalf("create: %q %v", p, err)
	}
	data, st, err := c.Get("/a")
	if err != nil || string(data) != "one" || st.Version != 0 || st.Czxid != st.Mzxid || st.Czxid != st.Pzxid || st.DataLength != 3 {
		t.Fatalf("get: %q %+v %v", data, st, err)
	}
	st2, err := c.Set("/a", []byte("two"), 0)
	if err != nil || st2.Version != 1 || st2.Mzxid <= st.Mzxid || st2.Czxid != st.Czxid {
		t.Fatalf("set: %+v %v", st2, err)
	}
	if _, err := c.Set("/a", []byte("x"), 0); !errors.Is(err, zk.ErrBadVersion) {
		t.Fatalf("stale set: %v", err)
	}
	if _, err := c.Create("/a", nil, 0, zk.WorldACL(zk.PermAll)); !errors.Is(err, zk.ErrNodeExists) {
		t.Fatalf("duplicate create: %v", err)
	}
	if _, err := c.Create("/missing/x", nil, 0, zk.WorldACL(zk.PermAll)); !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("orphan create: %v", err)
	}
	if _, err := c.Create("/a/b", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete("/a", -1); !errors.Is(err, zk.ErrNotEmpty) {
		t.Fatalf("delete with child: %v", err)
	}
	if err := c.Delete("/zookeeper", -1); !errors.Is(err, zk.ErrBadArguments) {
		t.Fatalf("delete /zookeeper: %v", err)
	}
	if err := c.Delete("/a/b", -1); err != nil {
		t.Fatal(err)
	}
	_, st3, _ := c.Get("/a")
	if st3.Cversion != 2 || st3.NumChildren != 0 {
		t.Fatalf("parent after create+delete: %+v", st3)
	}
}

func TestFailedWritesConsumeZxids(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	c, _ := connect(t, s)
	c.Create("/z", nil, 0, zk.WorldACL(zk.PermAll))
	_, st, _ := c.Exists("/z")
	c.Create("/z", nil, 0, zk.WorldACL(zk.PermAll)) // NodeExists: still a zxid
	c.Sync("/z")                                    // sync: none
	c.Create("/z2", nil, 0, zk.WorldACL(zk.PermAll))
	_, st2, _ := c.Exists("/z2")
	if st2.Czxid != st.Czxid+2 {
		t.Fatalf("czxid %d after %d, want +2", st2.Czxid, st.Czxid)
	}
}

func TestSequentialNamesShareTheParentCounter(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	c, _ := connect(t, s)
	c.Create("/q", nil, 0, zk.WorldACL(zk.PermAll))
	acl := zk.WorldACL(zk.PermAll)
	var got []string
	for _, step := range []struct {
		name  string
		flags int32
	}{{"/q/a-", zk.FlagSequence}, {"/q/b-", zk.FlagSequence | zk.FlagEphemeral}, {"/q/a-", zk.FlagSequence | zk.FlagEphemeral}, {"/q/c", 0}, {"/q/b-", zk.FlagSequence}} {
		p, err := c.Create(step.name, nil, step.flags, acl)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p)
	}
	want := []string{"/q/a-0000000000", "/q/b-0000000001", "/q/a-0000000002", "/q/c", "/q/b-0000000004"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v want %v", got, want)
	}
}

func TestMultiAllOrNothing(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	c, _ := connect(t, s)
	acl := zk.WorldACL(zk.PermAll)
	res, err := c.Multi(&zk.CreateRequest{Path: "/m", Acl: acl}, &zk.CreateRequest{Path: "/m/x", Acl: acl}, &zk.SetDataRequest{Path: "/m", Data: []byte("d"), Version: 0})
	if err != nil || len(res) != 3 || res[1].String != "/m/x" || res[2].Stat.Version != 1 {
		t.Fatalf("multi: %+v %v", res, err)
	}
	res, err = c.Multi(&zk.CreateRequest{Path: "/m2", Acl: acl}, &zk.DeleteRequest{Path: "/nope", Version: -1}, &zk.CreateRequest{Path: "/m3", Acl: acl})
	if !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("failed multi error: %v", err)
	}
	// go-zookeeper has no name for RuntimeInconsistency (-2): it reports
	// the bare code.
	if len(res) != 3 || res[0].Error != nil || !errors.Is(res[1].Error, zk.ErrNoNode) || res[2].Error == nil || res[2].Error.Error() != "unknown error: -2" {
		t.Fatalf("failed multi results: %+v", res)
	}
	if ok, _, _ := c.Exists("/m2"); ok {
		t.Fatal("a failed multi left /m2 behind")
	}
}

func TestWatchFiresBeforeTheReplyOfTheChange(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	c, _ := connect(t, s)
	c.Create("/w", nil, 0, zk.WorldACL(zk.PermAll))
	_, _, ch, err := c.GetW("/w")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Set("/w", []byte("1"), -1); err != nil {
		t.Fatal(err)
	}
	// go-zookeeper delivers a watch event before it returns the reply that
	// follows it on the wire, so it must already be here.
	select {
	case ev := <-ch:
		if ev.Type != zk.EventNodeDataChanged || ev.Path != "/w" {
			t.Fatalf("event %+v", ev)
		}
	default:
		t.Fatal("the notification did not precede the setData reply")
	}
	_, _, ch, _ = c.ExistsW("/later")
	c.Create("/later", nil, 0, zk.WorldACL(zk.PermAll))
	if ev := <-ch; ev.Type != zk.EventNodeCreated {
		t.Fatalf("exists watch: %+v", ev)
	}
	_, _, ch, _ = c.ChildrenW("/w")
	c.Create("/w/c", nil, 0, zk.WorldACL(zk.PermAll))
	if ev := <-ch; ev.Type != zk.EventNodeChildrenChanged || ev.Path != "/w" {
		t.Fatalf("child watch: %+v", ev)
	}
}

func TestEphemeralsGoWithTheSession(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	owner, _ := connect(t, s)
	watcher, _ := connect(t, s)
	owner.Create("/e", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	_, st, _ := owner.Exists("/e")
	if st.EphemeralOwner != owner.SessionID() {
		t.Fatalf("ephemeralOwner %x, session %x", st.EphemeralOwner, owner.SessionID())
	}
	if _, err := owner.Create("/e/child", nil, 0, zk.WorldACL(zk.PermAll)); !errors.Is(err, zk.ErrNoChildrenForEphemerals) {
		t.Fatalf("child of ephemeral: %v", err)
	}
	_, _, ch, _ := watcher.ExistsW("/e")
	owner.Close()
	select {
	case ev := <-ch:
		if ev.Type != zk.EventNodeDeleted {
			t.Fatalf("event %+v", ev)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ephemeral not deleted on close")
	}
}

func TestSessionExpiryRemovesEphemerals(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	watcher, _ := connect(t, s)
	var raw net.Conn
	dialer := func(network, address string, timeout time.Duration) (net.Conn, error) {
		c, err := net.DialTimeout(network, address, timeout)
		raw = c
		return c, err
	}
	owner, _, err := zk.Connect([]string{s.Addr().String()}, 800*time.Millisecond, zk.WithDialer(dialer), zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	for owner.State() != zk.StateHasSession {
		time.Sleep(10 * time.Millisecond)
	}
	owner.Create("/exp", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	_, _, ch, _ := watcher.ExistsW("/exp")
	// Stop the owner's client entirely so no ping keeps the session alive.
	owner.Close()
	_ = raw
	select {
	case ev := <-ch:
		if ev.Type != zk.EventNodeDeleted {
			t.Fatalf("event %+v", ev)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ephemeral survived")
	}
}

func TestRestartKeepsEverything(t *testing.T) {
	dir := t.TempDir()
	s := startTestServer(t, dir, nil)
	c, _ := connect(t, s)
	acl := zk.WorldACL(zk.PermAll)
	c.Create("/r", []byte("root"), 0, acl)
	c.Create("/r/s-", nil, zk.FlagSequence, acl)
	c.Create("/r/s-", nil, zk.FlagSequence, acl)
	c.Set("/r", []byte("v2"), -1)
	_, before, _ := c.Get("/r")
	c.Close()
	s.Close()

	s2 := startTestServer(t, dir, nil)
	c2, _ := connect(t, s2)
	data, after, err := c2.Get("/r")
	if err != nil || string(data) != "v2" || *after != *before {
		t.Fatalf("after restart: %q %+v %v (before %+v)", data, after, err, before)
	}
	p, _ := c2.Create("/r/s-", nil, zk.FlagSequence, acl)
	if p != "/r/s-0000000002" {
		t.Fatalf("sequence after restart: %s", p)
	}
}

func TestACLAndDigestAuth(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	c, _ := connect(t, s)
	if _, err := c.Create("/secret", []byte("s"), 0, zk.DigestACL(zk.PermAll, "alice", "pw")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Get("/secret"); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("get without auth: %v", err)
	}
	if _, err := c.Create("/c", nil, 0, zk.AuthACL(zk.PermAll)); !errors.Is(err, zk.ErrInvalidACL) {
		t.Fatalf("auth ACL without identity: %v", err)
	}
	if err := c.AddAuth("digest", []byte("alice:pw")); err != nil {
		t.Fatal(err)
	}
	if data, _, err := c.Get("/secret"); err != nil || string(data) != "s" {
		t.Fatalf("get with auth: %q %v", data, err)
	}
}

// TestOpenServesNoClientUntilServe: Open loads the data and runs the
// pipeline without a client port; the owner wires one (netio.Listen with
// the server as its handler) and hands it over with Serve, after which
// clients see the data, and Close closes the port.
func TestOpenServesNoClientUntilServe(t *testing.T) {
	dir := t.TempDir()
	first := startTestServer(t, dir, nil)
	c, _ := connect(t, first)
	if _, err := c.Create("/kept", []byte("v"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	c.Close()
	first.Close()

	cfg := Defaults()
	cfg.ClientAddr = "127.0.0.1:0"
	cfg.DataDir = dir
	cfg.ForceSync = false
	cfg.TickTime = 200 * time.Millisecond
	s, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.net != nil {
		t.Fatal("Open opened a client port")
	}
	ln, err := netio.Listen(s.ClientPortConfig(), s)
	if err != nil {
		t.Fatal(err)
	}
	s.Serve(ln)
	c2, _ := connect(t, s)
	if data, _, err := c2.Get("/kept"); err != nil || string(data) != "v" {
		t.Fatalf("Get /kept = %q, %v", data, err)
	}
	addr := s.Addr().String()
	s.Close()
	if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		conn.Close()
		t.Fatal("the client port still accepts after Close")
	}
}
