//go:build interop

package clients

import (
	"testing"

	"github.com/go-zookeeper/zk"
)

// testMulti: a successful multi, its per-op results and its single zxid
// (§6.12).
func testMulti(t *testing.T, e *env) {
	c := e.connect(t)
	m := mustCreate(t, c, e.p("/m"), []byte("0"), 0, open)
	res, err := c.Multi(
		&zk.CreateRequest{Path: m + "/a", Data: []byte("1"), Acl: open},
		&zk.CreateRequest{Path: m + "/s-", Acl: open, Flags: zk.FlagSequence},
		&zk.SetDataRequest{Path: m, Data: []byte("x"), Version: 0},
		&zk.CheckVersionRequest{Path: m, Version: 1}, // sees the setData before it
		&zk.CreateRequest{Path: m + "/b", Acl: open, Flags: zk.FlagEphemeral},
		&zk.DeleteRequest{Path: m + "/b", Version: -1},
	)
	must(t, "multi", err)
	if len(res) != 6 {
		t.Fatalf("multi gave %d results: %+v", len(res), res)
	}
	for i, r := range res {
		if r.Error != nil {
			t.Errorf("result %d: error %v", i, r.Error)
		}
	}
	wantEqual(t, "create result", res[0].String, m+"/a")
	wantEqual(t, "sequential create result", res[1].String, m+"/s-0000000001")
	wantEqual(t, "ephemeral create result", res[4].String, m+"/b")
	ms := mustStat(t, c, m)
	data, _ := mustGet(t, c, m)
	wantEqual(t, "data", string(data), "x")
	if res[2].Stat == nil {
		t.Fatalf("setData result without a stat")
	}
	// The setData result is the stat right after that op: two children
	// so far, the later create and delete not yet applied.
	want := *ms
	want.Cversion, want.NumChildren = 2, 2
	wantEqual(t, "setData result", *res[2].Stat, want)

	a := mustStat(t, c, m+"/a")
	wantEqual(t, "czxid of the created node = mzxid of the set node", a.Czxid, ms.Mzxid)
	wantEqual(t, "ctime of the created node = mtime of the set node", a.Ctime, ms.Mtime)
	wantEqual(t, "pzxid", ms.Pzxid, ms.Mzxid)
	wantExists(t, c, m+"/b", false)
	kids, _, err := c.Children(m)
	must(t, "children", err)
	wantEqual(t, "children", kids, []string{"a", "s-0000000001"})
	wantEqual(t, "cversion (3 creations, 2 children)", ms.Cversion, int32(4))
	wantEqual(t, "version", ms.Version, int32(1))

	// An empty multi is legal.
	res, err = c.Multi()
	must(t, "empty multi", err)
	wantEqual(t, "empty multi results", len(res), 0)

	// Ephemerals created in a multi belong to the session.
	res, err = c.Multi(&zk.CreateRequest{Path: m + "/e", Acl: open, Flags: zk.FlagEphemeral})
	must(t, "ephemeral multi", err)
	wantEqual(t, "ephemeral multi result", res[0].String, m+"/e")
	wantEqual(t, "ephemeralOwner", mustStat(t, c, m+"/e").EphemeralOwner, c.SessionID())

	// A create and a delete of the same node leave nothing behind; a
	// node can be created under a node created earlier in the multi.
	_, err = c.Multi(
		&zk.CreateRequest{Path: m + "/x", Acl: open},
		&zk.CreateRequest{Path: m + "/x/y", Acl: open},
		&zk.DeleteRequest{Path: m + "/x/y", Version: 0},
	)
	must(t, "nested multi", err)
	wantExists(t, c, m+"/x", true)
	wantExists(t, c, m+"/x/y", false)
}

