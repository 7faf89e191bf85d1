package peer

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/fle"
	"github.com/gozk/gozk/internal/failpoint"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/quorum"
	"github.com/gozk/gozk/quorum/electionport"
	"github.com/gozk/gozk/quorum/quorumauth"
	"github.com/gozk/gozk/quorum/quorumtls"
	"github.com/gozk/gozk/server"
	"github.com/gozk/gozk/zab"
)

// Member is an ensemble member, Java's QuorumPeer: it elects, then
// follows or observes the leader elected, and elects again when that
// role ends. Its server serves clients only while it is in sync with a
// leader.
type Member struct {
	cfg     *conf.Config
	srv     *server.Server
	elector *Elector
	net     *electionport.Manager
	log     zerolog.Logger

	self      *conf.ServerSpec
	verifier  quorum.Verifier
	quorumCfg []byte
	maxPacket int
	// The leader's sync settings (conf's CommitLogCount,
	// ForceSnapshotSync, SnapshotSizeFactor).
	commitLogCount     int
	forceSnapSync      bool
	snapshotSizeFactor float64
	// leaderStats are the figures of the current leader's Zab, for mntr.
	leaderStats atomic.Pointer[leaderFigures]
	// quorumPort is where learners reach this member when it leads.
	quorumPort *quorumPort
	// authLearner authenticates this member to its leader, authServer
	// the learners that connect to it (nil without quorum SASL).
	authLearner *quorumauth.Learner
	authServer  *quorumauth.Server
	// nextMaster is where an observer looks for its next observer
	// master (observerMasterPort), Java's nextObserverMaster;
	// mastersTried counts the masters tried since the last reconnect
	// pause.
	nextMaster   int
	mastersTried int
	// tls is the TLS of the quorum and election ports (nil: plain);
	// stopTLS ends the watch of its stores.
	tls      *quorumtls.Config
	stopTLS  chan struct{}
	stopOnce sync.Once
	// vote is the outcome of the last election, answered to servers
	// that ask while this one is in a role.
	vote fle.Vote
}

// NewMember starts the election port of the ensemble member c describes
// around srv, an ensemble server (server.Config.Ensemble) that Open has
// loaded and that serves nothing yet.
func NewMember(c *conf.Config, srv *server.Server, maxPacket int, log zerolog.Logger) (*Member, error) {
	self, ok := c.Quorum.Self()
	if !ok {
		return nil, fmt.Errorf("my id %d not in the peer list", c.Quorum.ServerID)
	}
	pc, err := ElectionPortConfig(c, log)
	if err != nil {
		return nil, err
	}
	authServer, authLearner, err := quorumauth.FromConfig(c, maxPacket, log)
	if err != nil {
		return nil, err
	}
	authenticateElection(&pc, c, authServer, authLearner)
	stopTLS := make(chan struct{})
	qtls, err := quorumTLS(c, log, stopTLS)
	if err != nil {
		authLearner.Close()
		return nil, err
	}
	pc.TLS = qtls
	listen := listenAddrs(c.Quorum.QuorumListenOnAllIPs, self.Addrs, func(a conf.QuorumAddr) int { return a.QuorumPort })
	qp, err := listenQuorumPort(listen, c.TickTime*time.Duration(c.Quorum.InitLimit), qtls, authServer, log)
	if err != nil {
		close(stopTLS)
		authLearner.Close()
		return nil, err
	}
	mgr, err := electionport.Start(pc)
	if err != nil {
		close(stopTLS)
		qp.close()
		authLearner.Close()
		return nil, err
	}
	m := &Member{
		cfg:        c,
		srv:        srv,
		net:        mgr,
		quorumPort: qp,
		tls:        qtls,
		stopTLS:    stopTLS,
		log:        log,
		self:       self,
		verifier:   quorum.New(c.Quorum.Ensemble),
		quorumCfg:  []byte(c.Quorum.Ensemble.QuorumConfig()),
		maxPacket:  maxPacket,
		vote:       fle.Vote{Leader: self.ID},
		nextMaster: -1,

		commitLogCount:     c.CommitLogCount,
		forceSnapSync:      c.ForceSnapshotSync,
		snapshotSizeFactor: c.SnapshotSizeFactor,
	}
	m.authLearner = authLearner
	m.authServer = authServer
	srv.SetLeaderGauges(m.leaderGauges)
	m.elector = NewElector(mgr, ElectionTimersOf(c), log)
	return m, nil
}

