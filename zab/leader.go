package zab

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gozk/gozk/persistence/zkfiles"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/quorum"
)

// LeaderLog is what the leader reads of its own database to bring a
// learner up to date. Both methods are called from within Receive, at the
// moment the learner's sync is decided: what they return must be one
// consistent view (Java holds the committed log's read lock there).
type LeaderLog interface {
	// SyncInput returns the tree's last processed zxid, the committed log
	// and the txn-log lookup, as PlanSync takes them (the Leader fills in
	// PeerLastZxid). Every txn reported to Leader.Applied must be in it.
	SyncInput() SyncInput
	// TxnData returns the PROPOSAL body of the committed txn zxid, one
	// the committed log or the txn log named.
	TxnData(zxid int64) ([]byte, error)
}

// LeaderConfig is what a server that won the election knows when it
// starts to lead.
type LeaderConfig struct {
	ID int64
	// AcceptedEpoch and CurrentEpoch are the server's epoch files.
	AcceptedEpoch int64
	CurrentEpoch  int64
	// LastZxid is the tree's last processed zxid once the log is replayed
	// (Java's zk.getLastProcessedZxid after loadData).
	LastZxid int64
	Verifier quorum.Verifier
	// InitLimit and SyncLimit are zoo.cfg's, in ticks.
	InitLimit int
	SyncLimit int
	// NewLeaderData is the body of NEWLEADER: the text of the last-seen
	// configuration, as Java's QuorumVerifier.toString writes it.
	NewLeaderData []byte
	// MaxConcurrentSnapSyncs and MaxConcurrentDiffSyncs bound the syncs
	// of observers in progress at once (Java's
	// zookeeper.leader.maxConcurrentSnapSyncs and ...DiffSyncs; 0 means
	// Java's defaults, 10 and 100). Followers are never refused.
	MaxConcurrentSnapSyncs int
	MaxConcurrentDiffSyncs int
	Log                    LeaderLog
	// Relay makes the Leader a follower's observer master (Java's
	// ObserverMaster, observerMasterPort): it serves observers only, in
	// CurrentEpoch, from the follower's own database, from the start
	// (no epoch to decide, no quorum to keep). Proposals come from the
	// real leader through Propose, commits through Committed; a commit
	// asks for nothing to be applied (the follower applies its own), and
	// observers' requests, revalidations and session touches are for
	// the caller to pass on to the real leader.
	Relay bool
	// RelayReadyAt is, for a relay, the last zxid the follower was
	// proposed before the relay began: the relay knows every proposal
	// after it, so it syncs an observer only once the follower's tree
	// holds every txn up to it (SyncInput's LastProcessedZxid); until
	// then an observer is turned away and comes back.
	RelayReadyAt int64
}

// LeaderActionKind says what a LeaderAction asks of the caller.
type LeaderActionKind int

// The actions a Leader asks for. The caller carries them out in the
// order given; packets to one connection go out in that order, and an
// epoch is durable before any action after it is carried out.
const (
	// LeadSend: write Packet to connection Conn.
	LeadSend LeaderActionKind = iota
	// LeadSendSnap: write Packet (SNAP) to Conn, then the tree and the
	// sessions serialized as Java's ZKDatabase.serializeSnapshot writes
	// them, then the string "BenWasHere"; only then the packets of the
	// actions that follow for Conn. Packet.Zxid is the tree's last
	// processed zxid when the sync was decided (the dump may be fuzzy).
	// Call SnapshotSent once it is written.
	LeadSendSnap
	// LeadClose: close Conn (Reason says why; log it). The leader has
	// forgotten the connection: do not call Disconnect for it.
	LeadClose
	// LeadPersistAcceptedEpoch, LeadPersistCurrentEpoch: write Epoch
	// durably to the acceptedEpoch or currentEpoch file.
	LeadPersistAcceptedEpoch
	LeadPersistCurrentEpoch
	// LeadStartServing: a quorum acknowledged NEWLEADER. Start the
	// leader's pipeline: its last committed zxid is Zxid (Epoch<<32), the
	// next txn gets Zxid+1, and the tree's last processed zxid becomes
	// Zxid (as Java's startZkServer sets it); answer looking servers with
	// peer epoch Epoch.
	LeadStartServing
	// LeadStepDown: stop leading (Reason says why): close every learner
	// connection, stop the pipeline, go back to electing. The Leader
	// takes no more input.
	LeadStepDown
	// LeadCommit: the proposal Zxid (Data is its txn) is committed:
	// apply it, then call Applied.
	LeadCommit
	// LeadRequest: learner SID forwarded Request (with the client's
	// Authinfo) over Conn: give it to the prep stage. A sync (op 9) is
	// answered by calling Sync(Conn) when the prep stage reaches it.
	LeadRequest
	// LeadRevalidate: learner SID asks whether Session (with Timeout) is
	// a live global session: touch it, make SID its owner if it is, and
	// answer with RevalidateReply(Conn, Session, valid).
	LeadRevalidate
	// LeadTouchSessions: learner SID saw activity on Touches: touch each
	// session with its timeout.
	LeadTouchSessions
)

var leaderActionNames = [...]string{"LeadSend", "LeadSendSnap", "LeadClose", "LeadPersistAcceptedEpoch",
	"LeadPersistCurrentEpoch", "LeadStartServing", "LeadStepDown", "LeadCommit", "LeadRequest",
	"LeadRevalidate", "LeadTouchSessions"}

func (k LeaderActionKind) String() string { return leaderActionNames[k] }

