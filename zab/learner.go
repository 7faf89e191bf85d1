package zab

import (
	"encoding/binary"
	"fmt"

	"github.com/gozk/gozk/persistence/zkfiles"
	"github.com/gozk/gozk/proto"
)

// MakeZxid is epoch<<32 | counter (zkfiles.EpochOf is the inverse).
func MakeZxid(epoch int64, counter uint32) int64 { return epoch<<32 | int64(counter) }

// Exit statuses Java's learner stops its process with.
const (
	ExitUnmatchedTxnCommit = 12 // a COMMIT that is not for the oldest pending txn
	ExitQuorumPacketError  = 13 // an unexpected packet in the sync, or a truncation that failed
)

// FatalError is an error after which Java stops the whole process (with
// Code as its exit status) rather than going back to electing: the
// server's own state can no longer be trusted.
type FatalError struct {
	Code int
	Msg  string
}

func (e *FatalError) Error() string { return fmt.Sprintf("%s (exit status %d)", e.Msg, e.Code) }

// SyncMode is how the leader brought a learner up to date.
type SyncMode int

// The sync modes, as Java's QuorumPeer.SyncMode names them.
const (
	SyncNone SyncMode = iota
	SyncDiff
	SyncSnap
	SyncTrunc
)

func (m SyncMode) String() string {
	return [...]string{"NONE", "DIFF", "SNAP", "TRUNC"}[m]
}

// ActionKind says what an Action asks of the caller.
type ActionKind int

// The actions a Learner asks for. The caller carries them out in the
// order given, each completed before the next: the order is the
// protocol's (an epoch is durable before the packet that depends on it is
// sent).
const (
	// SendPacket: write Packet to the leader.
	SendPacket ActionKind = iota
	// PersistAcceptedEpoch, PersistCurrentEpoch: write Epoch durably.
	PersistAcceptedEpoch
	PersistCurrentEpoch
	// TruncateLog: drop every logged txn after Zxid (and every snapshot
	// newer than it), and reload the tree from what is left. A failure is
	// fatal, with ExitQuorumPacketError.
	TruncateLog
	// LoadSnapshot: the leader's serialized tree and sessions follow this
	// packet on the connection, then the string "BenWasHere"; read them
	// and make them the tree, whose last processed zxid is Zxid.
	LoadSnapshot
	// TakeSnapshot: snapshot the tree (fsync it when Sync).
	TakeSnapshot
	// ApplyTxn: apply Txn to the tree without logging it (it is covered
	// by the snapshot TakeSnapshot writes at NEWLEADER).
	ApplyTxn
	// LogTxn: append Txn to the txn log. Call Logged once it is durable;
	// a follower acknowledges it then.
	LogTxn
	// FlushLog: make every txn logged so far durable before going on.
	FlushLog
	// CommitTxn: apply the logged txn Zxid to the tree (it is the oldest
	// logged and not yet applied).
	CommitTxn
	// StartServing: the learner is in sync; serve clients.
	StartServing
	// UpdateElectionVote: answer looking servers with peer epoch Epoch.
	UpdateElectionVote
	// ReplyPing: answer the leader's ping: Packet with Data set to this
	// server's session touch table (AppendTouchTable; never nil).
	ReplyPing
	// Revalidated: the leader answered a REVALIDATE for Session.
	Revalidated
	// SyncDone: the leader answered the oldest outstanding sync.
	SyncDone
)

var actionNames = [...]string{"SendPacket", "PersistAcceptedEpoch", "PersistCurrentEpoch", "TruncateLog",
	"LoadSnapshot", "TakeSnapshot", "ApplyTxn", "LogTxn", "FlushLog", "CommitTxn", "StartServing",
	"UpdateElectionVote", "ReplyPing", "Revalidated", "SyncDone"}

func (k ActionKind) String() string { return actionNames[k] }

// Txn is a txn as a PROPOSAL or INFORM carries it: the TxnHeader, the
// txn record and, from 3.6 on, its digest, encoded as Java's
// SerializeUtils writes them. Zxid is the header's.
type Txn struct {
	Zxid int64
	Data []byte
}