// authenticateElection makes the election port run quorum SASL as Java's
// QuorumCnxManager does: the server that opens a connection authenticates
// as a learner, to voters only (Java looks the peer up in the voting view
// for its host name and skips the others), and the server that accepts it
// authenticates the peer.
func authenticateElection(pc *electionport.Config, c *conf.Config, srv *quorumauth.Server, l *quorumauth.Learner) {
	if srv == nil && l == nil {
		return
	}
	pc.AuthLearner = func(conn net.Conn, sid int64) error {
		s, ok := c.Quorum.Ensemble.Servers[sid]
		if !ok || s.Type != conf.Participant || len(s.Addrs) == 0 {
			return nil
		}
		return l.Authenticate(conn, s.Addrs[0].Host, fmt.Sprintf("%d (%s)", sid, conn.RemoteAddr()))
	}
	pc.AuthServer = func(conn net.Conn, r *bufio.Reader, sid int64) error {
		return srv.Authenticate(conn, r, fmt.Sprintf("%d (%s)", sid, conn.RemoteAddr()))
	}
}

// leaderGauges are the leader's figures for mntr and Prometheus, read
// from the monitoring goroutines.
func (m *Member) leaderGauges() server.LeaderGauges {
	f := m.leaderStats.Load()
	if f == nil {
		return server.LeaderGauges{}
	}
	st := f.stats
	return server.LeaderGauges{
		Learners:                 st.Learners,
		SyncedFollowers:          st.SyncedFollowers,
		SyncedNonVotingFollowers: st.SyncedNonVotingFollowers,
		SyncedObservers:          st.SyncedObservers,
		PendingSyncs:             st.PendingSyncs,
		Observers:                f.observers,
		ObserverMaster:           f.relay,
	}
}

// Close closes the election and quorum ports.
func (m *Member) Close() {
	m.net.Close()
	m.quorumPort.close()
	m.stopOnce.Do(func() {
		close(m.stopTLS)
		m.authLearner.Close()
	})
}

// Run elects, follows or observes, and elects again, until ctx is done or
// the server must stop: it returns a *zab.FatalError (the exit status
// Java's QuorumPeer would exit with) or the server's error.
func (m *Member) Run(ctx context.Context) error {
	go m.elector.Run(ctx)
	first := true
	for ctx.Err() == nil {
		if !first {
			if err := m.srv.StopServing(); err != nil {
				return err
			}
		}
		first = false
		current, accepted, err := m.epochs()
		if err != nil {
			return err
		}
		m.srv.SetRole(server.RoleLooking)
		self := fle.Self{
			ID:             m.self.ID,
			Verifier:       m.verifier,
			LastLoggedZxid: m.srv.LastZxid(),
			CurrentEpoch:   current,
			Current:        m.vote,
			Config:         m.quorumCfg,
		}
		res, err := m.elector.Elect(ctx, self)
		if err != nil {
			return ignoreCancel(ctx, err)
		}
		m.vote = res.Vote
		m.log.Info().Int64("leader", res.Vote.Leader).Str("zxid", fmt.Sprintf("0x%x", res.Vote.Zxid)).
			Int64("epoch", res.Vote.PeerEpoch).Int64("electionEpoch", res.Vote.ElectionEpoch).
			Str("state", stateName(res.State)).Dur("tookMs", res.Took).
			Msg("election finished")
		switch res.State {
		case fle.Following, fle.Observing:
			m.quorumPort.setLearning(true)
			err = m.learn(ctx, res, current, accepted)
			m.quorumPort.setLearning(false)
		case fle.Leading:
			err = m.lead(ctx, current, accepted)
		}
		var fatal *zab.FatalError
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.As(err, &fatal):
			return err
		case err != nil && res.State == fle.Leading:
			m.log.Warn().Err(err).Msg("no longer leading; electing again")
		case err != nil:
			m.log.Warn().Err(err).Int64("leader", res.Vote.Leader).Msg("the leader is lost; electing again")
		}
		if res.State == fle.Observing {
			// Java's observers wait a little before electing, so that
			// those of a lost master do not all come back at once.
			m.observerPause(ctx, m.cfg.ObserverElectionDelay, "waiting before electing again")
		}
	}
	return nil
}