// LeaderAction is one thing a Leader asks its caller to do.
type LeaderAction struct {
	Kind     LeaderActionKind
	Conn     int64              // LeadSend, LeadSendSnap, LeadClose, LeadRequest, LeadRevalidate
	SID      int64              // LeadRequest, LeadRevalidate, LeadTouchSessions
	Packet   proto.QuorumPacket // LeadSend, LeadSendSnap
	Epoch    int64              // LeadPersist*Epoch, LeadStartServing
	Zxid     int64              // LeadStartServing, LeadCommit
	Data     []byte             // LeadCommit
	Request  ForwardedRequest   // LeadRequest
	Authinfo []proto.Id         // LeadRequest
	Session  int64              // LeadRevalidate
	Timeout  int32              // LeadRevalidate
	Touches  []SessionTouch     // LeadTouchSessions
	Reason   string             // LeadClose, LeadStepDown
}

// LeaderStats is what mntr reports of a leader.
type LeaderStats struct {
	// Learners counts the learner connections (Java's zk_learners).
	Learners int
	// SyncedFollowers counts the followers proposals are forwarded to,
	// those still syncing included (zk_synced_followers), of which
	// SyncedNonVotingFollowers are not voters.
	SyncedFollowers          int
	SyncedNonVotingFollowers int
	// SyncedObservers counts the observers commits are forwarded to.
	SyncedObservers int
	// PendingSyncs counts the proposals that learners' syncs wait on.
	PendingSyncs         int
	OutstandingProposals int
	// The sizes of the proposals' txns: the last, the smallest and the
	// largest; -1 before the first.
	LastProposalSize, MinProposalSize, MaxProposalSize int
}

// ErrZxidRollover: the counter of a proposed zxid is 0xffffffff; Java's
// leader then gives up, so that an election starts a new epoch.
var ErrZxidRollover = errors.New("zab: zxid lower 32 bits have rolled over, forcing re-election, and therefore new epoch start")

// ErrNotServing: Propose before LeadStartServing or after LeadStepDown.
var ErrNotServing = errors.New("zab: the leader is not serving")

type leaderPhase int

const (
	leaderDiscovery leaderPhase = iota // waiting for a quorum of accepted epochs
	leaderEpochAck                     // waiting for a quorum of ACKEPOCHs
	leaderSync                         // waiting for a quorum of NEWLEADER ACKs
	leaderServing
	leaderStopped
)

// handlerState is where a learner is in the handshake, as Java's
// LearnerHandler.run goes through it.
type handlerState int

const (
	hsConnected         handlerState = iota // reading FOLLOWERINFO
	hsAwaitEpoch                            // waiting for the epoch (not reading)
	hsAwaitAckEpoch                         // LEADERINFO sent, reading ACKEPOCH
	hsAwaitEpochAcks                        // waiting for a quorum of ACKEPOCHs (not reading)
	hsAwaitNewLeaderAck                     // sync and NEWLEADER sent, reading the ACK
	hsAwaitStart                            // NEWLEADER acked, waiting for the leader to serve
	hsBroadcast                             // UPTODATE sent
)

type learnerConn struct {
	conn     int64
	sid      int64
	observer bool
	state    handlerState
	// peerLastZxid is the learner's last zxid, from its ACKEPOCH.
	peerLastZxid int64
	// readSince is the half tick at which the current read began: Java's
	// socket timeout (initLimit before the NEWLEADER ACK, syncLimit
	// after) runs from there.
	readSince int
	// ackDeadline is Java's tickOfNextAckDeadline, in the leader's ticks:
	// the learner counts towards the leader's quorum until then.
	ackDeadline int
	// forwarding: proposals (or, for an observer, INFORMs) made after
	// forwardFrom go to this learner.
	forwarding  bool
	forwardFrom int64
	// held are the COMMITs made after NEWLEADER went to this follower and
	// before UPTODATE did: a 3.8.0 follower fails on those (ZOOKEEPER-4394).
	held []int64
	// buffered are packets that came while Java's handler would not
	// read (between its NEWLEADER ACK and UPTODATE), taken after UPTODATE.
	buffered []proto.QuorumPacket
	syncing  syncKind
	check    syncLimitCheck
}

type syncKind int

const (
	noSync syncKind = iota
	diffSync
	snapSync
)

// syncLimitCheck is Java's LearnerHandler.SyncLimitCheck in half ticks:
// it times the oldest PROPOSAL sent to a follower after its NEWLEADER
// ACK and not yet acknowledged, keeping one more (the latest) to time
// next.
type syncLimitCheck struct {
	started             bool
	hasCur, hasNext     bool
	curZxid, nextZxid   int64
	curSince, nextSince int
}

func (c *syncLimitCheck) proposed(zxid int64, now int) {
	if !c.started {
		return
	}
	if !c.hasCur {
		c.hasCur, c.curZxid, c.curSince = true, zxid, now
	} else {
		c.hasNext, c.nextZxid, c.nextSince = true, zxid, now
	}
}

// acked reports false for an ACK of the later proposal before the older.
func (c *syncLimitCheck) acked(zxid int64) bool {
	switch {
	case c.hasCur && c.curZxid == zxid:
		c.hasCur, c.curZxid, c.curSince = c.hasNext, c.nextZxid, c.nextSince
		c.hasNext = false
	case c.hasNext && c.nextZxid == zxid:
		c.hasNext = false
		return false
	}
	return true
}

type leaderProposal struct {
	zxid int64
	data []byte
	acks []int64 // voters
}