// Action is one thing a Learner asks its caller to do.
type Action struct {
	Kind    ActionKind
	Packet  proto.QuorumPacket // SendPacket, ReplyPing, SyncDone
	Epoch   int64              // PersistAcceptedEpoch, PersistCurrentEpoch, UpdateElectionVote
	Zxid    int64              // TruncateLog, LoadSnapshot, CommitTxn
	Sync    bool               // TakeSnapshot
	Txn     Txn                // ApplyTxn, LogTxn
	Session int64              // Revalidated
	Valid   bool               // Revalidated
}

// LearnerConfig is what a learner knows of itself when it connects.
type LearnerConfig struct {
	ID       int64
	Observer bool
	// AcceptedEpoch and CurrentEpoch are the server's epoch files.
	AcceptedEpoch int64
	CurrentEpoch  int64
	// LastZxid is the last zxid of the server's tree after replaying its
	// whole log (logged txns count, committed or not: Java's
	// getLastLoggedZxid).
	LastZxid      int64
	ConfigVersion int64
}

type phase int

const (
	discovery phase = iota // FOLLOWERINFO sent, waiting for LEADERINFO
	syncStart              // ACKEPOCH sent, waiting for DIFF, SNAP or TRUNC
	syncing                // waiting for NEWLEADER and UPTODATE
	broadcast
)

// Learner is a follower's or an observer's side of Zab with one leader,
// from the handshake through the sync to the broadcast, as Java 3.9.3's
// Learner, Follower and Observer run it (3.9.3 fixes 3.8.0's order at
// NEWLEADER, which loses data; the packets are the same). It is a pure
// state machine: packets in, actions out; not safe for concurrent use.
type Learner struct {
	cfg          LearnerConfig
	phase        phase
	newEpoch     int64
	mode         SyncMode
	treeReplaced bool // LoadSnapshot or TruncateLog asked for and not yet snapshotted
	// During the sync (Java's packetsNotLogged and packetsCommitted).
	notLogged    []Txn
	committed    []int64
	writeToLog   bool
	sawNewLeader bool
	lastQueued   int64
	// In the broadcast: txns logged and not yet committed, in order
	// (Java's pendingTxns), and those whose ACK waits for durability.
	pending  []int64
	awaitAck []int64
	// Warnings collects what Java logs as warnings (out-of-order zxids,
	// commits without a proposal) since the last call of TakeWarnings.
	warnings []string
}

// NewLearner returns a learner about to register with a leader.
func NewLearner(cfg LearnerConfig) *Learner { return &Learner{cfg: cfg} }

// Start returns the registration: FOLLOWERINFO (or OBSERVERINFO) with the
// accepted epoch and this server's LearnerInfo.
func (l *Learner) Start() []Action {
	t := FollowerInfo
	if l.cfg.Observer {
		t = ObserverInfo
	}
	info := AppendLearnerInfo(nil, proto.LearnerInfo{Serverid: l.cfg.ID, ProtocolVersion: ProtocolVersion, ConfigVersion: l.cfg.ConfigVersion})
	return []Action{send(t, MakeZxid(l.cfg.AcceptedEpoch, 0), info)}
}

func send(t PacketType, zxid int64, data []byte) Action {
	return Action{Kind: SendPacket, Packet: proto.QuorumPacket{Type: int32(t), Zxid: zxid, Data: data}}
}

// SyncMode returns how the leader is syncing (or synced) this learner.
func (l *Learner) SyncMode() SyncMode { return l.mode }

// NewEpoch returns the leader's epoch, once LEADERINFO came.
func (l *Learner) NewEpoch() int64 { return l.newEpoch }

// Serving reports whether the sync is over.
func (l *Learner) Serving() bool { return l.phase == broadcast }

// SawNewLeader reports whether NEWLEADER came: from then on Java's
// learner waits at most syncLimit for each read, initLimit before.
func (l *Learner) SawNewLeader() bool { return l.sawNewLeader }

// TreeReplaced reports whether the tree was replaced (a SNAP loaded or a
// TRUNC done) and not yet snapshotted. A learner that loses its leader
// then must not trust its tree for the next sync (Java's ZOOKEEPER-3642:
// a SNAP cut short followed by a DIFF): reload it from disk first.
func (l *Learner) TreeReplaced() bool { return l.treeReplaced }

// TakeWarnings returns and clears the warnings gathered so far.
func (l *Learner) TakeWarnings() []string {
	w := l.warnings
	l.warnings = nil
	return w
}