// testMultiFailure: nothing of a failed multi is applied, no watch fires,
// the results say which op failed (§6.12).
func testMultiFailure(t *testing.T, e *env) {
	c := e.connect(t)
	w := e.connect(t)
	m := mustCreate(t, c, e.p("/m"), []byte("x"), 0, open)
	mustCreate(t, c, m+"/a", nil, 0, open)
	before := mustStat(t, c, m)
	_, _, _, err := w.GetW(m)
	must(t, "getw", err)
	_, _, _, err = w.ChildrenW(m)
	must(t, "childrenw", err)
	_, _, _, err = w.ExistsW(m + "/c")
	must(t, "existsw", err)
	_, _, _, err = w.GetW(m + "/a")
	must(t, "getw", err)

	res, err := c.Multi(
		&zk.CreateRequest{Path: m + "/c", Acl: open},
		&zk.SetDataRequest{Path: m, Data: []byte("y"), Version: 99},
		&zk.DeleteRequest{Path: m + "/a", Version: -1},
	)
	wantErr(t, "failed multi", err, zk.ErrBadVersion)
	if len(res) != 3 {
		t.Fatalf("failed multi gave %d results: %+v", len(res), res)
	}
	wantErr(t, "result 0", res[0].Error, nil)
	wantErr(t, "result 1", res[1].Error, zk.ErrBadVersion)
	wantErr(t, "result 2", res[2].Error, errRuntimeInconsistency)
	wantEqual(t, "result 0 path", res[0].String, "")
	if res[1].Stat != nil {
		t.Errorf("result 1 carries a stat: %+v", res[1].Stat)
	}

	wantExists(t, c, m+"/c", false)
	wantExists(t, c, m+"/a", true)
	data, st := mustGet(t, c, m)
	wantEqual(t, "data", string(data), "x")
	wantEqual(t, "stat", *st, *before)
	barrier(t, w)
	if evs := w.rec.nodeEvents(); len(evs) != 0 {
		t.Errorf("a failed multi fired watches: %v", evs)
	}

	// The sequence counter does not move either.
	_, err = c.Multi(
		&zk.CreateRequest{Path: m + "/s-", Acl: open, Flags: zk.FlagSequence},
		&zk.DeleteRequest{Path: m + "/missing", Version: -1},
	)
	wantErr(t, "failed sequential multi", err, zk.ErrNoNode)
	wantEqual(t, "next sequential", mustCreate(t, c, m+"/s-", nil, zk.FlagSequence, open), m+"/s-0000000001")
}

// testMultiErrorCodes: the error of each failing op, with the ops around
// it reported as 0 and RuntimeInconsistency.
func testMultiErrorCodes(t *testing.T, e *env) {
	c := e.connect(t)
	m := mustCreate(t, c, e.p("/m"), nil, 0, open)
	mustCreate(t, c, m+"/a", nil, 0, open)
	mustCreate(t, c, m+"/a/k", nil, 0, open)
	mustCreate(t, c, m+"/eph", nil, zk.FlagEphemeral, open)
	ro := mustCreate(t, c, m+"/ro", nil, 0, zk.WorldACL(zk.PermRead))
	missing := m + "/missing"

	for _, tc := range []struct {
		name string
		op   interface{}
		want error
	}{
		{"create existing", &zk.CreateRequest{Path: m + "/a", Acl: open}, zk.ErrNodeExists},
		{"create without parent", &zk.CreateRequest{Path: missing + "/x", Acl: open}, zk.ErrNoNode},
		{"create under an ephemeral", &zk.CreateRequest{Path: m + "/eph/x", Acl: open}, zk.ErrNoChildrenForEphemerals},
		{"create with an empty ACL", &zk.CreateRequest{Path: m + "/n", Acl: []zk.ACL{}}, zk.ErrInvalidACL},
		{"create without CREATE", &zk.CreateRequest{Path: ro + "/x", Acl: open}, zk.ErrNoAuth},
		{"create with a trailing slash", &zk.CreateRequest{Path: m + "/a/", Acl: open}, zk.ErrBadArguments},
		{"create with mode 7", &zk.CreateRequest{Path: m + "/f7", Acl: open, Flags: 7}, zk.ErrBadArguments},
		{"delete missing", &zk.DeleteRequest{Path: missing, Version: -1}, zk.ErrNoNode},
		{"delete with children", &zk.DeleteRequest{Path: m + "/a", Version: -1}, zk.ErrNotEmpty},
		{"delete with a wrong version", &zk.DeleteRequest{Path: m + "/eph", Version: 3}, zk.ErrBadVersion},
		{"delete a reserved node", &zk.DeleteRequest{Path: "/zookeeper", Version: -1}, zk.ErrBadArguments},
		{"set missing", &zk.SetDataRequest{Path: missing, Version: -1}, zk.ErrNoNode},
		{"set with a wrong version", &zk.SetDataRequest{Path: m + "/a", Version: 9}, zk.ErrBadVersion},
		{"set without WRITE", &zk.SetDataRequest{Path: ro, Version: -1}, zk.ErrNoAuth},
		{"set an invalid path", &zk.SetDataRequest{Path: m + "/a/", Version: -1}, zk.ErrBadArguments},
		{"check with a wrong version", &zk.CheckVersionRequest{Path: m + "/a", Version: 9}, zk.ErrBadVersion},
		{"check missing", &zk.CheckVersionRequest{Path: missing, Version: -1}, zk.ErrNoNode},
		{"check an invalid path", &zk.CheckVersionRequest{Path: m + "/a/", Version: -1}, zk.ErrBadArguments},
	} {
		ok := &zk.CheckVersionRequest{Path: m, Version: -1}
		res, err := c.Multi(ok, tc.op, ok)
		wantErr(t, tc.name, err, tc.want)
		if len(res) != 3 {
			t.Errorf("%s: %d results: %+v", tc.name, len(res), res)
			continue
		}
		wantErr(t, tc.name+": result 0", res[0].Error, nil)
		wantErr(t, tc.name+": result 1", res[1].Error, tc.want)
		wantErr(t, tc.name+": result 2", res[2].Error, errRuntimeInconsistency)
	}

	// A TTL mode in a create op fails the whole request with
	// MarshallingError and no results at all.
	res, err := c.Multi(&zk.CreateRequest{Path: m + "/t", Acl: open, Flags: zk.FlagTTL})
	wantErr(t, "create op with a TTL mode", err, codeErr(-5))
	wantEqual(t, "create op with a TTL mode: results", len(res), 0)
	wantExists(t, c, m+"/t", false)
	wantExists(t, c, m+"/f7", false)
}

