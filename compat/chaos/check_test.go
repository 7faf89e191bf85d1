package chaos

import (
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// Hand-written histories for each checker: one that must pass, and
// variants with one anomaly each that must be reported.

const k = "/r/k0"

func histCAS(client int, call, ret int64, expect int32, value string, out Outcome, mzxid int64) Op {
	op := Op{Client: client, Session: int64(client + 1), Server: "s1", Kind: KindCAS, Key: k, Call: call, Return: ret,
		Outcome: out, Expect: expect, Value: value}
	switch out {
	case OK:
		op.Version, op.Mzxid = expect+1, mzxid
	case Failed:
		op.Err = zk.ErrBadVersion.Error()
	default:
		op.Err = zk.ErrConnectionClosed.Error()
	}
	return op
}

func histRead(kind OpKind, client int, call, ret int64, value string, version int32, mzxid int64) Op {
	return Op{Client: client, Session: int64(client + 1), Server: "s1", Kind: kind, Key: k, Call: call, Return: ret,
		Outcome: OK, Data: value, Version: version, Mzxid: mzxid}
}

func TestLinearizableRegister(t *testing.T) {
	ok := []Op{
		histCAS(0, 0, 10, 0, "a", OK, 2),
		histRead(KindLinRead, 1, 5, 15, "a", 1, 2), // concurrent with the write
		histCAS(1, 20, 30, 0, "b", Failed, 0),      // version 0 is gone
		histCAS(0, 40, 50, 1, "c", Indeterminate, 0),
		histRead(KindLinRead, 1, 60, 70, "c", 2, 3), // the indeterminate write took effect
		histCAS(0, 80, 90, 2, "d", Indeterminate, 0),
		histRead(KindLinRead, 1, 100, 110, "c", 2, 3), // this one had not yet
		histRead(KindRead, 2, 120, 130, "d", 3, 4),    // but a follower saw it later
		histCAS(2, 140, 150, 3, "e", OK, 5),           // and a write built on it
	}
	if a, note := checkLinearizable(ok, "init"); len(a) != 0 || note != "" {
		t.Fatalf("linearizable history judged %q %q", a, note)
	}
	if a := checkRegisterValues(ok, "init"); len(a) != 0 {
		t.Fatalf("consistent values judged %q", a)
	}

	bad := map[string][]Op{
		"stale leader read": {
			histCAS(0, 0, 10, 0, "a", OK, 2),
			histRead(KindLinRead, 1, 20, 30, "init", 0, 1),
		},
		"lost write": {
			histCAS(0, 0, 10, 0, "a", OK, 2),
			histCAS(1, 20, 30, 1, "b", OK, 3),
			histRead(KindLinRead, 1, 40, 50, "a", 1, 2),
		},
		"refused write that matched": {
			histCAS(0, 0, 10, 0, "a", Failed, 0),
			histRead(KindLinRead, 1, 20, 30, "init", 0, 1),
		},
		"two writes from one version": {
			histCAS(0, 0, 10, 0, "a", OK, 2),
			histCAS(1, 20, 30, 0, "b", OK, 3),
		},
		"read with a version the write did not make": {
			histCAS(0, 0, 10, 0, "a", OK, 2),
			histRead(KindLinRead, 1, 20, 30, "a", 2, 2),
		},
		"read before its write": {
			histRead(KindLinRead, 1, 0, 10, "a", 1, 2),
			histCAS(0, 20, 30, 0, "a", OK, 2),
		},
	}
	for name, h := range bad {
		if a, _ := checkLinearizable(h, "init"); len(a) != 1 || !strings.Contains(a[0], "linearizability") {
			t.Errorf("%s: judged %q", name, a)
		}
	}
	// A follower read may be stale: it is not part of the model.
	stale := []Op{histCAS(0, 0, 10, 0, "a", OK, 2), histRead(KindRead, 1, 20, 30, "init", 0, 1)}
	if a, _ := checkLinearizable(stale, "init"); len(a) != 0 {
		t.Errorf("stale follower read judged non-linearizable: %q", a)
	}
}

func TestRegisterValues(t *testing.T) {
	cases := map[string][]Op{
		"data never written":    {histRead(KindRead, 0, 0, 1, "zz", 1, 2)},
		"one version two datas": {histCAS(0, 0, 10, 0, "a", OK, 2), histRead(KindRead, 1, 20, 30, "b", 1, 2), histCAS(1, 0, 0, 5, "b", Indeterminate, 0)},
		"one version two zxids": {histCAS(0, 0, 10, 0, "a", OK, 2), func() Op { r := histRead(KindRead, 1, 20, 30, "a", 1, 7); r.Server = "s2"; return r }()},
		"ack skips a version":   {func() Op { o := histCAS(0, 0, 10, 0, "a", OK, 2); o.Version = 3; return o }()},
		"version 0 not initial": {histCAS(0, 0, 10, 0, "a", Indeterminate, 0), histRead(KindRead, 1, 20, 30, "a", 0, 1)},
	}
	for name, h := range cases {
		if a := checkRegisterValues(h, "init"); len(a) == 0 {
			t.Errorf("%s: no anomaly", name)
		}
	}
}

func TestSessionChecks(t *testing.T) {
	w := histCAS(0, 0, 10, 0, "a", OK, 0x10)
	pass := []Op{
		w,
		histRead(KindRead, 0, 20, 30, "a", 1, 0x10),
		histRead(KindRead, 1, 20, 30, "init", 0, 0x1), // another session may lag
		histRead(KindRead, 1, 40, 50, "a", 1, 0x10),
	}
	if a := checkSessions(pass, deleteAttempts(pass)); len(a) != 0 {
		t.Fatalf("good sessions judged %q", a)
	}
	other := func(op Op) Op { op.Key = "/r/k1"; return op }
	onS2 := func(op Op) Op { op.Server = "s2"; return op }
	cases := map[string]struct {
		h    []Op
		rule string
	}{
		"stale follower read after own write": {[]Op{w, onS2(histRead(KindRead, 0, 20, 30, "init", 0, 0x1))}, "read-your-writes"},
		"read goes back": {[]Op{
			histRead(KindRead, 1, 0, 10, "a", 1, 0x10), onS2(histRead(KindRead, 1, 20, 30, "init", 0, 0x1))}, "monotonic reads"},
		"reconnect to an older member": {[]Op{
			w,
			other(histCAS(1, 20, 30, 0, "x", OK, 0x20)),         // session 2 sees zxid 0x20
			onS2(histRead(KindRead, 1, 40, 50, "init", 0, 0x1)), // and then misses 0x10
		}, "sequential consistency"},
		"write ordered before what the session saw": {[]Op{
			other(histRead(KindRead, 0, 0, 10, "x", 1, 0x40)), histCAS(0, 20, 30, 0, "a", OK, 0x30)}, "ordered updates"},
		"write sharing a zxid the session saw": {[]Op{
			other(histRead(KindRead, 0, 0, 10, "x", 1, 0x40)), histCAS(0, 20, 30, 0, "a", OK, 0x40)}, "ordered updates"},
	}
	for name, c := range cases {
		a := checkSessions(c.h, deleteAttempts(c.h))
		if len(a) == 0 || !strings.HasPrefix(a[0], c.rule) {
			t.Errorf("%s: judged %q, want %s", name, a, c.rule)
		}
	}
	// An operation across a session change takes no part.
	changed := []Op{w, onS2(histRead(KindRead, 0, 20, 30, "init", 0, 0x1))}
	changed[1].Session = 0
	if a := checkSessions(changed, deleteAttempts(changed)); len(a) != 0 {
		t.Errorf("operation across sessions judged %q", a)
	}
}

func histList(session int64, call, ret int64, cversion int32, children ...string) Op {
	return Op{Session: session, Server: "s1", Kind: KindList, Key: "/q", Call: call, Return: ret, Outcome: OK,
		Cversion: cversion, Pzxid: int64(cversion), Children: children}
}

func TestSessionListChecks(t *testing.T) {
	create := Op{Session: 1, Kind: KindCreate, Key: "/q/a", Path: "/q/a", Value: "a", Outcome: OK, Call: 0, Return: 5}
	del := func(session int64, call int64, out Outcome) Op {
		return Op{Session: session, Kind: KindDelete, Key: "/q/a", Outcome: out, Call: call, Return: call + 5}
	}
	cases := map[string]struct {
		h     []Op
		wantN int
	}{
		"own create listed":                 {[]Op{create, histList(1, 10, 20, 1, "a")}, 0},
		"own create missing":                {[]Op{create, histList(1, 10, 20, 0)}, 1},
		"own create deleted by another":     {[]Op{create, del(2, 8, Indeterminate), histList(1, 10, 20, 2)}, 0},
		"deleted only after the list":       {[]Op{create, histList(1, 10, 20, 0), del(2, 30, OK)}, 1},
		"refused delete explains nothing":   {[]Op{create, del(2, 8, Failed), histList(1, 10, 20, 1)}, 1},
		"listed child disappears":           {[]Op{histList(2, 0, 5, 1, "a"), histList(2, 10, 20, 1)}, 1},
		"cversion goes back":                {[]Op{histList(2, 0, 5, 3, "a"), histList(2, 10, 20, 2, "a")}, 1},
		"own delete still listed":           {[]Op{del(1, 0, OK), histList(1, 10, 20, 3, "a")}, 1},
		"other sessions' lists independent": {[]Op{histList(2, 0, 5, 1, "a"), histList(3, 10, 20, 0)}, 0},
	}
	for name, c := range cases {
		if a := checkSessions(c.h, deleteAttempts(c.h)); len(a) != c.wantN {
			t.Errorf("%s: judged %q, want %d anomalies", name, a, c.wantN)
		}
	}
}

func histView(server string, nodes map[string]string) finalView {
	v := finalView{Server: server, Children: map[string]Op{}}
	for name, data := range nodes {
		v.Children[name] = Op{Data: data}
	}
	return v
}

func histCreate(tag, path string, out Outcome) Op {
	return Op{Session: 1, Kind: KindCreate, Key: "/u/id-", Value: tag, Path: path, Outcome: out}
}

func TestElements(t *testing.T) {
	ops := []Op{
		histCreate("t1", "/u/id-1", OK),
		histCreate("t2", "", Indeterminate),
		histCreate("t3", "", Indeterminate),
		histCreate("t4", "", Failed),
	}
	good := histView("s1", map[string]string{"id-1": "t1", "id-2": "t2"})
	if a, lost, dup := checkElements(ops, []finalView{good, good}); len(a) != 0 || lost != 0 || dup != 0 {
		t.Fatalf("good set judged %q lost %d dup %d", a, lost, dup)
	}
	cases := map[string]struct {
		ops       []Op
		views     []finalView
		lost, dup int
	}{
		"lost":             {ops, []finalView{histView("s1", map[string]string{"id-2": "t2"})}, 1, 0},
		"duplicated":       {ops, []finalView{histView("s1", map[string]string{"id-1": "t1", "id-2": "t2", "id-3": "t2"})}, 0, 1},
		"id handed twice":  {append(ops[:1:1], histCreate("t5", "/u/id-1", OK)), []finalView{histView("s1", map[string]string{"id-1": "t1"})}, 1, 1},
		"never attempted":  {ops, []finalView{histView("s1", map[string]string{"id-1": "t1", "id-9": "t9"})}, 0, 0},
		"refused present":  {ops, []finalView{histView("s1", map[string]string{"id-1": "t1", "id-4": "t4"})}, 0, 0},
		"other name":       {ops, []finalView{histView("s1", map[string]string{"id-7": "t1"})}, 0, 0},
		"members disagree": {ops, []finalView{good, histView("s2", map[string]string{"id-1": "t1"})}, 0, 0},
	}
	for name, c := range cases {
		a, lost, dup := checkElements(c.ops, c.views)
		if len(a) == 0 || lost != c.lost || dup != c.dup {
			t.Errorf("%s: judged %q lost %d dup %d, want lost %d dup %d", name, a, lost, dup, c.lost, c.dup)
		}
	}
}

func TestCounter(t *testing.T) {
	ops := []Op{
		histCAS(0, 0, 1, 0, "1 a", OK, 2),
		histCAS(0, 2, 3, 1, "2 b", OK, 3),
		histCAS(0, 4, 5, 2, "3 c", Indeterminate, 0),
		histCAS(0, 6, 7, 2, "3 d", Failed, 0),
	}
	final := func(data string, version int32) []Op {
		return []Op{{Server: "s1", Data: data, Version: version}}
	}
	for _, f := range []struct {
		data      string
		version   int32
		ok        bool
		lost, dup int
	}{
		{"2 b", 2, true, 0, 0},
		{"3 c", 3, true, 0, 0},
		{"1 a", 1, false, 1, 0},
		{"4 x", 4, false, 0, 1},
		{"3 c", 4, false, 0, 0},
		{"many", 3, false, 0, 0},
	} {
		a, lost, dup := checkCounter(ops, final(f.data, f.version))
		if (len(a) == 0) != f.ok || lost != f.lost || dup != f.dup {
			t.Errorf("final %q v%d: judged %q lost %d dup %d", f.data, f.version, a, lost, dup)
		}
	}
}

func TestQueue(t *testing.T) {
	enq := func(tag, path string, out Outcome) Op {
		return Op{Session: 1, Kind: KindCreate, Key: "/q/q-", Value: tag, Path: path, Outcome: out}
	}
	deq := func(path, tag string, out Outcome) Op {
		return Op{Session: 2, Kind: KindDelete, Key: path, Value: tag, Outcome: out}
	}
	ops := []Op{
		enq("a", "/q/q-1", OK),
		enq("b", "/q/q-2", OK),
		enq("c", "", Indeterminate),
		enq("d", "/q/q-4", OK),
		enq("e", "", Failed),
		deq("/q/q-1", "a", OK),
		deq("/q/q-3", "c", OK),
		deq("/q/q-2", "b", Indeterminate),
	}
	good := []finalView{histView("s1", map[string]string{"q-4": "d"})}
	if a, lost, dup := checkQueue(ops, good); len(a) != 0 || lost != 0 || dup != 0 {
		t.Fatalf("good queue judged %q lost %d dup %d", a, lost, dup)
	}
	cases := map[string]struct {
		ops       []Op
		views     []finalView
		lost, dup int
	}{
		"lost":                 {ops, []finalView{histView("s1", nil)}, 1, 0},
		"dequeued twice":       {append(ops, deq("/q/q-4", "d", OK), deq("/q/q-4", "d", OK)), []finalView{histView("s1", nil)}, 0, 1},
		"never enqueued":       {append(ops, deq("/q/q-9", "z", OK)), good, 0, 0},
		"refused enqueue":      {append(ops, deq("/q/q-5", "e", OK)), good, 0, 0},
		"dequeued but present": {ops, []finalView{histView("s1", map[string]string{"q-1": "a", "q-4": "d"})}, 0, 0},
		"wrong element":        {append(ops, deq("/q/q-4", "x", Indeterminate)), good, 0, 0},
	}
	for name, c := range cases {
		a, lost, dup := checkQueue(c.ops, c.views)
		if len(a) == 0 || lost != c.lost || dup != c.dup {
			t.Errorf("%s: judged %q lost %d dup %d, want lost %d dup %d", name, a, lost, dup, c.lost, c.dup)
		}
	}
}

func TestEphemerals(t *testing.T) {
	eph := func(session int64, tag string, out Outcome) Op {
		return Op{Session: session, Kind: KindCreate, Key: "/e/" + tag, Path: "/e/" + tag, Value: tag, Outcome: out}
	}
	ops := []Op{eph(1, "live", OK), eph(2, "gone", OK), eph(3, "maybe", Indeterminate)}
	sessions := map[int64]ephemeralSession{1: {id: 1, alive: true}, 2: {id: 2, ended: true}, 3: {id: 3, alive: true}}
	node := func(tag string, owner int64) finalView {
		return finalView{Server: "s1", Children: map[string]Op{tag: {Data: tag, Owner: owner}}}
	}
	both := func(vs ...finalView) finalView {
		out := finalView{Server: "s1", Children: map[string]Op{}}
		for _, v := range vs {
			for n, op := range v.Children {
				out.Children[n] = op
			}
		}
		return out
	}
	if a, lost := checkEphemerals(ops, sessions, []finalView{node("live", 1)}); len(a) != 0 || lost != 0 {
		t.Fatalf("good ephemerals judged %q lost %d", a, lost)
	}
	cases := map[string]struct {
		views []finalView
		lost  int
	}{
		"ended session's node remains": {[]finalView{both(node("live", 1), node("gone", 2))}, 0},
		"live session's node lost":     {[]finalView{{Server: "s1", Children: map[string]Op{}}}, 1},
		"wrong owner":                  {[]finalView{both(node("live", 1), node("maybe", 1))}, 0},
		"unknown owner":                {[]finalView{both(node("live", 1), node("maybe", 9))}, 0},
		"never created":                {[]finalView{both(node("live", 1), node("other", 1))}, 0},
	}
	for name, c := range cases {
		a, lost := checkEphemerals(ops, sessions, c.views)
		if len(a) == 0 || lost != c.lost {
			t.Errorf("%s: judged %q lost %d, want lost %d", name, a, lost, c.lost)
		}
	}
}

func TestTable(t *testing.T) {
	rows := []Row{{
		Layout: "3 gozk", Nemesis: "kill|leader", Faults: 4, Recover: 1234 * time.Millisecond,
		Results: []Result{
			{Workload: "register", OK: 10, Failed: 2, Indeterminate: 1},
			{Workload: "set", OK: 5, Lost: 1, Anomalies: []string{"lost: s1 lacks /s/x"}},
		},
	}}
	got := Table(rows)
	for _, want := range []string{
		"| faults | recover | ops | ok | failed | indeterminate | anomalies | lost | duplicated |",
		"| 3 gozk | kill\\|leader | register | 4 | 1.23s | 13 | 10 | 2 | 1 | 0 | 0 | 0 | pass |",
		"| 3 gozk | kill\\|leader | set | 4 | 1.23s | 5 | 5 | 0 | 0 | 1 | 1 | 0 | **FAIL** |",
		"- 3 gozk / kill|leader / set: lost: s1 lacks /s/x",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
}

func TestClassify(t *testing.T) {
	for err, want := range map[error]Outcome{
		nil:                    OK,
		zk.ErrBadVersion:       Failed,
		zk.ErrNodeExists:       Failed,
		zk.ErrNoServer:         Failed,
		zk.ErrConnectionClosed: Indeterminate,
		zk.ErrSessionExpired:   Indeterminate,
		zk.ErrClosing:          Indeterminate,
		errTimeout:             Indeterminate,
	} {
		if got := classify(err); got != want {
			t.Errorf("classify(%v) = %v, want %v", err, got, want)
		}
	}
}

func TestWithDefaults(t *testing.T) {
	env := &Env{Servers: []string{"a:1"}}
	got := withDefaults(env)
	if got.Logf == nil || got.Leader == nil || got.Leader() != "" || got.SessionTimeout != 10*time.Second {
		t.Fatalf("defaults not filled: %+v", got)
	}
	if env.Logf != nil || env.SessionTimeout != 0 {
		t.Fatal("the harness's env was changed")
	}
	set := &Env{SessionTimeout: time.Second, Leader: func() string { return "x" }}
	if got := withDefaults(set); got.SessionTimeout != time.Second || got.Leader() != "x" {
		t.Fatalf("set fields overridden: %+v", got)
	}
}
