package server

import "sync/atomic"

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
// peer and read by the monitoring commands.
type roleState struct {
	role     atomic.Int32
	phase    atomic.Int32
	syncMode atomic.Pointer[string]
}

// Role returns the server's current role.
func (s *Server) Role() Role { return Role(s.roles.role.Load()) }

// SetRole records the role the member's peer has taken.
func (s *Server) SetRole(r Role) { s.roles.role.Store(int32(r)) }

// Phase returns the Zab phase of an ensemble member.
func (s *Server) Phase() PeerPhase { return PeerPhase(s.roles.phase.Load()) }

// SetPhase records the Zab phase the member's peer is in.
func (s *Server) SetPhase(p PeerPhase) { s.roles.phase.Store(int32(p)) }

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
