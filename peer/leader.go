package peer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/gozk/gozk/internal/failpoint"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/server"
	"github.com/gozk/gozk/zab"
)

// ErrSteppedDown is wrapped by lead's error when the leader gives up (no
// quorum, a handshake that timed out): the member elects again.
var ErrSteppedDown = errors.New("peer: the leader stepped down")

// leaderEvent is one input of the leader's loop.
type leaderEvent struct {
	kind   leaderEventKind
	conn   int64
	packet proto.QuorumPacket
	err    error
	zxid   int64
	data   []byte
	valid  bool // evRelayRevalidated
	link   *learnerLink
}

type leaderEventKind int

const (
	evAccepted leaderEventKind = iota
	evPacket
	evGone
	evPropose
	evLogged
	evSyncReached
	evRolledOver
	evSnapSent
	// A relay's (observer master's) inputs from its follower: a
	// proposal and a commit of the leader, the leader's answer about a
	// session, and the leader's SYNC for an observer's sync.
	evRelayProposed
	evRelayCommitted
	evRelayRevalidated
	evRelaySynced
)

// changesLearners reports whether e may change the learners' figures
// mntr shows; the hot events (proposals, ACKs, pings) do not, and the
// figures are refreshed at every tick anyway.
func (e *leaderEvent) changesLearners() bool {
	switch e.kind {
	case evAccepted, evGone:
		return true
	case evPacket:
		t := zab.PacketType(e.packet.Type)
		return t != zab.Ack && t != zab.Ping && t != zab.Request
	}
	return false
}

// eventQueue is the leader loop's inbox: unbounded, so that the write
// loop handing it proposals never waits for the leader's loop.
type eventQueue struct {
	mu     sync.Mutex
	items  []leaderEvent
	signal chan struct{}
}

func newEventQueue() *eventQueue { return &eventQueue{signal: make(chan struct{}, 1)} }

