package server

import (
	"fmt"
	"sync"

	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/internal/invariants"
)

// changeRecord is the state a path will have once an outstanding txn is
// applied. Prep validates later writes against these records first and the
// data tree second, because prep runs ahead of the apply stage.
type changeRecord struct {
	zxid    int64
	path    string
	deleted bool
	node    db.NodeInfo
	// With the digest on: the node's digest once the change is applied
	// (0 when deleted), and the tree's (Java's PrecalculatedDigest).
	nodeDigest, treeDigest int64
}

// outstandingChanges is the ordered list of change records not yet applied,
// with an index of the newest record per path. Prep adds records; final
// removes those of every txn it applies, after applying it, so that a
// lookup under the mutex always sees either the record or the applied tree.
//
// The list is records[head:]: final drops records from the front by moving
// head, and the array is reused from the start once every record is gone,
// so a steady stream of writes appends without allocating.
type outstandingChanges struct {
	tree *db.Tree
	// digests: precalculate the tree's digest after each change, for the
	// txn digests Java's leader and log carry (zookeeper.digest.enabled).
	digests bool
	block   [60]byte // digest scratch, guarded by mu

	mu      sync.Mutex
	records []*changeRecord
	head    int
	byPath  map[string]*changeRecord
}

// compactAfter is how many dropped slots at the front of records make
// applied move the live records down, when they are also at least half of
// the array: a list that never empties still reuses its array.
const compactAfter = 1024

func newOutstandingChanges(tree *db.Tree) *outstandingChanges {
	return &outstandingChanges{tree: tree, byPath: map[string]*changeRecord{}, digests: tree.DigestEnabled()}
}

// canonical maps the root's two names to one key.
func canonical(path string) string {
	if path == "" {
		return "/"
	}
	return path
}

// lookup returns the state path will have after every outstanding txn.
func (o *outstandingChanges) lookup(path string) (db.NodeInfo, bool) {
	o.mu.Lock()
	rec := o.byPath[canonical(path)]
	if rec != nil {
		o.mu.Unlock()
		return rec.node, !rec.deleted
	}
	// Look the tree up while holding the mutex: final removes a record
	// only after applying it, so the tree already reflects anything that
	// is no longer here.
	n, ok := o.tree.Node(path)
	o.mu.Unlock()
	return n, ok
}

func (o *outstandingChanges) add(rec *changeRecord) {
	rec.path = canonical(rec.path)
	o.mu.Lock()
	if o.digests {
		o.precalculateDigest(rec)
	}
	if invariants.Enabled && len(o.records) > o.head {
		// applied drops records from the front up to a zxid: a record
		// behind a newer one would outlive its txn.
		if last := o.records[len(o.records)-1]; rec.zxid < last.zxid {
			invariants.Violated("outstanding changes: record of 0x%x for %s added after one of 0x%x for %s; records must follow zxid order",
				rec.zxid, rec.path, last.zxid, last.path)
		}
	}
	o.records = append(o.records, rec)
	o.byPath[rec.path] = rec
	o.mu.Unlock()
}

// precalculateDigest sets rec's node and tree digests, as Java's
// PrepRequestProcessor.precalculateDigest does: the tree's digest after
// the outstanding changes, less the node's digest before rec, plus its
// digest after. o.mu is held.
func (o *outstandingChanges) precalculateDigest(rec *changeRecord) {
	var before int64
	if prev := o.byPath[rec.path]; prev != nil {
		before = prev.nodeDigest
	} else {
		before = o.tree.NodeDigestOf(rec.path, &o.block)
	}
	rec.nodeDigest = 0
	if !rec.deleted {
		rec.nodeDigest = db.NodeDigestWith(&o.block, rec.path, rec.node.Data, &rec.node.Stat)
	}
	rec.treeDigest = o.treeDigestLocked() - before + rec.nodeDigest
}