func ignoreCancel(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// epochs reads the epoch records and applies Java's start-up rules to
// them, writing what the rules fill in.
func (m *Member) epochs() (current, accepted int64, err error) {
	st := m.srv.Store()
	e, err := st.Epochs()
	if err != nil {
		return 0, 0, err
	}
	current, accepted, writeCurrent, writeAccepted, err := zab.EpochsAtStart(m.srv.LastZxid(), e)
	if err != nil {
		return 0, 0, err
	}
	if writeCurrent {
		if err := st.SetCurrentEpoch(current); err != nil {
			return 0, 0, err
		}
	}
	if writeAccepted {
		if err := st.SetAcceptedEpoch(accepted); err != nil {
			return 0, 0, err
		}
	}
	return current, accepted, nil
}

// learn follows or observes the leader res elected until it is lost.
func (m *Member) learn(ctx context.Context, res ElectionResult, current, accepted int64) error {
	observer := res.State == fle.Observing
	leader, ok := m.cfg.Quorum.Ensemble.Servers[res.Vote.Leader]
	if !ok || len(leader.Addrs) == 0 {
		return fmt.Errorf("peer: the elected leader %d is not in the configuration", res.Vote.Leader)
	}
	role := server.RoleFollower
	if observer {
		role = server.RoleObserver
	}
	masterID, masterAddrs := res.Vote.Leader, quorumHostPorts(leader.Addrs)
	if observer && m.cfg.Quorum.ObserverMasterPort > 0 {
		// Java's observer follows the voters' observer masters in turn
		// (the leader runs none: its turn fails and the next is tried).
		var tried bool
		masterID, masterAddrs, tried = m.nextObserverMaster()
		if tried {
			m.observerPause(ctx, m.cfg.ObserverReconnectDelay, "every observer master tried; waiting before the next")
		}
		leader = m.cfg.Quorum.Ensemble.Servers[masterID]
		m.log.Info().Int64("leader", res.Vote.Leader).Int64("master", masterID).Strs("addresses", masterAddrs).
			Msg("observing through an observer master")
	}
	if observer && m.cfg.Quorum.ObserverMasterPort <= 0 {
		m.observerPause(ctx, m.cfg.ObserverReconnectDelay, "waiting before dialling the leader")
	}
	m.srv.SetRole(role)
	m.srv.SetLeader(masterID, leader.Addrs[0].Host)
	m.srv.SetPhase(server.PhaseDiscovery)
	began := time.Now()
	l := zab.NewLearner(zab.LearnerConfig{
		ID:            m.self.ID,
		Observer:      observer,
		AcceptedEpoch: accepted,
		CurrentEpoch:  current,
		LastZxid:      m.srv.LastZxid(),
		ConfigVersion: m.cfg.Quorum.Ensemble.Version,
	})
	tick := m.cfg.TickTime
	initLimit := m.cfg.Quorum.InitLimit
	if m.cfg.Quorum.ConnectToLearnerMasterLimit > 0 {
		initLimit = m.cfg.Quorum.ConnectToLearnerMasterLimit
	}
	lc := LearnerConn{
		LeaderAddrs: masterAddrs,
		InitTimeout: tick * time.Duration(initLimit),
		SyncTimeout: tick * time.Duration(m.cfg.Quorum.SyncLimit),
		MaxPacket:   m.maxPacket,
		TLS:         m.tls,
		Logger:      m.log,
		Auth:        m.authLearner,
		LeaderHost:  leader.Addrs[0].Host,
	}
	store := &serverStore{srv: m.srv, observer: observer}
	// om is this follower's observer master, once started; the hooks
	// run on the learner's goroutine, which sets it.
	var om *observerMaster
	hooks := LearnerHooks{
		UpdateElectionVote: m.elector.UpdatePeerEpoch,
		TouchTable: func() []zab.SessionTouch {
			t := m.srv.TouchTable()
			out := make([]zab.SessionTouch, 0, len(t))
			for id, to := range t {
				out = append(out, zab.SessionTouch{ID: id, Timeout: to})
			}
			return out
		},
		Revalidated: func(session int64, valid bool) {
			m.srv.Revalidated(session, valid)
			if om != nil {
				om.revalidated(session, valid)
			}
		},
		Received: func(t zab.PacketType) {
			switch t {
			case zab.Proposal, zab.Inform:
				m.srv.Metrics().LearnerProposalReceived.Add(1)
			case zab.Commit:
				m.srv.Metrics().LearnerCommitReceived.Add(1)
			}
		},
		SyncDone: func(proto.QuorumPacket) { m.srv.SyncDone() },
		Synced: func(mode zab.SyncMode, serving bool) {
			if !serving {
				store.mode = mode
				m.srv.SetPhase(server.PhaseSynchronization)
				m.srv.SetSyncMode(syncModeName(mode))
				m.log.Info().Int64("leader", res.Vote.Leader).Str("mode", mode.String()).
					Str("zxid", fmt.Sprintf("0x%x", m.srv.LastZxid())).Msg("syncing with the leader")
				return
			}
			took := time.Since(began)
			m.log.Info().Int64("leader", res.Vote.Leader).Str("mode", store.mode.String()).
				Int("txns", store.txns).Str("zxid", fmt.Sprintf("0x%x", m.srv.LastZxid())).
				Dur("tookMs", took).Msg("synced with the leader; serving clients")
		},
	}
	if !observer && m.cfg.Quorum.ObserverMasterPort > 0 {
		hooks.StartRelay = func(epoch, lastProposed int64, up server.LeaderLink) {
			om = m.startObserverMaster(ctx, epoch, lastProposed, up)
		}
		hooks.Proposed = func(zxid int64, data []byte) {
			if om != nil {
				om.proposed(zxid, data)
			}
		}
		hooks.Committed = func(zxid int64) {
			if om != nil {
				om.committed(zxid)
			}
		}
		defer func() {
			if om != nil {
				om.stop()
			}
		}()
	}
	return FollowLeader(ctx, lc, l, store, hooks)
}

// nextObserverMaster is the voter whose observer master an observer tries
// next, and its addresses: the voters in turn, from a place chosen at
// random once (Java shuffles the list). allTried says every voter has
// been tried since the last time it said so, where Java pauses.
func (m *Member) nextObserverMaster() (id int64, addrs []string, allTried bool) {
	var voters []int64
	for id, s := range m.cfg.Quorum.Ensemble.Servers {
		if s.Type == conf.Participant {
			voters = append(voters, id)
		}
	}
	slices.Sort(voters)
	if m.nextMaster < 0 {
		m.nextMaster = rand.IntN(len(voters))
	}
	if m.mastersTried >= len(voters) {
		allTried, m.mastersTried = true, 0
	}
	m.mastersTried++
	id = voters[m.nextMaster%len(voters)]
	m.nextMaster++
	port := m.cfg.Quorum.ObserverMasterPort
	for _, a := range m.cfg.Quorum.Ensemble.Servers[id].Addrs {
		addrs = append(addrs, net.JoinHostPort(a.Host, strconv.Itoa(port)))
	}
	return id, addrs, allTried
}

// observerPause waits a random time below limit, Java's observer
// jitter, or until ctx is done.
func (m *Member) observerPause(ctx context.Context, limit time.Duration, why string) {
	if limit <= 0 || ctx.Err() != nil {
		return
	}
	d := rand.N(limit)
	m.log.Info().Dur("waitMs", d).Msg(why)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

func syncModeName(m zab.SyncMode) string {
	switch m {
	case zab.SyncDiff:
		return "diff"
	case zab.SyncSnap:
		return "snap"
	case zab.SyncTrunc:
		return "trunc"
	}
	return ""
}

// serverStore carries out the learner's actions on the server.
type serverStore struct {
	srv      *server.Server
	observer bool
	// For the sync's log line.
	mode zab.SyncMode
	txns int
}

func (s *serverStore) PersistAcceptedEpoch(epoch int64) error {
	return s.srv.Store().SetAcceptedEpoch(epoch)
}

func (s *serverStore) PersistCurrentEpoch(epoch int64) error {
	if err := s.srv.Store().SetCurrentEpoch(epoch); err != nil {
		return err
	}
	return failpoint.Hit(failpoint.AfterCurrentEpoch)
}

func (s *serverStore) TruncateLog(zxid int64) error { return s.srv.TruncateLog(zxid) }

func (s *serverStore) LoadSnapshot(r *bufio.Reader, zxid int64) error {
	return s.srv.LoadSnapStream(r, zxid)
}

func (s *serverStore) TakeSnapshot(bool) error { return s.srv.SnapshotAfterSync() }

func (s *serverStore) ApplyTxn(txn zab.Txn) error {
	s.txns++
	return s.srv.ApplyTxn(txn.Data)
}

func (s *serverStore) LogTxn(txn zab.Txn) error {
	s.txns++
	return s.srv.LogTxn(txn.Zxid, txn.Data)
}

func (s *serverStore) FlushLog() error { return s.srv.FlushLog() }

func (s *serverStore) CommitTxn(zxid int64) error { return s.srv.CommitTxn(zxid) }

func (s *serverStore) StartServing(link server.LeaderLink) error {
	return s.srv.StartLearning(server.Learning{Link: link, Observer: s.observer})
}

func (s *serverStore) Logged() <-chan int64 { return s.srv.Logged() }
