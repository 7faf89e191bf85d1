//go:build interop

package datadir

import (
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/compat/zkwire"
	"github.com/gozk/gozk/proto"
)

// sessionTimeout is long enough that no session of a test expires while
// the data moves between servers (both servers allow it: see
// serverConfig).
const sessionTimeout = 120 * time.Second

// serverConfig are the zoo.cfg lines both servers run with.
var serverConfig = []string{"maxSessionTimeout=600000"}

func digestID(userPassword string) string {
	user, _, _ := strings.Cut(userPassword, ":")
	sum := sha1.Sum([]byte(userPassword))
	return user + ":" + base64.StdEncoding.EncodeToString(sum[:])
}

func connect(t testing.TB, addr string, opts zkwire.Options) *zkwire.Client {
	t.Helper()
	c, err := zkwire.Connect(addr, sessionTimeout, opts)
	if err != nil {
		t.Fatalf("connect %s: %v", addr, err)
	}
	if c.Refused() {
		t.Fatalf("connect %s: session refused", addr)
	}
	return c
}

var (
	open      = proto.OpenACLUnsafe
	digestACL = []proto.ACL{
		{Perms: proto.PermAll, Id: proto.Id{Scheme: "digest", Id: digestID("alice:secret")}},
		{Perms: proto.PermRead, Id: proto.Id{Scheme: "world", Id: "anyone"}},
	}
	ipACL = []proto.ACL{
		{Perms: proto.PermRead | proto.PermWrite | proto.PermAdmin, Id: proto.Id{Scheme: "ip", Id: "127.0.0.1"}},
		{Perms: proto.PermCreate | proto.PermDelete, Id: proto.Id{Scheme: "ip", Id: "10.0.0.0/8"}},
	}
	readOnly = proto.ReadACLUnsafe
)

// workload sizes a tree.
type workload struct {
	// big adds the values close to 1 MiB and the wide and deep parts.
	big bool
}

// live is what buildTree leaves running: the session that owns the
// ephemerals.
type live struct {
	c         *zkwire.Client
	id        int64
	password  []byte
	ephemeral []string
}

func must[T any](t testing.TB, what string) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
}