// Leader is the leader's side of Zab with all its learners, from the
// epoch through the sync to the broadcast, as Java 3.8.0's Leader and
// LearnerHandler run it, with the later fixes that a 3.8.0 follower needs
// from its leader (see the package doc). It is a pure state machine:
// packets, proposals, local fsyncs and ticks in; packets to send, epochs
// to persist, commits and requests out. Not safe for concurrent use.
type Leader struct {
	cfg   LeaderConfig
	phase leaderPhase
	// halfTicks counts Tick calls; tick is Java's self.tick, which counts
	// whole ticks from the start of serving.
	halfTicks  int
	tick       int
	tickSkip   bool
	phaseSince int // half tick at which the current handshake wait began

	epoch      int64   // proposed, then decided
	connecting []int64 // voters whose accepted epoch is in (Java's connectingFollowers)
	electing   []int64 // voters that acked the epoch
	newLeader  []int64 // voters that acked NEWLEADER

	learners map[int64]*learnerConn
	order    []int64 // connections in the order they came

	lastProposed, lastCommitted int64
	localLogged                 int64             // the leader's own log is durable up to here
	outstanding                 []*leaderProposal // in zxid order
	toBeApplied                 []*leaderProposal // committed, not yet reported applied
	pendingSyncs                map[int64][]int64 // zxid -> connections waiting for it
	snapSyncs, diffSyncs        int
	lastSize, minSize, maxSize  int

	warnings []string
}

// Lead returns a leader about to start (NewLeader is the packet type);
// Start begins it.
func Lead(cfg LeaderConfig) (*Leader, error) {
	switch {
	case cfg.Verifier == nil:
		return nil, errors.New("zab: a leader needs a quorum verifier")
	case cfg.Log == nil:
		return nil, errors.New("zab: a leader needs its log")
	case cfg.InitLimit <= 0 || cfg.SyncLimit <= 0:
		return nil, fmt.Errorf("zab: initLimit %d and syncLimit %d must be positive", cfg.InitLimit, cfg.SyncLimit)
	}
	if cfg.MaxConcurrentSnapSyncs <= 0 {
		cfg.MaxConcurrentSnapSyncs = 10
	}
	if cfg.MaxConcurrentDiffSyncs <= 0 {
		cfg.MaxConcurrentDiffSyncs = 100
	}
	l := &Leader{
		cfg:          cfg,
		epoch:        -1,
		learners:     map[int64]*learnerConn{},
		pendingSyncs: map[int64][]int64{},
		lastSize:     -1, minSize: -1, maxSize: -1,
	}
	if cfg.Relay {
		// Serving in the epoch the follower follows, its tree's last
		// txn being the last one committed that the relay knows of.
		l.phase = leaderServing
		l.epoch = cfg.CurrentEpoch
		l.lastProposed = max(cfg.LastZxid, cfg.RelayReadyAt)
		l.lastCommitted = cfg.LastZxid
	}
	return l, nil
}

// Start proposes the leader's own accepted epoch (Java's lead calling
// getEpochToPropose for itself). A leader that is a quorum on its own
// goes all the way to serving here.
func (l *Leader) Start() []LeaderAction {
	if l.cfg.Relay {
		return nil
	}
	var out []LeaderAction
	l.phaseSince = l.halfTicks
	l.offerEpoch(l.cfg.ID, l.cfg.AcceptedEpoch, &out)
	return out
}

// Epoch is the new epoch once decided (-1 before).
func (l *Leader) Epoch() int64 {
	if l.phase == leaderDiscovery {
		return -1
	}
	return l.epoch
}

// Serving reports whether a quorum acknowledged NEWLEADER and the leader
// has not stepped down.
func (l *Leader) Serving() bool { return l.phase == leaderServing }

// Stopped reports whether the leader stepped down.
func (l *Leader) Stopped() bool { return l.phase == leaderStopped }

// LastProposed is the zxid of the last proposal (Epoch<<32 before any).
func (l *Leader) LastProposed() int64 { return l.lastProposed }

// LastCommitted is the zxid of the last commit (Epoch<<32 before any).
func (l *Leader) LastCommitted() int64 { return l.lastCommitted }

// TakeWarnings returns and clears what Java logs as warnings (ACKs for
// unknown proposals, out-of-order ACKs, unexpected packets).
func (l *Leader) TakeWarnings() []string {
	w := l.warnings
	l.warnings = nil
	return w
}

func (l *Leader) warn(format string, args ...any) {
	l.warnings = append(l.warnings, fmt.Sprintf(format, args...))
}

// Stats returns what mntr shows.
func (l *Leader) Stats() LeaderStats {
	s := LeaderStats{
		Learners:             len(l.learners),
		PendingSyncs:         len(l.pendingSyncs),
		OutstandingProposals: len(l.outstanding),
		LastProposalSize:     l.lastSize, MinProposalSize: l.minSize, MaxProposalSize: l.maxSize,
	}
	for _, lc := range l.learners {
		switch {
		case !lc.forwarding:
		case lc.observer:
			s.SyncedObservers++
		default:
			s.SyncedFollowers++
			if !l.cfg.Verifier.IsVoter(lc.sid) {
				s.SyncedNonVotingFollowers++
			}
		}
	}
	return s
}

func sendTo(conn int64, t PacketType, zxid int64, data []byte) LeaderAction {
	return LeaderAction{Kind: LeadSend, Conn: conn, Packet: proto.QuorumPacket{Type: int32(t), Zxid: zxid, Data: data}}
}

