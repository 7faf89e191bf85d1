package watches

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gozk/gozk/proto"
)

// recorder is a fake connection that keeps what it was sent.
type recorder struct {
	name   string
	mu     sync.Mutex
	events []string
	states []int32
	stale  bool
}

func (r *recorder) Notify(ev proto.WatcherEvent, _ []proto.ACL) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, proto.EventType(ev.Type).String()+" "+ev.Path)
	r.states = append(r.states, ev.State)
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ev := r.events
	r.events = nil
	return ev
}

type staleRecorder struct{ recorder }

func (r *staleRecorder) Stale() bool { return r.stale }

// world drives a Manager the way the server does, with the data tree's
// event order for each write, and named connections.
type world struct {
	t     *testing.T
	m     *Manager
	conns map[string]*recorder
}

func newWorld(t *testing.T) *world {
	return &world{t: t, m: NewManager(), conns: map[string]*recorder{}}
}

func (w *world) conn(name string) *recorder {
	c := w.conns[name]
	if c == nil {
		c = &recorder{name: name}
		w.conns[name] = c
	}
	return c
}

func (w *world) create(p string) {
	w.m.Trigger(proto.EventNodeCreated, p, nil)
	w.m.Trigger(proto.EventNodeChildrenChanged, parentOf(p), nil)
}

func (w *world) delete(p string) {
	w.m.Trigger(proto.EventNodeDeleted, p, nil)
	w.m.Trigger(proto.EventNodeChildrenChanged, parentOf(p), nil)
}

func (w *world) setData(p string) { w.m.Trigger(proto.EventNodeDataChanged, p, nil) }

var watcherTypes = map[string]proto.WatcherType{
	"children": proto.WatcherChildren,
	"data":     proto.WatcherData,
	"any":      proto.WatcherAny,
}

// run executes one step:
//
//	create P | delete P | set P
//	C getData P | C exists P | C getChildren P | C persistent P | C recursive P | C close
//	C check P TYPE ok|nowatcher | C remove P TYPE ok|nowatcher
func (w *world) run(step string) {
	w.t.Helper()
	f := strings.Fields(step)
	switch f[0] {
	case "create":
		w.create(f[1])
		return
	case "delete":
		w.delete(f[1])
		return
	case "set":
		w.setData(f[1])
		return
	}
	c := w.conn(f[0])
	switch f[1] {
	case "getData", "exists":
		w.m.AddDataWatch(f[2], c)
	case "getChildren":
		w.m.AddChildWatch(f[2], c)
	case "persistent":
		w.m.AddPersistentWatch(f[2], c, false)
	case "recursive":
		w.m.AddPersistentWatch(f[2], c, true)
	case "close":
		w.m.RemoveWatcher(c)
	case "check", "remove":
		typ, ok := watcherTypes[f[3]]
		if !ok {
			w.t.Fatalf("step %q: unknown watcher type", step)
		}
		var got bool
		if f[1] == "check" {
			got = w.m.CheckWatches(f[2], c, typ)
		} else {
			got = w.m.RemoveWatches(f[2], c, typ)
		}
		want := f[4] == "ok"
		if got != want {
			w.t.Errorf("step %q: got %v, want %v", step, got, want)
		}
	default:
		w.t.Fatalf("bad step %q", step)
	}
}

