package zab

import (
	"bytes"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gozk/gozk/conf"
	"github.com/gozk/gozk/proto"
	"github.com/gozk/gozk/quorum"
)

var update = flag.Bool("update", false, "rewrite the expected output of testdata/leader/*.txt")

// The leader's scripts (testdata/leader/*.txt) are blocks of one command
// line, "----", and the actions the command returned, one a line, ended
// by an empty line; a line starting with # is a comment. The commands:
//
//	leader id= accepted= current= zxid= voters=1,2,3 [observers=] [groups=1:1,2,3;2:4,5] [weights=6:0,...] [init=] [sync=] [snapmax=] [diffmax=] [config=] [relay readyat=]
//	log [last=] [committed=z,...] [txnlog=z,...] [txnlog-off] [force-snap] [missing=z]
//	connect C...              disconnect C
//	info C sid= epoch= [observer] [config=] [version=] [nodata]
//	ackepoch C zxid= current=
//	ack C Z                   ping C [session:timeout...]
//	request C session cxid op [body=hex] [auth=scheme:id,...]
//	revalidate C session timeout
//	recv C TYPE Z [hex]       (any packet)
//	propose Z...              logged Z        apply [unreported]
//	committed Z...            (a relay's COMMIT from its leader)
//	sync C                    reply C session valid|invalid
//	snapshot-sent C
//	tick [n]                  stats
//
// Zxids are hexadecimal (0x300000001). PROPOSAL and INFORM bodies are
// checked to be the txn of their zxid and shown as "txn".

type leaderEnv struct {
	t       *testing.T
	l       *Leader
	log     *fakeLog
	pending []int64 // committed, not applied
}

type fakeLog struct {
	last      int64
	committed []int64
	txnLog    []int64
	txnLogOff bool
	forceSnap bool
	missing   map[int64]bool
}

func (f *fakeLog) SyncInput() SyncInput {
	return SyncInput{
		LastProcessedZxid: f.last,
		CommittedLog:      slices.Clone(f.committed),
		ForceSnap:         f.forceSnap,
		TxnLogSyncEnabled: !f.txnLogOff,
		TxnLog: func(peer int64) []int64 {
			if len(f.txnLog) == 0 || f.txnLog[0] > peer {
				return nil
			}
			var out []int64
			for _, z := range f.txnLog {
				if z >= peer {
					out = append(out, z)
				}
			}
			return out
		},
	}
}

func (f *fakeLog) TxnData(zxid int64) ([]byte, error) {
	if f.missing[zxid] {
		return nil, fmt.Errorf("txn 0x%x is not in the log", zxid)
	}
	return txnData(zxid), nil
}

func parseZxid(s string) (int64, error) {
	return strconv.ParseInt(s, 0, 64)
}

func parseList(s string) ([]int64, error) {
	if s == "" {
		return nil, nil
	}
	var out []int64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseInt(f, 0, 64)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// args splits a command's arguments into positional ones and key=value
// ones (a bare word that is not positional is a key with value "").
type args struct {
	pos []string
	kv  map[string]string
}

func parseArgs(fields []string, npos int) args {
	a := args{kv: map[string]string{}}
	for _, f := range fields {
		if k, v, ok := strings.Cut(f, "="); ok {
			a.kv[k] = v
		} else if len(a.pos) < npos {
			a.pos = append(a.pos, f)
		} else {
			a.kv[f] = ""
		}
	}
	return a
}

func hasKey(a args, key string) bool {
	_, ok := a.kv[key]
	return ok
}

func (e *leaderEnv) int(a args, key string, def int64) int64 {
	s, ok := a.kv[key]
	if !ok {
		return def
	}
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		e.t.Fatalf("%s=%q: %v", key, s, err)
	}
	return v
}

func (e *leaderEnv) list(s string) []int64 {
	l, err := parseList(s)
	if err != nil {
		e.t.Fatalf("list %q: %v", s, err)
	}
	return l
}

func (e *leaderEnv) num(s string) int64 {
	v, err := parseZxid(s)
	if err != nil {
		e.t.Fatalf("number %q: %v", s, err)
	}
	return v
}

