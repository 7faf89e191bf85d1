package admin

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"

	"github.com/gozk/gozk/server"
)

// The Java answers in testdata/java-3.8.0-ensemble come from two
// ensembles of Debian's 3.8.0 on loopback. follower-*.txt and leader-*.txt
// (conf, mntr, srvr, stat) from three participants, server.N =
// 127.0.0.1:2288N:2388N, clients on 2219N, under load; the others
// (observer-*, and the AdminServer's JSON) from three participants and an
// observer, with clientPortAddress=127.0.0.1 on 26700+N-1:
//
//	server.1=127.0.0.1:26720:26730:participant
//	server.2=127.0.0.1:26721:26731:participant
//	server.3=127.0.0.1:26722:26732:participant
//	server.4=127.0.0.1:26723:26733:observer;127.0.0.1:26703
//
// Server 3 led both. The tests below give gozk the same configurations
// and roles and compare its answers with Java's: the keys, their order
// and the shape of each value always; the values too where they do not
// depend on load or time.

func javaAnswer(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "java-3.8.0-ensemble", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// specEnsemble is the configuration of follower-* and leader-*, seen from
// server myid.
func specEnsemble(myid int64) *QuorumView {
	q := &QuorumView{ServerID: myid, InitLimit: 10, SyncLimit: 5, ElectionAlg: 3}
	for id := int64(1); id <= 3; id++ {
		sv := QuorumServerView{ID: id,
			QuorumAddrs:   []string{fmt.Sprintf("127.0.0.1:%d", 22880+id)},
			ElectionAddrs: []string{fmt.Sprintf("127.0.0.1:%d", 23880+id)}}
		if id == myid {
			sv.ClientAddr = fmt.Sprintf("127.0.0.1:%d", 22190+id)
		}
		q.Servers = append(q.Servers, sv)
	}
	q.Membership = "server.1=127.0.0.1:22881:23881:participant\nserver.2=127.0.0.1:22882:23882:participant\n" +
		"server.3=127.0.0.1:22883:23883:participant\nversion=0"
	return q
}

// observedEnsemble is the configuration with an observer, seen from
// server myid.
func observedEnsemble(myid int64) *QuorumView {
	q := &QuorumView{ServerID: myid, InitLimit: 10, SyncLimit: 5, ElectionAlg: 3, Observer: myid == 4}
	for id := int64(1); id <= 4; id++ {
		sv := QuorumServerView{ID: id,
			QuorumAddrs:   []string{fmt.Sprintf("127.0.0.1:%d", 26719+id)},
			ElectionAddrs: []string{fmt.Sprintf("127.0.0.1:%d", 26729+id)},
			Observer:      id == 4}
		if id == myid || id == 4 {
			sv.ClientAddr = fmt.Sprintf("127.0.0.1:%d", 26699+id)
		}
		q.Servers = append(q.Servers, sv)
	}
	q.Membership = "server.1=127.0.0.1:26720:26730:participant\nserver.2=127.0.0.1:26721:26731:participant\n" +
		"server.3=127.0.0.1:26722:26732:participant\nserver.4=127.0.0.1:26723:26733:observer;127.0.0.1:26703\nversion=0"
	return q
}

// startMember starts a server with the commands of an ensemble member
// seen as q and takes it through an election into role, serving, with
// server 3 as its leader.
func startMember(t *testing.T, q *QuorumView, role server.Role) (*server.Server, *Commands) {
	t.Helper()
	s, cmds := startWithCommands(t, Options{Version: FullVersion("test", time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)), Quorum: q}, nil)
	s.SetRole(server.RoleLooking)
	s.SetRole(role)
	s.SetLeader(3, "127.0.0.1")
	s.SetPhase(server.PhaseDiscovery)
	s.SetPhase(server.PhaseSynchronization)
	s.SetPhase(server.PhaseBroadcast)
	return s, cmds
}

var (
	intValue    = regexp.MustCompile(`^-?\d+$`)
	doubleValue = regexp.MustCompile(`^-?\d+\.\d+(E-?\d+)?$`)
)

func valueShape(v string) string {
	switch {
	case intValue.MatchString(v):
		return "integer"
	case doubleValue.MatchString(v):
		return "double"
	}
	return "text"
}