func TestFiring(t *testing.T) {
	tests := []struct {
		name  string
		steps []string
		want  map[string][]string // every connection's notifications, in order
	}{
		{
			name:  "two getData and an exists watch give one NodeDataChanged",
			steps: []string{"A getData /x", "A getData /x", "A exists /x", "set /x"},
			want:  map[string][]string{"A": {"NodeDataChanged /x"}},
		},
		{
			name:  "data, child and exist watch on a deleted node give one NodeDeleted",
			steps: []string{"A getData /x", "A getChildren /x", "A exists /x", "delete /x"},
			want:  map[string][]string{"A": {"NodeDeleted /x"}},
		},
		{
			name:  "one-shot fires once",
			steps: []string{"A getData /x", "set /x", "set /x", "set /x"},
			want:  map[string][]string{"A": {"NodeDataChanged /x"}},
		},
		{
			name:  "exist watch on a missing node fires NodeCreated",
			steps: []string{"A exists /x", "create /x", "set /x"},
			want:  map[string][]string{"A": {"NodeCreated /x"}},
		},
		{
			name:  "data watch fires NodeDeleted",
			steps: []string{"A getData /x", "delete /x"},
			want:  map[string][]string{"A": {"NodeDeleted /x"}},
		},
		{
			name: "child watch ignores data changes, children's data and grandchildren",
			steps: []string{
				"A getChildren /x", "set /x", "set /x/c", "create /x/c/g", "delete /x/c/g",
				"create /x/c",
			},
			want: map[string][]string{"A": {"NodeChildrenChanged /x"}},
		},
		{
			name:  "child watch fires NodeDeleted",
			steps: []string{"A getChildren /x", "delete /x"},
			want:  map[string][]string{"A": {"NodeDeleted /x"}},
		},
		{
			name:  "child watch on the root fires with path /",
			steps: []string{"A getChildren /", "create /x"},
			want:  map[string][]string{"A": {"NodeChildrenChanged /"}},
		},
		{
			name: "delete notifies each connection once across both tables",
			steps: []string{
				"A getData /d", "B getChildren /d", "B exists /d", "A getChildren /d", "C getChildren /d",
				"delete /d",
			},
			want: map[string][]string{
				"A": {"NodeDeleted /d"}, "B": {"NodeDeleted /d"}, "C": {"NodeDeleted /d"},
			},
		},
		{
			name: "a child watch used up by a delete does not fire after re-creation",
			steps: []string{
				"A getData /d", "A getChildren /d", "delete /d", "create /d", "create /d/c",
			},
			want: map[string][]string{"A": {"NodeDeleted /d"}},
		},
		{
			name: "persistent watch registered before the node exists",
			steps: []string{
				"A persistent /p", "create /p", "set /p", "set /p", "create /p/c", "set /p/c",
				"delete /p/c", "delete /p", "create /p",
			},
			want: map[string][]string{"A": {
				"NodeCreated /p", "NodeDataChanged /p", "NodeDataChanged /p",
				"NodeChildrenChanged /p", "NodeChildrenChanged /p", "NodeDeleted /p", "NodeCreated /p",
			}},
		},
		{
			name: "recursive watch sees its subtree, never NodeChildrenChanged, not the sibling",
			steps: []string{
				"A recursive /r", "create /r", "create /r/a", "create /r/a/b", "set /r/a/b",
				"delete /r/a/b", "create /rx", "set /rx", "set /r",
			},
			want: map[string][]string{"A": {
				"NodeCreated /r", "NodeCreated /r/a", "NodeCreated /r/a/b",
				"NodeDataChanged /r/a/b", "NodeDeleted /r/a/b", "NodeDataChanged /r",
			}},
		},
		{
			name:  "recursive watch on / sees everything but NodeChildrenChanged",
			steps: []string{"A recursive /", "create /a", "set /", "delete /a"},
			want: map[string][]string{"A": {
				"NodeCreated /a", "NodeDataChanged /", "NodeDeleted /a",
			}},
		},
		{
			name: "non-recursive watches on ancestors do not fire",
			steps: []string{
				"A getData /a", "B getData /a/b", "C getData /a/b", "C persistent /a", "D recursive /z",
				"E getChildren /a", "E getChildren /a/b", "F getChildren /a/b",
				"set /a/b/c", "create /a/b/c/d", "delete /a/b/c/d",
			},
			want: map[string][]string{"A": nil, "B": nil, "C": nil, "D": nil, "E": nil, "F": nil},
		},
		{
			name: "a lone non-recursive watch on an ancestor does not fire",
			steps: []string{
				"A getData /s", "B persistent /s/t", "D recursive /z", "set /s/t/u", "create /s/t/u/v",
				"delete /s/t/u/v",
			},
			want: map[string][]string{"A": nil, "B": nil, "D": nil},
		},
		{
			name:  "overlapping recursive watches give one notification",
			steps: []string{"A recursive /b", "A recursive /b/x", "create /b/x"},
			want:  map[string][]string{"A": {"NodeCreated /b/x"}},
		},
		{
			name: "recursive and persistent on the same connection",
			steps: []string{
				"A recursive /r", "A persistent /r/x", "set /r/x", "create /r/x/y",
			},
			want: map[string][]string{"A": {
				"NodeDataChanged /r/x", "NodeCreated /r/x/y", "NodeChildrenChanged /r/x",
			}},
		},
		{
			name:  "recursive watch at an ancestor and a one-shot at the node",
			steps: []string{"A recursive /r", "A getData /r/x", "set /r/x", "set /r/x"},
			want:  map[string][]string{"A": {"NodeDataChanged /r/x", "NodeDataChanged /r/x"}},
		},
		{
			name:  "ephemeral cleanup appears as NodeDeleted to a recursive watch",
			steps: []string{"A recursive /r", "delete /r/e1", "delete /r/e2"},
			want:  map[string][]string{"A": {"NodeDeleted /r/e1", "NodeDeleted /r/e2"}},
		},
		{
			name: "other connections' watches are independent",
			steps: []string{
				"A getData /x", "B getChildren /x", "set /x", "create /x/c",
			},
			want: map[string][]string{
				"A": {"NodeDataChanged /x"}, "B": {"NodeChildrenChanged /x"},
			},
		},
		{
			name: "many connections with mixed modes on one path",
			steps: []string{
				"A persistent /x", "B getData /x", "C getData /x", "D recursive /x", "E getChildren /x",
				"set /x", "set /x", "B getData /x", "create /x/c", "delete /x",
			},
			want: map[string][]string{
				"A": {"NodeDataChanged /x", "NodeDataChanged /x", "NodeChildrenChanged /x", "NodeDeleted /x"},
				"B": {"NodeDataChanged /x", "NodeDeleted /x"},
				"C": {"NodeDataChanged /x"},
				"D": {"NodeDataChanged /x", "NodeDataChanged /x", "NodeCreated /x/c", "NodeDeleted /x"},
				"E": {"NodeChildrenChanged /x"},
			},
		},
		{
			name: "a shared path shrinking back to one watcher keeps working",
			steps: []string{
				"A getData /x", "B getData /x", "B remove /x data ok", "set /x", "A getData /x",
				"set /x", "B getData /x", "A close", "set /x",
			},
			want: map[string][]string{
				"A": {"NodeDataChanged /x", "NodeDataChanged /x"},
				"B": {"NodeDataChanged /x"},
			},
		},
		// Modes combine (3.9, ZOOKEEPER-4466), in both registration orders.
		{
			name: "getData after addWatch: the persistent watch survives the one-shot",
			steps: []string{
				"A persistent /p", "A getData /p", "set /p", "set /p", "create /p/c",
			},
			want: map[string][]string{"A": {
				"NodeDataChanged /p", "NodeDataChanged /p", "NodeChildrenChanged /p",
			}},
		},
		{
			name: "addWatch after getChildren: both keep working",
			steps: []string{
				"A getChildren /p", "A persistent /p", "create /p/c", "create /p/d", "set /p",
			},
			want: map[string][]string{"A": {
				"NodeChildrenChanged /p", "NodeChildrenChanged /p", "NodeDataChanged /p",
			}},
		},
		{
			name: "getChildren on a recursive path fires NodeChildrenChanged once",
			steps: []string{
				"A recursive /r", "A getChildren /r", "create /r/a", "create /r/b",
			},
			want: map[string][]string{"A": {
				"NodeCreated /r/a", "NodeChildrenChanged /r", "NodeCreated /r/b",
			}},
		},
		{
			name: "re-adding a persistent watch is a no-op",
			steps: []string{
				"A persistent /p", "A persistent /p", "set /p",
			},
			want: map[string][]string{"A": {"NodeDataChanged /p"}},
		},
		// removeWatches / close
		{
			name: "removing the data watch leaves the child watch working",
			steps: []string{
				"A getData /x", "A getChildren /x", "A remove /x data ok", "set /x", "create /x/c",
			},
			want: map[string][]string{"A": {"NodeChildrenChanged /x"}},
		},
		{
			name: "removing the child watch leaves the data watch working",
			steps: []string{
				"A getData /x", "A getChildren /x", "A remove /x children ok", "create /x/c", "set /x",
			},
			want: map[string][]string{"A": {"NodeDataChanged /x"}},
		},
		{
			name: "removeWatches Any stops a persistent watch",
			steps: []string{
				"A persistent /p", "A remove /p any ok", "A check /p any nowatcher",
				"set /p", "create /p/c", "delete /p",
			},
			want: map[string][]string{"A": nil},
		},
		{
			name: "removeWatches Data on a persistent watch leaves its child half",
			steps: []string{
				"A persistent /p", "A remove /p data ok", "A check /p data nowatcher",
				"A check /p children ok", "set /p", "create /p/c", "delete /p/c", "delete /p",
				"create /p",
			},
			want: map[string][]string{"A": {
				"NodeChildrenChanged /p", "NodeChildrenChanged /p", "NodeDeleted /p",
			}},
		},
		{
			name: "removeWatches Children on a persistent watch leaves its data half",
			steps: []string{
				"A persistent /q", "A remove /q children ok", "set /q", "create /q/c",
				"delete /q/c", "delete /q",
			},
			want: map[string][]string{"A": {"NodeDataChanged /q", "NodeDeleted /q"}},
		},
		{
			name: "removeWatches Data on a recursive watch leaves NodeDeleted for the subtree",
			steps: []string{
				"A recursive /r", "A remove /r data ok", "A check /r children ok",
				"create /r/c", "set /r/c", "delete /r/c",
			},
			want: map[string][]string{"A": {"NodeDeleted /r/c"}},
		},
		{
			name: "removeWatches leaves other connections alone",
			steps: []string{
				"A getData /x", "B getData /x", "A remove /x data ok", "B remove /x children nowatcher",
				"set /x",
			},
			want: map[string][]string{"A": nil, "B": {"NodeDataChanged /x"}},
		},
		{
			name: "closing a connection drops all its watches",
			steps: []string{
				"A getData /x", "A getChildren /x", "A persistent /p", "A recursive /r", "B getData /x",
				"A close", "set /x", "create /x/c", "set /p", "create /r/c",
			},
			want: map[string][]string{"A": nil, "B": {"NodeDataChanged /x"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			for _, s := range tc.steps {
				w.run(s)
			}
			for name, want := range tc.want {
				if got := w.conn(name).take(); !slices.Equal(got, want) {
					t.Errorf("%s got %q\nwant %q", name, got, want)
				}
			}
		})
	}
}

func TestOtherEventTypesFireNothing(t *testing.T) {
	w := newWorld(t)
	w.run("A getData /x")
	w.run("A persistent /x")
	w.run("A recursive /")
	for _, typ := range []proto.EventType{
		proto.EventNone, proto.EventDataWatchRemoved, proto.EventChildWatchRemoved,
		proto.EventPersistentWatchRemoved, 0, 99,
	} {
		if n := w.m.Trigger(typ, "/x", nil); n != 0 {
			t.Errorf("Trigger(%v) notified %d", typ, n)
		}
	}
	if got := w.conn("A").take(); got != nil {
		t.Errorf("got %q", got)
	}
	if !w.m.HasDataWatch("/x", w.conn("A")) {
		t.Errorf("the one-shot watch was used up")
	}
}

func TestNotificationState(t *testing.T) {
	w := newWorld(t)
	w.run("A getData /x")
	w.run("set /x")
	if got := w.conn("A").states; !slices.Equal(got, []int32{int32(proto.StateSyncConnected)}) {
		t.Fatalf("states %v, want [3]", got)
	}
}

// TestCheckAndRemove follows the checkWatches/removeWatches table of the
// protocol (types 1 to 3) and the 3.8.0 facts behind it.
func TestCheckAndRemove(t *testing.T) {
	tests := []struct {
		name  string
		steps []string
	}{
		{"no watch at all", []string{
			"A check /x data nowatcher", "A check /x children nowatcher", "A check /x any nowatcher",
			"A remove /x data nowatcher", "A remove /x children nowatcher", "A remove /x any nowatcher",
		}},
		{"data watch", []string{
			"A getData /x", "A check /x data ok", "A check /x children nowatcher", "A check /x any ok",
			"A remove /x children nowatcher", "A remove /x data ok", "A check /x any nowatcher",
			"A remove /x data nowatcher",
		}},
		{"exist watch on a missing node is a data watch", []string{
			"A exists /missing", "A check /missing data ok", "A check /missing children nowatcher",
		}},
		{"child watch", []string{
			"A getChildren /x", "A check /x children ok", "A check /x data nowatcher",
			"A check /x any ok", "A remove /x data nowatcher", "A remove /x any ok",
			"A check /x children nowatcher",
		}},
		{"persistent watch passes every type", []string{
			"A persistent /p", "A check /p children ok", "A check /p data ok", "A check /p any ok",
		}},
		{"recursive watch passes every type", []string{
			"A recursive /r", "A check /r children ok", "A check /r data ok", "A check /r any ok",
		}},
		{"recursive watch does not cover descendants for checkWatches", []string{
			"A recursive /r", "A check /r/c data nowatcher", "A check /r/c any nowatcher",
		}},
		{"Any removes everything of the connection on the path", []string{
			"A getData /x", "A getChildren /x", "A persistent /x", "A recursive /x",
			"A remove /x any ok", "A check /x any nowatcher", "A remove /x any nowatcher",
		}},
		{"Any succeeds if only one table has an entry", []string{
			"A getChildren /x", "A remove /x any ok",
		}},
		// Java 3.8.0 checks the leaf without the connection: B's check
		// succeeds on A's watch, while removal stays per connection.
		{"checks see every connection's watch at the path", []string{
			"A getData /x", "B check /x data ok", "B check /x any ok", "B check /x children nowatcher",
			"B remove /x data nowatcher", "A check /x data ok",
			"A remove /x data ok", "B check /x data nowatcher",
		}},
		{"checkWatches does not consume the watch", []string{
			"A getData /x", "A check /x data ok", "A check /x data ok",
		}},
		{"a fired one-shot watch is gone", []string{
			"A getData /x", "set /x", "A check /x data nowatcher",
		}},
		{"a fired persistent watch stays", []string{
			"A persistent /p", "set /p", "create /p/c", "A check /p data ok", "A check /p children ok",
		}},
		{"a closed connection has nothing", []string{
			"A getData /x", "A close", "A check /x data nowatcher",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			for _, s := range tc.steps {
				w.run(s)
			}
		})
	}
}

func TestTriggerReturnsNotifiedCount(t *testing.T) {
	w := newWorld(t)
	for _, s := range []string{
		"A getData /d", "B getChildren /d", "B exists /d", "C getChildren /d", "D recursive /",
		"E getData /other",
	} {
		w.run(s)
	}
	if n := w.m.Trigger(proto.EventNodeDeleted, "/d", nil); n != 4 {
		t.Errorf("delete notified %d, want 4 (A, B, C, D)", n)
	}
	if n := w.m.Trigger(proto.EventNodeChildrenChanged, "/", nil); n != 0 {
		t.Errorf("NodeChildrenChanged on / notified %d, want 0", n)
	}
	if n := w.m.Trigger(proto.EventNodeDeleted, "/d", nil); n != 1 {
		t.Errorf("second delete notified %d, want 1 (D)", n)
	}
	if n := w.m.Trigger(proto.EventNodeDataChanged, "/nothing/here", nil); n != 1 {
		t.Errorf("setData notified %d, want 1 (D)", n)
	}
}

// TestCounts checks the numbers of mntr and wchs against what 3.8.0
// printed for the same steps.
func TestCounts(t *testing.T) {
	type counts struct{ watchCount, conns, paths, watches int }
	tests := []struct {
		name  string
		steps []string
		want  counts
	}{
		{"empty", nil, counts{0, 0, 0, 0}},
		{"recursive watch sits in both tables", []string{"A recursive /r"}, counts{2, 1, 1, 1}},
		{"persistent watch sits in both tables", []string{"A persistent /p"}, counts{2, 1, 1, 1}},
		{"modes of one entry count once", []string{
			"A getData /x", "A exists /x", "A persistent /x",
		}, counts{2, 1, 1, 1}},
		{"a fired data watch leaves its connection listed", []string{
			"A getData /x", "set /x", "A recursive /r",
		}, counts{2, 1, 1, 1}},
		{"a removed data half leaves its connection listed", []string{
			"A recursive /r", "A remove /r data ok",
		}, counts{1, 1, 0, 0}},
		{"child-only connections are not in the data report", []string{
			"B getChildren /x",
		}, counts{1, 0, 0, 0}},
		// The sequence of 3.8.0 run where wchs printed "2 connections
		// watching 2 paths / Total watches:3" and mntr 6, then after the
		// delete "2 connections watching 1 paths / Total watches:1" and 2.
		{"mixed, before delete", []string{
			"A persistent /p", "A remove /p data ok", "delete /p",
			"A persistent /q", "A remove /q children ok", "delete /q",
			"A getData /d", "B getChildren /d", "B exists /d", "A getChildren /d",
		}, counts{6, 2, 2, 3}},
		{"mixed, after delete", []string{
			"A persistent /p", "A remove /p data ok", "delete /p",
			"A persistent /q", "A remove /q children ok", "delete /q",
			"A getData /d", "B getChildren /d", "B exists /d", "A getChildren /d",
			"delete /d",
		}, counts{2, 2, 1, 1}},
		{"a path whose watchers all fired is gone", []string{
			"A getData /x", "B getData /x", "C exists /x", "set /x",
		}, counts{0, 3, 0, 0}},
		{"closing removes the connection from the report", []string{
			"A getData /x", "set /x", "A close",
		}, counts{0, 0, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			for _, s := range tc.steps {
				w.run(s)
			}
			var got counts
			got.watchCount = w.m.WatchCount()
			got.conns, got.paths, got.watches = w.m.DataWatchSummary()
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if pc := w.m.PathCount(); pc != got.paths {
				t.Errorf("PathCount %d, summary paths %d", pc, got.paths)
			}
		})
	}
}

func TestReports(t *testing.T) {
	w := newWorld(t)
	for _, s := range []string{
		"A getData /b", "A getData /a", "A getChildren /c", "B exists /a", "C getData /z",
		"set /z", "D getChildren /only-child",
	} {
		w.run(s)
	}
	byWatcher := map[string][]string{}
	w.m.ByWatcher(func(wt Watcher, paths []string) {
		byWatcher[wt.(*recorder).name] = paths
	})
	want := map[string][]string{"A": {"/a", "/b"}, "B": {"/a"}, "C": {}}
	if fmt.Sprint(byWatcher) != fmt.Sprint(want) {
		t.Errorf("ByWatcher %v, want %v", byWatcher, want)
	}
	if _, ok := byWatcher["D"]; ok {
		t.Errorf("ByWatcher lists D, which has only a child watch")
	}

	var byPath []string
	w.m.ByPath(func(path string, ws []Watcher) {
		names := make([]string, 0, len(ws))
		for _, wt := range ws {
			names = append(names, wt.(*recorder).name)
		}
		slices.Sort(names)
		byPath = append(byPath, path+"="+strings.Join(names, ","))
	})
	if want := []string{"/a=A,B", "/b=A"}; !slices.Equal(byPath, want) {
		t.Errorf("ByPath %v, want %v", byPath, want)
	}
}

func TestTriggerObserver(t *testing.T) {
	w := newWorld(t)
	type obs struct {
		typ proto.EventType
		n   int
	}
	var got []obs
	w.m.SetTriggerObserver(func(typ proto.EventType, n int) { got = append(got, obs{typ, n}) })
	for _, s := range []string{
		"A getData /d", "B getChildren /d", "B exists /d", "A getChildren /d",
		"C recursive /", "C recursive /d",
	} {
		w.run(s)
	}
	w.delete("/d")
	// Data table: A, B, C (C once although two of its recursive watches
	// match). Child table (recursive watches sit there too): B, A, C again,
	// though none of them is notified twice. NodeChildrenChanged of /
	// selects no one: recursive watches ignore it.
	want := []obs{{proto.EventNodeDeleted, 3}, {proto.EventNodeDeleted, 3}}
	if !slices.Equal(got, want) {
		t.Errorf("observed %v, want %v", got, want)
	}
	got = nil
	w.m.SetTriggerObserver(nil)
	w.setData("/d")
	if got != nil {
		t.Errorf("observer still called after removal: %v", got)
	}
}

// TestDelivery checks that a delivery function gets each Trigger call's
// selection in one call, in place of the Notify calls and with the same
// connections, and that removing it restores Notify.
func TestDelivery(t *testing.T) {
	w := newWorld(t)
	type call struct {
		ev    string
		acl   int
		conns string
	}
	var got []call
	w.m.SetDelivery(func(ev proto.WatcherEvent, nodeACL []proto.ACL, ws []Watcher) {
		if ev.State != int32(proto.StateSyncConnected) {
			t.Errorf("state %d", ev.State)
		}
		names := make([]string, len(ws))
		for i, x := range ws {
			names[i] = x.(*recorder).name
		}
		slices.Sort(names)
		got = append(got, call{proto.EventType(ev.Type).String() + " " + ev.Path, len(nodeACL), strings.Join(names, ",")})
	})
	for _, s := range []string{
		"A getData /d", "B exists /d", "C getChildren /", "B recursive /",
	} {
		w.run(s)
	}
	w.m.Trigger(proto.EventNodeDataChanged, "/d", proto.OpenACLUnsafe)
	w.m.Trigger(proto.EventNodeDataChanged, "/e", nil)     // B's recursive watch only
	w.m.Trigger(proto.EventNodeDataChanged, "/d", nil)     // B again; A's one-shot is gone
	w.m.Trigger(proto.EventNodeChildrenChanged, "/x", nil) // selects nobody: no call
	want := []call{
		{"NodeDataChanged /d", len(proto.OpenACLUnsafe), "A,B"},
		{"NodeDataChanged /e", 0, "B"},
		{"NodeDataChanged /d", 0, "B"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("deliveries %v, want %v", got, want)
	}
	for _, name := range []string{"A", "B", "C"} {
		if ev := w.conn(name).take(); ev != nil {
			t.Errorf("%s was notified directly: %v", name, ev)
		}
	}
	got = nil
	w.m.SetDelivery(nil)
	w.create("/f")
	if got != nil {
		t.Errorf("delivery still called after removal: %v", got)
	}
	if ev := w.conn("C").take(); !slices.Equal(ev, []string{"NodeChildrenChanged /"}) {
		t.Errorf("C got %v after the delivery was removed", ev)
	}
}

func TestStaleWatcherIgnored(t *testing.T) {
	m := NewManager()
	s := &staleRecorder{}
	s.stale = true
	m.AddDataWatch("/x", s)
	m.AddChildWatch("/x", s)
	m.AddPersistentWatch("/x", s, true)
	if m.WatchCount() != 0 {
		t.Fatalf("stale watcher registered %d watches", m.WatchCount())
	}
	s.stale = false
	m.AddDataWatch("/x", s)
	if !m.HasDataWatch("/x", s) || m.HasChildWatch("/x", s) {
		t.Fatalf("live watcher: data %v child %v", m.HasDataWatch("/x", s), m.HasChildWatch("/x", s))
	}
}

func TestRemoveWatcherCleansUp(t *testing.T) {
	w := newWorld(t)
	for _, s := range []string{
		"A getData /x", "A getChildren /x", "A persistent /p", "A recursive /r", "A recursive /",
		"A close", "A close",
	} {
		w.run(s)
	}
	m := w.m
	if len(m.conns) != 0 || len(m.data.byPath) != 0 || len(m.child.byPath) != 0 {
		t.Errorf("leftovers: conns %d data paths %d child paths %d",
			len(m.conns), len(m.data.byPath), len(m.child.byPath))
	}
	for _, tb := range []*table{&m.data, &m.child} {
		if tb.entries != 0 || tb.recursive != 0 || tb.connections != 0 {
			t.Errorf("table %d: entries %d recursive %d connections %d",
				tb.kind, tb.entries, tb.recursive, tb.connections)
		}
	}
}

// TestRecursiveCountTracksRemoval makes sure the ancestor walk is switched
// off again once the last recursive watch is gone, whichever way it went.
func TestRecursiveCountTracksRemoval(t *testing.T) {
	tests := [][]string{
		{"A recursive /r", "A remove /r any ok"},
		{"A recursive /r", "A remove /r data ok", "A remove /r children ok"},
		{"A recursive /r", "A getData /r", "set /r", "A close"},
		{"A recursive /r", "A recursive /r", "A remove /r any ok"},
	}
	for _, steps := range tests {
		w := newWorld(t)
		for _, s := range steps {
			w.run(s)
		}
		if w.m.data.recursive != 0 || w.m.child.recursive != 0 {
			t.Errorf("%q: recursive counts %d/%d", steps, w.m.data.recursive, w.m.child.recursive)
		}
	}
	w := newWorld(t)
	w.run("A recursive /r")
	w.run("A getData /r")
	w.run("set /r")
	if w.m.data.recursive != 1 || w.m.child.recursive != 1 {
		t.Errorf("one-shot firing dropped the recursive mode: %d/%d", w.m.data.recursive, w.m.child.recursive)
	}
}

func TestWatcherSet(t *testing.T) {
	a, b, c := &connState{}, &connState{}, &connState{}
	var s watcherSet
	if s.size() != 0 {
		t.Fatal("zero set not empty")
	}
	if _, ok := s.lookup(nil); ok {
		t.Fatal("zero set holds nil")
	}
	s.store(a, modeOneShot)
	s.store(a, modeOneShot|modePersistent)
	if s.multi != nil || s.size() != 1 {
		t.Fatalf("one watcher should stay inline: %+v", s)
	}
	s.store(b, modeRecursive)
	s.store(c, modeOneShot)
	if s.multi == nil || s.size() != 3 || s.single != nil {
		t.Fatalf("three watchers: %+v", s)
	}
	for _, tc := range []struct {
		c    *connState
		want mode
	}{{a, modeOneShot | modePersistent}, {b, modeRecursive}, {c, modeOneShot}} {
		if md, ok := s.lookup(tc.c); !ok || md != tc.want {
			t.Errorf("lookup: %v %v, want %v", md, ok, tc.want)
		}
	}
	s.drop(b)
	s.drop(b)
	if _, ok := s.lookup(b); ok || s.size() != 2 {
		t.Errorf("after drop: size %d", s.size())
	}
	s.drop(a)
	s.drop(c)
	if s.size() != 0 {
		t.Errorf("size %d after dropping all", s.size())
	}
	var one watcherSet
	one.store(a, modeOneShot)
	one.drop(b)
	if one.size() != 1 {
		t.Errorf("dropping a stranger removed the single watcher")
	}
	one.drop(a)
	if one.size() != 0 || one.single != nil {
		t.Errorf("single watcher not dropped: %+v", one)
	}
}

func TestCallbacksMayReenter(t *testing.T) {
	m := NewManager()
	r := &reentrant{m: m}
	m.AddDataWatch("/x", r)
	m.Trigger(proto.EventNodeDataChanged, "/x", nil)
	if !m.HasDataWatch("/x", r) {
		t.Fatal("Notify could not re-register its watch")
	}
	m.ByWatcher(func(w Watcher, _ []string) { m.RemoveWatcher(w) })
	m.ByPath(func(string, []Watcher) { t.Error("ByPath after every watcher left") })
}

// reentrant re-registers its watch from Notify, as a server that answers
// a pipelined getData might.
type reentrant struct{ m *Manager }

func (r *reentrant) Notify(proto.WatcherEvent, []proto.ACL) { r.m.AddDataWatch("/x", r) }

func TestParentOf(t *testing.T) {
	tests := map[string]string{
		"/":      "",
		"/a":     "/",
		"/a/b":   "/a",
		"/a/b/c": "/a/b",
		"":       "",
		"a":      "",
	}
	for in, want := range tests {
		if got := parentOf(in); got != want {
			t.Errorf("parentOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestConcurrentUse runs readers adding watches against the trigger
// goroutine and connections closing; run with -race. Every watch is
// registered before its path's last event, so each connection must end
// up with exactly one notification per path.
func TestConcurrentUse(t *testing.T) {
	m := NewManager()
	const conns, paths = 8, 200
	recs := make([]*recorder, conns)
	for i := range recs {
		recs[i] = &recorder{name: fmt.Sprint(i)}
	}
	var adders sync.WaitGroup
	for i, r := range recs {
		adders.Add(1)
		go func() {
			defer adders.Done()
			for p := range paths {
				path := fmt.Sprintf("/n%d", p)
				switch i % 3 {
				case 0:
					m.AddDataWatch(path, r)
				case 1:
					m.AddChildWatch(path, r)
				case 2:
					m.AddPersistentWatch(path, r, p%2 == 0)
				}
				m.CheckWatches(path, r, proto.WatcherAny)
			}
		}()
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	readers.Add(1)
	go func() {
		defer readers.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			m.WatchCount()
			m.ByPath(func(string, []Watcher) {})
			m.ByWatcher(func(Watcher, []string) {})
		}
	}()
	// Trigger while the adders run, then once more after they finish.
	for p := range paths {
		m.Trigger(proto.EventNodeDeleted, fmt.Sprintf("/n%d", p), nil)
	}
	adders.Wait()
	for p := range paths {
		m.Trigger(proto.EventNodeDeleted, fmt.Sprintf("/n%d", p), nil)
	}
	close(stop)
	readers.Wait()
	for i, r := range recs {
		got := r.take()
		seen := map[string]int{}
		for _, ev := range got {
			seen[ev]++
		}
		for p := range paths {
			ev := fmt.Sprintf("NodeDeleted /n%d", p)
			// Each path fires twice: a watch added before the first
			// event sees one or two, one added after it sees the second.
			if n := seen[ev]; n < 1 || n > 2 {
				t.Fatalf("conn %d: %q seen %d times", i, ev, n)
			}
		}
		m.RemoveWatcher(r)
	}
	if m.WatchCount() != 0 {
		t.Errorf("WatchCount %d after every connection closed", m.WatchCount())
	}
}