func (l *Learner) warn(format string, args ...any) {
	l.warnings = append(l.warnings, fmt.Sprintf(format, args...))
}

// Receive takes one packet from the leader. An error that is not a
// *FatalError ends this leader's session (Java goes back to electing);
// a *FatalError stops the server.
func (l *Learner) Receive(p proto.QuorumPacket) ([]Action, error) {
	t := PacketType(p.Type)
	switch l.phase {
	case discovery:
		return l.discover(t, p)
	case syncStart:
		return l.startSync(t, p)
	case syncing:
		return l.sync(t, p)
	default:
		return l.broadcast(t, p)
	}
}

func (l *Learner) discover(t PacketType, p proto.QuorumPacket) ([]Action, error) {
	switch t {
	case LeaderInfo:
	case NewLeader:
		return nil, fmt.Errorf("zab: the leader speaks the protocol of ZooKeeper before 3.4 (NEWLEADER before LEADERINFO)")
	default:
		return nil, fmt.Errorf("zab: first packet from the leader is %s, want LEADERINFO", t)
	}
	version, err := ReadIntBody(t, p.Data)
	if err != nil {
		return nil, err
	}
	if version < ProtocolVersion {
		return nil, fmt.Errorf("zab: the leader speaks protocol 0x%x, before 0x%x", version, ProtocolVersion)
	}
	newEpoch := zkfiles.EpochOf(p.Zxid)
	var out []Action
	var ackData int32
	switch {
	case newEpoch > l.cfg.AcceptedEpoch:
		// Durable before the ACKEPOCH that promises it.
		out = append(out, Action{Kind: PersistAcceptedEpoch, Epoch: newEpoch})
		l.cfg.AcceptedEpoch = newEpoch
		ackData = int32(l.cfg.CurrentEpoch)
	case newEpoch == l.cfg.AcceptedEpoch:
		// Already accepted (this server acked the epoch before, and the
		// leader may count it again): say so with -1.
		ackData = -1
	default:
		return nil, fmt.Errorf("zab: the leader's epoch %d is less than the accepted epoch %d", newEpoch, l.cfg.AcceptedEpoch)
	}
	l.newEpoch = newEpoch
	l.phase = syncStart
	return append(out, send(AckEpoch, l.cfg.LastZxid, IntBody(ackData))), nil
}

func (l *Learner) startSync(t PacketType, p proto.QuorumPacket) ([]Action, error) {
	var out []Action
	snapshotNeeded := true
	switch t {
	case Diff:
		l.mode = SyncDiff
		snapshotNeeded = false
	case Snap:
		l.mode = SyncSnap
		l.treeReplaced = true
		out = append(out, Action{Kind: LoadSnapshot, Zxid: p.Zxid})
	case Trunc:
		l.mode = SyncTrunc
		l.treeReplaced = true
		out = append(out, Action{Kind: TruncateLog, Zxid: p.Zxid})
	default:
		return nil, &FatalError{Code: ExitQuorumPacketError, Msg: fmt.Sprintf("zab: unexpected %s from the leader where DIFF, SNAP or TRUNC was due", t)}
	}
	// After DIFF the txns go to the log on top of the existing snapshot;
	// after SNAP or TRUNC they are applied in memory and covered by the
	// snapshot taken at NEWLEADER.
	l.writeToLog = !snapshotNeeded
	l.phase = syncing
	return out, nil
}

// txnOf reads the txn a PROPOSAL or INFORM carries: its zxid is the
// TxnHeader's (clientId 8 bytes, cxid 4, then zxid 8).
func txnOf(t PacketType, data []byte) (Txn, error) {
	if len(data) < 20 {
		return Txn{}, fmt.Errorf("%w: %s with a txn of %d bytes", ErrMalformed, t, len(data))
	}
	return Txn{Zxid: int64(binary.BigEndian.Uint64(data[12:])), Data: data}, nil
}

// queue reads the txn a PROPOSAL or INFORM carries and notes its zxid,
// warning as Java does when it is not the one after the previous.
func (l *Learner) queue(t PacketType, data []byte) (Txn, error) {
	txn, err := txnOf(t, data)
	if err != nil {
		return txn, err
	}
	if txn.Zxid != l.lastQueued+1 && l.lastQueued != 0 {
		l.warn("got %s for zxid 0x%x, expected 0x%x", t, txn.Zxid, l.lastQueued+1)
	}
	l.lastQueued = txn.Zxid
	return txn, nil
}