// testACL: which permission each operation needs (§10.1).
func testACL(t *testing.T, e *env) {
	c := e.connect(t)
	perms := func(p int32) []zk.ACL { return zk.WorldACL(p) }

	// READ only.
	ro := mustCreate(t, c, e.p("/ro"), []byte("r"), 0, perms(zk.PermRead))
	_, _, err := c.Get(ro)
	must(t, "get read-only", err)
	_, err = c.Set(ro, nil, -1)
	wantErr(t, "set read-only", err, zk.ErrNoAuth)
	_, err = c.Set(ro, nil, 7)
	wantErr(t, "set read-only with a wrong version", err, zk.ErrNoAuth)
	_, err = c.Create(ro+"/x", nil, 0, open)
	wantErr(t, "create under read-only", err, zk.ErrNoAuth)
	_, err = c.SetACL(ro, open, -1)
	wantErr(t, "setacl read-only", err, zk.ErrNoAuth)
	acl, _, err := c.GetACL(ro)
	must(t, "getacl read-only", err)
	wantEqual(t, "acl", acl, perms(zk.PermRead))

	// Permission checks come before existence and version checks.
	p := mustCreate(t, c, e.p("/p"), nil, 0, open)
	mustCreate(t, c, p+"/k", nil, 0, open)
	_, err = c.SetACL(p, perms(zk.PermRead), -1)
	must(t, "setacl", err)
	_, err = c.Create(p+"/k", nil, 0, open)
	wantErr(t, "NoAuth wins over NodeExists", err, zk.ErrNoAuth)
	wantErr(t, "delete without DELETE on the parent", c.Delete(p+"/k", -1), zk.ErrNoAuth)
	wantErr(t, "NoAuth wins over NoNode on delete", c.Delete(p+"/missing", -1), zk.ErrNoAuth)
	wantErr(t, "NoAuth wins over BadVersion on delete", c.Delete(p+"/k", 9), zk.ErrNoAuth)

	// WRITE only: no reads, no getACL, but exists works (3.8.0 does not
	// check exists).
	wo := mustCreate(t, c, e.p("/wo"), []byte("w"), 0, perms(zk.PermWrite))
	_, _, err = c.Get(wo)
	wantErr(t, "get write-only", err, zk.ErrNoAuth)
	_, _, err = c.Children(wo)
	wantErr(t, "children write-only", err, zk.ErrNoAuth)
	_, _, err = c.GetACL(wo)
	wantErr(t, "getacl write-only", err, zk.ErrNoAuth)
	ok, st, err := c.Exists(wo)
	if !ok || err != nil || st.DataLength != 1 {
		t.Errorf("exists write-only = %v, %+v, %v", ok, st, err)
	}
	_, err = c.Set(wo, []byte("ww"), 0)
	must(t, "set write-only", err)

	// ADMIN only: getACL and setACL work.
	ad := mustCreate(t, c, e.p("/admin"), nil, 0, perms(zk.PermAdmin))
	_, _, err = c.GetACL(ad)
	must(t, "getacl admin-only", err)
	_, _, err = c.Get(ad)
	wantErr(t, "get admin-only", err, zk.ErrNoAuth)
	_, err = c.SetACL(ad, perms(zk.PermAdmin|zk.PermRead), 0)
	must(t, "setacl admin-only", err)
	_, _, err = c.Get(ad)
	must(t, "get after granting READ", err)

	// No permission at all: only exists, sync and a delete through the
	// parent work.
	none := mustCreate(t, c, e.p("/none"), nil, 0, perms(0))
	_, _, err = c.Get(none)
	wantErr(t, "get no-perms", err, zk.ErrNoAuth)
	_, _, err = c.GetACL(none)
	wantErr(t, "getacl no-perms", err, zk.ErrNoAuth)
	_, err = c.SetACL(none, open, -1)
	wantErr(t, "setacl no-perms", err, zk.ErrNoAuth)
	wantExists(t, c, none, true)
	must(t, "delete no-perms through the parent", c.Delete(none, -1))

	// Duplicates are dropped, first occurrence first; permission bits
	// are stored as given.
	dup := mustCreate(t, c, e.p("/dup"), nil, 0, []zk.ACL{
		{Perms: zk.PermRead, Scheme: "world", ID: "anyone"},
		{Perms: zk.PermRead, Scheme: "world", ID: "anyone"},
		{Perms: zk.PermAll, Scheme: "world", ID: "anyone"},
	})
	acl, _, err = c.GetACL(dup)
	must(t, "getacl dup", err)
	wantEqual(t, "deduplicated acl", acl, []zk.ACL{{Perms: zk.PermRead, Scheme: "world", ID: "anyone"}, {Perms: zk.PermAll, Scheme: "world", ID: "anyone"}})
	odd := mustCreate(t, c, e.p("/odd"), nil, 0, perms(0x7f))
	acl, _, err = c.GetACL(odd)
	must(t, "getacl odd", err)
	wantEqual(t, "odd permission bits", acl, perms(0x7f))

	// ip ACLs match the client's address.
	for _, tc := range []struct {
		id   string
		want error
	}{
		{"127.0.0.1", nil},
		{"127.0.0.0/8", nil},
		{"10.1.2.3", zk.ErrNoAuth},
		{"10.0.0.0/8", zk.ErrNoAuth},
	} {
		n := mustCreate(t, c, e.p("/ip-"), nil, zk.FlagSequence, []zk.ACL{{Perms: zk.PermAll, Scheme: "ip", ID: tc.id}})
		_, _, err := c.Get(n)
		wantErr(t, "get with ip ACL "+tc.id, err, tc.want)
	}

	// getACL hides digest hashes from callers without ADMIN.
	mixed := mustCreate(t, c, e.p("/mixed"), nil, 0, []zk.ACL{
		{Perms: zk.PermRead, Scheme: "world", ID: "anyone"},
		{Perms: zk.PermAll, Scheme: "digest", ID: digestOf("bob:pw")},
	})
	acl, _, err = c.GetACL(mixed)
	must(t, "getacl mixed", err)
	wantEqual(t, "acl seen without ADMIN", acl, []zk.ACL{
		{Perms: zk.PermRead, Scheme: "world", ID: "anyone"},
		{Perms: zk.PermAll, Scheme: "digest", ID: "bob:x"},
	})
	bob := e.connect(t)
	must(t, "addauth bob", bob.AddAuth("digest", []byte("bob:pw")))
	acl, _, err = bob.GetACL(mixed)
	must(t, "getacl mixed as bob", err)
	wantEqual(t, "acl seen with ADMIN", acl, []zk.ACL{
		{Perms: zk.PermRead, Scheme: "world", ID: "anyone"},
		{Perms: zk.PermAll, Scheme: "digest", ID: digestOf("bob:pw")},
	})
}