// Connect registers a new learner connection under a handle the caller
// chooses (unique among open connections). Java gives it initLimit
// ticks to register, and counts it towards the quorum for initLimit plus
// syncLimit ticks.
func (l *Leader) Connect(conn int64) error {
	if _, ok := l.learners[conn]; ok {
		return fmt.Errorf("zab: connection %d is already open", conn)
	}
	if l.phase == leaderStopped {
		return ErrNotServing
	}
	l.learners[conn] = &learnerConn{conn: conn, sid: -1, readSince: l.halfTicks,
		ackDeadline: l.tick + l.cfg.InitLimit + l.cfg.SyncLimit}
	l.order = append(l.order, conn)
	return nil
}

// Disconnect tells the leader that connection conn ended (a read or
// write failed, or the peer closed it).
func (l *Leader) Disconnect(conn int64) {
	lc, ok := l.learners[conn]
	if !ok {
		return
	}
	l.endSync(lc)
	for zxid, conns := range l.pendingSyncs {
		if conns = slices.DeleteFunc(conns, func(c int64) bool { return c == conn }); len(conns) == 0 {
			delete(l.pendingSyncs, zxid)
		} else {
			l.pendingSyncs[zxid] = conns
		}
	}
	delete(l.learners, conn)
	l.order = slices.DeleteFunc(l.order, func(c int64) bool { return c == conn })
}

func (l *Leader) closeConn(lc *learnerConn, out *[]LeaderAction, format string, args ...any) {
	reason := fmt.Sprintf(format, args...)
	if lc.sid >= 0 {
		reason = fmt.Sprintf("learner %d: %s", lc.sid, reason)
	}
	*out = append(*out, LeaderAction{Kind: LeadClose, Conn: lc.conn, Reason: reason})
	l.Disconnect(lc.conn)
}

func (l *Leader) stepDown(out *[]LeaderAction, format string, args ...any) {
	l.phase = leaderStopped
	*out = append(*out, LeaderAction{Kind: LeadStepDown, Reason: fmt.Sprintf(format, args...)})
}

// inOrder returns the open learners in the order they connected.
func (l *Leader) inOrder() []*learnerConn {
	out := make([]*learnerConn, 0, len(l.order))
	for _, c := range l.order {
		out = append(out, l.learners[c])
	}
	return out
}

// isQuorum is Java's "contains the leader and is a quorum" test of the
// handshake's waits.
func (l *Leader) isQuorum(ids []int64) bool {
	return slices.Contains(ids, l.cfg.ID) && l.cfg.Verifier.ContainsQuorum(ids)
}

func (l *Leader) addVoter(ids []int64, sid int64) []int64 {
	if !l.cfg.Verifier.IsVoter(sid) || slices.Contains(ids, sid) {
		return ids
	}
	return append(ids, sid)
}

// Receive takes one packet from the learner on connection conn.
func (l *Leader) Receive(conn int64, p proto.QuorumPacket) []LeaderAction {
	lc, ok := l.learners[conn]
	if !ok || l.phase == leaderStopped {
		return nil
	}
	var out []LeaderAction
	t := PacketType(p.Type)
	switch lc.state {
	case hsConnected:
		l.register(lc, t, p, &out)
	case hsAwaitAckEpoch:
		l.ackEpoch(lc, t, p, &out)
	case hsAwaitNewLeaderAck:
		l.newLeaderAck(lc, t, p, &out)
	case hsAwaitStart:
		lc.buffered = append(lc.buffered, p)
	case hsBroadcast:
		l.serveLearner(lc, t, p, &out)
	default:
		// Java's handler is blocked in a wait and would read this only
		// afterwards, as the wrong packet.
		l.closeConn(lc, &out, "unexpected %s during the handshake", t)
	}
	return out
}

// register is the start of Java's LearnerHandler.run.
func (l *Leader) register(lc *learnerConn, t PacketType, p proto.QuorumPacket, out *[]LeaderAction) {
	if t != FollowerInfo && t != ObserverInfo {
		l.closeConn(lc, out, "first packet %s is not FOLLOWERINFO or OBSERVERINFO", t)
		return
	}
	if l.cfg.Relay && t != ObserverInfo {
		l.closeConn(lc, out, "non observer attempting to connect to the observer master: %s", t)
		return
	}
	info, hasID := LearnerInfoOf(p.Data)
	if !hasID || info.ProtocolVersion < ProtocolVersion {
		// Java still speaks the protocol of servers before 3.4 (no
		// LEADERINFO, anonymous observers); this leader does not.
		l.closeConn(lc, out, "%s of protocol 0x%x, from a server before ZooKeeper 3.4: not supported", t, info.ProtocolVersion)
		return
	}
	if info.ConfigVersion > l.cfg.Verifier.Version() {
		l.closeConn(lc, out, "follower is ahead of the leader (has a later activated configuration: 0x%x, the leader's is 0x%x)",
			info.ConfigVersion, l.cfg.Verifier.Version())
		return
	}
	lc.sid = info.Serverid
	lc.observer = t == ObserverInfo
	lc.state = hsAwaitEpoch
	l.offerEpoch(lc.sid, zkfiles.EpochOf(p.Zxid), out)
}

