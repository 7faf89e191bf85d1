package server

import (
	"math"
	"sync"
	"sync/atomic"
)

// Role is what the server is doing in its ensemble, as srvr's "Mode:"
// line and mntr's zk_server_state name it.
type Role int32

// The roles. A standalone server is RoleStandalone for its whole life; an
// ensemble member starts RoleLooking and moves between the others as its
// peer decides.
const (
	RoleStandalone Role = iota
	RoleLooking
	RoleFollower
	RoleObserver
	RoleLeader
)

var roleNames = [...]string{"standalone", "looking", "follower", "observer", "leader"}

// String is Java's name for the role (QuorumPeer.getServerState).
func (r Role) String() string { return roleNames[r] }

// PeerPhase is the step of Zab a member is in, for mntr's
// zk_peer_state ("following - broadcast"): Java's ZabState.
type PeerPhase int32

// The phases, as Java's QuorumPeer.ZabState names them.
const (
	PhaseElection PeerPhase = iota
	PhaseDiscovery
	PhaseSynchronization
	PhaseBroadcast
)

var phaseNames = [...]string{"election", "discovery", "synchronization", "broadcast"}

func (p PeerPhase) String() string { return phaseNames[p] }

// roleState is the member's role, phase and sync mode, written by its
// peer and read by the monitoring commands, with the clocks behind the
// metrics Java records on role and phase changes.
type roleState struct {
	role     atomic.Int32
	phase    atomic.Int32
	syncMode atomic.Pointer[string]

	leader atomic.Pointer[leaderInfo]

	// mu orders the role and phase changes with the clocks below (all in
	// realMillis; 0 = not running).
	mu               sync.Mutex
	electionStart    int64 // Java's start_fle: when the member last began looking
	unavailableStart int64 // since when the member serves no client
	syncStart        int64 // when the learner began syncing with its leader
	leaderStart      atomic.Int64

	proposals    bufferStats
	leaderGauges atomic.Pointer[func() LeaderGauges]

	clock func() int64 // ms; realMillis unless a test sets it
}

func (rs *roleState) now() int64 {
	if rs.clock != nil {
		return rs.clock()
	}
	return realMillis()
}

type leaderInfo struct {
	id   int64
	host string
}

// Role returns the server's current role.
func (s *Server) Role() Role { return Role(s.roles.role.Load()) }

// SetRole records the role the member's peer switched to, and the
// metrics Java records with it: entering RoleLooking counts one
// looking_count, forgets the leader, resets the phase to the election and
// starts the election and unavailability clocks (Java's QuorumPeer main
// loop and FastLeaderElection); RoleFollower and RoleLeader then record
// election_time, the time since the member began looking, as Java's
// Follower and Leader do on starting (an observer records none). The
// peer calls it on every switch, RoleLooking first (before the server is
// attached to the monitoring commands, which take a RoleStandalone
// server for a standalone one), and SetPhase after it.
func (s *Server) SetRole(r Role) {
	rs := &s.roles
	rs.mu.Lock()
	defer rs.mu.Unlock()
	now := rs.now()
	switch r {
	case RoleLooking:
		s.mon.metrics.LookingCount.Add(1)
		rs.electionStart = now
		if rs.unavailableStart == 0 {
			rs.unavailableStart = now
		}
		rs.leader.Store(nil)
		rs.phase.Store(int32(PhaseElection))
		rs.leaderStart.Store(0)
	case RoleFollower, RoleLeader:
		if rs.electionStart != 0 {
			s.mon.metrics.ElectionTime.Add(0, now-rs.electionStart)
			rs.electionStart = 0
		}
	}
	rs.role.Store(int32(r))
}

// Phase returns the Zab phase of an ensemble member.
func (s *Server) Phase() PeerPhase { return PeerPhase(s.roles.phase.Load()) }

// SetPhase records the Zab phase the member's peer is in, and the
// metrics Java records with it: a learner's sync time
// (follower_sync_time, observer_sync_time) from PhaseSynchronization to
// PhaseBroadcast; unavailable_time (and leader_unavailable_time on a
// leader) from when it began looking to PhaseBroadcast; a leader's
// uptime (zk_leader_uptime) from PhaseBroadcast. The peer sets
// PhaseBroadcast when the member starts serving clients (Java's
// startServing), which is also what makes Serving true.
func (s *Server) SetPhase(p PeerPhase) {
	rs := &s.roles
	rs.mu.Lock()
	defer rs.mu.Unlock()
	now := rs.now()
	role := s.Role()
	switch p {
	case PhaseSynchronization:
		rs.syncStart = now
	case PhaseBroadcast:
		if rs.syncStart != 0 {
			switch role {
			case RoleFollower:
				s.mon.metrics.FollowerSyncTime.Add(0, now-rs.syncStart)
			case RoleObserver:
				s.mon.metrics.ObserverSyncTime.Add(0, now-rs.syncStart)
			}
			rs.syncStart = 0
		}
		if rs.unavailableStart != 0 {
			s.mon.metrics.UnavailableTime.Add(0, now-rs.unavailableStart)
			if role == RoleLeader {
				s.mon.metrics.LeaderUnavailableTime.Add(0, now-rs.unavailableStart)
			}
			rs.unavailableStart = 0
		}
		if role == RoleLeader {
			rs.leaderStart.Store(now)
		}
	}
	rs.phase.Store(int32(p))
}