// recordSetKeys records a value under each key of the summary sets
// that Java's mntr shows (namespaces, learners' ids), so that gozk's
// mntr has the same keys.
func recordSetKeys(s *server.Server, javaMntr string) {
	m := s.Metrics()
	sets := map[string]func(key string){
		"read_per_namespace":         func(k string) { m.ReadPerNamespace.Add(k, 1) },
		"write_per_namespace":        func(k string) { m.WritePerNamespace.Add(k, 1) },
		"learner_handler_qp_size":    func(k string) { m.LearnerHandlerQPSize.Add(k, 1) },
		"learner_handler_qp_time_ms": func(k string) { m.LearnerHandlerQPTime.Add(k, 1) },
	}
	setKey := regexp.MustCompile(`(?m)^zk_cnt_(.+?)_(read_per_namespace|write_per_namespace|learner_handler_qp_size|learner_handler_qp_time_ms)\t`)
	for _, match := range setKey.FindAllStringSubmatch(javaMntr, -1) {
		sets[match[2]](match[1])
	}
}

// mntrLines parses mntr into keys and values.
func mntrLines(t *testing.T, out string) (keys []string, values map[string]string) {
	t.Helper()
	values = map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		k, v, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("mntr line %q has no tab", line)
		}
		keys = append(keys, k)
		values[k] = v
	}
	return keys, values
}

func TestEnsembleMonitorMatchesJava(t *testing.T) {
	for _, tc := range []struct {
		name      string
		view      *QuorumView
		role      server.Role
		peerState string
	}{
		{"follower", specEnsemble(2), server.RoleFollower, "following - broadcast"},
		{"leader", specEnsemble(3), server.RoleLeader, "leading - broadcast"},
		{"observer", observedEnsemble(4), server.RoleObserver, "observing - broadcast"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, cmds := startMember(t, tc.view, tc.role)
			java := javaAnswer(t, tc.name+"-mntr.txt")
			recordSetKeys(s, java)
			wantKeys, wantValues := mntrLines(t, java)
			gotKeys, gotValues := mntrLines(t, ask(t, s, "mntr"))
			for i := 0; i < len(wantKeys) || i < len(gotKeys); i++ {
				var want, got string
				if i < len(wantKeys) {
					want = wantKeys[i]
				}
				if i < len(gotKeys) {
					got = gotKeys[i]
				}
				if want != got {
					t.Fatalf("mntr line %d is %q, Java's is %q", i+1, got, want)
				}
				if ws, gs := valueShape(wantValues[want]), valueShape(gotValues[got]); ws != gs {
					t.Errorf("%s = %q is %s, Java's %q is %s", got, gotValues[got], gs, wantValues[want], ws)
				}
			}
			if got := gotValues["zk_server_state"]; got != tc.name {
				t.Errorf("zk_server_state = %q", got)
			}
			if got := gotValues["zk_peer_state"]; got != tc.peerState {
				t.Errorf("zk_peer_state = %q, want %q", got, tc.peerState)
			}
			if got, want := gotValues["zk_quorum_size"], "3"; got != want {
				t.Errorf("zk_quorum_size = %q, want %q", got, want)
			}
			if tc.role == server.RoleObserver && gotValues["zk_observer_master_id"] != "3" {
				t.Errorf("zk_observer_master_id = %q, want 3", gotValues["zk_observer_master_id"])
			}
			// The AdminServer's monitor has the same keys in the same
			// order.
			mon := cmds.Run("mntr", nil)
			var last int
			for _, k := range gotKeys {
				i := strings.Index(mon, "\n  \""+strings.TrimPrefix(k, "zk_")+"\" : ")
				if i < last {
					t.Fatalf("monitor has %s missing or out of order", k)
				}
				last = i
			}
		})
	}
}