// offerEpoch is Java's getEpochToPropose: every server that registers
// before the epoch is decided raises it past its accepted epoch; the
// epoch is decided once the leader and a quorum of voters registered.
func (l *Leader) offerEpoch(sid, accepted int64, out *[]LeaderAction) {
	if l.phase != leaderDiscovery {
		l.sendLeaderInfo(out)
		return
	}
	if accepted >= l.epoch {
		l.epoch = accepted + 1
	}
	l.connecting = l.addVoter(l.connecting, sid)
	if !l.isQuorum(l.connecting) {
		return
	}
	*out = append(*out, LeaderAction{Kind: LeadPersistAcceptedEpoch, Epoch: l.epoch})
	l.phase = leaderEpochAck
	l.phaseSince = l.halfTicks
	l.lastProposed = MakeZxid(l.epoch, 0)
	l.sendLeaderInfo(out)
	// The leader acknowledges its own epoch (Java's lead calling
	// waitForEpochAck with its own summary).
	l.electing = l.addVoter(l.electing, l.cfg.ID)
	l.checkEpochAcks(out)
}

// sendLeaderInfo sends LEADERINFO to every learner waiting for the epoch.
func (l *Leader) sendLeaderInfo(out *[]LeaderAction) {
	for _, lc := range l.inOrder() {
		if lc.state != hsAwaitEpoch {
			continue
		}
		*out = append(*out, sendTo(lc.conn, LeaderInfo, MakeZxid(l.epoch, 0), IntBody(ProtocolVersion)))
		lc.state = hsAwaitAckEpoch
		lc.readSince = l.halfTicks
	}
}

// ackEpoch is Java's waitForEpochAck for one learner. A learner ahead of
// the leader is refused while the quorum is being formed (afterwards
// Java no longer checks, and the sync truncates it).
func (l *Leader) ackEpoch(lc *learnerConn, t PacketType, p proto.QuorumPacket, out *[]LeaderAction) {
	if t != AckEpoch {
		l.closeConn(lc, out, "%s is not ACKEPOCH", t)
		return
	}
	current, err := ReadIntBody(t, p.Data)
	if err != nil {
		l.closeConn(lc, out, "%v", err)
		return
	}
	lc.state = hsAwaitEpochAcks
	if l.phase == leaderEpochAck {
		if current != -1 {
			if int64(current) > l.cfg.CurrentEpoch || (int64(current) == l.cfg.CurrentEpoch && p.Zxid > l.cfg.LastZxid) {
				l.closeConn(lc, out, "follower is ahead of the leader: its current epoch %d and last zxid 0x%x, the leader's %d and 0x%x",
					current, p.Zxid, l.cfg.CurrentEpoch, l.cfg.LastZxid)
				return
			}
			if p.Zxid != -1 {
				l.electing = l.addVoter(l.electing, lc.sid)
			}
		}
		lc.peerLastZxid = p.Zxid
		l.checkEpochAcks(out)
		return
	}
	lc.peerLastZxid = p.Zxid
	l.syncLearner(lc, out)
}

// checkEpochAcks ends the wait for ACKEPOCHs once the leader and a quorum
// of voters acknowledged the epoch: the leader's current epoch becomes
// the new one, every learner waiting is synced, and the leader
// acknowledges its own NEWLEADER.
func (l *Leader) checkEpochAcks(out *[]LeaderAction) {
	if l.phase != leaderEpochAck || !l.isQuorum(l.electing) {
		return
	}
	*out = append(*out, LeaderAction{Kind: LeadPersistCurrentEpoch, Epoch: l.epoch})
	l.phase = leaderSync
	l.phaseSince = l.halfTicks
	for _, lc := range l.inOrder() {
		if lc.state == hsAwaitEpochAcks {
			l.syncLearner(lc, out)
		}
	}
	l.newLeader = l.addVoter(l.newLeader, l.cfg.ID)
	l.checkNewLeaderAcks(out)
}

// syncLearner is Java's syncFollower and startForwarding in one step, so
// that no proposal is missed or sent twice: the sync the plan makes, then
// every proposal after the plan's last zxid (committed ones with their
// COMMIT; outstanding ones to followers only), then NEWLEADER. From here
// on the learner gets what the leader proposes and commits.
func (l *Leader) syncLearner(lc *learnerConn, out *[]LeaderAction) {
	in := l.cfg.Log.SyncInput()
	in.PeerLastZxid = lc.peerLastZxid
	if l.cfg.Relay && in.LastProcessedZxid < l.cfg.RelayReadyAt {
		// Txns proposed before the relay began and not yet applied
		// would reach the observer neither in its sync nor after it.
		l.closeConn(lc, out, "the observer master is not caught up yet (applied 0x%x, ready at 0x%x)",
			in.LastProcessedZxid, l.cfg.RelayReadyAt)
		return
	}
	plan := PlanSync(in)
	l.Applied(in.LastProcessedZxid)
	kind := diffSync
	if plan.Snap {
		kind = snapSync
	}
	if lc.observer && ((kind == snapSync && l.snapSyncs >= l.cfg.MaxConcurrentSnapSyncs) ||
		(kind == diffSync && l.diffSyncs >= l.cfg.MaxConcurrentDiffSyncs)) {
		l.closeConn(lc, out, "too many concurrent syncs (%d snapshot, %d diff)", l.snapSyncs, l.diffSyncs)
		return
	}
	var sync []LeaderAction
	if plan.Snap {
		sync = append(sync, LeaderAction{Kind: LeadSendSnap, Conn: lc.conn,
			Packet: proto.QuorumPacket{Type: int32(Snap), Zxid: in.LastProcessedZxid}})
	}
	for _, s := range plan.Steps {
		var data []byte
		if s.Type == Proposal {
			var err error
			if data, err = l.cfg.Log.TxnData(s.Zxid); err != nil {
				l.closeConn(lc, out, "reading txn 0x%x to sync it: %v", s.Zxid, err)
				return
			}
		}
		sync = append(sync, sendTo(lc.conn, s.Type, s.Zxid, data))
	}
	*out = append(*out, sync...)
	lc.syncing = kind
	if kind == snapSync {
		l.snapSyncs++
	} else {
		l.diffSyncs++
	}
	if l.lastProposed > plan.ForwardFrom {
		for _, p := range l.toBeApplied {
			if p.zxid > plan.ForwardFrom {
				*out = append(*out, sendTo(lc.conn, Proposal, p.zxid, p.data), sendTo(lc.conn, Commit, p.zxid, nil))
			}
		}
		if !lc.observer {
			for _, p := range l.outstanding {
				if p.zxid > plan.ForwardFrom {
					*out = append(*out, sendTo(lc.conn, Proposal, p.zxid, p.data))
				}
			}
		}
	}
	lc.forwarding, lc.forwardFrom = true, plan.ForwardFrom
	*out = append(*out, sendTo(lc.conn, NewLeader, MakeZxid(l.epoch, 0), l.cfg.NewLeaderData))
	lc.state = hsAwaitNewLeaderAck
	lc.readSince = l.halfTicks
}

