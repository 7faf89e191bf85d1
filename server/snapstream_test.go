package server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/compat/javaprog"
	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/persistence/zkfiles"
	"github.com/gozk/gozk/proto"
)

// loadSnapStreamTree decodes a SNAP stream into a new tree at zxid, as a
// learner loads it.
func loadSnapStreamTree(t *testing.T, s *Server, raw []byte, zxid int64) (*db.Tree, zkfiles.SnapshotInfo) {
	t.Helper()
	tree := db.New(s.treeOptions())
	ld := tree.NewLoader()
	sessions := map[int64]int32{}
	info, err := zkfiles.DecodeSnapStream(bufio.NewReader(bytes.NewReader(raw)), s.fieldLimit, zkfiles.SnapshotHandler{
		Session: func(id int64, timeout int32) error { sessions[id] = timeout; return nil },
		ACL:     func(e proto.ACLCacheEntry) error { ld.ACL(e.Id, e.Acl); return nil },
		Node:    func(n *zkfiles.Node) error { return ld.Node(n.Path, n.Data, n.ACLID, &n.Stat) },
	})
	if err != nil {
		t.Fatalf("decoding the stream: %v", err)
	}
	tree.SetSessions(sessions)
	tree.FinishLoad()
	tree.SetLastProcessedZxid(zxid)
	return tree, info
}

