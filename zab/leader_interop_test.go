//go:build interop

package zab_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/compat/javazk"
	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/fle"
	"github.com/gozk/gozk/peer"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/quorum"
	"github.com/gozk/gozk/quorum/electionport"
	"github.com/gozk/gozk/zab"
)

// leaderLoop is the least I/O a zab.Leader needs: one goroutine owns the
// Leader, readers feed it packets, it writes what it is asked to.
type leaderLoop struct {
	t         *testing.T
	l         *zab.Leader
	conns     map[int64]net.Conn
	events    chan loopEvent
	propose   chan string // paths to create
	committed chan int64
	serving   chan struct{}
	// The leader's database: committed txns, in order.
	zxids []int64
	txns  map[int64][]byte
	last  int64
	// What went on, for the failure message.
	events2 []string
	// window is set while a follower syncs with proposals held back;
	// windows counts those syncs.
	window  bool
	windows atomic.Int64
}

type loopEvent struct {
	conn    int64
	newConn net.Conn
	p       proto.QuorumPacket
	err     error
}

func (lp *leaderLoop) SyncInput() zab.SyncInput {
	return zab.SyncInput{LastProcessedZxid: lp.last, CommittedLog: append([]int64(nil), lp.zxids...)}
}

func (lp *leaderLoop) TxnData(zxid int64) ([]byte, error) {
	if d, ok := lp.txns[zxid]; ok {
		return d, nil
	}
	return nil, fmt.Errorf("no txn 0x%x", zxid)
}

func createTxn(zxid int64, path string) []byte {
	e := proto.TxnEntry{Header: proto.TxnHeader{Zxid: zxid, Time: time.Now().UnixMilli(), Type: int32(proto.OpCreate)},
		Body: &proto.CreateTxn{Path: path, Data: []byte("x"), Acl: proto.OpenACLUnsafe, ParentCVersion: -1}}
	return e.Marshal()
}

func (lp *leaderLoop) do(acts []zab.LeaderAction) {
	for _, a := range acts {
		switch a.Kind {
		case zab.LeadSend:
			c := lp.conns[a.Conn]
			if c == nil {
				continue
			}
			c.SetWriteDeadline(time.Now().Add(10 * time.Second))
			if _, err := c.Write(zab.AppendPacket(nil, &a.Packet)); err != nil {
				lp.note("write to %d: %v", a.Conn, err)
			}
			if t := zab.PacketType(a.Packet.Type); t != zab.Ping {
				lp.note("-> %d %s 0x%x", a.Conn, t, a.Packet.Zxid)
			}
			if zab.PacketType(a.Packet.Type) == zab.UpToDate {
				lp.window = false
			}
		case zab.LeadSendSnap:
			lp.t.Errorf("a SNAP was asked for (%d); this loop cannot stream the tree", a.Conn)
		case zab.LeadClose:
			lp.note("close %d: %s", a.Conn, a.Reason)
			if c := lp.conns[a.Conn]; c != nil {
				c.Close()
				delete(lp.conns, a.Conn)
			}
		case zab.LeadStepDown:
			lp.t.Errorf("the leader stepped down: %s", a.Reason)
		case zab.LeadStartServing:
			// Java's leader makes its tree's last zxid Epoch<<32 here,
			// which sends a SNAP to a follower that joins with an empty
			// tree; this loop cannot stream a tree, and keeps 0.
			lp.note("serving epoch %d", a.Epoch)
			close(lp.serving)
		case zab.LeadCommit:
			lp.zxids = append(lp.zxids, a.Zxid)
			lp.txns[a.Zxid] = a.Data
			lp.last = a.Zxid
			lp.l.Applied(a.Zxid)
			select {
			case lp.committed <- a.Zxid:
			default:
			}
		case zab.LeadRequest:
			lp.note("request from %d: op %d", a.SID, a.Request.Op)
		}
	}
}

func (lp *leaderLoop) note(format string, args ...any) {
	lp.events2 = append(lp.events2, fmt.Sprintf(format, args...))
}