func ensembleOf(voters, observers []int64, groups string, weights map[int64]int64) *conf.Ensemble {
	en := &conf.Ensemble{Servers: map[int64]*conf.ServerSpec{}}
	for _, id := range voters {
		en.Servers[id] = &conf.ServerSpec{ID: id, Type: conf.Participant}
	}
	for _, id := range observers {
		en.Servers[id] = &conf.ServerSpec{ID: id, Type: conf.Observer}
	}
	if groups != "" {
		en.Hierarchical = true
		en.Groups = map[int64][]int64{}
		en.Weights = map[int64]int64{}
		for _, g := range strings.Split(groups, ";") {
			gid, members, _ := strings.Cut(g, ":")
			id, _ := strconv.ParseInt(gid, 10, 64)
			ids, _ := parseList(members)
			en.Groups[id] = ids
			for _, sid := range ids {
				en.Weights[sid] = 1
			}
		}
		for sid, w := range weights {
			en.Weights[sid] = w
		}
	}
	return en
}

func (e *leaderEnv) packet(c int64, p proto.QuorumPacket) []LeaderAction {
	return e.l.Receive(c, p)
}

func (e *leaderEnv) exec(line string) string {
	t := e.t
	fields := strings.Fields(line)
	cmd, rest := fields[0], fields[1:]
	var acts []LeaderAction
	needLeader := func() {
		if e.l == nil {
			t.Fatalf("%q before leader", line)
		}
	}
	switch cmd {
	case "leader":
		a := parseArgs(rest, 0)
		var weights map[int64]int64
		if w, ok := a.kv["weights"]; ok {
			weights = map[int64]int64{}
			for _, p := range strings.Split(w, ",") {
				s, v, _ := strings.Cut(p, ":")
				weights[e.num(s)] = e.num(v)
			}
		}
		en := ensembleOf(e.list(a.kv["voters"]), e.list(a.kv["observers"]), a.kv["groups"], weights)
		en.Version = e.int(a, "version", 0)
		var config []byte
		if c, ok := a.kv["config"]; ok {
			config = []byte(c)
		}
		e.log.last = e.int(a, "zxid", 0)
		l, err := Lead(LeaderConfig{
			ID:                     e.int(a, "id", 1),
			AcceptedEpoch:          e.int(a, "accepted", 0),
			CurrentEpoch:           e.int(a, "current", 0),
			LastZxid:               e.log.last,
			Verifier:               quorum.New(en),
			InitLimit:              int(e.int(a, "init", 5)),
			SyncLimit:              int(e.int(a, "sync", 2)),
			NewLeaderData:          config,
			Log:                    e.log,
			MaxConcurrentSnapSyncs: int(e.int(a, "snapmax", 0)),
			MaxConcurrentDiffSyncs: int(e.int(a, "diffmax", 0)),
			Relay:                  hasKey(a, "relay"),
			RelayReadyAt:           e.int(a, "readyat", 0),
		})
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		e.l = l
		acts = l.Start()
	case "log":
		a := parseArgs(rest, 0)
		e.log.last = e.int(a, "last", e.log.last)
		if s, ok := a.kv["committed"]; ok {
			e.log.committed = e.list(s)
		}
		if s, ok := a.kv["txnlog"]; ok {
			e.log.txnLog = e.list(s)
		}
		_, e.log.txnLogOff = a.kv["txnlog-off"]
		_, e.log.forceSnap = a.kv["force-snap"]
		e.log.missing = map[int64]bool{}
		for _, z := range e.list(a.kv["missing"]) {
			e.log.missing[z] = true
		}
	case "connect":
		needLeader()
		for _, c := range rest {
			if err := e.l.Connect(e.num(c)); err != nil {
				return "error: " + err.Error() + "\n"
			}
		}
	case "disconnect":
		needLeader()
		e.l.Disconnect(e.num(rest[0]))
	case "info":
		needLeader()
		a := parseArgs(rest, 1)
		typ := FollowerInfo
		if _, ok := a.kv["observer"]; ok {
			typ = ObserverInfo
		}
		data := AppendLearnerInfo(nil, proto.LearnerInfo{Serverid: e.int(a, "sid", 0),
			ProtocolVersion: int32(e.int(a, "version", ProtocolVersion)), ConfigVersion: e.int(a, "config", 0)})
		if _, ok := a.kv["nodata"]; ok {
			data = nil
		}
		acts = e.packet(e.num(a.pos[0]), proto.QuorumPacket{Type: int32(typ), Zxid: MakeZxid(e.int(a, "epoch", 0), 0), Data: data})
	case "ackepoch":
		needLeader()
		a := parseArgs(rest, 1)
		acts = e.packet(e.num(a.pos[0]), proto.QuorumPacket{Type: int32(AckEpoch), Zxid: e.int(a, "zxid", 0),
			Data: IntBody(int32(e.int(a, "current", 0)))})
	case "ack":
		needLeader()
		for _, z := range rest[1:] {
			acts = append(acts, e.packet(e.num(rest[0]), proto.QuorumPacket{Type: int32(Ack), Zxid: e.num(z)})...)
		}
	case "ping":
		needLeader()
		var touches []SessionTouch
		for _, s := range rest[1:] {
			id, to, _ := strings.Cut(s, ":")
			touches = append(touches, SessionTouch{ID: e.num(id), Timeout: int32(e.num(to))})
		}
		acts = e.packet(e.num(rest[0]), proto.QuorumPacket{Type: int32(Ping), Zxid: e.l.LastProposed(), Data: AppendTouchTable([]byte{}, touches)})
	case "request":
		needLeader()
		a := parseArgs(rest, 4)
		body, err := hex.DecodeString(a.kv["body"])
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		var auth []proto.Id
		if s := a.kv["auth"]; s != "" {
			for _, id := range strings.Split(s, ",") {
				scheme, v, _ := strings.Cut(id, ":")
				auth = append(auth, proto.Id{Scheme: scheme, Id: v})
			}
		}
		data := AppendRequest(nil, ForwardedRequest{Session: e.num(a.pos[1]), Cxid: int32(e.num(a.pos[2])), Op: int32(e.num(a.pos[3])), Body: body})
		acts = e.packet(e.num(a.pos[0]), proto.QuorumPacket{Type: int32(Request), Zxid: -1, Data: data, Authinfo: auth})
	case "revalidate":
		needLeader()
		acts = e.packet(e.num(rest[0]), proto.QuorumPacket{Type: int32(Revalidate), Zxid: -1,
			Data: AppendRevalidate(nil, e.num(rest[1]), int32(e.num(rest[2])))})
	case "recv":
		needLeader()
		typ := slices.Index(packetNames[:], rest[1])
		if typ <= 0 {
			t.Fatalf("%s: no packet type %s", line, rest[1])
		}
		var data []byte
		if len(rest) > 3 {
			var err error
			if data, err = hex.DecodeString(rest[3]); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
		}
		acts = e.packet(e.num(rest[0]), proto.QuorumPacket{Type: int32(typ), Zxid: e.num(rest[2]), Data: data})
	case "propose":
		needLeader()
		for _, z := range rest {
			more, err := e.l.Propose(e.num(z), txnData(e.num(z)))
			acts = append(acts, more...)
			if err != nil {
				return renderLeader(acts) + "error: " + err.Error() + "\n"
			}
		}
	case "logged":
		needLeader()
		acts = e.l.LocalLogged(e.num(rest[0]))
	case "committed":
		needLeader()
		for _, z := range rest {
			acts = append(acts, e.l.Committed(e.num(z))...)
		}
	case "apply":
		needLeader()
		for _, z := range e.pending {
			e.log.committed = append(e.log.committed, z)
			e.log.last = z
		}
		if _, ok := parseArgs(rest, 0).kv["unreported"]; len(e.pending) > 0 && !ok {
			e.l.Applied(e.log.last)
		}
		e.pending = nil
	case "snapshot-sent":
		needLeader()
		e.l.SnapshotSent(e.num(rest[0]))
	case "sync":
		needLeader()
		acts = e.l.Sync(e.num(rest[0]))
	case "reply":
		needLeader()
		acts = e.l.RevalidateReply(e.num(rest[0]), e.num(rest[1]), rest[2] == "valid")
	case "tick":
		needLeader()
		n := int64(1)
		if len(rest) > 0 {
			n = e.num(rest[0])
		}
		for range n {
			acts = append(acts, e.l.Tick()...)
		}
	case "stats":
		needLeader()
		s := e.l.Stats()
		return fmt.Sprintf("learners=%d synced_followers=%d synced_non_voting_followers=%d synced_observers=%d pending_syncs=%d outstanding=%d proposal_size=%d/%d/%d\n",
			s.Learners, s.SyncedFollowers, s.SyncedNonVotingFollowers, s.SyncedObservers, s.PendingSyncs, s.OutstandingProposals,
			s.LastProposalSize, s.MinProposalSize, s.MaxProposalSize)
	default:
		t.Fatalf("unknown command %q", line)
	}
	for _, a := range acts {
		if a.Kind == LeadCommit {
			e.pending = append(e.pending, a.Zxid)
		}
	}
	out := renderLeader(acts)
	if e.l != nil {
		for _, w := range e.l.TakeWarnings() {
			out += "warn: " + w + "\n"
		}
	}
	return out
}

