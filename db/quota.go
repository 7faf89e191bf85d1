package db

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gozk/gozk/proto"
)

// StatsTrack is the text of a quota limits or stats node (client §16.2):
// key=value pairs separated by runs of ',' or ';'. A missing key reads as
// -1.
type StatsTrack struct {
	keys   []string
	values []int64
}

// The StatsTrack keys ZooKeeper knows.
const (
	QuotaCount          = "count"
	QuotaBytes          = "bytes"
	QuotaCountHardLimit = "countHardLimit"
	QuotaByteHardLimit  = "byteHardLimit"
)

// ParseStatsTrack reads a limits or stats node's data as Java's StatsTrack
// does: pairs split on runs of ',' and ';', each split on '=' (extra '='
// parts ignored), an empty value meaning -1. Java throws on a pair without
// '=' or with a value that is not a number; such pairs are skipped here,
// so a malformed node never stops the tree.
func ParseStatsTrack(data []byte) StatsTrack {
	var st StatsTrack
	s := string(data)
	for len(s) > 0 {
		end := strings.IndexAny(s, ",;")
		pair := s
		if end >= 0 {
			pair, s = s[:end], s[end+1:]
		} else {
			s = ""
		}
		if pair == "" {
			continue
		}
		key, rest, found := strings.Cut(pair, "=")
		if !found {
			continue
		}
		value, _, _ := strings.Cut(rest, "=")
		v := int64(-1)
		if value != "" {
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil {
				continue
			}
			v = n
		}
		st.Set(key, v)
	}
	return st
}

// Get returns the value of key, -1 when absent.
func (st *StatsTrack) Get(key string) int64 {
	if i := slices.Index(st.keys, key); i >= 0 {
		return st.values[i]
	}
	return -1
}

// Set sets key to v.
func (st *StatsTrack) Set(key string, v int64) {
	if i := slices.Index(st.keys, key); i >= 0 {
		st.values[i] = v
		return
	}
	st.keys = append(st.keys, key)
	st.values = append(st.values, v)
}

// String formats the track as Java does: "count=N,bytes=M", then, when
// other keys exist, a stray "=" (so old parsers ignore the rest) and
// ";key=value" for each of them in key order.
func (st *StatsTrack) String() string {
	var b strings.Builder
	b.WriteString("count=")
	b.WriteString(strconv.FormatInt(st.Get(QuotaCount), 10))
	b.WriteString(",bytes=")
	b.WriteString(strconv.FormatInt(st.Get(QuotaBytes), 10))
	var extra []int
	for i, k := range st.keys {
		if k != QuotaCount && k != QuotaBytes {
			extra = append(extra, i)
		}
	}
	if len(extra) > 0 {
		slices.SortFunc(extra, func(a, b int) int { return strings.Compare(st.keys[a], st.keys[b]) })
		b.WriteByte('=')
		for _, i := range extra {
			b.WriteByte(';')
			b.WriteString(st.keys[i])
			b.WriteByte('=')
			b.WriteString(strconv.FormatInt(st.values[i], 10))
		}
	}
	return b.String()
}

// quotaRoots is the set of paths with a quota (Java's PathTrie of quota
// paths), normalised the way the trie splits them: components joined by
// single '/', blank components dropped.
type quotaRoots struct {
	set map[string]struct{}
}

// normaliseQuotaPath turns a path into its trie form, "" when it has no
// component (Java's trie rejects those, see addQuotaRoot).
func normaliseQuotaPath(path string) string {
	var b strings.Builder
	for part := range strings.SplitSeq(path, "/") {
		if strings.TrimFunc(part, func(r rune) bool { return r <= ' ' }) == "" {
			continue
		}
		b.WriteByte('/')
		b.WriteString(part)
	}
	return b.String()
}

func (q *quotaRoots) add(path string) {
	p := normaliseQuotaPath(path)
	if p == "" {
		// Java's PathTrie throws here (a zookeeper_limits node directly
		// under /zookeeper/quota); a quota on the whole tree is ignored.
		return
	}
	if q.set == nil {
		q.set = make(map[string]struct{})
	}
	q.set[p] = struct{}{}
}

func (q *quotaRoots) remove(path string) {
	delete(q.set, normaliseQuotaPath(path))
}