func (l *Learner) sync(t PacketType, p proto.QuorumPacket) ([]Action, error) {
	switch t {
	case Proposal:
		txn, err := l.queue(t, p.Data)
		if err != nil {
			return nil, err
		}
		l.notLogged = append(l.notLogged, txn)
		return nil, nil
	case Commit:
		if len(l.notLogged) == 0 {
			l.warn("COMMIT for 0x%x with no proposal", p.Zxid)
			return nil, nil
		}
		if l.writeToLog {
			l.committed = append(l.committed, p.Zxid)
			return nil, nil
		}
		head := l.notLogged[0]
		if head.Zxid != p.Zxid {
			l.warn("COMMIT for 0x%x, but the next proposal is 0x%x", p.Zxid, head.Zxid)
			return nil, nil
		}
		l.notLogged = l.notLogged[1:]
		return []Action{{Kind: ApplyTxn, Txn: head}}, nil
	case Inform:
		txn, err := l.queue(t, p.Data)
		if err != nil {
			return nil, err
		}
		if !l.writeToLog {
			return []Action{{Kind: ApplyTxn, Txn: txn}}, nil
		}
		l.notLogged = append(l.notLogged, txn)
		l.committed = append(l.committed, p.Zxid)
		return nil, nil
	case CommitAndActivate, InformAndActivate:
		return nil, fmt.Errorf("zab: the leader sent %s, a reconfiguration, which this server does not support", t)
	case NewLeader:
		return l.newLeader(p)
	case UpToDate:
		if !l.sawNewLeader {
			return nil, fmt.Errorf("zab: UPTODATE before NEWLEADER (a leader before ZooKeeper 3.4)")
		}
		return l.upToDate(), nil
	default:
		// Java ignores the rest here (a PING during the sync, in
		// particular).
		return nil, nil
	}
}

// newLeader is the NEWLEADER step in 3.9.3's order: snapshot what SNAP or
// TRUNC made, log and fsync the txns the leader already committed, and
// only then write the current epoch and acknowledge.
func (l *Learner) newLeader(p proto.QuorumPacket) ([]Action, error) {
	if zkfiles.EpochOf(p.Zxid) != l.newEpoch || p.Zxid != MakeZxid(l.newEpoch, 0) {
		return nil, fmt.Errorf("zab: NEWLEADER for zxid 0x%x, the epoch announced was %d", p.Zxid, l.newEpoch)
	}
	var out []Action
	if l.mode != SyncDiff {
		// The snapshot of a SNAP is fsynced: the log has a gap under it.
		out = append(out, Action{Kind: TakeSnapshot, Sync: l.mode == SyncSnap})
		l.treeReplaced = false
	}
	l.writeToLog = true
	l.sawNewLeader = true
	if !l.cfg.Observer && len(l.committed) > 0 {
		for _, zxid := range l.committed {
			if len(l.notLogged) == 0 {
				l.warn("COMMIT for 0x%x with no proposal", zxid)
				continue
			}
			head := l.notLogged[0]
			if head.Zxid != zxid {
				l.warn("COMMIT for 0x%x, but the next proposal is 0x%x", zxid, head.Zxid)
				continue
			}
			l.notLogged = l.notLogged[1:]
			out = append(out, Action{Kind: LogTxn, Txn: head}, Action{Kind: ApplyTxn, Txn: head})
		}
		l.committed = nil
		out = append(out, Action{Kind: FlushLog})
	}
	out = append(out, Action{Kind: PersistCurrentEpoch, Epoch: l.newEpoch})
	l.cfg.CurrentEpoch = l.newEpoch
	return append(out, send(Ack, MakeZxid(l.newEpoch, 0), nil)), nil
}