// testDigestAuth: digest identities, auth ACLs and their expansion
// (§10.2.1, §10.4).
func testDigestAuth(t *testing.T, e *env) {
	alice := e.connect(t)
	must(t, "addauth", alice.AddAuth("digest", []byte("alice:secret")))
	n := mustCreate(t, alice, e.p("/alice"), []byte("a"), 0, zk.AuthACL(zk.PermAll))
	acl, _, err := alice.GetACL(n)
	must(t, "getacl", err)
	wantEqual(t, "auth ACL expanded", acl, []zk.ACL{{Perms: zk.PermAll, Scheme: "digest", ID: digestOf("alice:secret")}})
	mustCreate(t, alice, n+"/k", nil, 0, open)

	anon := e.connect(t)
	_, _, err = anon.Get(n)
	wantErr(t, "get as anonymous", err, zk.ErrNoAuth)
	_, err = anon.Set(n, nil, -1)
	wantErr(t, "set as anonymous", err, zk.ErrNoAuth)
	_, _, err = anon.Children(n)
	wantErr(t, "children as anonymous", err, zk.ErrNoAuth)
	_, _, err = anon.GetACL(n)
	wantErr(t, "getacl as anonymous", err, zk.ErrNoAuth)
	_, err = anon.Create(n+"/x", nil, 0, open)
	wantErr(t, "create as anonymous", err, zk.ErrNoAuth)
	wantErr(t, "delete as anonymous", anon.Delete(n+"/k", -1), zk.ErrNoAuth)
	wantExists(t, anon, n, true)

	// A wrong password is not an auth failure, just another identity.
	must(t, "addauth with a wrong password", anon.AddAuth("digest", []byte("alice:wrong")))
	_, _, err = anon.Get(n)
	wantErr(t, "get with a wrong password", err, zk.ErrNoAuth)

	// The identity, not the session, is what counts.
	alice2 := e.connect(t)
	must(t, "addauth", alice2.AddAuth("digest", []byte("alice:secret")))
	data, _ := mustGet(t, alice2, n)
	wantEqual(t, "data", string(data), "a")

	// auth:<anything> behaves like auth:""; two identities give two
	// entries.
	must(t, "addauth bob", alice2.AddAuth("digest", []byte("bob:pw")))
	rw := int32(zk.PermRead | zk.PermAdmin) // ADMIN, to see the hashes
	two := mustCreate(t, alice2, e.p("/two"), nil, 0, []zk.ACL{{Perms: rw, Scheme: "auth", ID: "whatever"}})
	acl, _, err = alice2.GetACL(two)
	must(t, "getacl two", err)
	wantEqual(t, "auth ACL with two identities", acl, []zk.ACL{
		{Perms: rw, Scheme: "digest", ID: digestOf("alice:secret")},
		{Perms: rw, Scheme: "digest", ID: digestOf("bob:pw")},
	})

	// A digest ACL can be written by anyone and used by its owner.
	carol := mustCreate(t, anon, e.p("/carol"), []byte("c"), 0, zk.DigestACL(zk.PermAll, "carol", "pw"))
	_, _, err = anon.Get(carol)
	wantErr(t, "get carol's node", err, zk.ErrNoAuth)
	must(t, "addauth carol", anon.AddAuth("digest", []byte("carol:pw")))
	_, _, err = anon.Get(carol)
	must(t, "get carol's node as carol", err)

	// An ip auth packet is accepted.
	must(t, "addauth ip", anon.AddAuth("ip", []byte("10.9.9.9")))

	// Credentials are sent again after a reconnect.
	from := alice.rec.count()
	alice.dial.drop()
	alice.waitSession(t, from, zk.StateHasSession)
	data, _ = mustGet(t, alice, n)
	wantEqual(t, "data after reconnect", string(data), "a")
}

