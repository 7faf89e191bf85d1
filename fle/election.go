package fle

import "github.com/gozk/gozk/quorum"

// Vote is a server's choice of leader, as Java's Vote holds it.
type Vote struct {
	Leader        int64
	Zxid          int64
	ElectionEpoch int64
	PeerEpoch     int64
	State         ServerState
	Version       int32
}

// Same is Java's Vote.equals. While either side is LOOKING the leader,
// zxid, election epoch and peer epoch must all match. Votes of servers out
// of the election compare by leader and peer epoch only (their zxids and
// rounds may disagree), and by leader alone when one side carries a
// version and the other none (servers before 3.4.6, during an upgrade).
func (v Vote) Same(o Vote) bool {
	if v.State == Looking || o.State == Looking {
		return v.Leader == o.Leader && v.Zxid == o.Zxid && v.ElectionEpoch == o.ElectionEpoch && v.PeerEpoch == o.PeerEpoch
	}
	if (v.Version > 0) != (o.Version > 0) {
		return v.Leader == o.Leader
	}
	return v.Leader == o.Leader && v.PeerEpoch == o.PeerEpoch
}

// Beats is Java's totalOrderPredicate: whether a vote for newLeader (with
// its zxid and peer epoch) wins over the current one. A leader of weight 0
// never wins; otherwise the higher peer epoch, then the higher zxid, then
// the higher server id.
func Beats(qv quorum.Verifier, newLeader, newZxid, newEpoch, curLeader, curZxid, curEpoch int64) bool {
	if qv.Weight(newLeader) == 0 {
		return false
	}
	return newEpoch > curEpoch ||
		newEpoch == curEpoch && (newZxid > curZxid || newZxid == curZxid && newLeader > curLeader)
}

// Self is what an election needs to know of the server running it.
type Self struct {
	ID       int64
	Verifier quorum.Verifier
	// LastLoggedZxid and CurrentEpoch are the server's own, as Java's
	// getLastLoggedZxid and getCurrentEpoch give them (-1 is Java's
	// "nothing logged", with which a server takes no LOOKING vote).
	LastLoggedZxid int64
	CurrentEpoch   int64
	// Current is the server's current vote before this election (Java's
	// QuorumPeer.getCurrentVote): what it answers servers that do not
	// vote with.
	Current Vote
	// Config is the server's committed quorum configuration as Java's
	// QuorumVerifier.toString writes it (conf's Ensemble.QuorumConfig);
	// every notification carries it. Java's receiver parses it and logs
	// an error for one it cannot parse, an empty one included.
	Config []byte
}

// Outgoing is a notification to send to server To (possibly this server
// itself: Java delivers those straight back, and so must the caller).
type Outgoing struct {
	To int64
	N  Notification
}

// Event is what Receive asks of its caller besides sending.
type Event int

const (
	// Nothing: keep delivering notifications.
	Nothing Event = iota
	// StartFinalizeWait: the votes received make a quorum for this
	// server's proposal; (re)start the finalize timer (Java's
	// finalizeWait, 200 ms) and call FinalizeExpired when it fires with
	// no Receive in between.
	StartFinalizeWait
	// Decided: the election is over; see Result.
	Decided
)

// Election is one run of Java's lookForLeader with its receiver's
// replies, as a pure state machine: notifications in, notifications to
// send and decisions out. It is not safe for concurrent use.
//
// Not modelled (yet): reconfiguration (a notification carrying a newer
// configuration), the QuorumOracleMaj oracle, and the timers themselves
// (the caller owns them: finalize wait here, and the notification
// interval after which Java resends its proposal, see Resend).
type Election struct {
	self        Self
	participant bool
	clock       int64
	leader      int64
	zxid        int64
	epoch       int64

	recvset       map[int64]Vote
	outOfElection map[int64]Vote
	finalizing    bool

	decided bool
	result  Vote
	state   ServerState
}

// NewElection starts an election at logical clock clock+1 (Java keeps the
// clock across elections of one server) and returns the notifications of
// this server's initial proposal: itself, with its last logged zxid and
// current epoch, to every voter (itself included). A server that does not
// vote proposes Java's minimum values.
func NewElection(self Self, clock int64) (*Election, []Outgoing) {
	e := &Election{
		self:          self,
		participant:   self.Verifier.IsVoter(self.ID),
		clock:         clock + 1,
		recvset:       map[int64]Vote{},
		outOfElection: map[int64]Vote{},
		state:         Looking,
	}
	e.leader, e.zxid, e.epoch = e.initialProposal()
	return e, e.proposalToAll()
}

