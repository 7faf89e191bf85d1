package zab

import "github.com/gozk/gozk/persistence/zkfiles"

// SyncInput is what a leader knows when it decides how to bring a learner
// up to date (Java's LearnerHandler.syncFollower).
type SyncInput struct {
	// PeerLastZxid is the learner's last zxid, from its ACKEPOCH.
	PeerLastZxid int64
	// LastProcessedZxid is the leader's tree's.
	LastProcessedZxid int64
	// CommittedLog are the zxids of the proposals the leader keeps in
	// memory (the last commitLogCount committed, Java's committedLog), in
	// order.
	CommittedLog []int64
	// ForceSnap is zookeeper.forceSnapshotSync.
	ForceSnap bool
	// TxnLogSyncEnabled is a non-negative zookeeper.snapshotSizeFactor.
	TxnLogSyncEnabled bool
	// TxnLog returns the zxids of the logged proposals Java's
	// getProposalsFromTxnLog yields for the peer: from the peer's own
	// zxid on, within the size limit (snapshotSizeFactor times the
	// snapshot's size), or none when the log does not hold the peer's
	// zxid or passes the limit. Called at most once.
	TxnLog func(peerLastZxid int64) []int64
}

// SyncStep is one packet of a sync plan: DIFF or TRUNC first, then a
// PROPOSAL and a COMMIT for each committed txn the learner lacks.
type SyncStep struct {
	Type PacketType
	Zxid int64
}

// SyncPlan is how a learner is brought up to date.
type SyncPlan struct {
	// Snap is set when the learner gets a SNAP of the tree; Steps is then
	// empty.
	Snap  bool
	Steps []SyncStep
	// ForwardFrom is the zxid after which the leader forwards what it
	// proposes and commits next (Java's startForwarding): the last zxid
	// the plan sends, or the tree's for a SNAP.
	ForwardFrom int64
}

// PlanSync decides as Java 3.8.0's LearnerHandler.syncFollower decides:
// SNAP when forced; an empty DIFF for a learner at the leader's zxid;
// TRUNC to the newest committed zxid for a learner ahead of it (unless the
// learner's zxid starts an epoch); DIFF or TRUNC with the proposals it
// lacks from the committed log when its zxid is within it; from the txn
// log and then the committed log when it is older (SNAP if the two leave
// a gap); SNAP otherwise, and for a TRUNC that would cross an epoch.
func PlanSync(in SyncInput) SyncPlan {
	q := syncQueue{needOp: true}
	peer := in.PeerLastZxid
	newEpochPeer := uint32(peer) == 0
	current := peer
	needSnap := true
	minCommitted, maxCommitted := int64(0), int64(0)
	if n := len(in.CommittedLog); n > 0 {
		minCommitted, maxCommitted = in.CommittedLog[0], in.CommittedLog[n-1]
	} else {
		// An empty committed log counts as one holding just the tree's
		// last zxid, which folds its cases into the ones below.
		minCommitted, maxCommitted = in.LastProcessedZxid, in.LastProcessedZxid
	}
	switch {
	case in.ForceSnap:
	case in.LastProcessedZxid == peer:
		q.op(Diff, peer)
		needSnap = false
	case peer > maxCommitted && !newEpochPeer:
		// The learner has txns no quorum committed (an old leader's).
		q.op(Trunc, maxCommitted)
		current = maxCommitted
		needSnap = false
	case maxCommitted >= peer && minCommitted <= peer:
		current = q.committed(in.CommittedLog, peer, 0, false, maxCommitted)
		needSnap = false
	case peer < minCommitted && in.TxnLogSyncEnabled && in.TxnLog != nil:
		logged := in.TxnLog(peer)
		if len(logged) > 0 {
			current = q.committed(logged, peer, minCommitted, true, maxCommitted)
			if current < minCommitted {
				// The txn log ends before the committed log begins.
				current = peer
				q.steps = nil
				q.needOp = true
			} else {
				current = q.committed(in.CommittedLog, current, 0, false, maxCommitted)
				needSnap = false
			}
		}
	}
	if q.needOp && !needSnap {
		// Java logs this as a scenario it does not handle and sends a
		// snapshot (a TRUNC across an epoch inside the committed log).
		// Java decides it after it has started forwarding from the
		// learner's zxid; the snapshot holds the tree, so forwarding
		// starts after the tree's zxid here, lest the learner get a txn
		// twice.
		needSnap = true
	}
	if needSnap {
		return SyncPlan{Snap: true, ForwardFrom: in.LastProcessedZxid}
	}
	return SyncPlan{Steps: q.steps, ForwardFrom: current}
}

type syncQueue struct {
	steps  []SyncStep
	needOp bool // the DIFF or TRUNC is still to be queued
}

func (q *syncQueue) op(t PacketType, zxid int64) {
	q.steps = append(q.steps, SyncStep{Type: t, Zxid: zxid})
	q.needOp = false
}

// committed is Java's queueCommittedProposals: it queues, after a DIFF or
// a TRUNC to the last zxid before the learner's, a PROPOSAL and COMMIT
// for each zxid of proposals above peer, up to maxZxid when bounded, and
// returns the last one queued. A TRUNC across an epoch is not queued: the
// caller then finds the DIFF or TRUNC still missing and sends a SNAP.
func (q *syncQueue) committed(proposals []int64, peer, maxZxid int64, bounded bool, lastCommitted int64) int64 {
	newEpochPeer := uint32(peer) == 0
	queued := peer
	prev := int64(-1)
	for _, zxid := range proposals {
		if bounded && zxid > maxZxid {
			break
		}
		if zxid < peer {
			prev = zxid
			continue
		}
		if q.needOp {
			if zxid == peer {
				q.op(Diff, lastCommitted)
				continue
			}
			if newEpochPeer {
				q.op(Diff, lastCommitted)
			} else if zxid > peer {
				if zkfiles.EpochOf(zxid) != zkfiles.EpochOf(peer) {
					return queued
				}
				q.op(Trunc, prev)
			}
		}
		if zxid <= queued {
			continue // a duplicate, or nothing to send yet
		}
		q.steps = append(q.steps, SyncStep{Type: Proposal, Zxid: zxid}, SyncStep{Type: Commit, Zxid: zxid})
		queued = zxid
	}
	if q.needOp && newEpochPeer {
		q.op(Diff, lastCommitted)
	}
	return queued
}