func mustErr(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// buildTree writes the tree through a new session and returns the session
// that owns the ephemerals, still open. Every kind of txn Java logs
// appears: creates of every mode, setData, setACL, deletes (which advance
// the sequence counters), a multi, failed writes (error txns), a session
// closed with its ephemerals, and quota nodes.
func buildTree(t testing.TB, addr string, w workload) *live {
	t.Helper()
	c := connect(t, addr, zkwire.Options{})
	create := func(path string, data []byte, acl []proto.ACL, mode proto.CreateMode) string {
		t.Helper()
		return must[string](t, "create "+path)(c.Create(path, data, acl, int32(mode)))
	}
	create("/app", []byte("application root"), open, proto.ModePersistent)
	create("/app/empty", []byte{}, open, proto.ModePersistent)
	create("/app/null", nil, open, proto.ModePersistent)
	create("/app/digest", []byte("digest protected"), digestACL, proto.ModePersistent)
	create("/app/ip", []byte("ip protected"), ipACL, proto.ModePersistent)
	create("/app/readonly", []byte("world read"), open, proto.ModePersistent)
	create("/app/shared-acl", []byte("same ACL as /app/digest"), digestACL, proto.ModePersistent)
	create("/app/utf8-é", []byte("naïve ✓ \x00\xff binary"), open, proto.ModePersistent)

	// Sequential counters advanced by creates and deletes.
	create("/seq", nil, open, proto.ModePersistent)
	var seqs []string
	for i := 0; i < 5; i++ {
		seqs = append(seqs, create("/seq/n-", []byte(fmt.Sprint(i)), open, proto.ModePersistentSequential))
	}
	mustErr(t, "delete", c.Delete(seqs[1], -1))
	mustErr(t, "delete", c.Delete(seqs[3], -1))
	create("/seq/n-", []byte("after deletes"), open, proto.ModePersistentSequential)

	// setData and setACL move versions.
	for i := 0; i < 3; i++ {
		must[*proto.Stat](t, "setData")(c.SetData("/app", []byte(fmt.Sprintf("v%d", i+1)), int32(i)))
	}
	must[*proto.Stat](t, "setACL")(c.SetACL("/app/readonly", ipACL, 0))
	must[*proto.Stat](t, "setACL")(c.SetACL("/app/readonly", readOnly, 1))

	// Containers and TTL nodes (extendedTypesEnabled). The container has a
	// child so the reaper leaves it alone; the TTLs are long.
	must[*proto.Create2Response](t, "container")(c.CreateContainer("/cont", []byte("container"), open))
	create("/cont/child", []byte("keeps the container"), open, proto.ModePersistent)
	must[*proto.Create2Response](t, "ttl")(c.CreateTTL("/ttl", []byte("ttl"), open, int32(proto.ModePersistentWithTTL), 3600_000))
	must[*proto.Create2Response](t, "ttl-seq")(c.CreateTTL("/ttl-seq-", []byte("ttl seq"), open, int32(proto.ModePersistentSequentialWithTTL), 7200_000))

	// Quotas, as zkCli's setquota writes them.
	create("/quota-app", []byte("quota'd"), open, proto.ModePersistent)
	create("/quota-app/a", []byte("12345"), open, proto.ModePersistent)
	create("/zookeeper/quota/quota-app", nil, open, proto.ModePersistent)
	create("/zookeeper/quota/quota-app/zookeeper_limits", []byte("count=10,bytes=1000"), open, proto.ModePersistent)
	create("/zookeeper/quota/quota-app/zookeeper_stats", []byte("count=2,bytes=12"), open, proto.ModePersistent)

	// A multi, and failed writes (error txns consume zxids).
	must[*proto.MultiResponse](t, "multi")(c.Multi(
		proto.MultiOp{Type: proto.OpCreate, Create: proto.CreateRequest{Path: "/multi", Data: []byte("m"), Acl: open}},
		proto.MultiOp{Type: proto.OpCreate, Create: proto.CreateRequest{Path: "/multi/a", Data: []byte("ma"), Acl: open}},
		proto.MultiOp{Type: proto.OpSetData, SetData: proto.SetDataRequest{Path: "/multi", Data: []byte("m2"), Version: 0}},
		proto.MultiOp{Type: proto.OpCheck, Check: proto.CheckVersionRequest{Path: "/app", Version: 3}},
	))
	if _, err := c.Create("/app", nil, open, 0); !errors.Is(err, proto.ErrNodeExists) {
		t.Fatalf("create existing: %v", err)
	}
	if err := c.Delete("/app", -1); !errors.Is(err, proto.ErrNotEmpty) {
		t.Fatalf("delete non-empty: %v", err)
	}
	c.Multi( // fails as a whole: a multi of error sub-txns
		proto.MultiOp{Type: proto.OpCreate, Create: proto.CreateRequest{Path: "/never", Data: nil, Acl: open}},
		proto.MultiOp{Type: proto.OpDelete, Delete: proto.DeleteRequest{Path: "/missing", Version: -1}},
	)

	// A session that closes removes its ephemerals (closeSession txn).
	gone := connect(t, addr, zkwire.Options{})
	must[string](t, "ephemeral of closed session")(gone.Create("/app/gone", nil, open, int32(proto.ModeEphemeral)))
	mustErr(t, "closeSession", gone.CloseSession())
	gone.Close()

	if w.big {
		big := bytes.Repeat([]byte("0123456789abcdef"), 1_000_000/16)
		create("/big", big, open, proto.ModePersistent)
		create("/big/second", big[:1_000_000-100], digestACL, proto.ModePersistent)
		create("/wide", nil, open, proto.ModePersistent)
		for i := 0; i < 300; i++ {
			create(fmt.Sprintf("/wide/child-%04d", i), []byte(fmt.Sprint(i)), open, proto.ModePersistent)
		}
		p := "/deep"
		for i := 0; i < 40; i++ {
			create(p, []byte(p), open, proto.ModePersistent)
			p += fmt.Sprintf("/level%02d", i)
		}
	}
	c.Close()

	// The live session: ephemerals and an ephemeral sequential node.
	l := &live{c: connect(t, addr, zkwire.Options{})}
	l.id, l.password = l.c.SessionID(), l.c.Password()
	for _, e := range []struct {
		path string
		mode proto.CreateMode
	}{{"/app/eph", proto.ModeEphemeral}, {"/seq/eph-", proto.ModeEphemeralSequential}, {"/seq/eph-", proto.ModeEphemeralSequential}} {
		p := must[string](t, "ephemeral")(l.c.Create(e.path, []byte("owned by the live session"), digestACL, int32(e.mode)))
		l.ephemeral = append(l.ephemeral, p)
	}
	sort.Strings(l.ephemeral)
	return l
}

// laterWrites are a few writes after the first stop, so that txns follow
// the snapshot a restart takes.
func laterWrites(t testing.TB, addr string) {
	t.Helper()
	c := connect(t, addr, zkwire.Options{})
	defer c.Close()
	must[*proto.Stat](t, "setData")(c.SetData("/app/empty", []byte("not empty any more"), -1))
	must[string](t, "create")(c.Create("/after-restart", []byte("logged after the snapshot"), ipACL, 0))
	mustErr(t, "delete", c.Delete("/app/null", -1))
	must[string](t, "create")(c.Create("/seq/n-", nil, open, int32(proto.ModePersistentSequential)))
}

// nodeView is everything a client can see of one node.
type nodeView struct {
	Data     []byte
	Null     bool
	Stat     proto.Stat
	ACL      []proto.ACL
	Children []string
}

// capture reads the whole tree from the root through c.
func capture(t testing.TB, c *zkwire.Client) map[string]nodeView {
	t.Helper()
	out := make(map[string]nodeView)
	var walk func(path string)
	walk = func(path string) {
		d, err := c.GetData(path, false)
		if err != nil {
			t.Fatalf("getData %s: %v", path, err)
		}
		a, err := c.GetACL(path)
		if err != nil {
			t.Fatalf("getACL %s: %v", path, err)
		}
		kids, err := c.GetChildren2(path, false)
		if err != nil {
			t.Fatalf("getChildren2 %s: %v", path, err)
		}
		children := slices.Clone(kids.Children) // in the server's order
		out[path] = nodeView{Data: d.Data, Null: d.Data == nil, Stat: d.Stat, ACL: a.Acl, Children: children}
		for _, k := range children {
			if path == "/" {
				walk("/" + k)
			} else {
				walk(path + "/" + k)
			}
		}
	}
	walk("/")
	return out
}

// lastZxid asks the server for its last processed zxid: the zxid of the
// reply to a read.
func lastZxid(t testing.TB, c *zkwire.Client) int64 {
	t.Helper()
	if _, err := c.Exists("/", false); err != nil {
		t.Fatalf("exists /: %v", err)
	}
	return c.LastZxid()
}

// state is what a comparison covers.
type state struct {
	Tree     map[string]nodeView
	LastZxid int64
}

// captureState reads the tree and the last zxid through a new session,
// which it then closes. That session costs the server two zxids
// (createSession before the reads, closeSession after), so a server
// that took over this state answers its next session's first read with
// LastZxid+2.
func captureState(t testing.TB, addr string) state {
	t.Helper()
	c := connect(t, addr, zkwire.Options{})
	defer c.Close()
	s := state{Tree: capture(t, c), LastZxid: lastZxid(t, c)}
	mustErr(t, "closeSession", c.CloseSession())
	return s
}

// compareTrees reports every difference between two captured trees,
// children compared as sets (see compareChildOrder for their order).
// /zookeeper/config is compared too: both servers are standalone.
func compareTrees(t testing.TB, wantName string, want map[string]nodeView, gotName string, got map[string]nodeView) {
	t.Helper()
	if len(want) < 20 || len(got) < 20 {
		t.Fatalf("captured trees too small to mean anything: %s %d nodes, %s %d", wantName, len(want), gotName, len(got))
	}
	var paths []string
	for p := range want {
		paths = append(paths, p)
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	diffs := 0
	for _, p := range paths {
		w, inW := want[p]
		g, inG := got[p]
		switch {
		case !inW:
			t.Errorf("%s: only on %s", p, gotName)
		case !inG:
			t.Errorf("%s: only on %s", p, wantName)
		case !reflect.DeepEqual(unordered(w), unordered(g)):
			t.Errorf("%s differs:\n %s: %s\n %s: %s", p, wantName, describe(w), gotName, describe(g))
		default:
			continue
		}
		if diffs++; diffs > 20 {
			t.Fatalf("too many differences")
		}
	}
}

// unordered is v with its children sorted: a server that loaded a
// snapshot lists children in the order of the sets it rebuilt from it,
// which need not be the order of the server that wrote it.
func unordered(v nodeView) nodeView {
	v.Children = slices.Sorted(slices.Values(v.Children))
	return v
}

// compareChildOrder reports the nodes whose children two servers list in
// different orders.
func compareChildOrder(t testing.TB, wantName string, want map[string]nodeView, gotName string, got map[string]nodeView) {
	t.Helper()
	for _, p := range slices.Sorted(maps.Keys(want)) {
		if g, ok := got[p]; ok && !slices.Equal(want[p].Children, g.Children) {
			t.Errorf("%s lists its children in another order:\n %s: %q\n %s: %q", p, wantName, want[p].Children, gotName, g.Children)
		}
	}
}

func describe(v nodeView) string {
	data := fmt.Sprintf("%d bytes", len(v.Data))
	if len(v.Data) <= 40 {
		data = fmt.Sprintf("%q", v.Data)
	}
	return fmt.Sprintf("data %s null=%v stat %+v acl %v children %v", data, v.Null, v.Stat, v.ACL, v.Children)
}

// checkLiveSession resumes the live session on addr with its id and
// password, and checks that it still owns its ephemerals.
func checkLiveSession(t testing.TB, addr string, l *live) {
	t.Helper()
	c, err := zkwire.Connect(addr, sessionTimeout, zkwire.Options{SessionID: l.id, Password: l.password})
	if err != nil {
		t.Fatalf("resuming session 0x%x: %v", l.id, err)
	}
	defer c.Close()
	if c.Refused() || c.SessionID() != l.id {
		t.Fatalf("session 0x%x was not resumed (got 0x%x, timeout %d)", l.id, c.SessionID(), c.Handshake.TimeOut)
	}
	eph, err := c.GetEphemerals("/")
	if err != nil {
		t.Fatalf("getEphemerals: %v", err)
	}
	sort.Strings(eph)
	if !reflect.DeepEqual(eph, l.ephemeral) {
		t.Fatalf("session 0x%x owns %v, want %v", l.id, eph, l.ephemeral)
	}
}