// Serving reports whether the server answers clients and the monitoring
// commands that need a running server: a standalone server always, an
// ensemble member while it follows, observes or leads in the broadcast
// phase (Java's ZooKeeperServer.isRunning: not while looking or syncing).
func (s *Server) Serving() bool {
	switch s.Role() {
	case RoleStandalone:
		return true
	case RoleLooking:
		return false
	}
	return s.Phase() == PhaseBroadcast
}

// SetLeader records the leader the member follows or observes, or
// itself when it leads (Java's setLeaderAddressAndId): its server id and
// the host of its quorum address (hosts joined by "|" when it has
// several). SetRole(RoleLooking) forgets it.
func (s *Server) SetLeader(id int64, host string) {
	s.roles.leader.Store(&leaderInfo{id: id, host: host})
}

// Leader returns the leader's id and host, -1 and "" when there is none
// (the AdminServer's leader command, an observer's
// zk_observer_master_id).
func (s *Server) Leader() (id int64, host string) {
	if l := s.roles.leader.Load(); l != nil {
		return l.id, l.host
	}
	return -1, ""
}

// LeaderUptime is zk_leader_uptime: ms since the leader started serving,
// 0 when it does not lead.
func (s *Server) LeaderUptime() int64 {
	if t := s.roles.leaderStart.Load(); t != 0 && s.Role() == RoleLeader {
		return s.roles.now() - t
	}
	return 0
}

// LeaderGauges are a leader's figures about its learners, which mntr and
// Prometheus show on a leader (zk_learners, ...) and the AdminServer's
// observers command lists.
type LeaderGauges struct {
	Learners                 int // learners connected, whatever their state
	SyncedFollowers          int // followers in broadcast (Java's forwarding followers)
	SyncedNonVotingFollowers int // followers that are not voters of the current config
	SyncedObservers          int // observers in broadcast
	PendingSyncs             int // sync requests waiting for their commit
	Observers                []ObserverInfo
	// ObserverMaster: the figures are a follower's, as the observer
	// master of the observers in them (observerMasterPort).
	ObserverMaster bool
}

// ObserverInfo is one synced observer as the AdminServer's observers
// command shows it (Java's LearnerHandler.getLearnerHandlerInfo).
type ObserverInfo struct {
	RemoteAddr        string // "/ip:port"
	ID                int64  // its server id
	Established       int64  // wall ms of the connection
	QueuedPackets     int64
	QueuedPacketsSize int64
	PacketsReceived   int64
	PacketsSent       int64
	Requests          int64 // its forwarded requests in flight
	LastZxid          int64 // the last zxid sent to it
}

// SetLeaderGauges installs the function mntr, Prometheus and the
// AdminServer call for a leader's learner figures; the leader installs it
// when it starts leading. Until then a leader shows zeros. f runs on the
// monitoring's goroutines, concurrently with the leader's own.
func (s *Server) SetLeaderGauges(f func() LeaderGauges) { s.roles.leaderGauges.Store(&f) }

// LeaderFigures returns the leader's learner figures (zero without
// SetLeaderGauges).
func (s *Server) LeaderFigures() LeaderGauges {
	if f := s.roles.leaderGauges.Load(); f != nil && *f != nil {
		return (*f)()
	}
	return LeaderGauges{}
}

// RecordProposalSize records the size in bytes of one proposal the
// leader sends (Java's Leader.propose: the serialized txn), for srvr's
// "Proposal sizes last/min/max" and zk_last/min/max_proposal_size.
func (s *Server) RecordProposalSize(n int) { s.roles.proposals.record(int64(n)) }

// ProposalSizes returns the last, smallest and largest proposal sizes,
// -1 each before the first proposal or after ResetProposalSizes.
func (s *Server) ProposalSizes() (last, min, max int64) { return s.roles.proposals.read() }

// ResetProposalSizes forgets the proposal sizes (srst on a leader).
func (s *Server) ResetProposalSizes() { s.roles.proposals.reset() }

// bufferStats is Java's BufferStats: the last, smallest and largest of a
// series of sizes, -1 while there is none.
type bufferStats struct {
	mu             sync.Mutex
	set            bool
	last, min, max int64
}

func (b *bufferStats) record(n int64) {
	b.mu.Lock()
	if !b.set {
		b.set, b.min, b.max = true, math.MaxInt64, math.MinInt64
	}
	b.last = n
	b.min = min(b.min, n)
	b.max = max(b.max, n)
	b.mu.Unlock()
}

func (b *bufferStats) read() (int64, int64, int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.set {
		return -1, -1, -1
	}
	return b.last, b.min, b.max
}

func (b *bufferStats) reset() {
	b.mu.Lock()
	b.set = false
	b.mu.Unlock()
}

// SetSyncMode records how the member is syncing with its leader ("diff",
// "snap", "trunc"), or "" once it is not.
func (s *Server) SetSyncMode(mode string) { s.roles.syncMode.Store(&mode) }

// PeerState is mntr's zk_peer_state, Java's
// QuorumPeer.getDetailedPeerState: the peer state ("looking",
// "following", "leading", "observing"), then " - " and the Zab phase
// unless it is the election, then " - " and the sync mode while syncing.
// A standalone server has none: "".
func (s *Server) PeerState() string {
	var state string
	switch s.Role() {
	case RoleStandalone:
		return ""
	case RoleLooking:
		state = "looking"
	case RoleFollower:
		state = "following"
	case RoleObserver:
		state = "observing"
	case RoleLeader:
		state = "leading"
	}
	if p := s.Phase(); p != PhaseElection {
		state += " - " + p.String()
	}
	if m := s.roles.syncMode.Load(); m != nil && *m != "" {
		state += " - " + *m
	}
	return state
}
