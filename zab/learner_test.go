package zab

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gozk/gozk/proto"
)

// render writes actions one a line, compactly, for the scripts below.
func render(actions []Action) string {
	var b strings.Builder
	for _, a := range actions {
		switch a.Kind {
		case SendPacket, ReplyPing, SyncDone:
			fmt.Fprintf(&b, "%s %s 0x%x", a.Kind, PacketType(a.Packet.Type), a.Packet.Zxid)
			if a.Packet.Data != nil {
				fmt.Fprintf(&b, " %x", a.Packet.Data)
			}
		case PersistAcceptedEpoch, PersistCurrentEpoch, UpdateElectionVote:
			fmt.Fprintf(&b, "%s %d", a.Kind, a.Epoch)
		case TruncateLog, LoadSnapshot, CommitTxn:
			fmt.Fprintf(&b, "%s 0x%x", a.Kind, a.Zxid)
		case TakeSnapshot:
			fmt.Fprintf(&b, "%s sync=%v", a.Kind, a.Sync)
		case ApplyTxn, LogTxn:
			fmt.Fprintf(&b, "%s 0x%x", a.Kind, a.Txn.Zxid)
		case Revalidated:
			fmt.Fprintf(&b, "%s 0x%x %v", a.Kind, a.Session, a.Valid)
		default:
			b.WriteString(a.Kind.String())
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// txnData is a PROPOSAL's body for zxid: a TxnHeader and a few bytes of
// record.
func txnData(zxid int64) []byte {
	b := binary.BigEndian.AppendUint64(nil, 0x5)       // clientId
	b = binary.BigEndian.AppendUint32(b, 1)            // cxid
	b = binary.BigEndian.AppendUint64(b, uint64(zxid)) // zxid
	b = binary.BigEndian.AppendUint64(b, 0)            // time
	b = binary.BigEndian.AppendUint32(b, uint32(proto.OpSetData))
	return append(b, "record"...)
}

func pkt(t PacketType, zxid int64) proto.QuorumPacket {
	p := proto.QuorumPacket{Type: int32(t), Zxid: zxid}
	switch t {
	case Proposal, Inform:
		p.Data = txnData(zxid)
	case LeaderInfo:
		p.Data = IntBody(ProtocolVersion)
	}
	return p
}

type step struct {
	in   proto.QuorumPacket
	want string // rendered actions, lines joined by ';'
}

func run(t *testing.T, l *Learner, steps []step) {
	t.Helper()
	for i, s := range steps {
		got, err := l.Receive(s.in)
		if err != nil {
			t.Fatalf("step %d (%s 0x%x): %v", i, PacketType(s.in.Type), s.in.Zxid, err)
		}
		want := ""
		if s.want != "" {
			want = strings.ReplaceAll(s.want, "; ", "\n") + "\n"
		}
		if g := render(got); g != want {
			t.Fatalf("step %d (%s 0x%x):\ngot:\n%swant:\n%s", i, PacketType(s.in.Type), s.in.Zxid, g, want)
		}
	}
}

func TestRegistration(t *testing.T) {
	f := NewLearner(LearnerConfig{ID: 3, AcceptedEpoch: 2, CurrentEpoch: 2, LastZxid: 0x200000007})
	if got := render(f.Start()); got != "SendPacket FOLLOWERINFO 0x200000000 0000000000000003000100000000000000000000\n" {
		t.Fatalf("follower registers with %q", got)
	}
	o := NewLearner(LearnerConfig{ID: 4, Observer: true, AcceptedEpoch: 1, ConfigVersion: 0x100000000})
	if got := render(o.Start()); got != "SendPacket OBSERVERINFO 0x100000000 0000000000000004000100000000000100000000\n" {
		t.Fatalf("observer registers with %q", got)
	}
}

func TestEpochRules(t *testing.T) {
	// A new epoch: accepted durably first, then ACKEPOCH with the last
	// zxid and the current epoch.
	l := NewLearner(LearnerConfig{ID: 1, AcceptedEpoch: 2, CurrentEpoch: 1, LastZxid: 0x100000009})
	run(t, l, []step{{pkt(LeaderInfo, 0x300000000), "PersistAcceptedEpoch 3; SendPacket ACKEPOCH 0x100000009 00000001"}})
	if l.NewEpoch() != 3 {
		t.Fatalf("new epoch %d", l.NewEpoch())
	}
	// The epoch already accepted: -1, nothing persisted.
	l = NewLearner(LearnerConfig{ID: 1, AcceptedEpoch: 3, CurrentEpoch: 2, LastZxid: 0x200000001})
	run(t, l, []step{{pkt(LeaderInfo, 0x300000000), "SendPacket ACKEPOCH 0x200000001 ffffffff"}})
	// An older epoch is refused.
	l = NewLearner(LearnerConfig{ID: 1, AcceptedEpoch: 4})
	if _, err := l.Receive(pkt(LeaderInfo, 0x300000000)); err == nil || !strings.Contains(err.Error(), "less than the accepted epoch") {
		t.Fatalf("older epoch: %v", err)
	}
	// So are a first packet that is not LEADERINFO, and a leader of the
	// old protocol.
	for _, p := range []proto.QuorumPacket{pkt(Proposal, 1), pkt(NewLeader, 0x100000000),
		{Type: int32(LeaderInfo), Zxid: 0x100000000, Data: IntBody(0xffff)}, {Type: int32(LeaderInfo), Zxid: 0x100000000}} {
		if _, err := NewLearner(LearnerConfig{ID: 1}).Receive(p); err == nil {
			t.Errorf("first packet %s %x taken", PacketType(p.Type), p.Data)
		}
	}
}

func TestDiffSync(t *testing.T) {
	l := NewLearner(LearnerConfig{ID: 2, AcceptedEpoch: 1, CurrentEpoch: 1, LastZxid: 0x100000002})
	run(t, l, []step{
		{pkt(LeaderInfo, 0x200000000), "PersistAcceptedEpoch 2; SendPacket ACKEPOCH 0x100000002 00000001"},
		{pkt(Diff, 0x100000004), ""},
		// The leader's committed txns the learner lacks, and one proposal
		// still outstanding.
		{pkt(Proposal, 0x100000003), ""},
		{pkt(Commit, 0x100000003), ""},
		{pkt(Proposal, 0x100000004), ""},
		{pkt(Commit, 0x100000004), ""},
		{pkt(Proposal, 0x100000005), ""},
		// NEWLEADER: the committed ones logged, applied and fsynced, then
		// the epoch, then the ACK. No snapshot after a DIFF.
		{pkt(NewLeader, 0x200000000), "LogTxn 0x100000003; ApplyTxn 0x100000003; LogTxn 0x100000004; ApplyTxn 0x100000004; FlushLog; " +
			"PersistCurrentEpoch 2; SendPacket ACK 0x200000000"},
		// A COMMIT between NEWLEADER and UPTODATE, as 3.8.0 leaders send.
		{pkt(Commit, 0x100000005), ""},
		{pkt(Ping, 0x100000005), ""},
		{pkt(UpToDate, -1), "SendPacket ACK 0x200000000; StartServing; UpdateElectionVote 2; LogTxn 0x100000005; CommitTxn 0x100000005"},
	})
	if !l.Serving() {
		t.Fatal("not serving after UPTODATE")
	}
	// The outstanding proposal is acknowledged once durable.
	if got := render(l.Logged(0x100000005)); got != "SendPacket ACK 0x100000005\n" {
		t.Fatalf("Logged: %q", got)
	}
}

func TestSnapSync(t *testing.T) {
	l := NewLearner(LearnerConfig{ID: 2, AcceptedEpoch: 2, CurrentEpoch: 2})
	run(t, l, []step{
		{pkt(LeaderInfo, 0x300000000), "PersistAcceptedEpoch 3; SendPacket ACKEPOCH 0x0 00000002"},
		{pkt(Snap, 0x200000009), "LoadSnapshot 0x200000009"},
	})
	if !l.TreeReplaced() || l.SyncMode() != SyncSnap {
		t.Fatal("a loaded SNAP is not marked")
	}
	run(t, l, []step{
		// Committed txns after the snapshot are applied in memory: the
		// snapshot at NEWLEADER covers them.
		{pkt(Proposal, 0x20000000a), ""},
		{pkt(Commit, 0x20000000a), "ApplyTxn 0x20000000a"},
		{pkt(Proposal, 0x20000000b), ""},
		{pkt(NewLeader, 0x300000000), "TakeSnapshot sync=true; PersistCurrentEpoch 3; SendPacket ACK 0x300000000"},
		{pkt(UpToDate, -1), "SendPacket ACK 0x300000000; StartServing; UpdateElectionVote 3; LogTxn 0x20000000b"},
		{pkt(Commit, 0x20000000b), "CommitTxn 0x20000000b"},
	})
	if l.TreeReplaced() {
		t.Fatal("still marked after the NEWLEADER snapshot")
	}
}

func TestTruncSync(t *testing.T) {
	l := NewLearner(LearnerConfig{ID: 2, AcceptedEpoch: 2, CurrentEpoch: 2, LastZxid: 0x200000008})
	run(t, l, []step{
		{pkt(LeaderInfo, 0x300000000), "PersistAcceptedEpoch 3; SendPacket ACKEPOCH 0x200000008 00000002"},
		{pkt(Trunc, 0x200000005), "TruncateLog 0x200000005"},
		{pkt(NewLeader, 0x300000000), "TakeSnapshot sync=false; PersistCurrentEpoch 3; SendPacket ACK 0x300000000"},
		{pkt(UpToDate, -1), "SendPacket ACK 0x300000000; StartServing; UpdateElectionVote 3"},
	})
}

func TestUnexpectedSyncPacketIsFatal(t *testing.T) {
	l := NewLearner(LearnerConfig{ID: 2, AcceptedEpoch: 1})
	run(t, l, []step{{pkt(LeaderInfo, 0x200000000), "PersistAcceptedEpoch 2; SendPacket ACKEPOCH 0x0 00000000"}})
	_, err := l.Receive(pkt(Proposal, 0x100000001))
	var fatal *FatalError
	if !errors.As(err, &fatal) || fatal.Code != ExitQuorumPacketError {
		t.Fatalf("PROPOSAL instead of a sync mode: %v", err)
	}
}

func TestNewLeaderOfAnotherEpochIsRefused(t *testing.T) {
	l := NewLearner(LearnerConfig{ID: 2, AcceptedEpoch: 1})
	run(t, l, []step{{pkt(LeaderInfo, 0x200000000), "PersistAcceptedEpoch 2; SendPacket ACKEPOCH 0x0 00000000"}, {pkt(Diff, 0), ""}})
	if _, err := l.Receive(pkt(NewLeader, 0x300000000)); err == nil {
		t.Fatal("NEWLEADER of epoch 3 taken after LEADERINFO of epoch 2")
	}
}

// synced returns a follower (or observer) in the broadcast of epoch 2.
func synced(t *testing.T, observer bool) *Learner {
	l := NewLearner(LearnerConfig{ID: 2, Observer: observer, AcceptedEpoch: 2, CurrentEpoch: 2})
	l.Start()
	for _, p := range []proto.QuorumPacket{pkt(LeaderInfo, 0x200000000), pkt(Diff, 0), pkt(NewLeader, 0x200000000), pkt(UpToDate, -1)} {
		if _, err := l.Receive(p); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

func TestFollowerBroadcast(t *testing.T) {
	l := synced(t, false)
	run(t, l, []step{
		{pkt(Proposal, 0x200000001), "LogTxn 0x200000001"},
		{pkt(Proposal, 0x200000002), "LogTxn 0x200000002"},
		{pkt(Commit, 0x200000001), "CommitTxn 0x200000001"},
		{proto.QuorumPacket{Type: int32(Ping), Zxid: 0x200000001}, "ReplyPing PING 0x200000001 "},
		{proto.QuorumPacket{Type: int32(Revalidate), Data: AppendRevalidateReply(nil, 0x200000000000009, true)}, "Revalidated 0x200000000000009 true"},
		{proto.QuorumPacket{Type: int32(Sync), Zxid: 0x200000002}, "SyncDone SYNC 0x200000002"},
		{pkt(UpToDate, -1), ""},
		{pkt(Proposal, 0x200000003), "LogTxn 0x200000003"},
	})
	// ACKs only once durable, in order, and only once each.
	if got := render(l.Logged(0x200000002)); got != "SendPacket ACK 0x200000001\nSendPacket ACK 0x200000002\n" {
		t.Fatalf("Logged(2): %q", got)
	}
	if got := render(l.Logged(0x200000002)); got != "" {
		t.Fatalf("Logged(2) again: %q", got)
	}
	// A COMMIT that is not for the oldest pending txn stops the server.
	_, err := l.Receive(pkt(Commit, 0x200000004))
	var fatal *FatalError
	if !errors.As(err, &fatal) || fatal.Code != ExitUnmatchedTxnCommit {
		t.Fatalf("COMMIT out of order: %v", err)
	}
}

func TestFollowerCommitWithoutTxnIsIgnored(t *testing.T) {
	l := synced(t, false)
	run(t, l, []step{{pkt(Commit, 0x200000001), ""}})
	if w := l.TakeWarnings(); len(w) != 1 || !strings.Contains(w[0], "without seeing its txn") {
		t.Fatalf("warnings: %q", w)
	}
}

func TestObserverBroadcast(t *testing.T) {
	l := synced(t, true)
	run(t, l, []step{
		{pkt(Inform, 0x200000001), "LogTxn 0x200000001; CommitTxn 0x200000001"},
		{pkt(Proposal, 0x200000002), ""},
		{pkt(Commit, 0x200000002), ""},
	})
	if got := render(l.Logged(0x200000001)); got != "" {
		t.Fatalf("an observer acknowledged: %q", got)
	}
}

func TestObserverDiffSync(t *testing.T) {
	l := NewLearner(LearnerConfig{ID: 4, Observer: true, AcceptedEpoch: 1, CurrentEpoch: 1, LastZxid: 0x100000001})
	run(t, l, []step{
		{pkt(LeaderInfo, 0x200000000), "PersistAcceptedEpoch 2; SendPacket ACKEPOCH 0x100000001 00000001"},
		{pkt(Diff, 0x100000003), ""},
		{pkt(Inform, 0x100000002), ""},
		{pkt(Inform, 0x100000003), ""},
		// Observers do not log before the NEWLEADER ACK.
		{pkt(NewLeader, 0x200000000), "PersistCurrentEpoch 2; SendPacket ACK 0x200000000"},
		{pkt(UpToDate, -1), "SendPacket ACK 0x200000000; StartServing; UpdateElectionVote 2; LogTxn 0x100000002; CommitTxn 0x100000002; LogTxn 0x100000003; CommitTxn 0x100000003"},
	})
}

func TestMalformedTxnEndsTheSession(t *testing.T) {
	l := synced(t, false)
	if _, err := l.Receive(proto.QuorumPacket{Type: int32(Proposal), Data: []byte{1, 2}}); !errors.Is(err, ErrMalformed) {
		t.Fatalf("short proposal: %v", err)
	}
}
