package watches

import (
	"fmt"
	"testing"

	"github.com/gozk/gozk/proto"
)

// countingWatcher stands in for a connection whose Notify only enqueues.
type countingWatcher struct{ n int }

func (c *countingWatcher) Notify(proto.WatcherEvent, []proto.ACL) { c.n++ }

func newWatchers(n int) []*countingWatcher {
	ws := make([]*countingWatcher, n)
	for i := range ws {
		ws[i] = &countingWatcher{}
	}
	return ws
}

// BenchmarkTriggerFanOut fires one node watched by 1,000 connections.
func BenchmarkTriggerFanOut(b *testing.B) {
	const fanOut = 1000
	b.Run("persistent", func(b *testing.B) {
		m := NewManager()
		for _, w := range newWatchers(fanOut) {
			m.AddPersistentWatch("/node", w, false)
		}
		b.ReportAllocs()
		for b.Loop() {
			if n := m.Trigger(proto.EventNodeDataChanged, "/node", nil); n != fanOut {
				b.Fatalf("notified %d", n)
			}
		}
	})
	// One op re-registers the 1,000 one-shot watches (as 1,000 getData
	// calls would) and fires them.
	b.Run("one-shot+re-add", func(b *testing.B) {
		m := NewManager()
		ws := newWatchers(fanOut)
		b.ReportAllocs()
		for b.Loop() {
			for _, w := range ws {
				m.AddDataWatch("/node", w)
			}
			if n := m.Trigger(proto.EventNodeDataChanged, "/node", nil); n != fanOut {
				b.Fatalf("notified %d", n)
			}
		}
	})
}

// BenchmarkAddDataWatchTrigger is the common pattern of many clients each
// watching their own nodes: one op adds a getData watch and fires it.
func BenchmarkAddDataWatchTrigger(b *testing.B) {
	const paths, conns = 10000, 100
	names := make([]string, paths)
	for i := range names {
		names[i] = fmt.Sprintf("/app/node-%05d", i)
	}
	ws := newWatchers(conns)
	m := NewManager()
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		p := names[i%paths]
		m.AddDataWatch(p, ws[i%conns])
		if n := m.Trigger(proto.EventNodeDataChanged, p, nil); n != 1 {
			b.Fatalf("notified %d", n)
		}
		i++
	}
}

// BenchmarkTriggerUnwatched is most writes: nobody watches the node.
// With a recursive watch elsewhere every event walks its ancestors.
func BenchmarkTriggerUnwatched(b *testing.B) {
	for _, recursive := range []bool{false, true} {
		b.Run(fmt.Sprintf("recursive=%v", recursive), func(b *testing.B) {
			m := NewManager()
			for i := range 1000 {
				m.AddDataWatch(fmt.Sprintf("/other/%d", i), &countingWatcher{})
			}
			if recursive {
				m.AddPersistentWatch("/elsewhere", &countingWatcher{}, true)
			}
			b.ReportAllocs()
			for b.Loop() {
				m.Trigger(proto.EventNodeDataChanged, "/a/b/c/d", nil)
			}
		})
	}
}