func TestEnsembleSrvrAndStatMatchJava(t *testing.T) {
	for _, tc := range []struct {
		name string
		view *QuorumView
		role server.Role
	}{
		{"follower", specEnsemble(2), server.RoleFollower},
		{"leader", specEnsemble(3), server.RoleLeader},
		{"observer", observedEnsemble(4), server.RoleObserver},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, cmds := startMember(t, tc.view, tc.role)
			for _, n := range []int{36, 201, 173} {
				s.RecordProposalSize(n) // the Java leader's last/min/max: 173/36/201
			}
			for _, word := range []string{"srvr", "stat"} {
				want := statShape(javaAnswer(t, tc.name+"-"+word+".txt"))
				got := statShape(ask(t, s, word))
				if got != want {
					t.Errorf("%s:\n%s\nJava's:\n%s", word, got, want)
				}
			}
			srvr := ask(t, s, "srvr")
			if !strings.Contains(srvr, "\nMode: "+tc.name+"\n") {
				t.Errorf("srvr has no Mode: %s line:\n%s", tc.name, srvr)
			}
			if tc.role != server.RoleLeader {
				return
			}
			if !strings.HasSuffix(srvr, "\nProposal sizes last/min/max: 173/36/201\n") {
				t.Errorf("srvr on the leader:\n%s", srvr)
			}
			// The AdminServer's stat_reset keeps the proposal sizes; the
			// four-letter srst forgets them, as in Java.
			cmds.Run("stat_reset", nil)
			if srvr := ask(t, s, "srvr"); !strings.HasSuffix(srvr, "\nProposal sizes last/min/max: 173/36/201\n") {
				t.Errorf("srvr after stat_reset:\n%s", srvr)
			}
			ask(t, s, "srst")
			if srvr := ask(t, s, "srvr"); !strings.HasSuffix(srvr, "\nProposal sizes last/min/max: -1/-1/-1\n") {
				t.Errorf("srvr after srst:\n%s", srvr)
			}
		})
	}
}

// statShape keeps what srvr and stat print whatever the load: each
// line's label, the Mode line, and a client line's shape.
func statShape(out string) string {
	client := regexp.MustCompile(`^ /[0-9.]+:\d+\[\d\]\(queued=\d+,recved=\d+,sent=\d+\)$`)
	var b strings.Builder
	for _, line := range strings.Split(out, "\n") {
		switch {
		case client.MatchString(line):
			line = "<client>"
		case strings.HasPrefix(line, "Mode: "):
		default:
			if k, _, ok := strings.Cut(line, ": "); ok {
				line = k + ": <value>"
			}
		}
		b.WriteString(line + "\n")
	}
	// The number of clients differs from Java's run.
	return regexp.MustCompile(`(<client>\n)+`).ReplaceAllString(b.String(), "<clients>\n")
}

func TestEnsembleConfMatchesJava(t *testing.T) {
	for _, tc := range []struct {
		name string
		view *QuorumView
		role server.Role
	}{
		{"follower", specEnsemble(2), server.RoleFollower},
		{"leader", specEnsemble(3), server.RoleLeader},
		{"observer", observedEnsemble(4), server.RoleObserver},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := startMember(t, tc.view, tc.role)
			got := ask(t, s, "conf")
			want := javaAnswer(t, tc.name+"-conf.txt")
			// From serverId on, conf is the configuration: the same text.
			_, gotTail, _ := strings.Cut(got, "\nserverId=")
			_, wantTail, _ := strings.Cut(want, "\nserverId=")
			if gotTail != wantTail {
				t.Errorf("conf from serverId on:\n%s\nJava's:\n%s", gotTail, wantTail)
			}
			keys := func(out string) []string {
				var ks []string
				for _, line := range strings.Split(out, "\n") {
					k, _, _ := strings.Cut(line, "=")
					ks = append(ks, k)
				}
				return ks
			}
			if g, w := strings.Join(keys(got), ","), strings.Join(keys(want), ","); g != w {
				t.Errorf("conf keys %s, Java's %s", g, w)
			}
		})
	}
}

// normaliseJSON blanks the values that depend on the data.
func normaliseJSON(s string) string {
	s = regexp.MustCompile(`"last_zxid" : "0x[0-9a-f]+"`).ReplaceAllString(s, `"last_zxid" : "0x?"`)
	return regexp.MustCompile(`"(zab_epoch|zab_counter)" : \d+`).ReplaceAllString(s, `"$1" : 0`)
}

