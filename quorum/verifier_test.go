package quorum

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gozk/gozk/conf"
)

// javaCase is one ensemble of testdata/java-verdicts.txt with what Java's
// verifier said of it.
type javaCase struct {
	line         int // where the case starts in the file
	hierarchical bool
	config       []string // zoo.cfg lines: server.N, weight.N, group.N
	weights      map[int64]int64
	sets         [][]int64
	quorum       []bool
}

func readJavaCases(t *testing.T) []javaCase {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "java-verdicts.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []javaCase
	var c *javaCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		fields := strings.Fields(line)
		bad := func() { t.Fatalf("java-verdicts.txt:%d: cannot read %q", n, line) }
		switch {
		case strings.HasPrefix(line, "case "):
			c = &javaCase{line: n, hierarchical: fields[1] == "hierarchical", weights: map[int64]int64{}}
		case c == nil:
			bad()
		case line == "end":
			cases = append(cases, *c)
			c = nil
		case fields[0] == "weight" && len(fields) == 3:
			sid, err1 := strconv.ParseInt(fields[1], 10, 64)
			w, err2 := strconv.ParseInt(fields[2], 10, 64)
			if err1 != nil || err2 != nil {
				bad()
			}
			c.weights[sid] = w
		case fields[0] == "set" && len(fields) == 3:
			var set []int64
			if fields[1] != "-" {
				for _, s := range strings.Split(fields[1], ",") {
					sid, err := strconv.ParseInt(s, 10, 64)
					if err != nil {
						bad()
					}
					set = append(set, sid)
				}
			}
			c.sets = append(c.sets, set)
			c.quorum = append(c.quorum, fields[2] == "quorum")
		case strings.Contains(line, "="):
			c.config = append(c.config, line)
		default:
			bad()
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 100 {
		t.Fatalf("java-verdicts.txt holds %d cases; regenerate it with make quorum-oracle", len(cases))
	}
	return cases
}

// loadEnsemble reads the case's lines as a zoo.cfg, as `gozk server`
// would, with the myid of its first participant.
func loadEnsemble(t *testing.T, lines []string) *conf.Ensemble {
	t.Helper()
	dir := t.TempDir()
	myid := ""
	for _, l := range lines {
		if strings.HasPrefix(l, "server.") && strings.HasSuffix(l, ":participant") {
			myid = strings.TrimPrefix(l[:strings.Index(l, "=")], "server.")
			break
		}
	}
	cfg := fmt.Sprintf("tickTime=2000\ninitLimit=10\nsyncLimit=5\ndataDir=%s\nclientPort=2181\n"+
		"standaloneEnabled=false\n%s\n", dir, strings.Join(lines, "\n"))
	path := filepath.Join(dir, "zoo.cfg")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "myid"), []byte(myid+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := conf.Load(path, "")
	if err != nil {
		t.Fatalf("conf.Load refused an ensemble Java's verifier took:\n%s\n%v", strings.Join(lines, "\n"), err)
	}
	return c.Quorum.Ensemble
}

// TestVerdictsMatchJava: on every ensemble of the fixture, read through
// conf as zoo.cfg, the verifier is of Java's kind, weighs each server as
// Java does and says quorum or not of every set exactly as Java's
// QuorumMaj or QuorumHierarchical did.
func TestVerdictsMatchJava(t *testing.T) {
	cases := readJavaCases(t)
	var sets, quorums int
	for _, c := range cases {
		e := loadEnsemble(t, c.config)
		v := New(e)
		if _, hier := v.(*Hierarchical); hier != c.hierarchical {
			t.Errorf("case at line %d: verifier %T, Java's was hierarchical=%v", c.line, v, c.hierarchical)
			continue
		}
		for sid, want := range c.weights {
			if got := v.Weight(sid); got != want {
				t.Errorf("case at line %d: Weight(%d) = %d, Java %d", c.line, sid, got, want)
			}
		}
		for i, set := range c.sets {
			sets++
			if c.quorum[i] {
				quorums++
			}
			if got := v.ContainsQuorum(set); got != c.quorum[i] {
				t.Errorf("case at line %d:\n%s\nContainsQuorum(%v) = %v, Java %v", c.line, strings.Join(c.config, "\n"), set, got, c.quorum[i])
			}
		}
	}
	t.Logf("%d ensembles, %d sets (%d quorums) as Java judged them", len(cases), sets, quorums)
}

// ensemble builds an ensemble of participants 1..voters and observers
// after them.
func ensemble(voters, observers int) *conf.Ensemble {
	e := &conf.Ensemble{Servers: map[int64]*conf.ServerSpec{}}
	for i := 1; i <= voters+observers; i++ {
		typ := conf.Participant
		if i > voters {
			typ = conf.Observer
		}
		e.Servers[int64(i)] = &conf.ServerSpec{ID: int64(i), Type: typ}
	}
	return e
}

func TestMajority(t *testing.T) {
	v := New(ensemble(5, 2))
	if _, ok := v.(*Majority); !ok {
		t.Fatalf("New of an ensemble without groups or weights = %T, want *Majority", v)
	}
	for _, c := range []struct {
		ids    []int64
		quorum bool
	}{
		{nil, false},
		{[]int64{1, 2}, false},
		{[]int64{1, 2, 3}, true},
		{[]int64{5, 4, 3}, true},
		{[]int64{1, 1, 2, 2}, false}, // a server counts once
		{[]int64{1, 2, 6, 7}, false}, // observers do not vote
		{[]int64{1, 2, 42}, false},   // nor do strangers
		{[]int64{1, 2, 3, 4, 5}, true},
	} {
		if got := v.ContainsQuorum(c.ids); got != c.quorum {
			t.Errorf("ContainsQuorum(%v) = %v, want %v", c.ids, got, c.quorum)
		}
	}
	if !slices.Equal(v.Voters(), []int64{1, 2, 3, 4, 5}) || !slices.Equal(v.Observers(), []int64{6, 7}) {
		t.Errorf("Voters %v, Observers %v", v.Voters(), v.Observers())
	}
	for sid, want := range map[int64]bool{1: true, 5: true, 6: false, 42: false} {
		if v.IsVoter(sid) != want {
			t.Errorf("IsVoter(%d) = %v, want %v", sid, !want, want)
		}
	}
	if v.Weight(3) != 1 || v.Weight(6) != 1 {
		t.Errorf("a majority verifier weighs every server 1, as Java's")
	}
	// An even ensemble needs more than half: 2 of 4 is not enough.
	if v := New(ensemble(4, 0)); v.ContainsQuorum([]int64{1, 2}) || !v.ContainsQuorum([]int64{1, 2, 3}) {
		t.Error("of 4 voters, 2 made a quorum or 3 did not")
	}
}

func TestHierarchical(t *testing.T) {
	// Three groups of three; group 3 weighs nothing (every member weight 0),
	// so a quorum is a weighted majority in both of groups 1 and 2.
	e := ensemble(9, 1)
	e.Hierarchical = true
	e.Groups = map[int64][]int64{1: {1, 2, 3}, 2: {4, 5, 6}, 3: {7, 8, 9}}
	e.Weights = map[int64]int64{1: 1, 2: 1, 3: 2, 4: 1, 5: 1, 6: 1, 7: 0, 8: 0, 9: 0}
	e.Version = 0x100000003
	v := New(e)
	h, ok := v.(*Hierarchical)
	if !ok {
		t.Fatalf("New of an ensemble with groups = %T, want *Hierarchical", v)
	}
	if h.countedGroups != 2 {
		t.Errorf("%d groups counted, want 2 (group 3 weighs 0)", h.countedGroups)
	}
	for _, c := range []struct {
		ids    []int64
		quorum bool
	}{
		{nil, false},
		{[]int64{3, 4, 5}, false},          // group 1: 3 weighs 2 of 4, and 2 > 4/2 is false
		{[]int64{3, 1, 4, 5}, true},        // 3 of 4 and 2 of 3
		{[]int64{1, 2, 4, 5}, false},       // group 1: 2 of 4, not more than half
		{[]int64{3, 1, 7, 8, 9}, false},    // one group of the two counted
		{[]int64{1, 3, 4, 6, 10}, true},    // the observer (no group) adds nothing
		{[]int64{1, 1, 3, 4, 4}, false},    // each server counts once: group 2 has 1 of 3
		{[]int64{1, 3, 4, 5, 99}, true},    // a stranger adds nothing
		{[]int64{7, 8, 9, 4, 5, 6}, false}, // a zero-weight group is never a majority
	} {
		// The expectations above follow Java's arithmetic: a group is won
		// when its members' weight is more than its total divided by 2
		// (integer division), and more than countedGroups/2 groups must
		// be won.
		got := v.ContainsQuorum(c.ids)
		want := javaHierarchical(e, c.ids)
		if want != c.quorum {
			t.Fatalf("test table: %v written as %v, Java's rule says %v", c.ids, c.quorum, want)
		}
		if got != want {
			t.Errorf("ContainsQuorum(%v) = %v, want %v", c.ids, got, want)
		}
	}
	if v.Weight(3) != 2 || v.Weight(7) != 0 || v.Weight(10) != 0 {
		t.Errorf("weights: 3 -> %d, 7 -> %d, observer 10 -> %d", v.Weight(3), v.Weight(7), v.Weight(10))
	}
	if v.Version() != 0x100000003 {
		t.Errorf("Version = 0x%x", v.Version())
	}
}

// javaHierarchical is Java's QuorumHierarchical.containsQuorum written out
// step by step over a set, to check the test table above against.
func javaHierarchical(e *conf.Ensemble, ids []int64) bool {
	set := map[int64]bool{}
	for _, id := range ids {
		set[id] = true
	}
	if len(set) == 0 {
		return false
	}
	groups := 0
	won := 0
	for _, members := range e.Groups {
		var total, got int64
		for _, sid := range members {
			total += e.Weights[sid]
			if set[sid] {
				got += e.Weights[sid]
			}
		}
		if total != 0 {
			groups++
		}
		if got > total/2 {
			won++
		}
	}
	return won > groups/2
}

// TestVerifierDoesNotShareItsLists: callers may change what Voters and
// Observers return without changing the verifier.
func TestVerifierDoesNotShareItsLists(t *testing.T) {
	v := New(ensemble(3, 1))
	v.Voters()[0] = 99
	v.Observers()[0] = 99
	if !slices.Equal(v.Voters(), []int64{1, 2, 3}) || !slices.Equal(v.Observers(), []int64{4}) {
		t.Error("a verifier's member lists changed through a returned slice")
	}
}

func BenchmarkContainsQuorum(b *testing.B) {
	maj := New(ensemble(5, 0))
	e := ensemble(9, 0)
	e.Hierarchical = true
	e.Groups = map[int64][]int64{1: {1, 2, 3}, 2: {4, 5, 6}, 3: {7, 8, 9}}
	e.Weights = map[int64]int64{1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 1, 8: 1, 9: 1}
	hier := New(e)
	acks := []int64{1, 2, 4, 5}
	b.Run("majority", func(b *testing.B) {
		for b.Loop() {
			maj.ContainsQuorum(acks[:3])
		}
	})
	b.Run("hierarchical", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			hier.ContainsQuorum(acks)
		}
	})
}