func (l *Leader) endSync(lc *learnerConn) {
	switch lc.syncing {
	case snapSync:
		l.snapSyncs--
	case diffSync:
		l.diffSyncs--
	}
	lc.syncing = noSync
}

// newLeaderAck takes the first packet after NEWLEADER, which Java wants
// to be its ACK. A 3.8.0 follower may first acknowledge proposals it was
// forwarded (ZOOKEEPER-4685): those count as ACKs, and the NEWLEADER ACK
// is still awaited.
func (l *Leader) newLeaderAck(lc *learnerConn, t PacketType, p proto.QuorumPacket, out *[]LeaderAction) {
	if t != Ack {
		l.closeConn(lc, out, "next packet was supposed to be the ACK of NEWLEADER, got %s", t)
		return
	}
	if uint32(p.Zxid) != 0 {
		l.processAck(lc.sid, p.Zxid, out)
		return
	}
	if want := MakeZxid(l.epoch, 0); p.Zxid != want {
		l.closeConn(lc, out, "ACK of NEWLEADER for zxid 0x%x, NEWLEADER was 0x%x", p.Zxid, want)
		return
	}
	l.endSync(lc)
	lc.check.started = true
	lc.state = hsAwaitStart
	if l.phase == leaderServing {
		l.upToDate(lc, out)
		return
	}
	l.newLeader = l.addVoter(l.newLeader, lc.sid)
	l.checkNewLeaderAcks(out)
}

// checkNewLeaderAcks starts serving once a quorum acknowledged NEWLEADER
// (Java's waitForNewLeaderAck, then startZkServer), then sends UPTODATE
// to every learner that acknowledged it.
func (l *Leader) checkNewLeaderAcks(out *[]LeaderAction) {
	if l.phase != leaderSync || !l.cfg.Verifier.ContainsQuorum(l.newLeader) {
		return
	}
	l.phase = leaderServing
	l.lastCommitted = MakeZxid(l.epoch, 0)
	l.tick, l.tickSkip = 0, true
	*out = append(*out, LeaderAction{Kind: LeadStartServing, Epoch: l.epoch, Zxid: l.lastCommitted})
	for _, lc := range l.inOrder() {
		if lc.state == hsAwaitStart {
			l.upToDate(lc, out)
		}
	}
}

// upToDate sends UPTODATE, then the COMMITs held back since NEWLEADER,
// then takes what the learner sent meanwhile.
func (l *Leader) upToDate(lc *learnerConn, out *[]LeaderAction) {
	*out = append(*out, sendTo(lc.conn, UpToDate, -1, nil))
	lc.state = hsBroadcast
	lc.readSince = l.halfTicks
	for _, zxid := range lc.held {
		*out = append(*out, sendTo(lc.conn, Commit, zxid, nil))
	}
	lc.held = nil
	buffered := lc.buffered
	lc.buffered = nil
	for _, p := range buffered {
		if _, open := l.learners[lc.conn]; !open || l.phase == leaderStopped {
			return
		}
		l.serveLearner(lc, PacketType(p.Type), p, out)
	}
}

// serveLearner is the loop of Java's LearnerHandler.run once the learner
// is synced.
func (l *Leader) serveLearner(lc *learnerConn, t PacketType, p proto.QuorumPacket, out *[]LeaderAction) {
	lc.ackDeadline = l.tick + l.cfg.SyncLimit
	lc.readSince = l.halfTicks
	switch t {
	case Ack:
		if l.cfg.Relay {
			// An epoch's ACK (an observer acknowledges UPTODATE so) is
			// no vote; any other is a protocol error, as Java's
			// ObserverMaster has it.
			if uint32(p.Zxid) != 0 {
				l.closeConn(lc, out, "observers should not send ACKs (ACK 0x%x)", p.Zxid)
			}
			return
		}
		if !lc.check.acked(p.Zxid) {
			l.warn("learner %d: ACK for 0x%x before the ACK for 0x%x", lc.sid, p.Zxid, lc.check.curZxid)
		}
		l.processAck(lc.sid, p.Zxid, out)
	case Ping:
		touches, err := ReadTouchTable(p.Data)
		if err != nil {
			l.closeConn(lc, out, "%v", err)
			return
		}
		if len(touches) > 0 {
			*out = append(*out, LeaderAction{Kind: LeadTouchSessions, SID: lc.sid, Touches: touches})
		}
	case Revalidate:
		session, timeout, err := ReadRevalidate(p.Data)
		if err != nil {
			l.closeConn(lc, out, "%v", err)
			return
		}
		*out = append(*out, LeaderAction{Kind: LeadRevalidate, Conn: lc.conn, SID: lc.sid, Session: session, Timeout: timeout})
	case Request:
		req, err := ReadRequest(p.Data)
		if err != nil {
			l.closeConn(lc, out, "%v", err)
			return
		}
		*out = append(*out, LeaderAction{Kind: LeadRequest, Conn: lc.conn, SID: lc.sid, Request: req, Authinfo: p.Authinfo})
	default:
		l.warn("learner %d: unexpected %s 0x%x; ignored", lc.sid, t, p.Zxid)
	}
}