// replayLogAfter applies every logged txn after zxid to tree and returns
// how many there were.
func replayLogAfter(t *testing.T, s *Server, tree *db.Tree, zxid int64) int {
	t.Helper()
	n := 0
	err := s.txnLog.Replay(zxid+1, func(_ int64, data []byte) error {
		txn, err := proto.DecodeTxn(data, s.fieldLimit)
		if err != nil {
			return err
		}
		tree.Apply(txn)
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

type treeNode struct {
	data []byte
	acl  []proto.ACL
	stat proto.StatPersisted
}

func treeNodes(t *testing.T, tree *db.Tree) map[string]treeNode {
	t.Helper()
	out := map[string]treeNode{}
	err := tree.Walk(func(path string, data []byte, acl []proto.ACL, stat proto.StatPersisted) error {
		out[path] = treeNode{data, acl, stat}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameTree fails t unless got holds want's nodes (data, ACL, every stat
// field), sessions and digest.
func sameTree(t *testing.T, want, got *db.Tree) {
	t.Helper()
	w, g := treeNodes(t, want), treeNodes(t, got)
	bad := 0
	for path, wn := range w {
		gn, ok := g[path]
		switch {
		case !ok:
			t.Errorf("%s is missing", path)
		case !bytes.Equal(gn.data, wn.data) || (gn.data == nil) != (wn.data == nil):
			t.Errorf("%s has data %q, want %q", path, gn.data, wn.data)
		case !slices.Equal(gn.acl, wn.acl):
			t.Errorf("%s has ACL %v, want %v", path, gn.acl, wn.acl)
		case gn.stat != wn.stat:
			t.Errorf("%s has stat %+v, want %+v", path, gn.stat, wn.stat)
		default:
			continue
		}
		if bad++; bad > 10 {
			t.Fatal("too many differences")
		}
	}
	for path := range g {
		if _, ok := w[path]; !ok {
			t.Errorf("%s should not be there", path)
		}
	}
	if ws, gs := want.Sessions(), got.Sessions(); fmt.Sprint(ws) != fmt.Sprint(gs) {
		t.Errorf("sessions %v, want %v", gs, ws)
	}
	if want.Digest() != got.Digest() {
		t.Errorf("digest %d, want %d", got.Digest(), want.Digest())
	}
	if want.LastProcessedZxid() != got.LastProcessedZxid() {
		t.Errorf("last zxid 0x%x, want 0x%x", got.LastProcessedZxid(), want.LastProcessedZxid())
	}
}

// createTree creates, through c, parents /base/p0../base/p3 with perChild
// children each and /big with bigChildren children (more than a walk
// step copies at once), with 60 bytes of data each.
func createTree(t *testing.T, c *zk.Conn, perChild, bigChildren int) []string {
	t.Helper()
	open := zk.WorldACL(zk.PermAll)
	var leaves []string
	ops := []any{
		&zk.CreateRequest{Path: "/base", Acl: open},
		&zk.CreateRequest{Path: "/big", Data: []byte("big"), Acl: open},
	}
	for p := range 4 {
		ops = append(ops, &zk.CreateRequest{Path: fmt.Sprintf("/base/p%d", p), Acl: open})
	}
	flush := func() {
		if _, err := c.Multi(ops...); err != nil {
			t.Fatal(err)
		}
		ops = ops[:0]
	}
	add := func(path string) {
		acl := open
		if len(leaves)%7 == 0 {
			acl = []zk.ACL{{Perms: zk.PermAll, Scheme: "world", ID: "anyone"}, {Perms: zk.PermRead, Scheme: "digest", ID: "reader:x"}}
		}
		ops = append(ops, &zk.CreateRequest{Path: path, Data: bytes.Repeat([]byte{byte(len(leaves))}, 60), Acl: acl})
		leaves = append(leaves, path)
		if len(ops) >= 200 {
			flush()
		}
	}
	for p := range 4 {
		for i := range perChild {
			add(fmt.Sprintf("/base/p%d/n%d", p, i))
		}
	}
	for i := range bigChildren {
		add(fmt.Sprintf("/big/c%d", i))
	}
	flush()
	return leaves
}

// freshACL is an ACL list no node had before (so the tree gives it a new
// id) that leaves the client every permission.
func freshACL(i int) []zk.ACL {
	return []zk.ACL{{Perms: zk.PermAll, Scheme: "world", ID: "anyone"}, {Perms: zk.PermRead, Scheme: "digest", ID: fmt.Sprintf("u%d:x", i)}}
}

// churn writes through c until stop is closed: creates with new ACL
// lists, setACLs with new lists, setData, deletes, ephemeral sequential
// creates and multis, over the whole tree. ops counts the writes done.
func churn(c *zk.Conn, leaves []string, ops *atomic.Int64, stop <-chan struct{}) {
	rng := rand.New(rand.NewPCG(7, 11))
	var created []string
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		leaf := leaves[rng.IntN(len(leaves))]
		parent := fmt.Sprintf("/base/p%d", rng.IntN(4))
		if rng.IntN(3) == 0 {
			parent = "/big"
		}
		switch i % 7 {
		case 0:
			p := fmt.Sprintf("%s/new%d", parent, i)
			if _, err := c.Create(p, []byte("new"), 0, freshACL(i)); err == nil {
				created = append(created, p)
			}
		case 1:
			c.SetACL(leaf, freshACL(i), -1)
		case 2:
			c.Set(leaf, []byte(fmt.Sprintf("v%d", i)), -1)
		case 3:
			if len(created) > 0 {
				k := rng.IntN(len(created))
				c.Delete(created[k], -1)
				created = slices.Delete(created, k, k+1)
			} else {
				c.Delete(leaf, -1)
			}
		case 4:
			c.Create(parent+"/eph-", []byte("e"), zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		case 5:
			p := fmt.Sprintf("%s/multi%d", parent, i)
			if _, err := c.Multi(&zk.CreateRequest{Path: p, Data: []byte("m"), Acl: freshACL(i)},
				&zk.SetDataRequest{Path: leaf, Data: []byte("multi"), Version: -1}); err == nil {
				created = append(created, p)
			}
		case 6:
			// A node created and its ACL set again, both after the
			// stream began.
			if len(created) > 0 {
				c.SetACL(created[len(created)-1], freshACL(i), -1)
			}
		}
		ops.Add(1)
	}
}

// pacedWriter keeps the bytes written and lets each Write through only
// once the writer of the tree has done each more writes (or a generous
// time has passed), so that the walk and the writes interleave.
type pacedWriter struct {
	buf    bytes.Buffer
	ops    *atomic.Int64
	each   int64
	writes int
}

func (p *pacedWriter) Write(b []byte) (int, error) {
	target := p.ops.Load() + p.each
	for deadline := time.Now().Add(20 * time.Second); p.ops.Load() < target && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	p.writes++
	return p.buf.Write(b)
}

// TestSnapStreamOfALiveTree: a SNAP stream written while clients keep
// writing everywhere in the tree loads, as a learner loads it, into a
// tree that, once the txns logged after the stream's zxid are applied,
// is the server's: every node's data, ACL and stat, the sessions and
// the digest. The writes include nodes created with new ACL lists and
// ACLs set anew while the walk is under way, the two cases the stream
// writes otherwise than the tree holds them.
func TestSnapStreamOfALiveTree(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	c, _ := connect(t, s)
	leaves := createTree(t, c, 800, 1500)
	writer, _ := connect(t, s)

	var ops atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		churn(writer, leaves, &ops, stop)
	}()
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		wg.Wait()
	}()

	// Let the writes get going, then stream.
	for deadline := time.Now().Add(20 * time.Second); ops.Load() < 20 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	out := &pacedWriter{ops: &ops, each: 40}
	ss := s.StartSnapStream()
	opsAtStart := ops.Load()
	n, err := ss.WriteTo(out)
	if err != nil {
		t.Fatal(err)
	}
	opsDuring := ops.Load() - opsAtStart
	close(stop)
	wg.Wait()
	if n != int64(out.buf.Len()) {
		t.Errorf("WriteTo says %d bytes, %d were written", n, out.buf.Len())
	}

	tree, info := loadSnapStreamTree(t, s, out.buf.Bytes(), ss.Zxid())
	replayed := replayLogAfter(t, s, tree, ss.Zxid())
	t.Logf("%d bytes in %d writes, %d nodes; %d writes during the walk, %d txns replayed; %d nodes created since left out, %d written with a placeholder ACL",
		n, out.writes, info.Nodes, opsDuring, replayed, ss.skipped, ss.placeholders)
	if out.writes < 4 || opsDuring == 0 || replayed == 0 {
		t.Fatalf("the walk and the writes did not interleave: %d writes to the stream, %d client writes during it", out.writes, opsDuring)
	}
	if ss.skipped == 0 || ss.placeholders == 0 {
		t.Fatalf("the writes during the walk made no node to leave out (%d) or none to write with a placeholder ACL (%d)", ss.skipped, ss.placeholders)
	}
	sameTree(t, s.tree, tree)

	if _, err := ss.WriteTo(&bytes.Buffer{}); !errors.Is(err, errSnapStreamUsed) {
		t.Errorf("a second WriteTo: %v", err)
	}
}

// TestSnapStreamQuiet: with no write going on, the stream is the tree
// itself at its zxid, and WriteSnapStream reports that zxid.
func TestSnapStreamQuiet(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	c, _ := connect(t, s)
	createTree(t, c, 10, 30)
	if _, err := c.Create("/eph", []byte("e"), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zxid, err := s.WriteSnapStream(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if zxid != s.LastZxid() {
		t.Fatalf("zxid 0x%x, the server's is 0x%x", zxid, s.LastZxid())
	}
	tree, _ := loadSnapStreamTree(t, s, buf.Bytes(), zxid)
	sameTree(t, s.tree, tree)
}

// TestSnapStreamConnectionFails: an error writing to the learner comes
// back, naming the zxid.
func TestSnapStreamConnectionFails(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	c, _ := connect(t, s)
	createTree(t, c, 300, 0)
	broken := errors.New("connection reset by peer")
	if _, err := s.WriteSnapStream(brokenWriter{broken}); !errors.Is(err, broken) {
		t.Fatalf("got %v, want the connection's error", err)
	}
}

type brokenWriter struct{ err error }

func (b brokenWriter) Write([]byte) (int, error) { return 0, b.err }

// TestCommittedTxns: the logged txns of a range, in order, each as it was
// logged; the learner's own zxid must be in the log (or below its start);
// the size limit in Java's log format; a purged log.
func TestCommittedTxns(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	c, _ := connect(t, s)
	var zxids []int64
	for i := range 20 {
		path := fmt.Sprintf("/t%d", i)
		if _, err := c.Create(path, bytes.Repeat([]byte{'x'}, i), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		_, st, err := c.Exists(path)
		if err != nil {
			t.Fatal(err)
		}
		zxids = append(zxids, st.Czxid)
	}
	type got struct {
		zxid int64
		path string
		size int64
	}
	collect := func(from, to, maxBytes int64) ([]got, error) {
		var out []got
		err := s.CommittedTxns(from, to, maxBytes, func(zxid int64, data []byte) error {
			txn, err := proto.DecodeTxn(data, s.fieldLimit)
			if err != nil {
				return err
			}
			if txn.Header.Zxid != zxid {
				return fmt.Errorf("txn 0x%x handed over as 0x%x", txn.Header.Zxid, zxid)
			}
			p := ""
			if b, ok := txn.Body.(*proto.CreateTxn); ok {
				p = b.Path
			}
			out = append(out, got{zxid, p, int64(len(data)) + 13})
			return nil
		})
		return out, err
	}

	// The range, both ends included.
	txns, err := collect(zxids[3], zxids[9], 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(txns) != 7 {
		t.Fatalf("%d txns from 0x%x to 0x%x: %v", len(txns), zxids[3], zxids[9], txns)
	}
	var size int64
	for i, g := range txns {
		if g.zxid != zxids[3+i] || g.path != fmt.Sprintf("/t%d", 3+i) {
			t.Fatalf("txn %d is 0x%x %q, want 0x%x /t%d", i, g.zxid, g.path, zxids[3+i], 3+i)
		}
		size += g.size
	}
	if txns, err := collect(zxids[9], zxids[3], 0); err != nil || len(txns) != 0 {
		t.Errorf("an empty range: %v, %v", txns, err)
	}

	// The limit is on the txns' size in Java's log: bytes, checksum,
	// length and end marker.
	if _, err := collect(zxids[3], zxids[9], size); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	called := false
	err = s.CommittedTxns(zxids[3], zxids[9], size-1, func(int64, []byte) error { called = true; return nil })
	if !errors.Is(err, ErrTxnLogTooLarge) || called {
		t.Errorf("past the limit: %v (fn called: %v)", err, called)
	}
	if _, err := collect(zxids[3], zxids[9], -1); !errors.Is(err, ErrTxnLogTooLarge) {
		t.Errorf("a negative limit (off): %v", err)
	}

	// fn's error comes back as is.
	stop := errors.New("learner gone")
	if err := s.CommittedTxns(zxids[0], zxids[19], 0, func(int64, []byte) error { return stop }); err != stop {
		t.Errorf("fn's error came back as %v", err)
	}

	// A learner with nothing cannot be sent the log: Java asks for a
	// txn at or below its zxid.
	if _, err := collect(0, zxids[19], 0); !errors.Is(err, ErrTxnsNotLogged) {
		t.Errorf("from 0: %v", err)
	}

	// Purged: a learner at zxids[4] needs what is gone; one at
	// zxids[10] does not.
	if err := s.txnLog.PurgeBefore(zxids[10]); err != nil {
		t.Fatal(err)
	}
	if _, err := collect(zxids[4], zxids[19], 0); !errors.Is(err, ErrTxnsNotLogged) {
		t.Errorf("from a purged zxid: %v", err)
	}
	if txns, err := collect(zxids[10], zxids[19], 0); err != nil || len(txns) != 10 || txns[0].zxid != zxids[10] {
		t.Errorf("from the first logged zxid: %d txns, %v", len(txns), err)
	}
}

// TestTxnLogSyncLimit: Java's calculateTxnLogSizeLimit over gozk's
// newest snapshot.
func TestTxnLogSyncLimit(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	c, _ := connect(t, s)
	createTree(t, c, 50, 0)
	info, err := s.TakeSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		factor float64
		want   int64
	}{
		{0.5, info.Bytes / 2},
		{DefaultSnapshotSizeFactor, int64(float64(info.Bytes) * 0.33)},
		{1, info.Bytes},
		{3, int64(float64(info.Bytes) * 0.33)}, // Java takes the default above 1
		{0, 0},
		{-1, -1},
	} {
		got, err := s.TxnLogSyncLimit(tc.factor)
		if err != nil || got != tc.want {
			t.Errorf("factor %v: %d, %v; want %d (snapshot of %d bytes)", tc.factor, got, err, tc.want, info.Bytes)
		}
	}
	if info.Bytes < 50*60 {
		t.Errorf("the snapshot of 200 nodes of 60 bytes is %d bytes", info.Bytes)
	}
}

// TestSnapStreamJavaLearner: Java 3.8.0's own ZKDatabase.deserializeSnapshot
// loads gozk's streams, a quiet one and one written while clients write,
// into the tree gozk loads from the same bytes: the same nodes with the
// same stats, data lengths and ACLs, and the same digest; for the quiet
// one, that is the server's digest.
func TestSnapStreamJavaLearner(t *testing.T) {
	prog := javaprog.Compile(t, "SnapStreamLearner", javaprog.ZooKeeperJars, "testdata/javalearner/SnapStreamLearner.java")
	s := startTestServer(t, t.TempDir(), nil)
	c, _ := connect(t, s)
	leaves := createTree(t, c, 200, 1200)
	if _, err := c.Create("/eph", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermRead)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create("/empty", []byte{}, 0, zk.DigestACL(zk.PermAll, "u", "p")); err != nil {
		t.Fatal(err)
	}

	var quiet bytes.Buffer
	zxid, err := s.WriteSnapStream(&quiet)
	if err != nil {
		t.Fatal(err)
	}
	java := runJavaLearner(t, prog, quiet.Bytes())
	gozk := describeSnapStream(t, s, quiet.Bytes(), zxid)
	compareLearners(t, "quiet", java, gozk)
	if want := fmt.Sprint(s.tree.Digest()); java.digest != want {
		t.Errorf("Java's learner has digest %s, the server %s", java.digest, want)
	}

	writer, _ := connect(t, s)
	var ops atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		churn(writer, leaves, &ops, stop)
	}()
	out := &pacedWriter{ops: &ops, each: 30}
	zxid, err = s.WriteSnapStream(out)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	compareLearners(t, "live", runJavaLearner(t, prog, out.buf.Bytes()), describeSnapStream(t, s, out.buf.Bytes(), zxid))
}

// learnerView is what a learner loaded from a stream: the node count
// (Java's, which counts the root twice, under "" and "/"), the digest,
// the session count and a line per node.
type learnerView struct {
	nodeCount, digest, sessions string
	nodes                       map[string]string
}

func runJavaLearner(t *testing.T, prog *javaprog.Program, stream []byte) learnerView {
	t.Helper()
	file := filepath.Join(t.TempDir(), "snapstream.bin")
	if err := os.WriteFile(file, stream, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(prog.Java, "-Xmx256m", "-cp", strings.Join(prog.Classpath, ":"), prog.Main, file).CombinedOutput()
	if err != nil {
		t.Fatalf("Java's learner: %v\n%s", err, out)
	}
	v := learnerView{nodes: map[string]string{}}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		key, rest, _ := strings.Cut(line, " ")
		switch key {
		case "nodecount":
			v.nodeCount = rest
		case "digest":
			v.digest = rest
		case "sessions":
			v.sessions = rest
		case "node":
			path, _, _ := strings.Cut(rest, " ")
			v.nodes[path] = rest
		default:
			t.Fatalf("Java's learner says %q", line)
		}
	}
	return v
}

// describeSnapStream is learnerView for gozk's load of the stream, in
// the Java program's format.
func describeSnapStream(t *testing.T, s *Server, stream []byte, zxid int64) learnerView {
	t.Helper()
	tree, info := loadSnapStreamTree(t, s, stream, zxid)
	v := learnerView{
		nodeCount: fmt.Sprint(info.Nodes + 1),
		digest:    fmt.Sprint(tree.Digest()),
		sessions:  fmt.Sprint(len(tree.Sessions())),
		nodes:     map[string]string{},
	}
	err := tree.Walk(func(path string, data []byte, acl []proto.ACL, st proto.StatPersisted) error {
		if path == "" {
			path = "/"
		}
		size := len(data)
		if data == nil {
			size = -1
		}
		var acls strings.Builder
		for _, a := range acl {
			fmt.Fprintf(&acls, " %d:%s:%s", a.Perms, a.Id.Scheme, a.Id.Id)
		}
		v.nodes[path] = fmt.Sprintf("%s %d %d %d %d %d %d %d %d %d %d%s", path, st.Czxid, st.Mzxid, st.Pzxid,
			st.Ctime, st.Mtime, st.Version, st.Cversion, st.Aversion, st.EphemeralOwner, size, acls.String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func compareLearners(t *testing.T, name string, java, gozk learnerView) {
	t.Helper()
	if java.nodeCount != gozk.nodeCount || java.digest != gozk.digest || java.sessions != gozk.sessions {
		t.Errorf("%s: Java's learner has %s nodes, digest %s, %s sessions; gozk's %s, %s, %s", name,
			java.nodeCount, java.digest, java.sessions, gozk.nodeCount, gozk.digest, gozk.sessions)
	}
	bad := 0
	for path, g := range gozk.nodes {
		if j := java.nodes[path]; j != g {
			t.Errorf("%s: Java's learner has\n\t%q\ngozk's\n\t%q", name, j, g)
			if bad++; bad > 5 {
				return
			}
		}
	}
	if len(java.nodes) != len(gozk.nodes) {
		t.Errorf("%s: Java's learner has %d nodes, gozk's %d", name, len(java.nodes), len(gozk.nodes))
	}
	t.Logf("%s: %s nodes, digest %s, %s sessions, as gozk loads them", name, java.nodeCount, java.digest, java.sessions)
}
