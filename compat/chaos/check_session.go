package chaos

import (
	"fmt"
	"path"
	"sort"
)

// findings collects anomaly descriptions, keeping the first few of a run
// verbatim and counting the rest, so that one systematic fault does not
// flood the report.
type findings struct {
	list    []string
	dropped int
}

const maxFindings = 20

func (f *findings) add(format string, args ...any) {
	if len(f.list) >= maxFindings {
		f.dropped++
		return
	}
	f.list = append(f.list, fmt.Sprintf(format, args...))
}

func (f *findings) result() []string {
	if f.dropped > 0 {
		return append(f.list, fmt.Sprintf("... and %d more anomalies of the same checks", f.dropped))
	}
	return f.list
}

// deleteAttempts returns, for checkSessions, that a node may be missing
// from a later list when some client had issued a delete of it (with any
// outcome but a definite failure) before that list returned.
func deleteAttempts(ops []Op) func(p string, by int64) bool {
	first := map[string]int64{}
	for _, op := range ops {
		if op.Kind != KindDelete || op.Outcome == Failed {
			continue
		}
		if t, ok := first[op.Key]; !ok || op.Call < t {
			first[op.Key] = op.Call
		}
	}
	return func(p string, by int64) bool {
		t, ok := first[p]
		return ok && t <= by
	}
}

type keySeen struct {
	mzxid   int64
	version int32
	server  string
	own     bool
}

type listSeen struct {
	cversion int32
	pzxid    int64
	children map[string]bool
	server   string
}

// checkSessions checks, for every session of the history, what
// ZooKeeper promises one session whichever member serves it:
//
//   - monotonic reads: a node's (mzxid, version) and a parent's
//     (pzxid, cversion) never go back, and a child once listed stays
//     listed unless mayVanish says it may be gone;
//   - read-your-writes: after an acknowledged setData a read of the node
//     sees that version or a newer one; after an acknowledged create or
//     delete a list of the parent has, or lacks, the child;
//   - sequential consistency and single system image: once the session
//     has seen zxid Z (any stat it received), a read of a node misses no
//     acknowledged setData of that node with a zxid up to Z, whichever
//     member serves the read (a reconnect never goes back in time);
//   - ordered updates: an acknowledged setData gets a zxid above every
//     zxid the session had seen when it was issued.
//
// Only operations acknowledged in a session that stayed the same across
// the operation count; ops must be ordered by Call.
func checkSessions(ops []Op, mayVanish func(p string, by int64) bool) []string {
	var f findings
	writes := map[string][]int64{}
	for _, op := range ops {
		if op.Kind == KindCAS && op.Outcome == OK {
			writes[op.Key] = append(writes[op.Key], op.Mzxid)
		}
	}
	for k := range writes {
		sort.Slice(writes[k], func(i, j int) bool { return writes[k][i] < writes[k][j] })
	}
	bySession := map[int64][]Op{}
	var ids []int64
	for _, op := range ops {
		if op.Session == 0 || op.Outcome != OK {
			continue
		}
		if _, ok := bySession[op.Session]; !ok {
			ids = append(ids, op.Session)
		}
		bySession[op.Session] = append(bySession[op.Session], op)
	}
	for _, id := range ids {
		checkSession(&f, id, bySession[id], writes, mayVanish)
	}
	return f.result()
}

func checkSession(f *findings, id int64, ops []Op, writes map[string][]int64, mayVanish func(string, int64) bool) {
	seen := map[string]keySeen{}
	lists := map[string]listSeen{}
	created := map[string]map[string]bool{} // parent -> children this session created
	deleted := map[string]map[string]bool{} // parent -> children this session deleted
	var horizon int64
	var horizonAt string
	for _, op := range ops {
		switch op.Kind {
		case KindRead, KindLinRead:
			if prev, ok := seen[op.Key]; ok && (op.Mzxid < prev.mzxid || op.Version < prev.version) {
				rule := "monotonic reads"
				if prev.own {
					rule = "read-your-writes"
				}
				f.add("%s: session %#x read %s at %s: version %d mzxid %#x after it had seen version %d mzxid %#x at %s",
					rule, id, op.Key, op.Server, op.Version, op.Mzxid, prev.version, prev.mzxid, prev.server)
			}
			ws := writes[op.Key]
			i := sort.Search(len(ws), func(i int) bool { return ws[i] > op.Mzxid })
			if i < len(ws) && ws[i] <= horizon {
				f.add("sequential consistency: session %#x read %s at %s with mzxid %#x, missing the acknowledged write %#x though it had seen zxid %#x at %s",
					id, op.Key, op.Server, op.Mzxid, ws[i], horizon, horizonAt)
			}
			if prev, ok := seen[op.Key]; !ok || op.Mzxid >= prev.mzxid {
				seen[op.Key] = keySeen{mzxid: op.Mzxid, version: op.Version, server: op.Server}
			}
			if op.Mzxid > horizon {
				horizon, horizonAt = op.Mzxid, op.Server
			}
		case KindCAS:
			if op.Mzxid <= horizon {
				f.add("ordered updates: session %#x's acknowledged write of %s got zxid %#x, not above zxid %#x it had seen at %s before issuing it",
					id, op.Key, op.Mzxid, horizon, horizonAt)
			}
			seen[op.Key] = keySeen{mzxid: op.Mzxid, version: op.Version, server: op.Server, own: true}
			if op.Mzxid > horizon {
				horizon, horizonAt = op.Mzxid, op.Server
			}
		case KindCreate:
			parent, child := path.Split(op.Path)
			parent = path.Clean(parent)
			if created[parent] == nil {
				created[parent] = map[string]bool{}
			}
			created[parent][child] = true
		case KindDelete:
			parent, child := path.Split(op.Key)
			parent = path.Clean(parent)
			if deleted[parent] == nil {
				deleted[parent] = map[string]bool{}
			}
			deleted[parent][child] = true
		case KindList:
			now := map[string]bool{}
			for _, c := range op.Children {
				now[c] = true
			}
			if prev, ok := lists[op.Key]; ok {
				if op.Cversion < prev.cversion || op.Pzxid < prev.pzxid {
					f.add("monotonic reads: session %#x listed %s at %s with cversion %d pzxid %#x after it had seen cversion %d pzxid %#x at %s",
						id, op.Key, op.Server, op.Cversion, op.Pzxid, prev.cversion, prev.pzxid, prev.server)
				}
				for c := range prev.children {
					if !now[c] && !mayVanish(op.Key+"/"+c, op.Return) {
						f.add("monotonic reads: session %#x listed %s at %s without %s, which it had listed at %s and nobody deleted",
							id, op.Key, op.Server, c, prev.server)
					}
				}
			}
			for c := range created[op.Key] {
				if !now[c] && !mayVanish(op.Key+"/"+c, op.Return) {
					f.add("read-your-writes: session %#x listed %s at %s without %s, which it had created and nobody deleted",
						id, op.Key, op.Server, c)
				}
			}
			for c := range deleted[op.Key] {
				if now[c] {
					f.add("read-your-writes: session %#x listed %s at %s with %s, which it had deleted",
						id, op.Key, op.Server, c)
				}
			}
			lists[op.Key] = listSeen{cversion: op.Cversion, pzxid: op.Pzxid, children: now, server: op.Server}
			if op.Pzxid > horizon {
				horizon, horizonAt = op.Pzxid, op.Server
			}
		}
	}
}
