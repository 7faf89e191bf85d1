//go:build interop

package clients

import (
	"bytes"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// testFreshTree checks the reserved nodes of a new server (§15, §7.2).
func testFreshTree(t *testing.T, e *env) {
	c := e.connect(t)

	kids, st, err := c.Children("/")
	must(t, "children /", err)
	wantEqual(t, "children of /", kids, []string{"zookeeper"})
	wantEqual(t, "stat of /", *st, zk.Stat{Cversion: -1, NumChildren: 1})

	kids, st, err = c.Children("/zookeeper")
	must(t, "children /zookeeper", err)
	wantEqual(t, "children of /zookeeper", kids, []string{"config", "quota"})
	wantEqual(t, "stat of /zookeeper", *st, zk.Stat{Cversion: -2, NumChildren: 2})

	wantEqual(t, "stat of /zookeeper/quota", *mustStat(t, c, "/zookeeper/quota"), zk.Stat{})
	data, st := mustGet(t, c, "/zookeeper/config")
	wantEqual(t, "data of /zookeeper/config", len(data), 0)
	wantEqual(t, "stat of /zookeeper/config", *st, zk.Stat{Aversion: -1})

	for _, p := range []string{"/", "/zookeeper", "/zookeeper/quota"} {
		acl, _, err := c.GetACL(p)
		must(t, "getacl "+p, err)
		wantEqual(t, "acl of "+p, acl, open)
	}
	acl, _, err := c.GetACL("/zookeeper/config")
	must(t, "getacl /zookeeper/config", err)
	wantEqual(t, "acl of /zookeeper/config", acl, zk.WorldACL(zk.PermRead))

	// The reserved nodes cannot be deleted; /zookeeper/config is read-only.
	for _, p := range []string{"/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"} {
		wantErr(t, "delete "+p, c.Delete(p, -1), zk.ErrBadArguments)
	}
	_, err = c.Set("/zookeeper/config", []byte("x"), -1)
	wantErr(t, "set /zookeeper/config", err, zk.ErrNoAuth)
	_, err = c.Create("/", nil, 0, open)
	wantErr(t, "create /", err, zk.ErrNodeExists)

	// Clients may write under /zookeeper.
	mustCreate(t, c, "/zookeeper/mine", []byte("m"), 0, open)
	_, err = c.Set("/zookeeper", []byte("z"), -1)
	must(t, "set /zookeeper", err)

	// The first sequential child of / is number 0: the /zookeeper child was
	// not a creation (§7.2).
	p := mustCreate(t, c, "/seq-", nil, zk.FlagSequence, open)
	wantEqual(t, "first sequential child of /", p, "/seq-0000000000")
	st = mustStat(t, c, "/")
	wantEqual(t, "cversion of / after one creation", st.Cversion, int32(0))
	wantEqual(t, "numChildren of /", st.NumChildren, int32(2))
}

// testZxidArithmetic checks which requests consume zxids (§12.1).
func testZxidArithmetic(t *testing.T, e *env) {
	c := e.connect(t)
	a := mustStat(t, c, mustCreate(t, c, "/a", nil, 0, open))
	// createSession took zxid 1.
	wantEqual(t, "czxid of the first create on a fresh server", a.Czxid, int64(2))
	wantEqual(t, "mzxid = czxid", a.Mzxid, a.Czxid)
	wantEqual(t, "pzxid = czxid", a.Pzxid, a.Czxid)

	// A failed write consumes a zxid.
	_, err := c.Create("/a", nil, 0, open)
	wantErr(t, "create /a again", err, zk.ErrNodeExists)
	b := mustStat(t, c, mustCreate(t, c, "/b", nil, 0, open))
	wantEqual(t, "czxid after a failed create", b.Czxid, a.Czxid+2)

	// Reads and sync do not.
	_, _, _ = c.Get("/a")
	_, _, _ = c.Children("/")
	_, _, _ = c.Exists("/nope")
	_, err = c.Sync("/")
	must(t, "sync", err)
	cs := mustStat(t, c, mustCreate(t, c, "/c", nil, 0, open))
	wantEqual(t, "czxid after reads and a sync", cs.Czxid, b.Czxid+1)

	// A failed setData, delete and setACL each consume one.
	_, err = c.Set("/c", nil, 42)
	wantErr(t, "set with a wrong version", err, zk.ErrBadVersion)
	wantErr(t, "delete missing", c.Delete("/missing", -1), zk.ErrNoNode)
	_, err = c.SetACL("/c", open, 42)
	wantErr(t, "setacl with a wrong version", err, zk.ErrBadVersion)
	d := mustStat(t, c, mustCreate(t, c, "/d", nil, 0, open))
	wantEqual(t, "czxid after three failed writes", d.Czxid, cs.Czxid+4)

	// A failed multi consumes exactly one.
	_, err = c.Multi(&zk.CreateRequest{Path: "/e", Acl: open}, &zk.CreateRequest{Path: "/a", Acl: open})
	wantErr(t, "failed multi", err, zk.ErrNodeExists)
	f := mustStat(t, c, mustCreate(t, c, "/f", nil, 0, open))
	wantEqual(t, "czxid after a failed multi", f.Czxid, d.Czxid+2)

	// A successful multi is one zxid and one time for all its ops.
	_, err = c.Multi(&zk.CreateRequest{Path: "/g", Acl: open}, &zk.CreateRequest{Path: "/h", Acl: open},
		&zk.SetDataRequest{Path: "/a", Data: []byte("x"), Version: -1})
	must(t, "multi", err)
	g, h, a2 := mustStat(t, c, "/g"), mustStat(t, c, "/h"), mustStat(t, c, "/a")
	wantEqual(t, "czxid of the multi's first create", g.Czxid, f.Czxid+1)
	wantEqual(t, "czxid of the multi's second create", h.Czxid, g.Czxid)
	wantEqual(t, "mzxid set by the multi", a2.Mzxid, g.Czxid)
	wantEqual(t, "ctime of the multi's creates", h.Ctime, g.Ctime)
	wantEqual(t, "mtime set by the multi", a2.Mtime, g.Ctime)

	// Closing a session is a transaction too, and so is opening one.
	c2 := e.connect(t)
	c2.Close()
	i := mustStat(t, c, mustCreate(t, c, "/i", nil, 0, open))
	wantEqual(t, "czxid after a session was opened and closed", i.Czxid, g.Czxid+3)

	root := mustStat(t, c, "/")
	wantEqual(t, "pzxid of /", root.Pzxid, i.Czxid)
	wantEqual(t, "numChildren of /", root.NumChildren, int32(9))
	// 8 creations, no deletions: 2*8 - 9 (the /zookeeper child was never
	// created).
	wantEqual(t, "cversion of /", root.Cversion, int32(7))
}

// testCreateModes creates a node of every mode (§8).
func testCreateModes(t *testing.T, e *env) {
	c := e.connect(t)
	sid := c.SessionID()
	type want struct {
		path  string
		owner int64
	}
	check := func(what, got string, w want, data []byte) {
		t.Helper()
		if got != w.path {
			t.Errorf("%s: created %q, want %q", what, got, w.path)
			return
		}
		gotData, st := mustGet(t, c, got)
		if !bytes.Equal(gotData, data) {
			t.Errorf("%s: data %q, want %q", what, gotData, data)
		}
		if st.EphemeralOwner != w.owner {
			t.Errorf("%s: ephemeralOwner %#x, want %#x", what, st.EphemeralOwner, w.owner)
		}
		if st.DataLength != int32(len(data)) || st.Version != 0 || st.Cversion != 0 || st.Aversion != 0 ||
			st.NumChildren != 0 || st.Czxid != st.Mzxid || st.Czxid != st.Pzxid || st.Ctime != st.Mtime || st.Ctime == 0 {
			t.Errorf("%s: stat of a new node %+v", what, *st)
		}
		acl, _, err := c.GetACL(got)
		must(t, "getacl", err)
		wantEqual(t, what+": acl", acl, open)
	}

	p, err := c.Create(e.p("/p"), []byte("persistent"), zk.FlagPersistent, open)
	must(t, "persistent", err)
	check("persistent", p, want{e.p("/p"), 0}, []byte("persistent"))

	p, err = c.Create(e.p("/e"), []byte("ephemeral"), zk.FlagEphemeral, open)
	must(t, "ephemeral", err)
	check("ephemeral", p, want{e.p("/e"), sid}, []byte("ephemeral"))

	p, err = c.Create(e.p("/s-"), []byte("seq"), zk.FlagSequence, open)
	must(t, "sequential", err)
	check("sequential", p, want{e.p("/s-0000000002"), 0}, []byte("seq"))

	p, err = c.Create(e.p("/es-"), []byte("eseq"), zk.FlagEphemeralSequential, open)
	must(t, "ephemeral sequential", err)
	check("ephemeral sequential", p, want{e.p("/es-0000000003"), sid}, []byte("eseq"))

	p, err = c.CreateContainer(e.p("/c"), []byte("container"), zk.FlagContainer, open)
	must(t, "container", err)
	check("container", p, want{e.p("/c"), 0}, []byte("container"))

	p, err = c.CreateTTL(e.p("/t"), []byte("ttl"), zk.FlagTTL, open, time.Hour)
	must(t, "ttl", err)
	check("ttl", p, want{e.p("/t"), 0}, []byte("ttl"))

	p, err = c.CreateTTL(e.p("/ts-"), []byte("ttlseq"), zk.FlagPersistentSequentialWithTTL, open, time.Hour)
	must(t, "ttl sequential", err)
	check("ttl sequential", p, want{e.p("/ts-0000000006"), 0}, []byte("ttlseq"))

	// A sequential path may end in '/': the name is just the number.
	p, err = c.Create(e.p("/"), nil, zk.FlagSequence, open)
	must(t, "sequential with a trailing slash", err)
	wantEqual(t, "sequential with a trailing slash", p, e.p("/0000000007"))

	kids, st, err := c.Children(e.root)
	must(t, "children", err)
	// In the order of Java's HashSet of the parent's children.
	wantEqual(t, "children", kids, []string{"p", "es-0000000003", "c", "t", "ts-0000000006", "e", "0000000007", "s-0000000002"})
	wantEqual(t, "numChildren", st.NumChildren, int32(8))
	wantEqual(t, "cversion", st.Cversion, int32(8))

	// Children of every kind except under a normal ephemeral node.
	mustCreate(t, c, e.p("/c/child"), nil, zk.FlagEphemeral, open)
	mustCreate(t, c, e.p("/t/child"), nil, zk.FlagEphemeral, open)
	mustCreate(t, c, e.p("/p/child"), nil, zk.FlagEphemeral, open)
	_, err = c.Create(e.p("/e/child"), nil, zk.FlagPersistent, open)
	wantErr(t, "child of an ephemeral", err, zk.ErrNoChildrenForEphemerals)
	_, err = c.Create(e.p("/es-0000000003/child"), nil, zk.FlagEphemeral, open)
	wantErr(t, "child of an ephemeral sequential", err, zk.ErrNoChildrenForEphemerals)
	_, err = c.CreateContainer(e.p("/e/child"), nil, zk.FlagContainer, open)
	wantErr(t, "container child of an ephemeral", err, zk.ErrNoChildrenForEphemerals)

	// An ephemeral node lists no children (an empty list, not an error).
	kids, _, err = c.Children(e.p("/e"))
	must(t, "children of an ephemeral", err)
	wantEqual(t, "children of an ephemeral", len(kids), 0)

	// Non-ASCII names come back unchanged.
	p = mustCreate(t, c, e.p("/ü-名"), []byte("é"), 0, open)
	wantEqual(t, "non-ASCII path", p, e.p("/ü-名"))
	data, _ := mustGet(t, c, p)
	wantEqual(t, "non-ASCII data", string(data), "é")
}

// testNullAndEmptyData: a null buffer stays null, an empty one empty
// (§1.3, §6.4).
func testNullAndEmptyData(t *testing.T, e *env) {
	c := e.connect(t)
	mustCreate(t, c, e.p("/null"), nil, 0, open)
	mustCreate(t, c, e.p("/empty"), []byte{}, 0, open)
	data, st := mustGet(t, c, e.p("/null"))
	if data != nil || st.DataLength != 0 {
		t.Errorf("null data came back as %#v (dataLength %d)", data, st.DataLength)
	}
	data, st = mustGet(t, c, e.p("/empty"))
	if data == nil || len(data) != 0 || st.DataLength != 0 {
		t.Errorf("empty data came back as %#v (dataLength %d)", data, st.DataLength)
	}
	_, err := c.Set(e.p("/empty"), nil, -1)
	must(t, "set null", err)
	data, _ = mustGet(t, c, e.p("/empty"))
	if data != nil {
		t.Errorf("data set to null came back as %#v", data)
	}
	_, err = c.Set(e.p("/null"), []byte{}, -1)
	must(t, "set empty", err)
	data, _ = mustGet(t, c, e.p("/null"))
	if data == nil || len(data) != 0 {
		t.Errorf("data set to empty came back as %#v", data)
	}
	// Large data, near the frame limit.
	big := bytes.Repeat([]byte("0123456789abcdef"), 60000) // 960000 bytes
	mustCreate(t, c, e.p("/big"), big, 0, open)
	data, st = mustGet(t, c, e.p("/big"))
	if !bytes.Equal(data, big) || st.DataLength != int32(len(big)) {
		t.Errorf("large data came back with %d bytes (dataLength %d)", len(data), st.DataLength)
	}
}

// testSequenceNumbers: one counter per parent, shared by every mode
// (§8.3).
func testSequenceNumbers(t *testing.T, e *env) {
	c := e.connect(t)
	q := e.p("/q")
	mustCreate(t, c, q, nil, 0, open)
	got := []string{
		mustCreate(t, c, q+"/a-", nil, zk.FlagSequence, open),
		mustCreate(t, c, q+"/b-", nil, zk.FlagEphemeralSequential, open),
		mustCreate(t, c, q+"/a-", nil, zk.FlagEphemeralSequential, open),
		mustCreate(t, c, q+"/c", nil, zk.FlagPersistent, open),
		mustCreate(t, c, q+"/b-", nil, zk.FlagSequence, open),
	}
	wantEqual(t, "names", got, []string{q + "/a-0000000000", q + "/b-0000000001", q + "/a-0000000002", q + "/c", q + "/b-0000000004"})

	// A failed create does not advance the counter.
	_, err := c.Create(q+"/c", nil, 0, open)
	wantErr(t, "create existing", err, zk.ErrNodeExists)
	wantEqual(t, "after a failed create", mustCreate(t, c, q+"/x-", nil, zk.FlagSequence, open), q+"/x-0000000005")

	// Neither does a failed multi holding a sequential create.
	_, err = c.Multi(&zk.CreateRequest{Path: q + "/m-", Acl: open, Flags: zk.FlagSequence},
		&zk.CreateRequest{Path: q + "/c", Acl: open})
	wantErr(t, "failed multi", err, zk.ErrNodeExists)
	wantEqual(t, "after a failed multi", mustCreate(t, c, q+"/y-", nil, zk.FlagSequence, open), q+"/y-0000000006")

	// Deletes do not reset it.
	for _, p := range []string{"/a-0000000000", "/c", "/x-0000000005"} {
		must(t, "delete", c.Delete(q+p, -1))
	}
	wantEqual(t, "after deletes", mustCreate(t, c, q+"/z-", nil, zk.FlagSequence, open), q+"/z-0000000007")

	// Two sequential creates in one multi get consecutive numbers.
	res, err := c.Multi(&zk.CreateRequest{Path: q + "/m-", Acl: open, Flags: zk.FlagSequence},
		&zk.CreateRequest{Path: q + "/m-", Acl: open, Flags: zk.FlagEphemeralSequential})
	must(t, "multi", err)
	if len(res) == 2 {
		wantEqual(t, "multi names", []string{res[0].String, res[1].String}, []string{q + "/m-0000000008", q + "/m-0000000009"})
	}

	// Every parent has its own counter.
	q2 := mustCreate(t, c, e.p("/q2"), nil, 0, open)
	wantEqual(t, "other parent", mustCreate(t, c, q2+"/a-", nil, zk.FlagSequence, open), q2+"/a-0000000000")

	// The counter is the parent's cversion before its deletes are counted.
	st := mustStat(t, c, q)
	// 10 creations and 3 deletions.
	wantEqual(t, "cversion", st.Cversion, int32(13))
	wantEqual(t, "numChildren", st.NumChildren, int32(7))
}

// testStatChanges follows every Stat field through each kind of change
// (§7).
func testStatChanges(t *testing.T, e *env) {
	c := e.connect(t)
	n := e.p("/n")
	mustCreate(t, c, n, []byte("p"), 0, open)
	s0 := mustStat(t, c, n)
	if s0.Czxid != s0.Mzxid || s0.Czxid != s0.Pzxid || s0.Ctime != s0.Mtime || s0.Version != 0 ||
		s0.Cversion != 0 || s0.Aversion != 0 || s0.EphemeralOwner != 0 || s0.DataLength != 1 || s0.NumChildren != 0 {
		t.Errorf("new node: %+v", *s0)
	}
	// Every read returns the same stat.
	_, gs := mustGet(t, c, n)
	wantEqual(t, "get stat", *gs, *s0)
	_, cs, err := c.Children(n)
	must(t, "children", err)
	wantEqual(t, "children stat", *cs, *s0)
	_, as, err := c.GetACL(n)
	must(t, "getacl", err)
	wantEqual(t, "getacl stat", *as, *s0)

	// setData
	s1, err := c.Set(n, []byte("pp"), 0)
	must(t, "set", err)
	wantEqual(t, "set reply = exists", *s1, *mustStat(t, c, n))
	if s1.Mzxid <= s0.Mzxid || s1.Czxid != s0.Czxid || s1.Pzxid != s0.Pzxid || s1.Version != 1 ||
		s1.DataLength != 2 || s1.Mtime < s0.Mtime || s1.Ctime != s0.Ctime || s1.Cversion != 0 || s1.Aversion != 0 {
		t.Errorf("after set: %+v (before %+v)", *s1, *s0)
	}
	// Identical data still bumps the version; -1 matches any version.
	s2, err := c.Set(n, []byte("pp"), -1)
	must(t, "set same data", err)
	wantEqual(t, "version after setting identical data", s2.Version, int32(2))

	// A child created.
	mustCreate(t, c, n+"/x", nil, 0, open)
	x := mustStat(t, c, n+"/x")
	s3 := mustStat(t, c, n)
	if s3.Pzxid != x.Czxid || s3.NumChildren != 1 || s3.Cversion != 1 || s3.Mzxid != s2.Mzxid || s3.Version != 2 || s3.Mtime != s2.Mtime {
		t.Errorf("after a child was created: %+v", *s3)
	}
	// A child deleted.
	must(t, "delete child", c.Delete(n+"/x", 0))
	s4 := mustStat(t, c, n)
	if s4.Pzxid <= x.Czxid || s4.NumChildren != 0 || s4.Cversion != 2 || s4.Mzxid != s2.Mzxid {
		t.Errorf("after a child was deleted: %+v", *s4)
	}
	// The worked example of §7.2: create x, delete x, create y ->
	// cversion 3; the next sequential child is number 2.
	mustCreate(t, c, n+"/y", nil, 0, open)
	wantEqual(t, "cversion after create, delete, create", mustStat(t, c, n).Cversion, int32(3))
	z := mustCreate(t, c, n+"/z-", nil, zk.FlagSequence, open)
	wantEqual(t, "sequential after create, delete, create", z, n+"/z-0000000002")
	s5 := mustStat(t, c, n)
	wantEqual(t, "cversion with two children", s5.Cversion, int32(4))
	wantEqual(t, "numChildren with two children", s5.NumChildren, int32(2))
	must(t, "delete y", c.Delete(n+"/y", -1))
	must(t, "delete z", c.Delete(z, -1))
	// setData on the parent changes neither cversion nor the counter.
	_, err = c.Set(n, []byte("q"), -1)
	must(t, "set parent", err)
	wantEqual(t, "cversion after deleting both", mustStat(t, c, n).Cversion, int32(6))
	wantEqual(t, "sequential after deleting both", mustCreate(t, c, n+"/w-", nil, zk.FlagSequence, open), n+"/w-0000000003")

	// setACL: aversion only; mzxid and mtime stay.
	before := mustStat(t, c, n)
	s6, err := c.SetACL(n, zk.WorldACL(zk.PermAll), 0)
	must(t, "setacl", err)
	wantEqual(t, "setacl reply = exists", *s6, *mustStat(t, c, n))
	want := *before
	want.Aversion = 1
	wantEqual(t, "stat after setacl", *s6, want)
	_, err = c.SetACL(n, open, 0)
	wantErr(t, "setacl with a stale aversion", err, zk.ErrBadVersion)
	_, err = c.SetACL(n, open, 1)
	must(t, "setacl with the right aversion", err)

	// An ephemeral child: its owner is the session; the parent counts it.
	mustCreate(t, c, n+"/eph", nil, zk.FlagEphemeral, open)
	wantEqual(t, "ephemeralOwner", mustStat(t, c, n+"/eph").EphemeralOwner, c.SessionID())

	// Versions are checked on delete and set.
	_, err = c.Set(n+"/w-0000000003", nil, 1)
	wantErr(t, "set with a wrong version", err, zk.ErrBadVersion)
	wantErr(t, "delete with a wrong version", c.Delete(n+"/w-0000000003", 1), zk.ErrBadVersion)
	must(t, "delete with the right version", c.Delete(n+"/w-0000000003", 0))
}

// testErrors checks the error of every failure go-zookeeper can provoke
// (§6).
func testErrors(t *testing.T, e *env) {
	c := e.connect(t)
	a := mustCreate(t, c, e.p("/a"), []byte("a"), 0, open)
	mustCreate(t, c, a+"/child", nil, 0, open)
	eph := mustCreate(t, c, e.p("/eph"), nil, zk.FlagEphemeral, open)
	missing := e.p("/missing")

	_, err := c.Create(a, nil, 0, open)
	wantErr(t, "create existing", err, zk.ErrNodeExists)
	_, err = c.Create(missing+"/x", nil, 0, open)
	wantErr(t, "create without parent", err, zk.ErrNoNode)
	_, err = c.Create(missing+"/x-", nil, zk.FlagSequence, open)
	wantErr(t, "create sequential without parent", err, zk.ErrNoNode)
	_, err = c.Create(eph+"/x", nil, 0, open)
	wantErr(t, "create under an ephemeral", err, zk.ErrNoChildrenForEphemerals)
	_, err = c.Create(e.p("/noacl"), nil, 0, []zk.ACL{})
	wantErr(t, "create with an empty ACL", err, zk.ErrInvalidACL)
	_, err = c.Create(missing+"/x", nil, 0, []zk.ACL{})
	wantErr(t, "InvalidACL wins over a missing parent", err, zk.ErrInvalidACL)

	wantErr(t, "delete missing", c.Delete(missing, -1), zk.ErrNoNode)
	wantErr(t, "delete missing with a version", c.Delete(missing, 3), zk.ErrNoNode)
	wantErr(t, "delete without parent", c.Delete(missing+"/x", -1), zk.ErrNoNode)
	wantErr(t, "delete with children", c.Delete(a, -1), zk.ErrNotEmpty)
	wantErr(t, "delete with children and a wrong version", c.Delete(a, 7), zk.ErrBadVersion)

	_, err = c.Set(missing, nil, -1)
	wantErr(t, "set missing", err, zk.ErrNoNode)
	_, err = c.Set(missing, nil, 5)
	wantErr(t, "set missing with a version", err, zk.ErrNoNode)
	_, err = c.Set(a, nil, 5)
	wantErr(t, "set with a wrong version", err, zk.ErrBadVersion)

	_, _, err = c.Get(missing)
	wantErr(t, "get missing", err, zk.ErrNoNode)
	_, _, err = c.Children(missing)
	wantErr(t, "children missing", err, zk.ErrNoNode)
	_, _, err = c.GetACL(missing)
	wantErr(t, "getacl missing", err, zk.ErrNoNode)
	_, err = c.SetACL(missing, open, -1)
	wantErr(t, "setacl missing", err, zk.ErrNoNode)
	_, err = c.SetACL(a, open, 3)
	wantErr(t, "setacl with a wrong version", err, zk.ErrBadVersion)
	_, err = c.SetACL(a, []zk.ACL{}, -1)
	wantErr(t, "setacl with an empty ACL", err, zk.ErrInvalidACL)
	_, err = c.SetACL(missing, []zk.ACL{}, -1)
	wantErr(t, "setacl: InvalidACL wins over a missing node", err, zk.ErrInvalidACL)

	ok, st, err := c.Exists(missing)
	if ok || err != nil {
		t.Errorf("exists missing = %v, %v", ok, err)
	}
	if st == nil || *st != (zk.Stat{}) {
		t.Errorf("exists missing returned stat %+v", st)
	}

	// TTL bounds: 0 < ttl <= 2^40-1 ms.
	_, err = c.CreateTTL(e.p("/ttl0"), nil, zk.FlagTTL, open, 0)
	wantErr(t, "ttl 0", err, zk.ErrBadArguments)
	_, err = c.CreateTTL(e.p("/ttlbig"), nil, zk.FlagTTL, open, (1<<40)*time.Millisecond)
	wantErr(t, "ttl 2^40 ms", err, zk.ErrBadArguments)
	p, err := c.CreateTTL(e.p("/ttlmax"), nil, zk.FlagTTL, open, (1<<40-1)*time.Millisecond)
	must(t, "ttl 2^40-1 ms", err)
	wantEqual(t, "ttl 2^40-1 ms", p, e.p("/ttlmax"))

	// Every failure leaves the session usable.
	data, _ := mustGet(t, c, a)
	wantEqual(t, "data after the errors", string(data), "a")
}

// testSync: sync needs no node and no permission and echoes the path.
func testSync(t *testing.T, e *env) {
	c := e.connect(t)
	for _, p := range []string{"/", e.root, e.p("/missing/deeper")} {
		got, err := c.Sync(p)
		must(t, "sync "+p, err)
		wantEqual(t, "sync reply", got, p)
	}
	locked := mustCreate(t, c, e.p("/locked"), nil, 0, []zk.ACL{{Perms: 0, Scheme: "world", ID: "anyone"}})
	got, err := c.Sync(locked)
	must(t, "sync on a node nobody may read", err)
	wantEqual(t, "sync reply", got, locked)
}