// maxPrefix returns the deepest quota root that is a component-wise prefix
// of path, or "" when there is none (Java's getMaxPrefixWithQuota, which
// also never answers "/").
func (q *quotaRoots) maxPrefix(path string) string {
	if len(q.set) == 0 {
		return ""
	}
	if !strings.HasPrefix(path, "/") || hasBlankComponent(path) {
		path = normaliseQuotaPath(path)
		if path == "" {
			return ""
		}
	}
	// Every prefix that ends before a '/' is in trie form, so the lookups
	// need no allocation.
	best := ""
	for i := 1; i <= len(path); i++ {
		if i == len(path) || path[i] == '/' {
			if _, ok := q.set[path[:i]]; ok {
				best = path[:i]
			}
		}
	}
	return best
}

// hasBlankComponent reports an empty or whitespace-only component (which
// Java's trie drops), including the empty one after a trailing '/'.
func hasBlankComponent(path string) bool {
	start := 1
	for i := 1; i <= len(path); i++ {
		if i == len(path) || path[i] == '/' {
			blank := true
			for j := start; j < i; j++ {
				if path[j] > ' ' {
					blank = false
					break
				}
			}
			if blank {
				return true
			}
			start = i + 1
		}
	}
	return false
}

func quotaStatsPath(root string) string  { return proto.QuotaPath + root + "/" + proto.QuotaStatsNode }
func quotaLimitsPath(root string) string { return proto.QuotaPath + root + "/" + proto.QuotaLimitsNode }

// updateQuotaStats adds to the usage kept in the stats node of a quota
// root. Java rewrites the node's data in place: no new version, mzxid or
// mtime, and no transaction.
func (t *Tree) updateQuotaStats(root string, countDiff, bytesDiff int64) {
	n := t.lookup(quotaStatsPath(root))
	if n == nil {
		return // Java logs "Missing node for stat"
	}
	st := ParseStatsTrack(t.dataOf(n))
	st.Set(QuotaCount, st.Get(QuotaCount)+countDiff)
	st.Set(QuotaBytes, st.Get(QuotaBytes)+bytesDiff)
	t.rewriteData(n, []byte(st.String()))
}

// recountQuota overwrites the stats node of a quota root with the current
// usage of its subtree: the number of nodes including the root itself and
// the sum of their data lengths. root is the text after /zookeeper/quota,
// used as Java uses it (a root whose node is missing counts 0).
func (t *Tree) recountQuota(root string) {
	stats := t.lookup(quotaStatsPath(root))
	if stats == nil {
		return // Java logs "Missing quota stat node"
	}
	count, bytes := t.subtreeUsage(t.lookup(root))
	var st StatsTrack
	st.Set(QuotaBytes, bytes)
	st.Set(QuotaCount, count)
	t.rewriteData(stats, []byte(st.String()))
}

func (t *Tree) subtreeUsage(n *node) (count, bytes int64) {
	if n == nil {
		return 0, 0
	}
	count, bytes = 1, int64(n.dataLen())
	if l := t.childList(n); l != nil {
		for i := range l.ids {
			c := l.at(i)
			if c == nil {
				continue
			}
			cc, cb := t.subtreeUsage(c)
			count += cc
			bytes += cb
		}
	}
	return count, bytes
}

// rewriteData replaces a node's data without touching its stat. n is
// replaced (see replaceData).
func (t *Tree) rewriteData(n *node, data []byte) {
	t.digestRemove(n)
	diff := int64(len(data) - n.dataLen())
	t.dataSize += diff
	if n == t.root {
		t.dataSize += diff // counted under "/" too
	}
	n = t.setNodeData(n, data)
	t.digestAdd(n)
}

// quotaOnCreate is Java's quota bookkeeping after a node is created: a
// zookeeper_limits node under /zookeeper/quota/X makes X a quota root, a
// zookeeper_stats node there gets X's current usage, and the deepest quota
// root above the new node counts it. It reports whether it may have
// rewritten a stats node (see rewriteData).
func (t *Tree) quotaOnCreate(path, parentPath, name string, dataLen int64) (rewrote bool) {
	if strings.HasPrefix(parentPath, proto.QuotaPath) {
		root := parentPath[len(proto.QuotaPath):]
		if name == proto.QuotaLimitsNode {
			t.quotas.add(root)
		}
		if name == proto.QuotaStatsNode {
			t.recountQuota(root)
			rewrote = true
		}
	}
	if root := t.quotas.maxPrefix(path); root != "" {
		t.updateQuotaStats(root, 1, dataLen)
		rewrote = true
	}
	return rewrote
}

