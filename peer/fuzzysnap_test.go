package peer

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/persistence"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/server"
	"github.com/gozk/gozk/zab"
)

// A SNAP's stream is walked while the leader goes on applying, so the
// learner's loaded tree may already hold effects of txns after the SNAP's
// zxid. These tests build such a stream from a real server and play it
// with the txns after it in the orders leaders send them.

// syncLog collects a server's log lines.
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// loggedEnsembleServer is ensembleServer with its log lines in log.
func loggedEnsembleServer(t *testing.T, dir string, log *syncLog) *server.Server {
	t.Helper()
	cfg := server.Defaults()
	cfg.DataDir = dir
	cfg.ClientAddr = "127.0.0.1:0"
	cfg.TickTime = 200 * time.Millisecond
	cfg.Ensemble = true
	cfg.ServerID = 2
	cfg.Logger = zerolog.New(log)
	srv, err := server.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

func setDataTxn(zxid int64, path, data string, version int32) []byte {
	e := proto.TxnEntry{
		Header: proto.TxnHeader{ClientId: 0x100, Cxid: int32(zxid), Zxid: zxid, Time: 1700000000000, Type: int32(proto.OpSetData)},
		Body:   &proto.SetDataTxn{Path: path, Data: []byte(data), Version: version},
	}
	return e.Marshal()
}

func deleteTxn(zxid int64, path string) []byte {
	e := proto.TxnEntry{
		Header: proto.TxnHeader{ClientId: 0x100, Cxid: int32(zxid), Zxid: zxid, Time: 1700000000000, Type: int32(proto.OpDelete)},
		Body:   &proto.DeleteTxn{Path: path},
	}
	return e.Marshal()
}

// fuzzySource is a leader's side of a SNAP under writes: the stream, begun
// at zxid and walked after the window's txns were applied, and every txn
// after zxid as the leader proposes it, with the digest its tree had after
// it.
type fuzzySource struct {
	srv    *server.Server
	zxid   int64
	stream []byte
	base   [][]byte // the txns up to the stream's zxid
	window [][]byte // applied before the walk: their effects are in the stream
	later  [][]byte // applied after the stream was written
}

// apply applies txn to the source and returns it with the digest the
// source's tree has after it, as a leader proposes it.
func (f *fuzzySource) apply(t *testing.T, txn []byte) []byte {
	t.Helper()
	if err := f.srv.ApplyTxn(txn); err != nil {
		t.Fatal(err)
	}
	e, err := proto.DecodeTxn(txn, jute.DefaultMaxBuffer)
	if err != nil {
		t.Fatal(err)
	}
	e.Digest = &proto.TxnDigest{Version: proto.DigestVersion, TreeDigest: f.srv.Tree().Digest()}
	return e.Marshal()
}

const fuzzyZxid = 0x100000003

func newFuzzySource(t *testing.T, concurrent bool) *fuzzySource {
	t.Helper()
	src := ensembleServer(t, t.TempDir())
	t.Cleanup(func() { src.Close() })
	f := &fuzzySource{srv: src, zxid: fuzzyZxid}
	apply := func(txn []byte) []byte { return f.apply(t, txn) }
	for i, p := range []string{"/a", "/b", "/c"} {
		z := int64(0x100000001 + i)
		f.base = append(f.base, apply(createTxn(z, 0x100, int32(i+1), p, int32(i))))
	}
	window := [][]byte{
		setDataTxn(fuzzyZxid+1, "/b", "changed", 0),
		deleteTxn(fuzzyZxid+2, "/c"),
		createTxn(fuzzyZxid+3, 0x100, 99, "/d", 5),
	}
	var ss *server.SnapStream
	if !concurrent {
		for _, txn := range window {
			f.base = append(f.base, apply(txn))
		}
		f.zxid = src.LastZxid()
	}
	ss = src.StartSnapStream()
	if concurrent {
		// Applied after the stream began and before its walk reached
		// the nodes they touch: the stream holds their effects.
		for _, txn := range window {
			f.window = append(f.window, apply(txn))
		}
	}
	var buf bytes.Buffer
	if _, err := ss.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if ss.Zxid() != f.zxid {
		t.Fatalf("stream at 0x%x, want 0x%x", ss.Zxid(), f.zxid)
	}
	f.stream = buf.Bytes()
	f.later = append(f.later, apply(createTxn(fuzzyZxid+4, 0x100, 100, "/e", 6)))
	return f
}

// sameTree fails unless a and b hold the same nodes (data and stat) and
// digest.
func sameTree(t *testing.T, what string, a, b *server.Server) {
	t.Helper()
	dump := func(srv *server.Server) string {
		var sb strings.Builder
		srv.Tree().Walk(func(path string, data []byte, _ []proto.ACL, st proto.StatPersisted) error {
			fmt.Fprintf(&sb, "%s=%q %+v\n", path, data, st)
			return nil
		})
		return sb.String()
	}
	if da, db := dump(a), dump(b); da != db {
		t.Fatalf("%s: the trees differ:\n%s\nwant\n%s", what, da, db)
	}
	if da, db := a.Tree().Digest(), b.Tree().Digest(); da != db {
		t.Fatalf("%s: digest %d, want %d", what, da, db)
	}
	if za, zb := a.LastZxid(), b.LastZxid(); za != zb {
		t.Fatalf("%s: at 0x%x, want 0x%x", what, za, zb)
	}
}

// recoverDir recovers dir's tree as a start would, without opening a
// server (which snapshots what it replayed).
func recoverDir(t *testing.T, dir string) server.Recovery {
	t.Helper()
	store, err := persistence.OpenStore(persistence.StoreOptions{DataDir: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	_, rec, err := server.Recover(store, db.Options{DigestEnabled: true}, jute.DefaultMaxBuffer)
	if err != nil {
		t.Fatalf("recovering %s: %v", dir, err)
	}
	return rec
}

// snapshotDigests describes the snapshots in srv's store, newest first:
// their zxids and whether they recorded a digest.
func snapshotDigests(t *testing.T, srv *server.Server) string {
	t.Helper()
	infos, err := srv.Store().Snapshots()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, in := range infos {
		out = append(out, fmt.Sprintf("0x%x digest=%v", in.Zxid, in.Digest != nil))
	}
	return strings.Join(out, ", ")
}

// The orders in which leaders send the txns after a SNAP's stream.
const (
	// Java's LearnerHandler walks the tree before it queues NEWLEADER:
	// every txn the walk can hold came with its COMMIT before NEWLEADER.
	committedBeforeNewLeader = iota
	// Proposed before NEWLEADER, committed after UPTODATE.
	proposedBeforeNewLeader
	// gozk's leader queues NEWLEADER when it begins the walk: the txns
	// applied during the walk are proposed after NEWLEADER and committed
	// right after UPTODATE.
	proposedAfterNewLeader
)

func zxidOf(txn []byte) int64 {
	e, err := proto.DecodeTxn(txn, jute.DefaultMaxBuffer)
	if err != nil {
		panic(err)
	}
	return e.Header.Zxid
}

// playFuzzySnap is a leader sending f's SNAP, then f's window in the
// given order, then f's later txns in the broadcast and a PING.
func playFuzzySnap(f *fuzzySource, order int) func(l *scriptedLeader) {
	return func(l *scriptedLeader) {
		l.handshake(0, 1, 0)
		l.send(zab.Snap, f.zxid, nil)
		l.conn.Write(f.stream)
		switch order {
		case committedBeforeNewLeader:
			for _, txn := range f.window {
				l.send(zab.Proposal, zxidOf(txn), txn)
				l.send(zab.Commit, zxidOf(txn), nil)
			}
			l.send(zab.NewLeader, 0x100000000, nil)
			l.expect(zab.Ack, 0x100000000)
			l.send(zab.UpToDate, -1, nil)
			l.expect(zab.Ack, 0x100000000)
		case proposedBeforeNewLeader, proposedAfterNewLeader:
			if order == proposedBeforeNewLeader {
				for _, txn := range f.window {
					l.send(zab.Proposal, zxidOf(txn), txn)
				}
				l.send(zab.NewLeader, 0x100000000, nil)
			} else {
				l.send(zab.NewLeader, 0x100000000, nil)
				for _, txn := range f.window {
					l.send(zab.Proposal, zxidOf(txn), txn)
				}
			}
			l.expect(zab.Ack, 0x100000000)
			l.send(zab.UpToDate, -1, nil)
			l.expect(zab.Ack, 0x100000000)
			for _, txn := range f.window {
				l.expect(zab.Ack, zxidOf(txn))
			}
			for _, txn := range f.window {
				l.send(zab.Commit, zxidOf(txn), nil)
			}
		}
		last := f.zxid
		if len(f.window) > 0 {
			last = zxidOf(f.window[len(f.window)-1])
		}
		for _, txn := range f.later {
			last = zxidOf(txn)
			l.send(zab.Proposal, last, txn)
			l.expect(zab.Ack, last)
			l.send(zab.Commit, last, nil)
		}
		// Answered after every COMMIT above is applied.
		l.send(zab.Ping, last, nil)
		l.expect(zab.Ping, last)
	}
}

// followPinging is followServer with the member's PING reply, which
// reads the server's touch table.
func followPinging(t *testing.T, addr string, srv *server.Server, observer bool) error {
	t.Helper()
	m := &Member{srv: srv}
	current, accepted, err := m.epochs()
	if err != nil {
		t.Fatal(err)
	}
	l := zab.NewLearner(zab.LearnerConfig{ID: 2, Observer: observer, AcceptedEpoch: accepted, CurrentEpoch: current, LastZxid: srv.LastZxid()})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return FollowLeader(ctx, LearnerConn{LeaderAddrs: []string{addr}, InitTimeout: 5 * time.Second, SyncTimeout: 5 * time.Second,
		MaxPacket: jute.DefaultMaxBuffer, Logger: zerolog.Nop()}, l, &serverStore{srv: srv, observer: observer}, LearnerHooks{
		TouchTable: func() []zab.SessionTouch {
			srv.TouchTable()
			return nil
		},
	})
}

// followScript runs srv as a follower of the scripted leader until it hangs up.
func followScript(t *testing.T, srv *server.Server, script func(l *scriptedLeader)) {
	t.Helper()
	addr, done := leaderOnLoopback(t, script)
	err := followPinging(t, addr, srv, false)
	<-done
	if !errors.Is(err, ErrLeaderLost) {
		t.Fatalf("FollowLeader = %v, want the leader lost", err)
	}
}

// noDivergence fails if srv reported its tree diverged from the leader's.
func noDivergence(t *testing.T, what string, srv *server.Server, log *syncLog) {
	t.Helper()
	if n := srv.Metrics().DigestMismatches.Load(); n != 0 {
		t.Errorf("%s: digest_mismatches_count %d", what, n)
	}
	if strings.Contains(log.String(), "diverged") {
		t.Errorf("%s: the follower reported a divergence:\n%s", what, log.String())
	}
}

// followFuzzySnap syncs a fresh follower from f in the given order and
// checks what every order must give: the source's tree, no divergence
// reported, a data directory that recovers, and, once a leader's txn
// confirmed the tree again, snapshots with a digest that recovery
// compares. It returns the snapshots the follower had after the sync.
func followFuzzySnap(t *testing.T, f *fuzzySource, order int) string {
	t.Helper()
	dir := t.TempDir()
	log := &syncLog{}
	srv := loggedEnsembleServer(t, dir, log)
	defer func() { srv.Close() }()
	followScript(t, srv, playFuzzySnap(f, order))
	sameTree(t, "after the sync", srv, f.srv)
	noDivergence(t, "after the sync", srv, log)
	synced := snapshotDigests(t, srv)
	if err := srv.StopServing(); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "after StopServing", srv, f.srv)
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	// The restart the fuzzy snapshot's digest used to make impossible.
	recoverDir(t, dir)
	srv = loggedEnsembleServer(t, dir, log)
	sameTree(t, "after a restart", srv, f.srv)

	// The next leader syncs it by DIFF with one more txn: the digests
	// match, and the next snapshot records one, which the next start
	// compares.
	last := srv.LastZxid()
	txn := f.apply(t, createTxn(0x200000001, 0x100, 200, "/f", 7))
	followScript(t, srv, func(l *scriptedLeader) {
		l.handshake(1, 2, last)
		l.send(zab.Diff, last, nil)
		l.send(zab.Proposal, 0x200000001, txn)
		l.send(zab.Commit, 0x200000001, nil)
		l.send(zab.NewLeader, 0x200000000, nil)
		l.expect(zab.Ack, 0x200000000)
		l.send(zab.UpToDate, -1, nil)
		l.expect(zab.Ack, 0x200000000)
		l.send(zab.Ping, 0x200000001, nil)
		l.expect(zab.Ping, 0x200000001)
	})
	sameTree(t, "after a DIFF", srv, f.srv)
	noDivergence(t, "after a DIFF", srv, log)
	info, err := srv.TakeSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	if info.Digest == nil {
		t.Errorf("snapshot 0x%x, after the fuzzy window, recorded no digest", info.Zxid)
	}
	if err := srv.StopServing(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if rec := recoverDir(t, dir); rec.DigestChecks == 0 {
		t.Errorf("recovery from snapshot 0x%x compared no digest", rec.Snapshot.Zxid)
	}
	srv = loggedEnsembleServer(t, dir, log)
	sameTree(t, "after a second restart", srv, f.srv)
	return synced
}

// TestFuzzySnapStreamHoldsLaterTxns: the stream built for these tests
// really holds effects of the txns after its zxid (else the tests below
// would test nothing).
func TestFuzzySnapStreamHoldsLaterTxns(t *testing.T) {
	f := newFuzzySource(t, true)
	srv := ensembleServer(t, t.TempDir())
	defer srv.Close()
	if err := srv.LoadSnapStream(bufioReader(f.stream), f.zxid); err != nil {
		t.Fatal(err)
	}
	if got := paths(srv); got != "/a /b" {
		t.Fatalf("the stream holds %q, want /c's delete in it", got)
	}
	if _, data, ok := nodeData(srv, "/b"); !ok || data != "changed" {
		t.Fatalf("the stream holds /b=%q, want the setData after its zxid", data)
	}
}

// TestFollowerFuzzySnapCommittedBeforeNewLeader: a Java leader's order.
// The digests match again after the window's last txn, before NEWLEADER,
// so the snapshot taken there records one.
func TestFollowerFuzzySnapCommittedBeforeNewLeader(t *testing.T) {
	f := newFuzzySource(t, true)
	synced := followFuzzySnap(t, f, committedBeforeNewLeader)
	if want := "0x100000006 digest=true"; synced != want {
		t.Errorf("snapshots after the sync: %s, want %s", synced, want)
	}
}

// TestFollowerFuzzySnapProposedBeforeNewLeader: the snapshot at NEWLEADER
// holds the window's effects at the SNAP's zxid and records no digest.
func TestFollowerFuzzySnapProposedBeforeNewLeader(t *testing.T) {
	f := newFuzzySource(t, true)
	synced := followFuzzySnap(t, f, proposedBeforeNewLeader)
	if want := "0x100000003 digest=false"; synced != want {
		t.Errorf("snapshots after the sync: %s, want %s", synced, want)
	}
}

// TestFollowerFuzzySnapProposedAfterNewLeader: gozk's leader's order,
// where the window's txns come after NEWLEADER.
func TestFollowerFuzzySnapProposedAfterNewLeader(t *testing.T) {
	f := newFuzzySource(t, true)
	synced := followFuzzySnap(t, f, proposedAfterNewLeader)
	if want := "0x100000003 digest=false"; synced != want {
		t.Errorf("snapshots after the sync: %s, want %s", synced, want)
	}
}

// TestFollowerExactSnapRecordsDigest: a SNAP whose stream holds nothing
// after its zxid, followed by a txn the leader committed during the sync,
// is snapshotted at NEWLEADER with its digest.
func TestFollowerExactSnapRecordsDigest(t *testing.T) {
	f := newFuzzySource(t, false)
	f.window, f.later = f.later, nil
	synced := followFuzzySnap(t, f, committedBeforeNewLeader)
	if want := "0x100000007 digest=true"; synced != want {
		t.Errorf("snapshots after the sync: %s, want %s", synced, want)
	}
}

// TestFollowerFuzzySnapDivergenceReported: a tree that does not match the
// leader's at the end of the window is still reported, at the first PING.
func TestFollowerFuzzySnapDivergenceReported(t *testing.T) {
	f := newFuzzySource(t, true)
	e, err := proto.DecodeTxn(f.window[len(f.window)-1], jute.DefaultMaxBuffer)
	if err != nil {
		t.Fatal(err)
	}
	e.Digest.TreeDigest++
	f.window[len(f.window)-1] = e.Marshal()
	f.later = nil
	log := &syncLog{}
	srv := loggedEnsembleServer(t, t.TempDir(), log)
	defer srv.Close()
	followScript(t, srv, playFuzzySnap(f, proposedAfterNewLeader))
	if n := srv.Metrics().DigestMismatches.Load(); n != 1 {
		t.Errorf("digest_mismatches_count %d, want 1", n)
	}
	if !strings.Contains(log.String(), "0x100000006") || !strings.Contains(log.String(), "diverged") {
		t.Errorf("no divergence at 0x100000006 reported:\n%s", log.String())
	}
}

// TestFollowerDiffDivergenceReported: outside a fuzzy window every txn's
// digest is compared, and the snapshot records one.
func TestFollowerDiffDivergenceReported(t *testing.T) {
	f := newFuzzySource(t, false)
	log := &syncLog{}
	srv := loggedEnsembleServer(t, t.TempDir(), log)
	defer srv.Close()
	good := f.later[0]
	e, err := proto.DecodeTxn(f.apply(t, createTxn(fuzzyZxid+5, 0x100, 101, "/g", 7)), jute.DefaultMaxBuffer)
	if err != nil {
		t.Fatal(err)
	}
	e.Digest.TreeDigest++
	bad := e.Marshal()
	followScript(t, srv, func(l *scriptedLeader) {
		l.handshake(0, 1, 0)
		l.send(zab.Diff, 0x100000008, nil)
		for _, txn := range append(append([][]byte{}, f.base...), append(f.window, good, bad)...) {
			l.send(zab.Proposal, zxidOf(txn), txn)
			l.send(zab.Commit, zxidOf(txn), nil)
		}
		l.send(zab.NewLeader, 0x100000000, nil)
		l.expect(zab.Ack, 0x100000000)
		l.send(zab.UpToDate, -1, nil)
		l.expect(zab.Ack, 0x100000000)
		l.send(zab.Ping, 0x100000008, nil)
		l.expect(zab.Ping, 0x100000008)
	})
	sameTree(t, "after a DIFF", srv, f.srv)
	if n := srv.Metrics().DigestMismatches.Load(); n != 1 {
		t.Errorf("digest_mismatches_count %d, want 1 (txn 0x100000008):\n%s", n, log.String())
	}
	info, err := srv.TakeSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	if info.Digest == nil {
		t.Errorf("snapshot 0x%x after a DIFF recorded no digest", info.Zxid)
	}
}

func bufioReader(b []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(b)) }

// nodeData returns path's stat and data in srv's tree.
func nodeData(srv *server.Server, path string) (proto.StatPersisted, string, bool) {
	var st proto.StatPersisted
	var data string
	found := false
	srv.Tree().Walk(func(p string, d []byte, _ []proto.ACL, s proto.StatPersisted) error {
		if p == path {
			st, data, found = s, string(d), true
		}
		return nil
	})
	return st, data, found
}

// rejoinByDiff syncs srv, which holds the SNAP's stream and the window's
// txns up to applied, by DIFF from a leader of epoch 2 that has the rest
// of f's txns and one of its own, then checks it has the source's tree,
// reported no divergence, and recovers with its digests compared.
func rejoinByDiff(t *testing.T, f *fuzzySource, srv *server.Server, dir string, log *syncLog) {
	t.Helper()
	last := srv.LastZxid()
	txns := append(append([][]byte{}, f.window...), f.later...)
	txns = append(txns, f.apply(t, createTxn(0x200000001, 0x100, 200, "/f", 7)))
	followScript(t, srv, func(l *scriptedLeader) {
		l.handshake(1, 2, last)
		l.send(zab.Diff, 0x200000001, nil)
		for _, txn := range txns {
			if z := zxidOf(txn); z > last {
				l.send(zab.Proposal, z, txn)
				l.send(zab.Commit, z, nil)
			}
		}
		l.send(zab.NewLeader, 0x200000000, nil)
		l.expect(zab.Ack, 0x200000000)
		l.send(zab.UpToDate, -1, nil)
		l.expect(zab.Ack, 0x200000000)
		l.send(zab.Ping, 0x200000001, nil)
		l.expect(zab.Ping, 0x200000001)
	})
	sameTree(t, "after the DIFF", srv, f.srv)
	noDivergence(t, "after the DIFF", srv, log)
	if info, err := srv.TakeSnapshot(); err != nil || info.Digest == nil {
		t.Errorf("snapshot after the DIFF: %+v, %v; want one with a digest", info, err)
	}
	if err := srv.StopServing(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if rec := recoverDir(t, dir); rec.DigestChecks == 0 {
		t.Errorf("recovery from snapshot 0x%x compared no digest", rec.Snapshot.Zxid)
	}
}

// snapThenLose plays a SNAP of f in gozk's leader's order, the window
// proposed after NEWLEADER, and hangs up: before UPTODATE (the follower
// logged none of the window) or after it with only the window's first
// txn proposed (it logged that one).
func snapThenLose(f *fuzzySource, afterUpToDate bool) func(l *scriptedLeader) {
	return func(l *scriptedLeader) {
		l.handshake(0, 1, 0)
		l.send(zab.Snap, f.zxid, nil)
		l.conn.Write(f.stream)
		l.send(zab.NewLeader, 0x100000000, nil)
		first := zxidOf(f.window[0])
		l.send(zab.Proposal, first, f.window[0])
		l.expect(zab.Ack, 0x100000000)
		if afterUpToDate {
			l.send(zab.UpToDate, -1, nil)
			l.expect(zab.Ack, 0x100000000)
			l.expect(zab.Ack, first)
		}
	}
}

// TestFollowerLosesLeaderInFuzzyWindow: the leader is lost before
// UPTODATE; the tree reloaded from the snapshot taken at NEWLEADER is the
// stream's, still fuzzy, and the next leader's DIFF brings it back.
func TestFollowerLosesLeaderInFuzzyWindow(t *testing.T) {
	f := newFuzzySource(t, true)
	dir := t.TempDir()
	log := &syncLog{}
	srv := loggedEnsembleServer(t, dir, log)
	defer func() { srv.Close() }()
	followScript(t, srv, snapThenLose(f, false))
	if err := srv.StopServing(); err != nil { // reloads the tree
		t.Fatal(err)
	}
	if srv.LastZxid() != f.zxid {
		t.Fatalf("reloaded at 0x%x, want the SNAP's 0x%x", srv.LastZxid(), f.zxid)
	}
	rejoinByDiff(t, f, srv, dir, log)
}

// TestFollowerRestartsInFuzzyWindow: the follower logged only part of the
// window and restarts. Its tree still holds the rest's effects, so the
// start-up snapshot records no digest, and the next DIFF brings it back.
func TestFollowerRestartsInFuzzyWindow(t *testing.T) {
	f := newFuzzySource(t, true)
	dir := t.TempDir()
	log := &syncLog{}
	srv := loggedEnsembleServer(t, dir, log)
	defer func() { srv.Close() }()
	followScript(t, srv, snapThenLose(f, true))
	if err := srv.StopServing(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	srv = loggedEnsembleServer(t, dir, log)
	if want := int64(fuzzyZxid + 1); srv.LastZxid() != want {
		t.Fatalf("restarted at 0x%x, want 0x%x", srv.LastZxid(), want)
	}
	if got, want := snapshotDigests(t, srv), "0x100000004 digest=false, 0x100000003 digest=false"; got != want {
		t.Errorf("snapshots after the restart: %s, want %s", got, want)
	}
	rejoinByDiff(t, f, srv, dir, log)
}

// TestObserverFuzzySnap: an observer gets the window's txns as INFORMs,
// which gozk's leader sends as it commits them, after NEWLEADER.
func TestObserverFuzzySnap(t *testing.T) {
	f := newFuzzySource(t, true)
	dir := t.TempDir()
	log := &syncLog{}
	srv := loggedEnsembleServer(t, dir, log)
	defer func() { srv.Close() }()
	addr, done := leaderOnLoopback(t, func(l *scriptedLeader) {
		l.expect(zab.ObserverInfo, 0)
		l.send(zab.LeaderInfo, 0x100000000, zab.IntBody(zab.ProtocolVersion))
		l.expect(zab.AckEpoch, 0)
		l.send(zab.Snap, f.zxid, nil)
		l.conn.Write(f.stream)
		l.send(zab.NewLeader, 0x100000000, nil)
		for _, txn := range f.window {
			l.send(zab.Inform, zxidOf(txn), txn)
		}
		l.expect(zab.Ack, 0x100000000)
		l.send(zab.UpToDate, -1, nil)
		l.expect(zab.Ack, 0x100000000)
		last := zxidOf(f.later[0])
		l.send(zab.Inform, last, f.later[0])
		l.send(zab.Ping, last, nil)
		l.expect(zab.Ping, last)
	})
	err := followPinging(t, addr, srv, true)
	<-done
	if !errors.Is(err, ErrLeaderLost) {
		t.Fatalf("FollowLeader = %v, want the leader lost", err)
	}
	sameTree(t, "after the sync", srv, f.srv)
	noDivergence(t, "after the sync", srv, log)
	if got, want := snapshotDigests(t, srv), "0x100000003 digest=false"; got != want {
		t.Errorf("snapshots after the sync: %s, want %s", got, want)
	}
	if info, err := srv.TakeSnapshot(); err != nil || info.Digest == nil {
		t.Errorf("snapshot after the window: %+v, %v; want one with a digest", info, err)
	}
	if err := srv.StopServing(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if rec := recoverDir(t, dir); rec.DigestChecks == 0 {
		t.Errorf("recovery from snapshot 0x%x compared no digest", rec.Snapshot.Zxid)
	}
	srv = loggedEnsembleServer(t, dir, log)
	sameTree(t, "after a restart", srv, f.srv)
}