// testInvalidACL: every kind of bad ACL, on create and on setACL (§10.4).
func testInvalidACL(t *testing.T, e *env) {
	c := e.connect(t)
	n := mustCreate(t, c, e.p("/n"), nil, 0, open)
	for _, tc := range []struct {
		name string
		acl  []zk.ACL
	}{
		{"empty", []zk.ACL{}},
		{"auth without an identity", zk.AuthACL(zk.PermAll)},
		{"world:foo", []zk.ACL{{Perms: zk.PermAll, Scheme: "world", ID: "foo"}}},
		{"unknown scheme", []zk.ACL{{Perms: zk.PermAll, Scheme: "nosuch", ID: "x"}}},
		{"digest without a colon", []zk.ACL{{Perms: zk.PermAll, Scheme: "digest", ID: "alice"}}},
		{"ip that is not an address", []zk.ACL{{Perms: zk.PermAll, Scheme: "ip", ID: "notanip"}}},
		{"super", []zk.ACL{{Perms: zk.PermAll, Scheme: "super", ID: ""}}},
		{"one bad entry among good ones", []zk.ACL{{Perms: zk.PermAll, Scheme: "world", ID: "anyone"}, {Perms: zk.PermAll, Scheme: "nosuch", ID: "x"}}},
	} {
		_, err := c.Create(e.p("/x"), nil, 0, tc.acl)
		wantErr(t, "create with "+tc.name, err, zk.ErrInvalidACL)
		_, err = c.SetACL(n, tc.acl, -1)
		wantErr(t, "setacl with "+tc.name, err, zk.ErrInvalidACL)
	}
	wantExists(t, c, e.p("/x"), false)
	acl, st, err := c.GetACL(n)
	must(t, "getacl", err)
	wantEqual(t, "acl after failed setACLs", acl, open)
	wantEqual(t, "aversion after failed setACLs", st.Aversion, int32(0))
}