func (lp *leaderLoop) run(ctx context.Context, ln net.Listener) {
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			lp.events <- loopEvent{newConn: c}
		}
	}()
	tick := time.NewTicker(time.Second) // half of Java's tickTime
	defer tick.Stop()
	var next int64 = 1
	proposeNow := func(path string) {
		zxid := lp.l.LastProposed() + 1
		acts, err := lp.l.Propose(zxid, createTxn(zxid, path))
		if err != nil {
			lp.t.Errorf("propose %s: %v", path, err)
		}
		lp.do(acts)
		lp.do(lp.l.LocalLogged(zxid)) // the leader's own log, durable at once
	}
	for {
		proposals := lp.propose
		if lp.window {
			proposals = nil
		}
		select {
		case <-ctx.Done():
			return
		case e := <-lp.events:
			switch {
			case e.newConn != nil:
				id := next
				next++
				lp.conns[id] = e.newConn
				if err := lp.l.Connect(id); err != nil {
					lp.t.Error(err)
				}
				go func() {
					for {
						p, err := zab.ReadPacket(e.newConn, 1<<20)
						lp.events <- loopEvent{conn: id, p: p, err: err}
						if err != nil {
							return
						}
					}
				}()
			case e.err != nil:
				if e.err != io.EOF {
					lp.note("read %d: %v", e.conn, e.err)
				}
				if c := lp.conns[e.conn]; c != nil {
					c.Close()
					delete(lp.conns, e.conn)
					lp.l.Disconnect(e.conn)
				}
			default:
				t := zab.PacketType(e.p.Type)
				if t != zab.Ping {
					lp.note("<- %d %s 0x%x", e.conn, t, e.p.Zxid)
				}
				if t == zab.AckEpoch && e.conn > 2 {
					// A follower syncs again while the leader serves: one
					// proposal outstanding as its sync is planned, and
					// none after it until its UPTODATE, so that the
					// proposal's COMMIT falls between its NEWLEADER and
					// its UPTODATE with no PROPOSAL before it (where a
					// 3.8.0 follower fails, ZOOKEEPER-4394).
					proposeNow(fmt.Sprintf("/window%d", e.conn))
					lp.windows.Add(1)
					lp.window = true
				}
				lp.do(lp.l.Receive(e.conn, e.p))
			}
		case path := <-proposals:
			proposeNow(path)
		case <-tick.C:
			lp.do(lp.l.Tick())
		}
	}
}