// processAck is Java's Leader.processAck: ACKs of NEWLEADER (counter 0),
// of committed proposals and of unknown ones are ignored; an ACK may
// commit its proposal and those after it, in zxid order.
func (l *Leader) processAck(sid, zxid int64, out *[]LeaderAction) {
	if uint32(zxid) == 0 || len(l.outstanding) == 0 || zxid <= l.lastCommitted {
		return
	}
	i := slices.IndexFunc(l.outstanding, func(p *leaderProposal) bool { return p.zxid == zxid })
	if i < 0 {
		l.warn("ACK from %d for zxid 0x%x, which is not outstanding", sid, zxid)
		return
	}
	p := l.outstanding[i]
	p.acks = l.addVoter(p.acks, sid)
	l.tryCommit(out)
}

// tryCommit commits the oldest outstanding proposal while a quorum
// acknowledged it: a proposal never commits before an older one.
func (l *Leader) tryCommit(out *[]LeaderAction) {
	for len(l.outstanding) > 0 && l.phase == leaderServing {
		p := l.outstanding[0]
		if !l.cfg.Verifier.ContainsQuorum(p.acks) {
			return
		}
		l.commit(p, out)
	}
}

func (l *Leader) commit(p *leaderProposal, out *[]LeaderAction) {
	l.outstanding = l.outstanding[1:]
	l.lastCommitted = p.zxid
	l.toBeApplied = append(l.toBeApplied, p)
	for _, lc := range l.inOrder() {
		switch {
		case !lc.forwarding:
		case lc.observer:
			*out = append(*out, sendTo(lc.conn, Inform, p.zxid, p.data))
		case p.zxid <= lc.forwardFrom:
			// Cannot happen when SyncInput is what was applied: the
			// follower never got this proposal, and a COMMIT without its
			// proposal stops a Java follower.
			l.warn("learner %d: not sending COMMIT 0x%x, before its sync point 0x%x", lc.sid, p.zxid, lc.forwardFrom)
		case lc.state < hsBroadcast:
			lc.held = append(lc.held, p.zxid)
		default:
			*out = append(*out, sendTo(lc.conn, Commit, p.zxid, nil))
		}
	}
	*out = append(*out, LeaderAction{Kind: LeadCommit, Zxid: p.zxid, Data: p.data})
	if conns, ok := l.pendingSyncs[p.zxid]; ok {
		delete(l.pendingSyncs, p.zxid)
		for _, c := range conns {
			if _, open := l.learners[c]; open {
				*out = append(*out, sendTo(c, Sync, 0, nil))
			}
		}
	}
}

// Propose sends the txn data with zxid, from the prep stage, to every
// follower. Zxids go up within the leader's epoch. A counter of
// 0xffffffff is not proposed: the leader steps down and Propose returns
// ErrZxidRollover with the LeadStepDown action (the txn must not be
// logged). The leader's own ACK is LocalLogged.
func (l *Leader) Propose(zxid int64, data []byte) ([]LeaderAction, error) {
	if l.phase != leaderServing {
		return nil, ErrNotServing
	}
	if uint32(zxid) == 0xffffffff {
		var out []LeaderAction
		l.stepDown(&out, "%v", ErrZxidRollover)
		return out, ErrZxidRollover
	}
	if zxid <= l.lastProposed || zkfiles.EpochOf(zxid) != l.epoch {
		return nil, fmt.Errorf("zab: proposal 0x%x after 0x%x in epoch %d", zxid, l.lastProposed, l.epoch)
	}
	l.lastSize = len(data)
	if l.minSize == -1 || len(data) < l.minSize {
		l.minSize = len(data)
	}
	l.maxSize = max(l.maxSize, len(data))
	p := &leaderProposal{zxid: zxid, data: data}
	l.lastProposed = zxid
	l.outstanding = append(l.outstanding, p)
	var out []LeaderAction
	for _, lc := range l.inOrder() {
		if lc.forwarding && !lc.observer {
			out = append(out, sendTo(lc.conn, Proposal, zxid, data))
			lc.check.proposed(zxid, l.halfTicks)
		}
	}
	if zxid <= l.localLogged {
		// The caller logged it before proposing it.
		p.acks = l.addVoter(p.acks, l.cfg.ID)
		l.tryCommit(&out)
	}
	return out, nil
}

// LocalLogged tells the leader that its own log holds every proposal up
// to upTo durably: its own ACK for them (and for those proposed later up
// to upTo, should the caller log a txn before proposing it).
func (l *Leader) LocalLogged(upTo int64) []LeaderAction {
	if l.phase != leaderServing {
		return nil
	}
	l.localLogged = max(l.localLogged, upTo)
	var out []LeaderAction
	for _, p := range l.outstanding {
		if p.zxid <= upTo {
			p.acks = l.addVoter(p.acks, l.cfg.ID)
		}
	}
	l.tryCommit(&out)
	return out
}