func zxidString(zxid int64) string {
	if zxid < 0 {
		return strconv.FormatInt(zxid, 10)
	}
	return fmt.Sprintf("0x%x", zxid)
}

// renderLeader writes actions one a line.
func renderLeader(acts []LeaderAction) string {
	var b strings.Builder
	for _, a := range acts {
		switch a.Kind {
		case LeadSend:
			fmt.Fprintf(&b, "send %d %s %s", a.Conn, PacketType(a.Packet.Type), zxidString(a.Packet.Zxid))
			switch t := PacketType(a.Packet.Type); {
			case t == Proposal || t == Inform:
				if bytes.Equal(a.Packet.Data, txnData(a.Packet.Zxid)) {
					b.WriteString(" txn")
				} else {
					fmt.Fprintf(&b, " WRONG-TXN %x", a.Packet.Data)
				}
			case a.Packet.Data != nil && t == NewLeader:
				fmt.Fprintf(&b, " %q", a.Packet.Data)
			case a.Packet.Data != nil:
				fmt.Fprintf(&b, " %x", a.Packet.Data)
			}
		case LeadSendSnap:
			fmt.Fprintf(&b, "snap %d %s 0x%x", a.Conn, PacketType(a.Packet.Type), a.Packet.Zxid)
		case LeadClose:
			fmt.Fprintf(&b, "close %d: %s", a.Conn, a.Reason)
		case LeadPersistAcceptedEpoch:
			fmt.Fprintf(&b, "persist-accepted-epoch %d", a.Epoch)
		case LeadPersistCurrentEpoch:
			fmt.Fprintf(&b, "persist-current-epoch %d", a.Epoch)
		case LeadStartServing:
			fmt.Fprintf(&b, "start-serving epoch=%d zxid=0x%x", a.Epoch, a.Zxid)
		case LeadStepDown:
			fmt.Fprintf(&b, "step-down: %s", a.Reason)
		case LeadCommit:
			fmt.Fprintf(&b, "commit 0x%x", a.Zxid)
			if !bytes.Equal(a.Data, txnData(a.Zxid)) {
				b.WriteString(" WRONG-TXN")
			}
		case LeadRequest:
			fmt.Fprintf(&b, "request %d sid=%d session=0x%x cxid=%d op=%d body=%x auth=%v", a.Conn, a.SID,
				a.Request.Session, a.Request.Cxid, a.Request.Op, a.Request.Body, a.Authinfo)
		case LeadRevalidate:
			fmt.Fprintf(&b, "revalidate %d sid=%d session=0x%x timeout=%d", a.Conn, a.SID, a.Session, a.Timeout)
		case LeadTouchSessions:
			fmt.Fprintf(&b, "touch sid=%d", a.SID)
			for _, t := range a.Touches {
				fmt.Fprintf(&b, " 0x%x:%d", t.ID, t.Timeout)
			}
		default:
			fmt.Fprintf(&b, "%s", a.Kind)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// runLeaderScript runs one script and returns it with the output each
// command gave.
func runLeaderScript(t *testing.T, text string) (string, []string) {
	e := &leaderEnv{t: t, log: &fakeLog{}}
	var out strings.Builder
	var diffs []string
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			out.WriteString(line + "\n")
			continue
		}
		at := i + 1
		if i+1 >= len(lines) || lines[i+1] != "----" {
			t.Fatalf("line %d: %q is not followed by ----", at, line)
		}
		i += 2
		var want strings.Builder
		for ; i < len(lines) && lines[i] != ""; i++ {
			want.WriteString(lines[i] + "\n")
		}
		got := e.exec(line)
		if got != want.String() {
			diffs = append(diffs, fmt.Sprintf("line %d: %s\ngot:\n%swant:\n%s", at, line, got, want.String()))
		}
		out.WriteString(line + "\n----\n" + got)
		if i < len(lines) {
			out.WriteString("\n")
		}
	}
	return strings.TrimRight(out.String(), "\n") + "\n", diffs
}

func TestLeaderScripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "leader", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			text, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got, diffs := runLeaderScript(t, string(text))
			if *update {
				if got != string(text) {
					if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			for _, d := range diffs {
				t.Error(d)
			}
		})
	}
}