func TestEnsembleAdminCommandsMatchJava(t *testing.T) {
	for _, tc := range []struct {
		file string
		view *QuorumView
		role server.Role
		cmd  string
	}{
		{"follower-zabstate.json", observedEnsemble(1), server.RoleFollower, "zabstate"},
		{"leader-zabstate.json", observedEnsemble(3), server.RoleLeader, "zabstate"},
		{"observer-zabstate.json", observedEnsemble(4), server.RoleObserver, "zabstate"},
		{"follower-voting_view.json", observedEnsemble(1), server.RoleFollower, "voting_view"},
		{"observer-voting_view.json", observedEnsemble(4), server.RoleObserver, "voting_view"},
		{"follower-leader.json", observedEnsemble(1), server.RoleFollower, "leader"},
		{"leader-leader.json", observedEnsemble(3), server.RoleLeader, "lead"},
		{"follower-observers.json", observedEnsemble(1), server.RoleFollower, "observers"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			_, cmds := startMember(t, tc.view, tc.role)
			got, want := normaliseJSON(cmds.Run(tc.cmd, nil)), normaliseJSON(javaAnswer(t, tc.file))
			if got != want {
				t.Errorf("%s:\n%s\nJava's:\n%s", tc.cmd, got, want)
			}
		})
	}
}

// A leader lists its synced observers as Java's LearnerHandler describes
// them.
func TestLeaderObservers(t *testing.T) {
	s, cmds := startMember(t, observedEnsemble(3), server.RoleLeader)
	s.SetLeaderGauges(func() server.LeaderGauges {
		return server.LeaderGauges{Learners: 3, SyncedFollowers: 2, SyncedObservers: 1, Observers: []server.ObserverInfo{{
			RemoteAddr: "/127.0.0.1:51226", ID: 4, Established: 1795843235894, QueuedPacketsSize: -250,
			PacketsReceived: 26, PacketsSent: 28, LastZxid: 4294967296}}}
	})
	if got, want := cmds.Run("observers", nil), javaAnswer(t, "leader-observers.json"); got != want {
		t.Errorf("observers:\n%s\nJava's:\n%s", got, want)
	}
	_, values := mntrLines(t, ask(t, s, "mntr"))
	for k, want := range map[string]string{"zk_learners": "3", "zk_synced_followers": "2", "zk_synced_observers": "1", "zk_synced_non_voting_followers": "0"} {
		if values[k] != want {
			t.Errorf("%s = %q, want %s", k, values[k], want)
		}
	}
}

// A follower shows zk_synced_observers and lists its observers only while
// it is their observer master (observerMasterPort), as Java's follower
// does while its ObserverMaster runs.
func TestFollowerAsObserverMaster(t *testing.T) {
	s, cmds := startMember(t, observedEnsemble(1), server.RoleFollower)
	if _, values := mntrLines(t, ask(t, s, "mntr")); values["zk_synced_observers"] != "" {
		t.Errorf("zk_synced_observers = %q on a follower with no observer master", values["zk_synced_observers"])
	}
	s.SetLeaderGauges(func() server.LeaderGauges {
		return server.LeaderGauges{SyncedObservers: 1, ObserverMaster: true, Observers: []server.ObserverInfo{{
			RemoteAddr: "/127.0.0.1:51226", ID: 4, Established: 1795843235894, QueuedPacketsSize: -250,
			PacketsReceived: 26, PacketsSent: 28, LastZxid: 4294967296}}}
	})
	if _, values := mntrLines(t, ask(t, s, "mntr")); values["zk_synced_observers"] != "1" || values["zk_learners"] != "" {
		t.Errorf("zk_synced_observers = %q, zk_learners = %q on an observer master", values["zk_synced_observers"], values["zk_learners"])
	}
	// The same list as a leader's.
	if got, want := cmds.Run("observers", nil), javaAnswer(t, "leader-observers.json"); got != want {
		t.Errorf("observers:\n%s\nJava's leader's:\n%s", got, want)
	}
}

func TestEnsembleConfiguration(t *testing.T) {
	_, cmds := startMember(t, observedEnsemble(1), server.RoleFollower)
	got := regexp.MustCompile(`"(data_dir|data_log_dir)" : "[^"]*"`).ReplaceAllString(cmds.Run("configuration", nil), `"$1" : ""`)
	got = regexp.MustCompile(`"client_port" : \d+`).ReplaceAllString(got, `"client_port" : 0`)
	want := regexp.MustCompile(`"(data_dir|data_log_dir)" : "[^"]*"`).ReplaceAllString(javaAnswer(t, "follower-configuration.json"), `"$1" : ""`)
	want = regexp.MustCompile(`"client_port" : \d+`).ReplaceAllString(want, `"client_port" : 0`)
	if got != want {
		t.Errorf("configuration:\n%s\nJava's:\n%s", got, want)
	}
}