// Applied tells the leader that the tree (and the committed log that
// SyncInput returns) holds every committed txn up to upTo; until then a
// learner that starts syncing gets them from the leader's memory.
func (l *Leader) Applied(upTo int64) {
	n := 0
	for n < len(l.toBeApplied) && l.toBeApplied[n].zxid <= upTo {
		n++
	}
	l.toBeApplied = l.toBeApplied[n:]
}

// Committed tells a relay that its leader committed zxid (the follower's
// COMMIT): the observers get it as an INFORM. A commit of a proposal the
// relay never saw (made before it began) is ignored: RelayReadyAt keeps
// observers from syncing before the tree holds it.
func (l *Leader) Committed(zxid int64) []LeaderAction {
	if !l.cfg.Relay || l.phase != leaderServing || zxid <= l.lastCommitted {
		return nil
	}
	if len(l.outstanding) == 0 || l.outstanding[0].zxid > zxid {
		l.lastCommitted = zxid
		return nil
	}
	if l.outstanding[0].zxid != zxid {
		l.warn("COMMIT 0x%x, the oldest proposal is 0x%x", zxid, l.outstanding[0].zxid)
		return nil
	}
	var out []LeaderAction
	l.commit(l.outstanding[0], &out)
	return out
}

// Sync answers a learner's sync, which the prep stage reached in its
// order: SYNC now when no proposal is outstanding, else once the last
// one proposed commits (Java's processSync).
func (l *Leader) Sync(conn int64) []LeaderAction {
	if _, ok := l.learners[conn]; !ok || l.phase != leaderServing {
		return nil
	}
	if len(l.outstanding) == 0 {
		return []LeaderAction{sendTo(conn, Sync, 0, nil)}
	}
	l.pendingSyncs[l.lastProposed] = append(l.pendingSyncs[l.lastProposed], conn)
	return nil
}

// SnapshotSent tells the leader that the snapshot of a LeadSendSnap is
// written to conn: Java starts to wait for the NEWLEADER ACK (initLimit
// ticks) only then, so a large tree does not use up the learner's time.
func (l *Leader) SnapshotSent(conn int64) {
	if lc, ok := l.learners[conn]; ok && lc.state == hsAwaitNewLeaderAck {
		lc.readSince = l.halfTicks
	}
}

// RevalidateReply answers a LeadRevalidate.
func (l *Leader) RevalidateReply(conn, session int64, valid bool) []LeaderAction {
	if _, ok := l.learners[conn]; !ok || l.phase == leaderStopped {
		return nil
	}
	return []LeaderAction{sendTo(conn, Revalidate, -1, AppendRevalidateReply(nil, session, valid))}
}

// Tick is called every half tickTime (Java's leader pings twice a tick).
// It closes learners silent for longer than their read timeout; while
// the leader is not serving, it steps down when a wait of the handshake
// lasts initLimit ticks; once serving, it pings every learner past its
// sync (dropping one whose oldest proposal is unacknowledged for
// syncLimit ticks), and at each whole tick steps down unless the leader
// and the voters heard from within syncLimit ticks are a quorum.
func (l *Leader) Tick() []LeaderAction {
	l.halfTicks++
	if l.phase == leaderStopped {
		return nil
	}
	var out []LeaderAction
	for _, lc := range l.inOrder() {
		limit := 0
		switch lc.state {
		case hsConnected, hsAwaitAckEpoch, hsAwaitNewLeaderAck:
			limit = l.cfg.InitLimit
		case hsBroadcast:
			limit = l.cfg.SyncLimit
		}
		if limit > 0 && l.halfTicks-lc.readSince >= 2*limit {
			l.closeConn(lc, &out, "nothing read for %d ticks", limit)
		}
	}
	if l.phase != leaderServing {
		if l.halfTicks-l.phaseSince >= 2*l.cfg.InitLimit {
			switch l.phase {
			case leaderDiscovery:
				l.stepDown(&out, "timeout while waiting for epoch from quorum (registered: %v)", l.connecting)
			case leaderEpochAck:
				l.stepDown(&out, "timeout while waiting for epoch to be acked by quorum (acked: %v)", l.electing)
			default:
				l.stepDown(&out, "waiting for a quorum of followers, only synced with sids: %v", l.newLeader)
			}
		}
		return out
	}
	if !l.tickSkip && !l.cfg.Relay {
		l.tick++
		synced := l.addVoter(nil, l.cfg.ID)
		for _, lc := range l.inOrder() {
			if lc.sid >= 0 && l.tick <= lc.ackDeadline {
				synced = l.addVoter(synced, lc.sid)
			}
		}
		if !l.cfg.Verifier.ContainsQuorum(synced) {
			l.stepDown(&out, "not sufficient followers synced, only synced with sids: %v", synced)
			return out
		}
	}
	l.tickSkip = !l.tickSkip
	for _, lc := range l.inOrder() {
		if lc.state < hsAwaitNewLeaderAck {
			continue
		}
		if lc.check.hasCur && l.halfTicks-lc.check.curSince >= 2*l.cfg.SyncLimit {
			l.closeConn(lc, &out, "no ACK for proposal 0x%x for %d ticks", lc.check.curZxid, l.cfg.SyncLimit)
			continue
		}
		out = append(out, sendTo(lc.conn, Ping, l.lastProposed, nil))
	}
	return out
}
