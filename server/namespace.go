package server

import (
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/proto"
)

// SummarySet is Java's AvgMinMaxCounterSet: one basic summary per key,
// here the top-level namespace of a path (read_per_namespace and
// write_per_namespace). Any client may create top-level znodes, so a key
// costs what Java's does, a couple of hundred bytes: count, sum, min, max
// and only the histogram buckets its values fell in (for the median the
// Prometheus provider exports). Lookups take no lock, and a new key costs
// O(1) whatever the number of keys. The server drops a namespace's
// figures when its top-level znode is deleted (see writeStats).
type SummarySet struct {
	Name string
	m    sync.Map // key -> *namespaceSummary
}

// NewSummarySet returns an empty set.
func NewSummarySet(name string) *SummarySet { return &SummarySet{Name: name} }

// Add records v under key.
func (ss *SummarySet) Add(key string, v int64) {
	if s, ok := ss.m.Load(key); ok {
		s.(*namespaceSummary).add(v)
		return
	}
	// The caller's string may point into a frame.
	s, _ := ss.m.LoadOrStore(strings.Clone(key), newNamespaceSummary())
	s.(*namespaceSummary).add(v)
}

// Drop forgets key and its figures.
func (ss *SummarySet) Drop(key string) { ss.m.Delete(key) }

// Keys returns the keys, sorted.
func (ss *SummarySet) Keys() []string {
	var keys []string
	ss.m.Range(func(k, _ any) bool {
		keys = append(keys, k.(string))
		return true
	})
	slices.Sort(keys)
	return keys
}

// Snapshot reads the summary of key; false if there is none (it may have
// been dropped since Keys).
func (ss *SummarySet) Snapshot(key string) (SummarySnapshot, bool) {
	s, ok := ss.m.Load(key)
	if !ok {
		return SummarySnapshot{}, false
	}
	return s.(*namespaceSummary).snapshot(), true
}

// Reset empties every summary and keeps the keys, as Java's does.
func (ss *SummarySet) Reset() {
	ss.m.Range(func(_, s any) bool {
		s.(*namespaceSummary).reset()
		return true
	})
}

// namespaceSummary is one key of a SummarySet: a basic summary without the
// Summary's shards and dense histogram (75 KB), which a key that anyone
// can add cannot afford.
type namespaceSummary struct {
	count, sum atomic.Int64
	min, max   atomic.Int64
	hist       atomic.Pointer[sparseHistogram]
	grow       sync.Mutex // serialises adding a bucket to hist
}

// sparseHistogram holds the histogram buckets (see histIndex) that have
// values. A new bucket replaces the whole histogram, which shares the
// counters of the old one, so that an increment through an old copy is
// not lost; there are at most histBuckets buckets, so a key's histogram
// is copied a bounded number of times.
type sparseHistogram struct {
	index  []uint16 // ascending bucket indexes
	counts []*atomic.Int64
}

func newNamespaceSummary() *namespaceSummary {
	s := &namespaceSummary{}
	s.min.Store(math.MaxInt64)
	s.max.Store(math.MinInt64)
	return s
}

func (s *namespaceSummary) add(v int64) {
	s.count.Add(1)
	s.sum.Add(v)
	recordExtremes(&s.min, &s.max, v)
	i := uint16(histIndex(v))
	h := s.hist.Load()
	if h != nil {
		if j, ok := slices.BinarySearch(h.index, i); ok {
			h.counts[j].Add(1)
			return
		}
	}
	s.grow.Lock()
	h = s.hist.Load()
	var index []uint16
	var counts []*atomic.Int64
	if h != nil {
		index, counts = h.index, h.counts
	}
	j, ok := slices.BinarySearch(index, i)
	if !ok {
		h = &sparseHistogram{
			index:  slices.Insert(slices.Clip(index), j, i),
			counts: slices.Insert(slices.Clip(counts), j, new(atomic.Int64)),
		}
		s.hist.Store(h)
	}
	s.grow.Unlock()
	h.counts[j].Add(1)
}

func (s *namespaceSummary) reset() {
	s.count.Store(0)
	s.sum.Store(0)
	s.min.Store(math.MaxInt64)
	s.max.Store(math.MinInt64)
	s.grow.Lock()
	s.hist.Store(nil)
	s.grow.Unlock()
}

func (s *namespaceSummary) snapshot() SummarySnapshot {
	out := SummarySnapshot{Count: s.count.Load(), Sum: s.sum.Load()}
	out.Min, out.Max = readExtremes(&s.min, &s.max)
	if h := s.hist.Load(); h != nil {
		out.Buckets = make([]HistogramBucket, 0, len(h.index))
		for j, i := range h.index {
			if n := h.counts[j].Load(); n > 0 {
				out.Buckets = append(out.Buckets, HistogramBucket{Lower: histLower(int(i)), Count: n})
			}
		}
	}
	return out
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
func (m *monitor) readStat(path string, bytes int) {
	if m.disabled {
		return
	}
	if ns, ok := topNamespace(path); ok {
		m.metrics.ReadPerNamespace.Add(ns, int64(len(path)+bytes+statOverheadBytes))
	}
}

// writeStats records the node changes of one applied txn as Java's
// DataTree.updateWriteStat does: path length plus data length for a
// create or setData, path length for a delete.
//
// When a top-level znode is deleted, its namespace's figures go (Java
// keeps them until the server restarts): names that no longer exist cost
// nothing, whoever creates and deletes them. It runs under applyMu's
// write lock and readStat under its read lock, on nodes that exist, so no
// read can record into a namespace after its znode is gone.
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
		ns, ok := topNamespace(ev.Path)
		if !ok {
			continue
		}
		if ev.Type == proto.EventNodeDeleted && len(ns) == len(ev.Path)-1 {
			// The namespace's figures go with it: recording this delete
			// first would only make them to drop them.
			m.dropNamespace(ns)
			continue
		}
		m.metrics.WritePerNamespace.Add(ns, int64(len(ev.Path))+n)
	}
}

func (m *monitor) dropNamespace(ns string) {
	m.metrics.ReadPerNamespace.Drop(ns)
	m.metrics.WritePerNamespace.Drop(ns)
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