func TestLeaderConfigRefused(t *testing.T) {
	v := quorum.New(ensembleOf([]int64{1, 2, 3}, nil, "", nil))
	for _, cfg := range []LeaderConfig{
		{ID: 1, InitLimit: 5, SyncLimit: 2, Log: &fakeLog{}},
		{ID: 1, Verifier: v, InitLimit: 5, SyncLimit: 2},
		{ID: 1, Verifier: v, InitLimit: 0, SyncLimit: 2, Log: &fakeLog{}},
	} {
		if _, err := Lead(cfg); err == nil {
			t.Errorf("Lead(%+v) accepted", cfg)
		}
	}
}

func TestProposeRefused(t *testing.T) {
	l, err := Lead(LeaderConfig{ID: 1, Verifier: quorum.New(ensembleOf([]int64{1, 2, 3}, nil, "", nil)),
		InitLimit: 5, SyncLimit: 2, AcceptedEpoch: 1, Log: &fakeLog{}})
	if err != nil {
		t.Fatal(err)
	}
	l.Start()
	if _, err := l.Propose(MakeZxid(2, 1), nil); !errors.Is(err, ErrNotServing) {
		t.Fatalf("propose before serving: %v", err)
	}
}

func TestLeaderProposalSizes(t *testing.T) {
	l, err := Lead(LeaderConfig{ID: 1, Verifier: quorum.New(ensembleOf([]int64{1}, nil, "", nil)),
		InitLimit: 5, SyncLimit: 2, AcceptedEpoch: 1, Log: &fakeLog{}})
	if err != nil {
		t.Fatal(err)
	}
	l.Start()
	for i, n := range []int{30, 50, 20} {
		if _, err := l.Propose(MakeZxid(2, uint32(i+1)), make([]byte, n)); err != nil {
			t.Fatal(err)
		}
	}
	if s := l.Stats(); s.LastProposalSize != 20 || s.MinProposalSize != 20 || s.MaxProposalSize != 50 || s.OutstandingProposals != 3 {
		t.Fatalf("stats %+v", s)
	}
}