// treeDigest is the tree's digest once every outstanding change is
// applied: the newest record's, or the tree's own with none.
func (o *outstandingChanges) treeDigest() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.treeDigestLocked()
}

func (o *outstandingChanges) treeDigestLocked() int64 {
	if n := len(o.records); n > o.head {
		return o.records[n-1].treeDigest
	}
	return o.tree.Digest()
}

// applied drops the records of every txn up to zxid.
func (o *outstandingChanges) applied(zxid int64) {
	o.mu.Lock()
	n := o.head
	for n < len(o.records) && o.records[n].zxid <= zxid {
		rec := o.records[n]
		if o.byPath[rec.path] == rec {
			delete(o.byPath, rec.path)
		}
		o.records[n] = nil
		n++
	}
	o.head = n
	switch {
	case n == len(o.records):
		o.records, o.head = o.records[:0], 0
	case n >= compactAfter && 2*n >= len(o.records):
		live := copy(o.records, o.records[n:])
		clear(o.records[live:])
		o.records, o.head = o.records[:live], 0
	}
	o.mu.Unlock()
}

// reset drops every record: a leader's term ended with writes prepared
// and never applied.
func (o *outstandingChanges) reset() {
	o.mu.Lock()
	clear(o.records)
	o.records, o.head = o.records[:0], 0
	clear(o.byPath)
	o.mu.Unlock()
}

// checkIdle asserts that nothing is outstanding, for a pipeline that has
// applied every write it prepared: a record left behind would make prep
// judge later writes against a state the tree never reaches.
func (o *outstandingChanges) checkIdle() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if n := len(o.records) - o.head; n != 0 || len(o.byPath) != 0 {
		first := "none"
		if n > 0 {
			r := o.records[o.head]
			first = fmt.Sprintf("0x%x %s", r.zxid, r.path)
		}
		invariants.Violated("outstanding changes: %d records (oldest %s) and %d paths left with every write applied",
			n, first, len(o.byPath))
	}
}

// snapshot remembers, for a multi that may be rolled back, what the index
// held before the multi touched it.
type changeSnapshot struct {
	zxid  int64
	saved map[string]*changeRecord
	count int
}

func (o *outstandingChanges) begin(zxid int64) *changeSnapshot {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := &changeSnapshot{zxid: zxid, saved: map[string]*changeRecord{}}
	for _, r := range o.records[o.head:] {
		s.saved[r.path] = o.byPath[r.path]
	}
	s.count = len(o.records) - o.head
	return s
}

// rollback removes the records added since begin and restores the index,
// skipping records final has applied in the meantime.
func (o *outstandingChanges) rollback(s *changeSnapshot) {
	o.mu.Lock()
	defer o.mu.Unlock()
	all := o.records[o.head:]
	kept := all[:0]
	touched := map[string]bool{}
	for _, r := range all {
		if r.zxid == s.zxid {
			touched[r.path] = true
			continue
		}
		kept = append(kept, r)
	}
	clear(all[len(kept):])
	o.records = o.records[:o.head+len(kept)]
	live := map[*changeRecord]bool{}
	for _, r := range o.records[o.head:] {
		live[r] = true
	}
	for p := range touched {
		if prev := s.saved[p]; prev != nil && live[prev] {
			o.byPath[p] = prev
		} else {
			delete(o.byPath, p)
		}
	}
}

// pendingEphemerals adjusts a session's ephemerals in the tree (es, a
// copy) by the outstanding creates and deletes, as Java's closeSession
// does, and lists them in the order Java's set iterates: the order the
// closeSession txn lists them and deletes them in.
func (o *outstandingChanges) pendingEphemerals(sid int64, es *db.JavaStringSet) []string {
	o.mu.Lock()
	for _, r := range o.records[o.head:] {
		if r.deleted {
			es.Remove(r.path)
		} else if r.node.Stat.EphemeralOwner == sid {
			es.Add(r.path)
		}
	}
	o.mu.Unlock()
	return es.Paths()
}
