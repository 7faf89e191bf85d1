package peer

import (
	"context"
	"fmt"
	"time"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/server"
	"github.com/gozk/gozk/zab"
)

// observerMaster is a follower's observer master (observerMasterPort),
// Java's ObserverMaster: observers sync from this follower and follow
// it instead of the leader. It is the leader's loop in relay mode
// (zab.LeaderConfig.Relay) on a port of its own: observers are synced
// from the follower's own database, get an INFORM of each txn the
// leader commits, and their requests, syncs and revalidations go on to
// the leader through the follower's connection.
type observerMaster struct {
	loop   *leaderLoop
	port   *quorumPort
	cancel context.CancelFunc
	done   chan struct{}
}

// relayUpstream is a relay's way to the leader its follower follows.
type relayUpstream struct {
	link server.LeaderLink
	// revalidating are the observers' connections waiting for the
	// leader's answer about a session, with the timeout they asked for.
	revalidating map[int64][]relayRevalidation
}

type relayRevalidation struct {
	conn    int64
	timeout int32
}

// startObserverMaster starts the observer master of a follower that now
// serves in epoch, readyAt being the last zxid it was proposed before. A port
// that cannot be bound leaves the follower following without one, with
// a log line (Java's follower gives up following then).
func (m *Member) startObserverMaster(ctx context.Context, epoch, readyAt int64, up server.LeaderLink) *observerMaster {
	port := m.cfg.Quorum.ObserverMasterPort
	addrs := listenAddrs(m.cfg.Quorum.QuorumListenOnAllIPs, m.self.Addrs, func(conf.QuorumAddr) int { return port })
	qp, err := listenQuorumPort(addrs, m.cfg.TickTime*time.Duration(m.cfg.Quorum.InitLimit), m.tls, m.authServer, m.log)
	if err != nil {
		m.log.Error().Err(err).Msg("cannot start the observer master; following without one")
		return nil
	}
	window := &committedWindow{max: m.commitLogCount, data: map[int64][]byte{}}
	if err := window.seed(m.srv); err != nil {
		qp.close()
		m.log.Error().Err(err).Msg("cannot start the observer master; following without one")
		return nil
	}
	l, err := zab.Lead(zab.LeaderConfig{
		ID:            m.self.ID,
		CurrentEpoch:  epoch,
		LastZxid:      m.srv.LastZxid(),
		Verifier:      m.verifier,
		InitLimit:     m.cfg.Quorum.InitLimit,
		SyncLimit:     m.cfg.Quorum.SyncLimit,
		NewLeaderData: m.quorumCfg,
		Log:           &leaderLog{srv: m.srv, window: window, forceSnap: m.forceSnapSync, sizeFactor: m.snapshotSizeFactor},
		Relay:         true,
		RelayReadyAt:  readyAt,
	})
	if err != nil {
		qp.close()
		m.log.Error().Err(err).Msg("cannot start the observer master; following without one")
		return nil
	}
	loop := &leaderLoop{m: m, l: l, port: qp, events: newEventQueue(), links: map[int64]*learnerLink{}, window: window,
		sids: map[int64]int64{}, observers: map[int64]*server.ObserverInfo{}, syncs: map[int64]*learnerSync{},
		relay: &relayUpstream{link: up, revalidating: map[int64][]relayRevalidation{}}}
	ctx, cancel := context.WithCancel(ctx)
	om := &observerMaster{loop: loop, port: qp, cancel: cancel, done: make(chan struct{})}
	m.log.Info().Strs("addresses", addrs).Str("readyAt", fmt.Sprintf("0x%x", readyAt)).Msg("observer master started")
	go func() {
		defer close(om.done)
		if err := loop.run(ctx); err != nil && ctx.Err() == nil {
			m.log.Warn().Err(err).Msg("the observer master stopped")
		}
	}()
	return om
}

func (om *observerMaster) proposed(zxid int64, data []byte) {
	om.loop.events.push(leaderEvent{kind: evRelayProposed, zxid: zxid, data: data})
}

func (om *observerMaster) committed(zxid int64) {
	om.loop.events.push(leaderEvent{kind: evRelayCommitted, zxid: zxid})
}

func (om *observerMaster) revalidated(session int64, valid bool) {
	om.loop.events.push(leaderEvent{kind: evRelayRevalidated, zxid: session, valid: valid})
}

// stop closes the port and every observer's connection and waits for the
// loop to end.
func (om *observerMaster) stop() {
	om.cancel()
	om.port.close()
	<-om.done
	om.loop.m.leaderStats.Store(nil)
	om.loop.m.log.Info().Msg("observer master stopped")
}

// relayAction passes an observer's request, revalidation or session
// touches on to the leader, as Java's ObserverMaster does through its
// follower.
func (r *leaderLoop) relayAction(a *zab.LeaderAction) error {
	m, up := r.m, r.relay
	switch a.Kind {
	case zab.LeadRequest:
		req := a.Request
		var err error
		if proto.OpCode(req.Op) == proto.OpSync {
			conn := a.Conn
			err = m.srv.RelaySync(req.Session, req.Cxid, req.Body, a.Authinfo, func() {
				r.events.push(leaderEvent{kind: evRelaySynced, conn: conn})
			})
		} else {
			err = up.link.Forward(req.Session, req.Cxid, proto.OpCode(req.Op), req.Body, a.Authinfo)
		}
		if err != nil {
			m.log.Debug().Err(err).Int64("observer", a.SID).Msg("cannot pass an observer's request on to the leader")
		}
	case zab.LeadRevalidate:
		first := len(up.revalidating[a.Session]) == 0
		up.revalidating[a.Session] = append(up.revalidating[a.Session], relayRevalidation{conn: a.Conn, timeout: a.Timeout})
		if !first {
			return nil // the question in flight answers both
		}
		if err := up.link.Revalidate(a.Session, a.Timeout); err != nil {
			m.log.Debug().Err(err).Int64("observer", a.SID).Msg("cannot pass an observer's revalidation on to the leader")
		}
	case zab.LeadTouchSessions:
		m.srv.RelayTouches(touchMap(a.Touches))
	}
	return nil
}

// relayRevalidated hands the leader's answer about a session to the
// observers that asked; a live session is touched, as Java's
// ObserverMaster touches it.
func (r *leaderLoop) relayRevalidated(session int64, valid bool) error {
	waiting := r.relay.revalidating[session]
	delete(r.relay.revalidating, session)
	for _, w := range waiting {
		if valid {
			r.m.srv.RelayTouches(map[int64]int32{session: w.timeout})
		}
		if err := r.do(r.l.RevalidateReply(w.conn, session, valid)); err != nil {
			return err
		}
	}
	return nil
}
