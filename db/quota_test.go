package db

import (
	"slices"
	"testing"

	"github.com/gozk/gozk/proto"
)

func TestStatsTrack(t *testing.T) {
	cases := []struct {
		in     string
		count  int64
		bytes  int64
		hard   int64
		format string
	}{
		{"count=3,bytes=42", 3, 42, -1, "count=3,bytes=42"},
		{"count=-1,bytes=-1=;byteHardLimit=-1;countHardLimit=10", -1, -1, 10, "count=-1,bytes=-1=;byteHardLimit=-1;countHardLimit=10"},
		{"", -1, -1, -1, "count=-1,bytes=-1"},
		{"bytes=5;;,count=2", 2, 5, -1, "count=2,bytes=5"},
		{"countHardLimit=4,count==7", -1, -1, 4, "count=-1,bytes=-1=;countHardLimit=4"},
		{"zeta=1,alpha=2,count=1,bytes=2", 1, 2, -1, "count=1,bytes=2=;alpha=2;zeta=1"},
		{"count=x,junk,bytes=9", -1, 9, -1, "count=-1,bytes=9"},
	}
	for _, c := range cases {
		st := ParseStatsTrack([]byte(c.in))
		if st.Get(QuotaCount) != c.count || st.Get(QuotaBytes) != c.bytes || st.Get(QuotaCountHardLimit) != c.hard {
			t.Errorf("ParseStatsTrack(%q) = count %d bytes %d hard %d", c.in, st.Get(QuotaCount), st.Get(QuotaBytes), st.Get(QuotaCountHardLimit))
		}
		if got := st.String(); got != c.format {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.format)
		}
	}
}

func TestQuotaMaxPrefix(t *testing.T) {
	var q quotaRoots
	for _, p := range []string{"/a", "/a/b/c", "x/y", "/zookeeper/quota/whole/.."} {
		q.add(p)
	}
	q.add("") // Java's trie would throw; ignored
	q.add("/")
	cases := []struct{ path, want string }{
		{"/a", "/a"}, {"/a/b", "/a"}, {"/a/b/c", "/a/b/c"}, {"/a/b/c/d", "/a/b/c"},
		{"/ab", ""}, {"/x/y/z", "/x/y"}, {"/", ""}, {"", ""}, {"/a//b/c", "/a/b/c"},
		{"/a/ /b/c", "/a/b/c"}, {"/b", ""},
	}
	for _, c := range cases {
		if got := q.maxPrefix(c.path); got != c.want {
			t.Errorf("maxPrefix(%q) = %q, want %q", c.path, got, c.want)
		}
	}
	q.remove("/a/b/c")
	if got := q.maxPrefix("/a/b/c/d"); got != "/a" {
		t.Errorf("after remove: %q", got)
	}
	if allocs := testing.AllocsPerRun(100, func() { q.maxPrefix("/a/b/c/d") }); allocs != 0 {
		t.Errorf("maxPrefix allocates %v times", allocs)
	}
}

func quotaTree(t *testing.T, limits string) (*Tree, *txnBuilder) {
	tree := New(Options{DigestEnabled: true})
	b := &txnBuilder{}
	mustApply(t, tree, b.create("/app", []byte("1234"), -1))
	mustApply(t, tree, b.create("/app/x", []byte("12"), -1))
	mustApply(t, tree, b.create("/zookeeper/quota/app", nil, -1))
	mustApply(t, tree, b.create("/zookeeper/quota/app/zookeeper_limits", []byte(limits), -1))
	mustApply(t, tree, b.create("/zookeeper/quota/app/zookeeper_stats", []byte("count=0,bytes=0"), -1))
	return tree, b
}

func statsOf(tree *Tree, root string) string {
	data, _, _, _ := tree.GetData(quotaStatsPath(root))
	return string(data)
}

func TestQuotaStatsMaintained(t *testing.T) {
	tree, b := quotaTree(t, "count=10,bytes=100")
	statsStat, _, _ := tree.Exists(quotaStatsPath("/app"))
	steps := []struct {
		txn  func() Result
		want string
	}{
		{func() Result { return Result{} }, "count=2,bytes=6"},
		{func() Result { return mustApply(t, tree, b.create("/app/y", []byte("abc"), -1)) }, "count=3,bytes=9"},
		{func() Result { return mustApply(t, tree, b.setData("/app/y", []byte("a"), 1)) }, "count=3,bytes=7"},
		{func() Result { return mustApply(t, tree, b.setData("/app", nil, 1)) }, "count=3,bytes=3"},
		{func() Result { return mustApply(t, tree, b.delete("/app/x")) }, "count=2,bytes=1"},
		{func() Result { return tree.Apply(b.create("/app/x", nil, -1)) }, "count=3,bytes=1"},
		{func() Result { return tree.Apply(b.create("/app/x", []byte("dup"), -1)) }, "count=3,bytes=1"},
		{func() Result { return mustApply(t, tree, b.create("/apple", []byte("zz"), -1)) }, "count=3,bytes=1"},
	}
	for i, s := range steps {
		s.txn()
		if got := statsOf(tree, "/app"); got != s.want {
			t.Errorf("step %d: stats %q, want %q", i, got, s.want)
		}
	}
	// The rewrites are not transactions: the stats node's stat is as created.
	if got, _, _ := tree.Exists(quotaStatsPath("/app")); got.Version != 0 || got.Mzxid != statsStat.Mzxid || got.Czxid != statsStat.Czxid {
		t.Errorf("stats node stat changed: %+v", got)
	}
	// Removing the limits node ends the quota.
	mustApply(t, tree, b.delete("/zookeeper/quota/app/zookeeper_limits"))
	mustApply(t, tree, b.create("/app/z", []byte("zz"), -1))
	if got := statsOf(tree, "/app"); got != "count=3,bytes=1" {
		t.Errorf("after removing the quota: %q", got)
	}
	if exceeded, _ := tree.CheckQuota("/app/w", 1, 100); exceeded {
		t.Error("quota checked after removal")
	}
	assertDigestConsistent(t, tree)
}