// testSuperUser: the superDigest identity passes every check (§10.2.1).
func testSuperUser(t *testing.T, e *env) {
	owner := e.connect(t)
	must(t, "addauth", owner.AddAuth("digest", []byte("alice:secret")))
	locked := mustCreate(t, owner, e.p("/locked"), []byte("l"), 0, zk.AuthACL(zk.PermAll))
	none := mustCreate(t, owner, e.p("/none"), []byte("n"), 0, zk.WorldACL(0))

	s := e.connect(t)
	must(t, "addauth super", s.AddAuth("digest", []byte("super:"+superPassword)))
	for _, p := range []string{locked, none} {
		_, _, err := s.Get(p)
		must(t, "super get "+p, err)
		_, err = s.Set(p, []byte("s"), -1)
		must(t, "super set "+p, err)
		mustCreate(t, s, p+"/k", nil, 0, open)
		must(t, "super delete", s.Delete(p+"/k", -1))
	}
	acl, _, err := s.GetACL(locked)
	must(t, "super getacl", err)
	wantEqual(t, "acl seen by super", acl, []zk.ACL{{Perms: zk.PermAll, Scheme: "digest", ID: digestOf("alice:secret")}})
	_, err = s.SetACL(none, open, -1)
	must(t, "super setacl", err)

	// A wrong super password is just another digest identity.
	w := e.connect(t)
	must(t, "addauth", w.AddAuth("digest", []byte("super:wrong")))
	_, _, err = w.Get(locked)
	wantErr(t, "get with a wrong super password", err, zk.ErrNoAuth)
}

// testAuthFailed: an unknown scheme fails with AuthFailed and the server
// closes the connection; the session survives and the client resumes it
// (§6.22).
func testAuthFailed(t *testing.T, e *env) {
	c := e.connect(t)
	sid := c.SessionID()
	eph := mustCreate(t, c, e.p("/eph"), nil, zk.FlagEphemeral, open)
	from := c.rec.count()
	dials := c.dial.dialCount()
	err := c.AddAuth("nosuchscheme", []byte("x"))
	wantErr(t, "addauth with an unknown scheme", err, zk.ErrAuthFailed)
	i := c.waitSession(t, from, zk.StateDisconnected)
	c.waitSession(t, i, zk.StateHasSession)
	if c.dial.dialCount() == dials {
		t.Errorf("the connection was not replaced after AuthFailed")
	}
	wantEqual(t, "session id after AuthFailed", c.SessionID(), sid)
	wantEqual(t, "ephemeralOwner after AuthFailed", mustStat(t, c, eph).EphemeralOwner, sid)
}