// While it looks for a leader or syncs with one, a member answers as
// Java's does when its server is not running.
func TestEnsembleNotServing(t *testing.T) {
	s, cmds := startMember(t, observedEnsemble(1), server.RoleFollower)
	for _, step := range []struct {
		name  string
		enter func()
	}{
		{"looking", func() { s.SetRole(server.RoleLooking) }},
		{"syncing", func() { s.SetRole(server.RoleFollower); s.SetPhase(server.PhaseSynchronization) }},
	} {
		t.Run(step.name, func(t *testing.T) {
			step.enter()
			for _, w := range []string{"srvr", "stat", "mntr", "conf", "cons", "dump", "wchs", "wchc", "wchp", "dirs", "crst", "srst"} {
				if got := ask(t, s, w); got != notServing+"\n" {
					t.Errorf("%s answered %q", w, got)
				}
			}
			for w, want := range map[string]string{"hash": notServing, "isro": "null", "ruok": "imok", "gtmk": "306"} {
				if got := ask(t, s, w); got != want {
					t.Errorf("%s answered %q, want %q", w, got, want)
				}
			}
			if got := ask(t, s, "envi"); !strings.HasPrefix(got, "Environment:\n") {
				t.Errorf("envi answered %q", got)
			}
			// The AdminServer names the command as asked for.
			for _, name := range []string{"srvr", "server_stats", "leader", "voting_view", "configuration", "observers", "mntr"} {
				want := "{\n  \"command\" : \"" + name + "\",\n  \"error\" : \"" + notServing + "\"\n}"
				if got := cmds.Run(name, nil); got != want {
					t.Errorf("%s answered\n%s", name, got)
				}
			}
			if got, want := cmds.Run("zabstate", nil), javaAnswer(t, "looking-zabstate.json"); got != want {
				t.Errorf("zabstate answered\n%s\nJava's:\n%s", got, want)
			}
		})
	}
	s.SetPhase(server.PhaseBroadcast)
	if got := ask(t, s, "isro"); got != "rw" {
		t.Errorf("isro once serving again: %q", got)
	}
}

// Prometheus exports the gauges of the server's role only, as Java
// registers them only for that role.
func TestPrometheusRoleGauges(t *testing.T) {
	for _, tc := range []struct {
		role         server.Role
		has, hasNone []string
	}{
		{server.RoleFollower, []string{"quorum_size", "election_time", "learner_commit_received_count"}, []string{"learners", "last_proposal_size"}},
		{server.RoleLeader, []string{"quorum_size", "learners", "synced_followers", "leader_uptime", "min_proposal_size"}, nil},
	} {
		t.Run(tc.role.String(), func(t *testing.T) {
			s, cmds := startMember(t, specEnsemble(2), tc.role)
			s.Metrics().LearnerHandlerQPSize.Add("1", 4)
			s.Metrics().LearnerHandlerQPTime.Add("1", 7)
			h, err := cmds.StartMetrics(MetricsConfig{Host: "127.0.0.1", Port: 0})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			resp, err := http.Get("http://" + h.Addr().String() + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			var parser expfmt.TextParser
			families, err := parser.TextToMetricFamilies(strings.NewReader(string(body)))
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range tc.has {
				if families[name] == nil {
					t.Errorf("no %s", name)
				}
			}
			for _, name := range tc.hasNone {
				if families[name] != nil {
					t.Errorf("a %s exports %s", tc.role, name)
				}
			}
			// The per-learner sets, labelled by server id, with the
			// quantiles of their kind.
			for name, quantiles := range map[string]int{"learner_handler_qp_size": 1, "learner_handler_qp_time_ms": 3} {
				f := families[name]
				if f == nil || len(f.Metric) != 1 || f.Metric[0].GetLabel()[0].GetValue() != "1" || len(f.Metric[0].GetSummary().Quantile) != quantiles {
					t.Errorf("%s = %v, want one summary for key 1 with %d quantiles", name, f, quantiles)
				}
			}
			if f := families["election_time"]; f != nil && f.Metric[0].GetSummary().GetSampleCount() != 1 {
				t.Errorf("election_time has %d samples, want the one election", f.Metric[0].GetSummary().GetSampleCount())
			}
		})
	}
}