const minInt64 = -1 << 63

// initialProposal is Java's getInitId, getInitLastLoggedZxid and
// getPeerEpoch.
func (e *Election) initialProposal() (leader, zxid, epoch int64) {
	if !e.participant {
		return minInt64, minInt64, minInt64
	}
	return e.self.ID, e.self.LastLoggedZxid, e.self.CurrentEpoch
}

// proposalToAll is Java's sendNotifications.
func (e *Election) proposalToAll() []Outgoing {
	voters := e.self.Verifier.Voters()
	out := make([]Outgoing, 0, len(voters))
	for _, sid := range voters {
		out = append(out, Outgoing{To: sid, N: e.proposal(Looking, e.clock)})
	}
	return out
}

func (e *Election) proposal(state ServerState, round int64) Notification {
	return Notification{State: state, Leader: e.leader, Zxid: e.zxid, ElectionEpoch: round, PeerEpoch: e.epoch,
		Version: NotificationVersion, Config: e.self.Config}
}

// UpdatePeerEpoch is Java's updateElectionVote: once a decided server has
// synced with its leader (or started leading), the vote it answers
// looking servers with carries the new epoch, so that they join it.
func (e *Election) UpdatePeerEpoch(epoch int64) {
	if e.decided {
		e.result.PeerEpoch = epoch
	}
}

// Resend is what Java does when no notification came within its
// notification interval: send the proposal to every voter again.
func (e *Election) Resend() []Outgoing {
	if e.decided {
		return nil
	}
	return e.proposalToAll()
}

// Clock returns the election's logical clock.
func (e *Election) Clock() int64 { return e.clock }

// Proposal returns the vote this server proposes now.
func (e *Election) Proposal() Vote {
	return Vote{Leader: e.leader, Zxid: e.zxid, ElectionEpoch: e.clock, PeerEpoch: e.epoch, State: Looking}
}

// Result returns the elected vote and this server's state from now on
// (Leading, Following or Observing), once Decided.
func (e *Election) Result() (Vote, ServerState, bool) { return e.result, e.state, e.decided }

// Receive takes notification n from server from.
func (e *Election) Receive(from int64, n Notification) ([]Outgoing, Event) {
	// The receiver thread's part: servers that do not vote get this
	// server's current vote back at once, and nothing else happens.
	if !e.self.Verifier.IsVoter(from) {
		cur := e.self.Current
		round := e.clock
		state := Looking
		if e.decided {
			cur, state = e.result, e.state
		}
		return []Outgoing{{To: from, N: Notification{State: state, Leader: cur.Leader, Zxid: cur.Zxid, ElectionEpoch: round,
			PeerEpoch: cur.PeerEpoch, Version: NotificationVersion, Config: e.self.Config}}}, Nothing
	}
	if !n.State.Known() {
		return nil, Nothing
	}
	if e.decided {
		// Out of the election: a server still looking learns the
		// outcome, with the round it was decided in.
		if n.State != Looking {
			return nil, Nothing
		}
		r := e.result
		return []Outgoing{{To: from, N: Notification{State: e.state, Leader: r.Leader, Zxid: r.Zxid, ElectionEpoch: r.ElectionEpoch,
			PeerEpoch: r.PeerEpoch, Version: NotificationVersion, Config: e.self.Config}}}, Nothing
	}
	var out []Outgoing
	if n.State == Looking && n.ElectionEpoch < e.clock {
		// A looking server a round behind is told this one's proposal.
		out = append(out, Outgoing{To: from, N: e.proposal(Looking, e.clock)})
	}
	if e.finalizing {
		// Java's finalize loop: only a better vote ends the wait (and is
		// then taken as any other); anything else is dropped, and the
		// wait starts again.
		if !Beats(e.self.Verifier, n.Leader, n.Zxid, n.PeerEpoch, e.leader, e.zxid, e.epoch) {
			return out, StartFinalizeWait
		}
		e.finalizing = false
	}
	more, ev := e.take(from, n)
	return append(out, more...), ev
}