func (l *Learner) upToDate() []Action {
	out := []Action{
		send(Ack, MakeZxid(l.newEpoch, 0), nil),
		{Kind: StartServing},
		{Kind: UpdateElectionVote, Epoch: l.newEpoch},
	}
	l.phase = broadcast
	l.mode = SyncNone
	if l.cfg.Observer {
		// Observers log and apply what the leader committed.
		for _, txn := range l.notLogged {
			if len(l.committed) == 0 || l.committed[0] != txn.Zxid {
				l.warn("no commit for 0x%x before UPTODATE; dropped", txn.Zxid)
				continue
			}
			l.committed = l.committed[1:]
			out = append(out, Action{Kind: LogTxn, Txn: txn}, Action{Kind: CommitTxn, Zxid: txn.Zxid})
		}
	} else {
		// The rest are proposals this follower has not logged: log them
		// (each acknowledged once durable), then apply those the leader
		// committed meanwhile.
		for _, txn := range l.notLogged {
			out = append(out, Action{Kind: LogTxn, Txn: txn})
			l.pending = append(l.pending, txn.Zxid)
			l.awaitAck = append(l.awaitAck, txn.Zxid)
		}
		for _, zxid := range l.committed {
			more, err := l.commit(zxid)
			if err != nil {
				// Cannot happen for a leader that behaves; report it as
				// the broadcast would.
				l.warn("%v", err)
				continue
			}
			out = append(out, more...)
		}
	}
	l.notLogged, l.committed = nil, nil
	return out
}

// commit is Java's FollowerZooKeeperServer.commit: the COMMIT must be for
// the oldest pending txn.
func (l *Learner) commit(zxid int64) ([]Action, error) {
	if len(l.pending) == 0 {
		l.warn("COMMIT for 0x%x without seeing its txn", zxid)
		return nil, nil
	}
	if l.pending[0] != zxid {
		return nil, &FatalError{Code: ExitUnmatchedTxnCommit,
			Msg: fmt.Sprintf("zab: COMMIT for 0x%x, but the next pending txn is 0x%x", zxid, l.pending[0])}
	}
	l.pending = l.pending[1:]
	return []Action{{Kind: CommitTxn, Zxid: zxid}}, nil
}

func (l *Learner) broadcast(t PacketType, p proto.QuorumPacket) ([]Action, error) {
	switch t {
	case Ping:
		return []Action{{Kind: ReplyPing, Packet: proto.QuorumPacket{Type: p.Type, Zxid: p.Zxid, Data: []byte{}, Authinfo: p.Authinfo}}}, nil
	case Revalidate:
		session, valid, err := ReadRevalidateReply(p.Data)
		if err != nil {
			return nil, err
		}
		return []Action{{Kind: Revalidated, Session: session, Valid: valid}}, nil
	case Sync:
		return []Action{{Kind: SyncDone, Packet: p}}, nil
	case UpToDate:
		l.warn("UPTODATE after the sync; ignored")
		return nil, nil
	case CommitAndActivate, InformAndActivate:
		return nil, fmt.Errorf("zab: the leader sent %s, a reconfiguration, which this server does not support", t)
	}
	if l.cfg.Observer {
		switch t {
		case Inform:
			txn, err := l.queue(t, p.Data)
			if err != nil {
				return nil, err
			}
			return []Action{{Kind: LogTxn, Txn: txn}, {Kind: CommitTxn, Zxid: txn.Zxid}}, nil
		case Proposal, Commit:
			l.warn("observer ignoring %s for 0x%x", t, p.Zxid)
			return nil, nil
		}
	} else {
		switch t {
		case Proposal:
			txn, err := l.queue(t, p.Data)
			if err != nil {
				return nil, err
			}
			l.pending = append(l.pending, txn.Zxid)
			l.awaitAck = append(l.awaitAck, txn.Zxid)
			return []Action{{Kind: LogTxn, Txn: txn}}, nil
		case Commit:
			return l.commit(p.Zxid)
		}
	}
	l.warn("unexpected %s from the leader; ignored", t)
	return nil, nil
}

// Logged tells the learner that every txn it asked to log with a zxid up
// to upTo is durable; a follower acknowledges those still waiting, in
// order. (Txns logged during the sync itself are not acknowledged: the
// leader had committed them.)
func (l *Learner) Logged(upTo int64) []Action {
	var out []Action
	n := 0
	for _, zxid := range l.awaitAck {
		if zxid > upTo {
			break
		}
		out = append(out, send(Ack, zxid, nil))
		n++
	}
	l.awaitAck = l.awaitAck[n:]
	return out
}