// FuzzLeaderReceive feeds whatever packets to a serving leader's learners
// at each stage of the handshake: nothing may panic, and a leader that
// did not step down keeps its commits in order.
func FuzzLeaderReceive(f *testing.F) {
	f.Add([]byte{0, 0, 0, 11, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255})
	f.Add(AppendPacket(nil, &proto.QuorumPacket{Type: int32(Ack), Zxid: MakeZxid(2, 1)}))
	f.Add(AppendPacket(nil, &proto.QuorumPacket{Type: int32(Request), Zxid: -1, Data: AppendRequest(nil, ForwardedRequest{Session: 1, Op: 9})}))
	f.Fuzz(func(t *testing.T, data []byte) {
		e := &leaderEnv{t: t, log: &fakeLog{last: MakeZxid(1, 2), committed: []int64{MakeZxid(1, 1), MakeZxid(1, 2)}}}
		for _, line := range []string{
			"leader id=1 accepted=1 current=1 zxid=0x100000002 voters=1,2,3 observers=4",
			"connect 10 11 12 13 14",
			"info 11 sid=2 epoch=1", "info 12 sid=3 epoch=1", "info 13 sid=4 epoch=1 observer", "info 14 sid=2 epoch=1",
			"ackepoch 11 zxid=0x100000002 current=1", "ackepoch 12 zxid=0x100000001 current=1", "ackepoch 13 zxid=0x100000001 current=1",
			"ack 11 0x200000000", "propose 0x200000001", "logged 0x200000001",
		} {
			e.exec(line)
		}
		r := bytes.NewReader(data)
		for i := 0; ; i++ {
			p, err := ReadPacket(r, 1<<20)
			if err != nil {
				break
			}
			e.l.Receive(int64(10+i%5), p)
			e.l.Tick()
		}
		if !e.l.Stopped() && e.l.LastCommitted() > e.l.LastProposed() {
			t.Fatalf("committed 0x%x, proposed 0x%x", e.l.LastCommitted(), e.l.LastProposed())
		}
	})
}