// quotaOnDelete is the bookkeeping after a node is deleted. Java tests the
// parent against "/zookeeper" here (not "/zookeeper/quota" as on create);
// parents too short to hold a quota path make Java throw, and are ignored.
// It reports whether it may have rewritten a stats node.
func (t *Tree) quotaOnDelete(path, parentPath, name string, dataLen int64) bool {
	if name == proto.QuotaLimitsNode && strings.HasPrefix(parentPath, proto.ZooKeeperPath) && len(parentPath) > len(proto.QuotaPath) {
		t.quotas.remove(parentPath[len(proto.QuotaPath):])
	}
	if root := t.quotas.maxPrefix(path); root != "" {
		t.updateQuotaStats(root, -1, -dataLen)
		return true
	}
	return false
}

// setupQuotas rebuilds the quota roots and recounts every stats node after
// a load, as Java does at startup: every childless zookeeper_limits node
// under /zookeeper/quota names a quota root.
func (t *Tree) setupQuotas() {
	t.quotas = quotaRoots{}
	quota := t.lookup(proto.QuotaPath)
	if quota == nil {
		return
	}
	var visit func(n *node)
	visit = func(n *node) {
		if t.numChildren(n) == 0 {
			const suffix = "/" + proto.QuotaLimitsNode
			if path := t.pathOf(n); strings.HasSuffix(path, suffix) {
				root := path[len(proto.QuotaPath):strings.Index(path, suffix)]
				t.recountQuota(root)
				t.quotas.add(root)
			}
			return
		}
		l := t.childList(n)
		for i := range l.ids {
			if c := l.at(i); c != nil {
				visit(c)
			}
		}
	}
	visit(quota)
}

// CheckQuota is Java's quota check for a create (countDiff 1, bytesDiff the
// data length) or a setData (countDiff 0, bytesDiff new minus old length)
// of path: against the deepest quota root above path, each limit that
// applies (a hard limit when set, else the soft one) is compared with
// usage + diff. exceeded reports any excess (each is logged); hard
// reports that a hard limit was exceeded, which the server answers with
// QuotaExceeded when zookeeper.enforceQuota is on. Java stops at the first
// hard excess (count before bytes).
func (t *Tree) CheckQuota(path string, countDiff, bytesDiff int64) (exceeded bool, hard bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	root := t.quotas.maxPrefix(path)
	if root == "" {
		return false, false
	}
	limitsNode := t.lookup(quotaLimitsPath(root))
	if limitsNode == nil {
		return false, false
	}
	limits := ParseStatsTrack(t.dataOf(limitsNode))
	checkCount := countDiff != 0 && (limits.Get(QuotaCount) > -1 || limits.Get(QuotaCountHardLimit) > -1)
	checkBytes := bytesDiff != 0 && (limits.Get(QuotaBytes) > -1 || limits.Get(QuotaByteHardLimit) > -1)
	if !checkCount && !checkBytes {
		return false, false
	}
	statsNode := t.lookup(quotaStatsPath(root))
	if statsNode == nil {
		return false, false
	}
	usage := ParseStatsTrack(t.dataOf(statsNode))
	check := func(what string, current, soft, hardLimit int64) (bool, bool) {
		isHard := hardLimit > -1
		limit := soft
		kind := "soft"
		if isHard {
			limit, kind = hardLimit, "hard"
		}
		if current <= limit {
			return false, false
		}
		t.logf("Quota exceeded: " + root + " [current " + what + "=" + strconv.FormatInt(current, 10) +
			", " + kind + capitalise(what) + "Limit=" + strconv.FormatInt(limit, 10) + "]")
		return true, isHard
	}
	if checkCount {
		ex, h := check("count", usage.Get(QuotaCount)+countDiff, limits.Get(QuotaCount), limits.Get(QuotaCountHardLimit))
		if h {
			return true, true
		}
		exceeded = ex
	}
	if checkBytes {
		ex, h := check("bytes", usage.Get(QuotaBytes)+bytesDiff, limits.Get(QuotaBytes), limits.Get(QuotaByteHardLimit))
		exceeded = exceeded || ex
		hard = h
	}
	return exceeded, hard
}

func capitalise(what string) string {
	if what == "count" {
		return "Count"
	}
	return "Byte"
}

func (t *Tree) logf(msg string) {
	if t.opts.Logger != nil {
		t.opts.Logger(msg)
	}
}
