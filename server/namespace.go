package server

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/proto"
)

// SummarySet is Java's AvgMinMaxCounterSet: one basic summary per key,
// here the top-level namespace of a path (read_per_namespace and
// write_per_namespace). Lookups read a copy-on-write map without locking;
// a new key takes a lock once.
type SummarySet struct {
	Name  string
	m     atomic.Pointer[map[string]*Summary]
	mu    sync.Mutex
	order []string // keys in the order they appeared
}

// NewSummarySet returns an empty set.
func NewSummarySet(name string) *SummarySet {
	ss := &SummarySet{Name: name}
	ss.m.Store(&map[string]*Summary{})
	return ss
}

// Add records v under key.
func (ss *SummarySet) Add(hint uint64, key string, v int64) {
	if s := (*ss.m.Load())[key]; s != nil {
		s.Add(hint, v)
		return
	}
	ss.mu.Lock()
	old := *ss.m.Load()
	s := old[key]
	if s == nil {
		next := make(map[string]*Summary, len(old)+1)
		for k, v := range old {
			next[k] = v
		}
		key = string([]byte(key)) // the caller's string may point into a frame
		s = NewSummary(ss.Name, false)
		next[key] = s
		ss.order = append(ss.order, key)
		ss.m.Store(&next)
	}
	ss.mu.Unlock()
	s.Add(hint, v)
}

// Keys returns the keys in the order they first appeared.
func (ss *SummarySet) Keys() []string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return slices.Clone(ss.order)
}

// Get returns the summary of key, or nil.
func (ss *SummarySet) Get(key string) *Summary { return (*ss.m.Load())[key] }

// Reset empties every summary and keeps the keys, as Java's does.
func (ss *SummarySet) Reset() {
	for _, s := range *ss.m.Load() {
		s.Reset()
	}
}

// topNamespace is Java's PathUtils.getTopNamespace: "app" for "/app/x"
// and "/app", nothing for "/" or a path not starting with '/'.
func topNamespace(path string) (string, bool) {
	if len(path) < 2 || path[0] != '/' {
		return "", false
	}
	rest := path[1:]
	for i := 0; i < len(rest); i++ {
		if rest[i] == '/' {
			rest = rest[:i]
			break
		}
	}
	return rest, rest != ""
}

// statOverheadBytes is what Java's DataTree adds to every read for the
// Stat (six longs and five ints).
const statOverheadBytes = 6*8 + 5*4

// readStat records a read of path that returned bytes of data (getData:
// the data; exists: 0; getChildren: the children's name lengths), as
// Java's DataTree.updateReadStat does.
func (m *monitor) readStat(hint uint64, path string, bytes int) {
	if m.disabled {
		return
	}
	if ns, ok := topNamespace(path); ok {
		m.metrics.ReadPerNamespace.Add(hint, ns, int64(len(path)+bytes+statOverheadBytes))
	}
}

// writeStats records the node changes of one applied txn as Java's
// DataTree.updateWriteStat does: path length plus data length for a
// create or setData, path length for a delete.
func (m *monitor) writeStats(events []db.Event) {
	if m.disabled {
		return
	}
	for _, ev := range events {
		var n int64
		switch ev.Type {
		case proto.EventNodeCreated, proto.EventNodeDataChanged:
			if data, _, _, ok := m.srv.tree.GetData(ev.Path); ok {
				n = int64(len(data))
			}
		case proto.EventNodeDeleted:
		default:
			continue
		}
		if ns, ok := topNamespace(ev.Path); ok {
			m.metrics.WritePerNamespace.Add(0, ns, int64(len(ev.Path))+n)
		}
	}
}

// nameBytes is the bytes Java counts for a getChildren read: the lengths
// of the children's names.
func nameBytes(children []string) int {
	n := 0
	for _, c := range children {
		n += len(c)
	}
	return n
}