// FinalizeExpired ends the finalize wait with no better vote: this
// server's proposal is elected. It reports whether that decided the
// election (false when no wait was running).
func (e *Election) FinalizeExpired() bool {
	if !e.finalizing || e.decided {
		return false
	}
	e.finalizing = false
	e.decide(Vote{Leader: e.leader, Zxid: e.zxid, ElectionEpoch: e.clock, PeerEpoch: e.epoch})
	return true
}

// take is the body of lookForLeader's loop for one notification.
func (e *Election) take(from int64, n Notification) ([]Outgoing, Event) {
	if !e.self.Verifier.IsVoter(n.Leader) {
		return nil, Nothing
	}
	switch n.State {
	case Looking:
		if e.initialZxid() == -1 || n.Zxid == -1 {
			return nil, Nothing
		}
		var out []Outgoing
		switch {
		case n.ElectionEpoch > e.clock:
			e.clock = n.ElectionEpoch
			clear(e.recvset)
			il, iz, ie := e.initialProposal()
			if Beats(e.self.Verifier, n.Leader, n.Zxid, n.PeerEpoch, il, iz, ie) {
				e.leader, e.zxid, e.epoch = n.Leader, n.Zxid, n.PeerEpoch
			} else {
				e.leader, e.zxid, e.epoch = il, iz, ie
			}
			out = e.proposalToAll()
		case n.ElectionEpoch < e.clock:
			return nil, Nothing
		case Beats(e.self.Verifier, n.Leader, n.Zxid, n.PeerEpoch, e.leader, e.zxid, e.epoch):
			e.leader, e.zxid, e.epoch = n.Leader, n.Zxid, n.PeerEpoch
			out = e.proposalToAll()
		}
		e.recvset[from] = Vote{Leader: n.Leader, Zxid: n.Zxid, ElectionEpoch: n.ElectionEpoch, PeerEpoch: n.PeerEpoch, State: Looking}
		if e.hasQuorum(e.recvset, e.Proposal()) {
			e.finalizing = true
			return out, StartFinalizeWait
		}
		return out, Nothing
	case Following, Leading:
		their := Vote{Leader: n.Leader, Zxid: n.Zxid, ElectionEpoch: n.ElectionEpoch, PeerEpoch: n.PeerEpoch, State: n.State, Version: n.Version}
		if n.ElectionEpoch == e.clock {
			stored := their
			stored.Version = 0 // Java stores it without its version
			e.recvset[from] = stored
			if e.hasQuorum(e.recvset, their) && e.leaderConfirmed(e.recvset, n.Leader, n.ElectionEpoch) {
				e.decide(Vote{Leader: n.Leader, Zxid: n.Zxid, ElectionEpoch: n.ElectionEpoch, PeerEpoch: n.PeerEpoch})
				return nil, Decided
			}
		}
		e.outOfElection[from] = their
		if e.hasQuorum(e.outOfElection, their) && e.leaderConfirmed(e.outOfElection, n.Leader, n.ElectionEpoch) {
			e.clock = n.ElectionEpoch
			e.decide(Vote{Leader: n.Leader, Zxid: n.Zxid, ElectionEpoch: n.ElectionEpoch, PeerEpoch: n.PeerEpoch})
			return nil, Decided
		}
	}
	return nil, Nothing
}

func (e *Election) initialZxid() int64 {
	_, z, _ := e.initialProposal()
	return z
}

// hasQuorum is Java's getVoteTracker(votes, vote).hasAllQuorums(): do the
// servers whose vote is the same as vote make a quorum.
func (e *Election) hasQuorum(votes map[int64]Vote, vote Vote) bool {
	var acks []int64
	for sid, v := range votes {
		if vote.Same(v) {
			acks = append(acks, sid)
		}
	}
	return e.self.Verifier.ContainsQuorum(acks)
}

// leaderConfirmed is Java's checkLeader: the elected server must itself
// say it leads, or, when that is this server, the round must be this one.
func (e *Election) leaderConfirmed(votes map[int64]Vote, leader, round int64) bool {
	if leader != e.self.ID {
		v, ok := votes[leader]
		return ok && v.State == Leading
	}
	return e.clock == round
}

// decide ends the election for vote: Java's setPeerState and leaveInstance.
func (e *Election) decide(vote Vote) {
	e.decided = true
	e.state = Following
	switch {
	case vote.Leader == e.self.ID:
		e.state = Leading
	case !e.participant:
		e.state = Observing
	}
	vote.State = e.state
	e.result = vote
	clear(e.recvset)
}