func TestCheckQuota(t *testing.T) {
	cases := []struct {
		name          string
		limits        string
		path          string
		count, bytes  int64
		exceeded, hrd bool
		log           string
	}{
		{"under soft limits", "count=10,bytes=100", "/app/n", 1, 10, false, false, ""},
		{"soft count", "count=2,bytes=100", "/app/n", 1, 10, true, false, "Quota exceeded: /app [current count=3, softCountLimit=2]"},
		{"soft bytes", "count=10,bytes=10", "/app/n", 1, 5, true, false, "Quota exceeded: /app [current bytes=11, softByteLimit=10]"},
		{"exactly at the limit", "count=3,bytes=11", "/app/n", 1, 5, false, false, ""},
		{"hard count", "count=-1,bytes=-1=;byteHardLimit=-1;countHardLimit=2", "/app/n", 1, 0, true, true, "Quota exceeded: /app [current count=3, hardCountLimit=2]"},
		{"hard bytes", "count=-1,bytes=-1=;byteHardLimit=7;countHardLimit=-1", "/app", 0, 2, true, true, "Quota exceeded: /app [current bytes=8, hardByteLimit=7]"},
		{"hard wins over soft", "count=1,bytes=-1=;countHardLimit=5", "/app/n", 1, 0, false, false, ""},
		{"count diff zero skips count", "count=0,bytes=-1", "/app", 0, 3, false, false, ""},
		{"outside the quota", "count=0,bytes=0", "/apple", 1, 3, false, false, ""},
		{"soft count then hard bytes", "count=1,bytes=-1=;byteHardLimit=6", "/app/n", 1, 1, true, true, "Quota exceeded: /app [current bytes=7, hardByteLimit=6]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tree, _ := quotaTree(t, c.limits)
			var logs []string
			tree.opts.Logger = func(msg string) { logs = append(logs, msg) }
			exceeded, hard := tree.CheckQuota(c.path, c.count, c.bytes)
			if exceeded != c.exceeded || hard != c.hrd {
				t.Errorf("CheckQuota = %v, %v; want %v, %v", exceeded, hard, c.exceeded, c.hrd)
			}
			if c.log != "" && (len(logs) == 0 || logs[len(logs)-1] != c.log) {
				t.Errorf("logs %q, want last %q", logs, c.log)
			}
			if c.log == "" && len(logs) != 0 {
				t.Errorf("unexpected logs %q", logs)
			}
		})
	}
}

func TestQuotaStatsRecountedOnLoad(t *testing.T) {
	tree, b := quotaTree(t, "count=10,bytes=100")
	mustApply(t, tree, b.create("/zookeeper/quota/app/sub", nil, -1))
	mustApply(t, tree, b.create("/zookeeper/quota/app/sub/zookeeper_limits", []byte("count=1"), -1))
	mustApply(t, tree, b.create("/zookeeper/quota/app/sub/zookeeper_stats", nil, -1))
	mustApply(t, tree, b.create("/app/sub", []byte("s"), -1))
	if got := statsOf(tree, "/app/sub"); got != "count=1,bytes=1" {
		t.Fatalf("sub stats %q", got)
	}
	tree.mu.Lock()
	tree.rewriteData(tree.lookup(quotaStatsPath("/app")), []byte("count=0,bytes=0"))
	tree.quotas = quotaRoots{}
	tree.mu.Unlock()
	tree.FinishLoad()
	if got := statsOf(tree, "/app"); got != "count=3,bytes=7" {
		t.Errorf("recounted /app stats %q", got)
	}
	tree.mu.RLock()
	roots := make([]string, 0)
	for r := range tree.quotas.set {
		roots = append(roots, r)
	}
	tree.mu.RUnlock()
	slices.Sort(roots)
	if !slices.Equal(roots, []string{"/app", "/app/sub"}) {
		t.Errorf("quota roots %v", roots)
	}
	if _, hard := tree.CheckQuota("/app/sub/x", 1, 0); hard {
		t.Error("soft limit reported as hard")
	}
	if exceeded, _ := tree.CheckQuota("/app/sub/x", 1, 0); !exceeded {
		t.Error("nested quota not found after load")
	}
}

func TestQuotaOnNodeCreatedBeforeLimits(t *testing.T) {
	// A stats node created for a quota path that does not exist counts 0,
	// and a limits node directly under /zookeeper/quota is ignored.
	tree := New(Options{})
	b := &txnBuilder{}
	mustApply(t, tree, b.create("/zookeeper/quota/none", nil, -1))
	mustApply(t, tree, b.create("/zookeeper/quota/none/zookeeper_stats", []byte("junk"), -1))
	if got := statsOf(tree, "/none"); got != "count=0,bytes=0" {
		t.Errorf("stats of a missing quota path %q", got)
	}
	res := tree.Apply(b.create("/zookeeper/quota/zookeeper_limits", []byte("count=1"), -1))
	if res.Err != proto.ErrOK {
		t.Errorf("limits at the quota root: %v", res.Err)
	}
	if exceeded, _ := tree.CheckQuota("/a", 1, 0); exceeded {
		t.Error("whole-tree quota applied")
	}
}