// TestJavaFollowsGozkLeader: two Java 3.8.0 servers elect gozk (the
// largest id) and follow its zab.Leader: they sync, serve, and apply the
// txns it proposes; one of them is killed and restarted while the leader
// keeps proposing, so that it syncs with proposals and commits in flight,
// one COMMIT certainly due between its NEWLEADER and its UPTODATE (a
// 3.8.0 follower that gets it there fails with a NullPointerException in
// Learner.syncWithLeader and never serves again). Run it with
// go test -tags interop ./zab -run TestJavaFollowsGozkLeader.
func TestJavaFollowsGozkLeader(t *testing.T) {
	if _, err := javazk.Lookup(); err != nil {
		if javazk.JavaRequired() {
			t.Fatal(err)
		}
		t.Skipf("skipping: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	var servers []string
	client := map[int64]int{}
	quorumPort := map[int64]int{}
	for id := int64(1); id <= 3; id++ {
		var ports [3]int
		for i := range ports {
			p, err := javazk.FreePort()
			if err != nil {
				t.Fatal(err)
			}
			ports[i] = p
		}
		client[id], quorumPort[id] = ports[2], ports[0]
		servers = append(servers, fmt.Sprintf("server.%d=127.0.0.1:%d:%d:participant;127.0.0.1:%d", id, ports[0], ports[1], ports[2]))
	}
	// gozk's election, as compat/ensemble runs it.
	gdir := filepath.Join(dir, "gozk")
	os.MkdirAll(filepath.Join(gdir, "data"), 0o755)
	os.WriteFile(filepath.Join(gdir, "data", "myid"), []byte("3"), 0o644)
	cfgPath := filepath.Join(gdir, "zoo.cfg")
	os.WriteFile(cfgPath, []byte(fmt.Sprintf("tickTime=2000\ninitLimit=10\nsyncLimit=5\ndataDir=%s\nclientPort=%d\n%s\n",
		filepath.Join(gdir, "data"), client[3], strings.Join(servers, "\n"))), 0o644)
	c, err := conf.Load(cfgPath, "")
	if err != nil {
		t.Fatal(err)
	}
	pc, err := peer.ElectionPortConfig(c, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := electionport.Start(pc)
	if err != nil {
		t.Fatal(err)
	}
	defer mgr.Close()
	el := peer.NewElector(mgr, peer.ElectionTimersOf(c), zerolog.Nop())
	go el.Run(ctx)
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(quorumPort[3]))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	verifier := quorum.New(c.Quorum.Ensemble)
	config := c.Quorum.Ensemble.QuorumConfig()
	done := make(chan peer.ElectionResult, 1)
	go func() {
		r, err := el.Elect(ctx, fle.Self{ID: 3, Verifier: verifier, Current: fle.Vote{Leader: 3}, Config: []byte(config)})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	java := map[int64]*javazk.Server{}
	for id := int64(1); id <= 2; id++ {
		s, err := javazk.StartPeer(ctx, javazk.PeerOptions{ID: id, Dir: filepath.Join(dir, "java"+strconv.FormatInt(id, 10)),
			ClientPort: client[id], Servers: servers})
		if err != nil {
			t.Fatal(err)
		}
		java[id] = s
		defer s.Stop()
	}
	defer func() {
		if t.Failed() {
			for id, s := range java {
				var keep []string
				for _, line := range strings.Split(s.Log(), "\n") {
					if (strings.Contains(line, "Learner") || strings.Contains(line, "Follower") || strings.Contains(line, "Exception") ||
						strings.Contains(line, "ERROR") || strings.Contains(line, "\tat ")) && !strings.Contains(line, "QuorumCnxManager") {
						keep = append(keep, line)
					}
				}
				t.Logf("log of Java server %d (learner lines):\n%s", id, lastLines(strings.Join(keep, "\n"), 80))
			}
		}
	}()
	r := <-done
	if r.Vote.Leader != 3 || r.State != fle.Leading {
		t.Fatalf("gozk decided leader %d as %v", r.Vote.Leader, r.State)
	}
	lp := &leaderLoop{t: t, conns: map[int64]net.Conn{}, events: make(chan loopEvent, 64), propose: make(chan string),
		committed: make(chan int64, 1024), serving: make(chan struct{}), txns: map[int64][]byte{}}
	lp.l, err = zab.Lead(zab.LeaderConfig{ID: 3, Verifier: verifier, InitLimit: 10, SyncLimit: 5,
		NewLeaderData: []byte(config), Log: lp})
	if err != nil {
		t.Fatal(err)
	}
	lp.do(lp.l.Start())
	loopCtx, stopLoop := context.WithCancel(ctx)
	loopDone := make(chan struct{})
	go func() { lp.run(loopCtx, ln); close(loopDone) }()
	defer func() {
		stopLoop()
		<-loopDone
		if t.Failed() {
			for i, e := range lp.events2 {
				if i >= len(lp.events2)-20 || !strings.Contains(e, "PROPOSAL") && !strings.Contains(e, "COMMIT") && !strings.Contains(e, " ACK 0x") {
					t.Log(e)
				}
			}
		}
	}()
	select {
	case <-lp.serving:
	case <-ctx.Done():
		t.Fatal("the leader never served")
	}
	for id, s := range java {
		if _, err := s.WaitMode(ctx, "follower"); err != nil {
			t.Fatalf("Java server %d: %v", id, err)
		}
	}
	propose := func(n int, prefix string) {
		for i := range n {
			select {
			case lp.propose <- fmt.Sprintf("/%s%d", prefix, i):
			case <-ctx.Done():
				t.Fatal("stuck proposing")
			}
		}
	}
	propose(20, "a")
	waitZxid := func(id int64, zxid int64, nodes int) {
		t.Helper()
		want := fmt.Sprintf("Zxid: 0x%x", zxid)
		deadline := time.Now().Add(time.Minute)
		for {
			out, _ := java[id].FourLetterWord("srvr")
			if strings.Contains(out, want) && strings.Contains(out, fmt.Sprintf("Node count: %d", nodes)) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("Java server %d: %q, want %s and %d nodes", id, out, want, nodes)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	// An empty tree counts 5 nodes in srvr; each txn adds one.
	waitZxid(2, zab.MakeZxid(1, 20), 5+20)
	// Server 2 goes away and comes back while proposals flow.
	java[2].Stop()
	propose(20, "b")
	restarted := make(chan error, 1)
	go func() { restarted <- java[2].Restart(ctx) }()
	stop := make(chan struct{})
	flowing := make(chan int)
	go func() {
		n := 0
		for {
			select {
			case <-stop:
				flowing <- n
				return
			case lp.propose <- fmt.Sprintf("/c%d", n):
				n++
				time.Sleep(2 * time.Millisecond)
			}
		}
	}()
	if err := <-restarted; err != nil {
		t.Fatal(err)
	}
	if _, err := java[2].WaitMode(ctx, "follower"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	close(stop)
	n := <-flowing
	propose(1, "last")
	n += int(lp.windows.Load())
	for id, s := range java {
		waitZxid(id, zab.MakeZxid(1, uint32(20+20+n+1)), 5+20+20+n+1)
		for _, line := range strings.Split(s.Log(), "\n") {
			if strings.Contains(line, " ERROR ") || strings.Contains(line, "NullPointerException") {
				t.Errorf("Java server %d logged %q", id, line)
			}
		}
	}
	t.Logf("server 2 synced while %d proposals flowed, %d times with a COMMIT due in its sync", n, lp.windows.Load())
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
