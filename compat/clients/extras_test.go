//go:build interop

package clients

import (
	"regexp"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/compat/zkwire"
)

// testRecipes: go-zookeeper's protected ephemeral sequential create and
// its lock recipe.
func testRecipes(t *testing.T, e *env) {
	a, b := e.connect(t), e.connect(t)
	wantEqual(t, "state", a.State(), zk.StateHasSession)
	wantEqual(t, "server", a.Server(), e.srv.Addr())

	mustCreate(t, a, e.p("/p"), nil, 0, open)
	p, err := a.CreateProtectedEphemeralSequential(e.p("/p/x-"), []byte("d"), open)
	must(t, "protected ephemeral sequential", err)
	if !regexp.MustCompile(`^` + regexp.QuoteMeta(e.p("/p/")) + `_c_[0-9a-f]{32}-x-0000000000$`).MatchString(p) {
		t.Errorf("protected ephemeral sequential path %q", p)
	}
	wantEqual(t, "ephemeralOwner", mustStat(t, a, p).EphemeralOwner, a.SessionID())

	lockPath := e.p("/lock")
	la := zk.NewLock(a.Conn, lockPath, open)
	lb := zk.NewLock(b.Conn, lockPath, open)
	must(t, "lock a", la.Lock())
	done := make(chan error, 1)
	go func() { done <- lb.Lock() }()
	// Wait until b has queued its lock node; it cannot hold the lock
	// while a's node exists.
	w := e.connect(t)
	for {
		kids, _, ch, err := w.ChildrenW(lockPath)
		must(t, "childrenw", err)
		if len(kids) == 2 {
			break
		}
		nextEvent(t, "b's lock node", ch)
	}
	select {
	case err := <-done:
		t.Fatalf("b got the lock while a held it (%v)", err)
	default:
	}
	must(t, "unlock a", la.Unlock())
	select {
	case err := <-done:
		must(t, "lock b", err)
	case <-time.After(waitLimit):
		t.Fatalf("b did not get the lock within %v of a's unlock", waitLimit)
	}
	must(t, "unlock b", lb.Unlock())
	kids, _, err := w.Children(lockPath)
	must(t, "children", err)
	wantEqual(t, "lock nodes left", len(kids), 0)
}

// testReconfig: a standalone server refuses reconfig with
// ReconfigDisabled (§6.14).
func testReconfig(t *testing.T, e *env) {
	c := e.connect(t)
	_, err := c.Reconfig([]string{"server.1=127.0.0.1:2888:3888:participant;127.0.0.1:2181"}, -1)
	wantErr(t, "reconfig", err, zk.ErrReconfigDisabled)
	_, err = c.IncrementalReconfig([]string{"server.2=127.0.0.1:2889:3889:participant;127.0.0.1:2182"}, nil, -1)
	wantErr(t, "incremental reconfig", err, zk.ErrReconfigDisabled)
	_, err = c.IncrementalReconfig(nil, []string{"1"}, -1)
	wantErr(t, "incremental reconfig removing", err, zk.ErrReconfigDisabled)
	data, _ := mustGet(t, c, "/zookeeper/config")
	wantEqual(t, "config after refused reconfigs", len(data), 0)
}

// testFourLetterWords: go-zookeeper's ruok and cons helpers parse the
// server's answers.
func testFourLetterWords(t *testing.T, e *env) {
	c := e.connect(t)
	wantEqual(t, "ruok", zk.FLWRuok([]string{e.srv.Addr()}, 10*time.Second), []bool{true})
	cons, _ := zk.FLWCons([]string{e.srv.Addr()}, 10*time.Second)
	if len(cons) != 1 {
		t.Fatalf("cons: %d results", len(cons))
	}
	found := false
	for _, cl := range cons[0].Clients {
		if cl.SessionID == c.SessionID() {
			found = true
			wantEqual(t, "cons timeout", cl.Timeout, int32(10000))
		}
	}
	if !found {
		raw, _ := zkwire.FourLetterWord(e.srv.Addr(), "cons", 10*time.Second)
		t.Errorf("cons does not list session %#x: %+v\n%s", c.SessionID(), cons[0].Clients, raw)
	}
}

// testOversizedFrame: a request frame above jute.maxbuffer makes the
// server drop the connection without a reply; the session survives and
// the request is not executed (§1.2).
func testOversizedFrame(t *testing.T, e *env) {
	c := e.connect(t)
	sid := c.SessionID()
	eph := mustCreate(t, c, e.p("/eph"), nil, zk.FlagEphemeral, open)
	// The largest frame that is accepted: 1048575 payload bytes. The
	// create request around the data takes 8 (header) + 4+len(path) +
	// 4 (data length) + 4+4+4+len("world")+4+len("anyone") (ACL) + 4
	// (flags) bytes.
	path := e.p("/fits")
	overhead := 8 + 4 + len(path) + 4 + 4 + 4 + 4 + len("world") + 4 + len("anyone") + 4
	fits := make([]byte, 1048575-overhead)
	mustCreate(t, c, path, fits, 0, open)
	_, st := mustGet(t, c, path)
	wantEqual(t, "dataLength of the largest accepted create", st.DataLength, int32(len(fits)))

	from := c.rec.count()
	tooBig := make([]byte, 1048576-overhead)
	// The client sees the connection go, either while still writing
	// (broken pipe) or when it reads (ErrConnectionClosed): which one is
	// a race between its write and the server's close.
	_, err := c.Create(e.p("/toobig"), tooBig, 0, open)
	if err == nil {
		t.Fatalf("create one byte over the limit succeeded")
	}
	reconnected(t, c, from)
	wantEqual(t, "session id after the dropped connection", c.SessionID(), sid)
	wantExists(t, c, e.p("/toobig"), false)
	wantEqual(t, "ephemeralOwner", mustStat(t, c, eph).EphemeralOwner, sid)
}