func (q *eventQueue) push(e leaderEvent) {
	q.mu.Lock()
	q.items = append(q.items, e)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

func (q *eventQueue) take(dst []leaderEvent) []leaderEvent {
	q.mu.Lock()
	dst = append(dst, q.items...)
	clear(q.items)
	q.items = q.items[:0]
	q.mu.Unlock()
	return dst
}

// leaderSink is the server's way into the leader's loop.
type leaderSink struct{ q *eventQueue }

func (s leaderSink) Propose(zxid int64, data []byte) {
	s.q.push(leaderEvent{kind: evPropose, zxid: zxid, data: data})
}

func (s leaderSink) Logged(zxid int64) { s.q.push(leaderEvent{kind: evLogged, zxid: zxid}) }

func (s leaderSink) RolledOver() { s.q.push(leaderEvent{kind: evRolledOver}) }

// committedWindow is the leader's in-memory log of the newest committed
// txns (Java's committedLog, zookeeper.commitLogCount of them), from
// which a learner a little behind gets a DIFF.
type committedWindow struct {
	max   int
	zxids []int64
	data  map[int64][]byte
}

func (w *committedWindow) add(zxid int64, data []byte) {
	if w.max <= 0 {
		return
	}
	w.zxids = append(w.zxids, zxid)
	w.data[zxid] = data
	if n := len(w.zxids) - w.max; n > 0 {
		for _, z := range w.zxids[:n] {
			delete(w.data, z)
		}
		w.zxids = append(w.zxids[:0], w.zxids[n:]...)
	}
}

// errSeeded ends the scan that seeds the window.
var errSeeded = errors.New("seeded")

// seed fills the window, as a leader starts, with the newest txns the
// server logged up to the last one it applied. Java's leader holds them
// in its committedLog: every txn it replayed over the snapshot it loaded
// and every txn it committed since, as a follower too; a snapshot it
// takes later (gozk takes one right after loading) empties nothing. So
// a learner that missed a few txns before this leader was elected gets
// a DIFF, and one that logged a txn never committed gets a TRUNC.
//
// A DIFF needs the window without a gap, and the log has gaps where the
// server took a snapshot from its leader. After the newest snapshot
// there is none, across epochs too. Before it, only the last epoch's
// txns are taken, and only those after the last gap: within an epoch
// zxids follow one another, so a gap shows, while a missing epoch would
// not.
func (w *committedWindow) seed(srv *server.Server) error {
	last := srv.LastZxid()
	if w.max <= 0 || last == 0 {
		return nil
	}
	var snap int64
	infos, err := srv.Store().Snapshots()
	if err != nil {
		return err
	}
	for _, info := range infos {
		if info.Err == nil && info.Zxid <= last {
			snap = info.Zxid
			break
		}
	}
	from := max(last&^0xffffffff+1, last-int64(w.max)+1)
	if snap+1 < from {
		from = snap + 1
	}
	prev := from - 1
	err = srv.Store().Log().Replay(from, func(zxid int64, data []byte) error {
		if zxid > last {
			return errSeeded
		}
		if zxid != prev+1 && prev < snap {
			w.reset()
		}
		prev = zxid
		w.add(zxid, bytes.Clone(data))
		return nil
	})
	if err == errSeeded {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("reading the newest txns of the log: %w", err)
	}
	if prev != last {
		// The log lacks the tree's last txns (a snapshot from a leader
		// with nothing after it): no DIFF can end where it must.
		w.reset()
	}
	return nil
}

func (w *committedWindow) reset() {
	w.zxids = w.zxids[:0]
	clear(w.data)
}

// leaderLog is zab.LeaderLog over the server and the window.
type leaderLog struct {
	srv       *server.Server
	window    *committedWindow
	forceSnap bool
	// sizeFactor is zookeeper.snapshotSizeFactor: a DIFF from the txn
	// log may carry up to this share of the newest snapshot's size; a
	// negative one turns DIFFs from the txn log off.
	sizeFactor float64
}

func (l *leaderLog) SyncInput() zab.SyncInput {
	return zab.SyncInput{
		LastProcessedZxid: l.srv.LastZxid(),
		CommittedLog:      append([]int64(nil), l.window.zxids...),
		ForceSnap:         l.forceSnap,
		TxnLogSyncEnabled: l.sizeFactor >= 0,
		TxnLog: func(peer int64) []int64 {
			limit, err := l.srv.TxnLogSyncLimit(l.sizeFactor)
			if err != nil || limit < 0 {
				return nil
			}
			var out []int64
			err = l.srv.CommittedTxns(peer, l.srv.LastZxid(), limit, func(zxid int64, data []byte) error {
				out = append(out, zxid)
				return nil
			})
			if err != nil {
				return nil
			}
			return out
		},
	}
}

func (l *leaderLog) TxnData(zxid int64) ([]byte, error) {
	if d, ok := l.window.data[zxid]; ok {
		return d, nil
	}
	var found []byte
	err := l.srv.CommittedTxns(zxid, zxid, 0, func(z int64, data []byte) error {
		if z == zxid {
			found = append([]byte(nil), data...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if found == nil {
		return nil, fmt.Errorf("peer: txn 0x%x is not in the log", zxid)
	}
	return found, nil
}

// lead runs this server as the leader the election chose, until it steps
// down or ctx ends.
func (m *Member) lead(ctx context.Context, current, accepted int64) error {
	addr := m.self.Addrs[0]
	m.srv.SetRole(server.RoleLeader)
	m.srv.SetLeader(m.self.ID, addr.Host)
	m.srv.SetPhase(server.PhaseDiscovery)
	window := &committedWindow{max: m.commitLogCount, data: map[int64][]byte{}}
	if err := window.seed(m.srv); err != nil {
		return err
	}
	llog := &leaderLog{srv: m.srv, window: window, forceSnap: m.forceSnapSync, sizeFactor: m.snapshotSizeFactor}
	l, err := zab.Lead(zab.LeaderConfig{
		ID:            m.self.ID,
		AcceptedEpoch: accepted,
		CurrentEpoch:  current,
		LastZxid:      m.srv.LastZxid(),
		Verifier:      m.verifier,
		InitLimit:     m.cfg.Quorum.InitLimit,
		SyncLimit:     m.cfg.Quorum.SyncLimit,
		NewLeaderData: m.quorumCfg,
		Log:           llog,
	})
	if err != nil {
		return err
	}
	run := &leaderLoop{m: m, l: l, port: m.quorumPort, events: newEventQueue(), links: map[int64]*learnerLink{}, window: window,
		sids: map[int64]int64{}, observers: map[int64]*server.ObserverInfo{}, syncs: map[int64]*learnerSync{}}
	return run.run(ctx)
}

type leaderLoop struct {
	m      *Member
	l      *zab.Leader
	port   *quorumPort
	events *eventQueue
	links  map[int64]*learnerLink
	window *committedWindow
	nextID int64
	wg     sync.WaitGroup
	// sids are the server ids the learners named in their
	// FOLLOWERINFO or OBSERVERINFO, for the log lines.
	sids map[int64]int64
	// syncs are the learners being synced, for the line logged once
	// their NEWLEADER goes out: mode, txns and bytes sent, time taken.
	syncs map[int64]*learnerSync
	// observers are the links that registered as observers, with what
	// the AdminServer's observers command shows of them.
	observers map[int64]*server.ObserverInfo
	// relay is set when the loop is a follower's observer master.
	relay *relayUpstream
}

func (r *leaderLoop) run(ctx context.Context) (err error) {
	m := r.m
	defer func() {
		r.port.detach()
		for _, k := range r.links {
			k.close()
		}
		r.wg.Wait()
	}()
	r.port.attach(func(conn net.Conn) {
		r.events.push(leaderEvent{kind: evAccepted, link: newLearnerLink(0, conn, r.m.log)})
	})
	tick := time.NewTicker(m.cfg.TickTime / 2)
	defer tick.Stop()
	if err := r.do(r.l.Start()); err != nil {
		return err
	}
	var batch []leaderEvent
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
			// What the tree applied need not be kept in memory any
			// more, even when no learner's packet says so (a relay with
			// no observers hears none).
			r.l.Applied(m.srv.LastZxid())
			if err := r.do(r.l.Tick()); err != nil {
				return err
			}
			r.publishStats()
		case <-r.events.signal:
			batch = r.events.take(batch[:0])
			changed := false
			for i := range batch {
				if err := r.handle(&batch[i]); err != nil {
					return err
				}
				changed = changed || batch[i].changesLearners()
				batch[i] = leaderEvent{}
			}
			if changed {
				r.publishStats()
			}
		}
	}
}

func (r *leaderLoop) handle(e *leaderEvent) error {
	l := r.l
	switch e.kind {
	case evAccepted:
		r.nextID++
		k := e.link
		k.id = r.nextID
		r.links[k.id] = k
		if err := l.Connect(k.id); err != nil {
			k.close()
			delete(r.links, k.id)
			return nil
		}
		id := k.id
		k.writing.Add(1)
		r.wg.Add(2)
		go func() {
			defer r.wg.Done()
			k.writeLoop(r.m.cfg.TickTime*time.Duration(r.m.cfg.Quorum.SyncLimit), func(err error) {
				r.events.push(leaderEvent{kind: evGone, conn: id, err: err})
			})
		}()
		go func() {
			defer r.wg.Done()
			k.readLoop(r.m.maxPacket, func() time.Duration { return 0 }, func(p proto.QuorumPacket) {
				r.events.push(leaderEvent{kind: evPacket, conn: id, packet: p})
			}, func(err error) {
				r.events.push(leaderEvent{kind: evGone, conn: id, err: err})
			})
		}()
		return nil
	case evPacket:
		if _, ok := r.links[e.conn]; !ok {
			return nil
		}
		if t := zab.PacketType(e.packet.Type); t == zab.FollowerInfo || t == zab.ObserverInfo {
			if info, ok := zab.LearnerInfoOf(e.packet.Data); ok {
				r.sids[e.conn] = info.Serverid
				if t == zab.ObserverInfo {
					r.observers[e.conn] = &server.ObserverInfo{RemoteAddr: "/" + r.links[e.conn].conn.RemoteAddr().String(),
						ID: info.Serverid, Established: time.Now().UnixMilli()}
				}
			}
		}
		if o := r.observers[e.conn]; o != nil {
			o.PacketsReceived++
		}
		l.Applied(r.m.srv.LastZxid())
		return r.do(l.Receive(e.conn, e.packet))
	case evGone:
		if k, ok := r.links[e.conn]; ok {
			r.m.log.Info().Int64("connection", e.conn).Err(e.err).Msg("learner connection lost")
			k.close()
			delete(r.links, e.conn)
			delete(r.sids, e.conn)
			delete(r.observers, e.conn)
			delete(r.syncs, e.conn)
			l.Disconnect(e.conn)
		}
		return nil
	case evPropose:
		out, err := l.Propose(e.zxid, e.data)
		if derr := r.do(out); derr != nil {
			return derr
		}
		r.m.srv.RecordProposalSize(len(e.data))
		r.m.srv.Metrics().ProposalCount.Add(1)
		return err
	case evLogged:
		if err := failpoint.Hit(failpoint.LeaderLoggedBeforeCommit); err != nil {
			return fmt.Errorf("peer: the leader's log up to 0x%x: %w", e.zxid, err)
		}
		return r.do(l.LocalLogged(e.zxid))
	case evSyncReached:
		return r.do(l.Sync(e.conn))
	case evSnapSent:
		r.l.SnapshotSent(e.conn)
		return nil
	case evRolledOver:
		return fmt.Errorf("%w: %v", ErrSteppedDown, zab.ErrZxidRollover)
	case evRelayProposed:
		out, err := l.Propose(e.zxid, e.data)
		if derr := r.do(out); derr != nil {
			return derr
		}
		return err
	case evRelayCommitted:
		return r.do(l.Committed(e.zxid))
	case evRelayRevalidated:
		return r.relayRevalidated(e.zxid, e.valid)
	case evRelaySynced:
		if _, ok := r.links[e.conn]; ok {
			return r.do([]zab.LeaderAction{{Kind: zab.LeadSend, Conn: e.conn, Packet: proto.QuorumPacket{Type: int32(zab.Sync)}}})
		}
	}
	return nil
}

// do carries out the leader's actions in order.
func (r *leaderLoop) do(actions []zab.LeaderAction) error {
	m := r.m
	for _, w := range r.l.TakeWarnings() {
		m.log.Warn().Msg(w)
	}
	for i := range actions {
		a := &actions[i]
		switch a.Kind {
		case zab.LeadSend:
			if k := r.links[a.Conn]; k != nil {
				k.send(outItem{packet: a.Packet})
				if o := r.observers[a.Conn]; o != nil {
					o.PacketsSent++
					if a.Packet.Zxid > o.LastZxid {
						o.LastZxid = a.Packet.Zxid
					}
				}
				switch t := zab.PacketType(a.Packet.Type); t {
				case zab.Diff, zab.Trunc:
					if t == zab.Diff {
						m.srv.Metrics().DiffCount.Add(1)
					}
					m.log.Info().Int64("learner", r.sids[a.Conn]).Str("mode", t.String()).
						Str("zxid", fmt.Sprintf("0x%x", a.Packet.Zxid)).Msg("syncing a learner")
					r.syncs[a.Conn] = &learnerSync{mode: t.String(), began: time.Now()}
				case zab.Proposal:
					if s := r.syncs[a.Conn]; s != nil {
						s.txns++
						s.bytes += int64(len(a.Packet.Data))
					}
				case zab.NewLeader:
					if s := r.syncs[a.Conn]; s != nil {
						delete(r.syncs, a.Conn)
						m.log.Info().Int64("learner", r.sids[a.Conn]).Str("mode", s.mode).Int("txns", s.txns).
							Int64("bytes", s.bytes).Dur("tookMs", time.Since(s.began)).Msg("learner synced; NEWLEADER sent")
					}
				}
			}
		case zab.LeadSendSnap:
			if k := r.links[a.Conn]; k != nil {
				m.srv.Metrics().SnapCount.Add(1)
				// Begun now, on the loop, a moment after the sync was
				// decided: the txns between the two reach the learner
				// both in the stream and after it, which converges.
				ss := m.srv.StartSnapStream()
				conn, sid, events, log := a.Conn, r.sids[a.Conn], r.events, m.log
				log.Info().Int64("learner", sid).Str("mode", "SNAP").Str("zxid", fmt.Sprintf("0x%x", a.Packet.Zxid)).
					Msg("syncing a learner")
				r.syncs[a.Conn] = &learnerSync{mode: "SNAP", began: time.Now()}
				k.send(outItem{packet: a.Packet}, outItem{snap: func(w io.Writer) error {
					began := time.Now()
					n, err := ss.WriteTo(&midSnapWriter{w: w})
					if err == nil {
						log.Info().Int64("learner", sid).Int64("bytes", n).Dur("tookMs", time.Since(began)).
							Msg("snapshot sent to a learner")
						events.push(leaderEvent{kind: evSnapSent, conn: conn})
					}
					return err
				}})
			}
		case zab.LeadClose:
			if k := r.links[a.Conn]; k != nil {
				m.log.Warn().Int64("connection", a.Conn).Str("reason", a.Reason).Msg("closing a learner's connection")
				k.close()
				delete(r.links, a.Conn)
				delete(r.observers, a.Conn)
				delete(r.syncs, a.Conn)
			}
		case zab.LeadPersistAcceptedEpoch:
			if err := m.srv.Store().SetAcceptedEpoch(a.Epoch); err != nil {
				return err
			}
		case zab.LeadPersistCurrentEpoch:
			if err := m.srv.Store().SetCurrentEpoch(a.Epoch); err != nil {
				return err
			}
			if err := failpoint.Hit(failpoint.AfterCurrentEpoch); err != nil {
				return fmt.Errorf("peer: after writing the current epoch %d: %w", a.Epoch, err)
			}
		case zab.LeadStartServing:
			initial := int64(0)
			if m.cfg.InitialZxid >= 0 {
				initial = m.cfg.InitialZxid
			}
			if err := m.srv.StartLeading(server.Leading{Sink: leaderSink{r.events}, Epoch: a.Epoch, InitialCounter: initial}); err != nil {
				return err
			}
			m.elector.UpdatePeerEpoch(a.Epoch)
			m.log.Info().Int64("epoch", a.Epoch).Str("zxid", fmt.Sprintf("0x%x", a.Zxid)).Msg("a quorum acknowledged the new leader; leading")
		case zab.LeadStepDown:
			m.srv.Metrics().QuitLeadingDueToDisloyalVoter.Add(0)
			return fmt.Errorf("%w: %s", ErrSteppedDown, a.Reason)
		case zab.LeadCommit:
			r.window.add(a.Zxid, a.Data)
			if r.relay != nil {
				continue // the follower applies its own txns
			}
			m.srv.Committed(a.Zxid)
			m.srv.Metrics().CommitCount.Add(1)
		case zab.LeadRequest, zab.LeadRevalidate, zab.LeadTouchSessions:
			if r.relay != nil {
				if err := r.relayAction(a); err != nil {
					return err
				}
				continue
			}
			if err := r.leadAction(a); err != nil {
				return err
			}
		}
	}
	return nil
}

// leadAction carries out what a leader does with its learners' requests,
// revalidations and touches itself.
func (r *leaderLoop) leadAction(a *zab.LeaderAction) error {
	m := r.m
	switch a.Kind {
	case zab.LeadRequest:
		req := a.Request
		conn := a.Conn
		lq := server.LearnerRequest{Owner: a.SID, Session: req.Session, Cxid: req.Cxid, Op: proto.OpCode(req.Op),
			Body: req.Body, IDs: a.Authinfo}
		if lq.Op == proto.OpSync {
			lq.Reached = func() { r.events.push(leaderEvent{kind: evSyncReached, conn: conn}) }
		}
		if err := m.srv.SubmitLearnerRequest(lq); err != nil {
			m.log.Warn().Err(err).Int64("learner", a.SID).Msg("a learner's request was not taken")
		}
	case zab.LeadRevalidate:
		valid := m.srv.RevalidateSession(a.SID, a.Session, a.Timeout)
		if err := r.do(r.l.RevalidateReply(a.Conn, a.Session, valid)); err != nil {
			return err
		}
	case zab.LeadTouchSessions:
		m.srv.TouchSessions(touchMap(a.Touches))
	}
	return nil
}

func touchMap(touches []zab.SessionTouch) map[int64]int32 {
	t := make(map[int64]int32, len(touches))
	for _, s := range touches {
		t[s.ID] = s.Timeout
	}
	return t
}

// publishStats hands the leader's figures to the monitoring commands,
// which read them from their own goroutines.
func (r *leaderLoop) publishStats() {
	st := leaderFigures{stats: r.l.Stats(), relay: r.relay != nil}
	for _, o := range r.observers {
		st.observers = append(st.observers, *o)
	}
	r.m.leaderStats.Store(&st)
}

// learnerSync is one learner's sync in progress: what the leader sent it
// before its NEWLEADER (a SNAP's tree is logged apart, when written).
type learnerSync struct {
	mode  string
	began time.Time
	txns  int
	bytes int64
}

// leaderFigures are what the monitoring commands read of a leader.
type leaderFigures struct {
	stats     zab.LeaderStats
	observers []server.ObserverInfo
	relay     bool // a follower's, as an observer master
}
