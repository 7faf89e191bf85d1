package watches

import (
	"slices"
	"strings"
	"sync"

	"github.com/gozk/gozk/proto"
)

// Watcher is a connection that receives notifications. Watchers are map
// keys, so they are compared with ==: use pointer types.
//
// Notify is called without the registry's lock held and must not block;
// the server's connection enqueues the frame. ev.State is always
// proto.StateSyncConnected. nodeACL is the ACL Trigger was given, that of
// the node the event is about: the watcher delivers the event only if its
// connection may READ that node (3.8.0 with the fix of CVE-2024-23944). A
// watch whose event is not delivered is used up all the same.
type Watcher interface {
	Notify(ev proto.WatcherEvent, nodeACL []proto.ACL)
}

// StaleWatcher is a Watcher that can tell that its connection has closed.
// The registry refuses new watches for a stale watcher, so a read that
// races with the connection's close cannot leave watches behind: the
// connection marks itself stale first and then calls RemoveWatcher.
type StaleWatcher interface {
	Watcher
	Stale() bool
}

// Manager is the watch registry of one server. The zero value is not
// usable; call NewManager.
type Manager struct {
	mu    sync.Mutex
	data  table
	child table
	conns map[Watcher]*connState

	// triggerMu serialises Trigger calls; it owns sel, whose buffers are
	// reused from call to call.
	triggerMu sync.Mutex
	sel       selection
	observer  func(typ proto.EventType, watchers int)
	deliver   func(ev proto.WatcherEvent, nodeACL []proto.ACL, ws []Watcher)
	// selected is deliver's argument, reused from call to call (owned by
	// triggerMu).
	selected []Watcher
}

// NewManager returns an empty registry.
func NewManager() *Manager {
	return &Manager{
		data:  newTable(dataTable),
		child: newTable(childTable),
		conns: make(map[Watcher]*connState),
	}
}

// AddDataWatch registers a one-shot data watch: getData(watch=true), and
// exists(watch=true) whether or not the node exists.
func (m *Manager) AddDataWatch(path string, w Watcher) {
	m.add(path, w, modeOneShot, true, false)
}

// AddChildWatch registers a one-shot child watch: getChildren(watch=true).
func (m *Manager) AddChildWatch(path string, w Watcher) {
	m.add(path, w, modeOneShot, false, true)
}

// AddPersistentWatch registers an addWatch watch: PERSISTENT when
// recursive is false, PERSISTENT_RECURSIVE when it is true. Both go into
// both tables, as in 3.8.0. Adding a watch that exists is a no-op.
func (m *Manager) AddPersistentWatch(path string, w Watcher, recursive bool) {
	md := modePersistent
	if recursive {
		md = modeRecursive
	}
	m.add(path, w, md, true, true)
}

func (m *Manager) add(path string, w Watcher, md mode, toData, toChild bool) {
	if sw, ok := w.(StaleWatcher); ok && sw.Stale() {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if sw, ok := w.(StaleWatcher); ok && sw.Stale() {
		// Checked again under the lock: RemoveWatcher may have run
		// between the first check and taking the lock.
		return
	}
	c := m.conns[w]
	if c == nil {
		c = &connState{watcher: w}
		m.conns[w] = c
	}
	if toData {
		m.data.add(c, path, md)
	}
	if toChild {
		m.child.add(c, path, md)
	}
}

// Trigger fires one event of the data tree and returns how many
// connections were notified. The data tree reports, in order,
// {NodeCreated, P} {NodeChildrenChanged, parent} for a create,
// {NodeDeleted, P} {NodeChildrenChanged, parent} for a delete and
// {NodeDataChanged, P} for a setData; the parent of a top-level node is
// "/". Other event types fire nothing. nodeACL, passed on to each
// watcher's Notify, is the ACL of P (of the parent for
// NodeChildrenChanged).
//
// Trigger calls are serialised; Notify must not call Trigger.
func (m *Manager) Trigger(typ proto.EventType, path string, nodeACL []proto.ACL) int {
	m.triggerMu.Lock()
	defer m.triggerMu.Unlock()

	var counted [tableCount]int
	sel := &m.sel
	m.mu.Lock()
	sel.call++
	childrenChanged := typ == proto.EventNodeChildrenChanged
	switch typ {
	case proto.EventNodeCreated, proto.EventNodeDataChanged:
		m.data.fire(path, childrenChanged, sel)
		counted[dataTable] = sel.counted
	case proto.EventNodeDeleted:
		m.data.fire(path, childrenChanged, sel)
		counted[dataTable] = sel.counted
		m.child.fire(path, childrenChanged, sel)
		counted[childTable] = sel.counted
	case proto.EventNodeChildrenChanged:
		m.child.fire(path, childrenChanged, sel)
		counted[childTable] = sel.counted
	}
	observer, deliver := m.observer, m.deliver
	m.mu.Unlock()

	ev := proto.WatcherEvent{Type: int32(typ), State: int32(proto.StateSyncConnected), Path: path}
	if deliver != nil && len(sel.pending) > 0 {
		for _, c := range sel.pending {
			m.selected = append(m.selected, c.watcher)
		}
		deliver(ev, nodeACL, m.selected)
		clear(m.selected)
		m.selected = m.selected[:0]
	} else {
		for _, c := range sel.pending {
			c.watcher.Notify(ev, nodeACL)
		}
	}
	if observer != nil {
		for _, n := range counted {
			if n > 0 {
				observer(typ, n)
			}
		}
	}
	n := len(sel.pending)
	// Drop the references so that closed connections can be collected,
	// but keep the capacity for the next call.
	clear(sel.pending)
	sel.pending = sel.pending[:0]
	return n
}

// SetTriggerObserver installs fn, called after each table lookup of a
// Trigger call that selected at least one connection, with the event type
// and the number of distinct connections that table selected; a delete
// reports its data table and child table lookups separately, and the
// second count includes connections the first already notified. These are
// the numbers 3.8.0 adds to its node_{created,deleted,changed,children}
// watch_count summaries. fn runs on the Trigger goroutine without the
// registry lock; nil removes the observer.
func (m *Manager) SetTriggerObserver(fn func(typ proto.EventType, watchers int)) {
	m.mu.Lock()
	m.observer = fn
	m.mu.Unlock()
}

// SetDelivery installs fn, which then replaces the Notify calls of each
// Trigger: it gets the event once with every connection selected, in the
// order Notify would have been called, and is not called when nobody is
// selected. This lets the caller encode one notification per event rather
// than one per connection and send them all as one batch. fn runs on the
// Trigger goroutine without the registry lock, under the same rules as
// Notify, and must not keep ws; nil restores the Notify calls.
func (m *Manager) SetDelivery(fn func(ev proto.WatcherEvent, nodeACL []proto.ACL, ws []Watcher)) {
	m.mu.Lock()
	m.deliver = fn
	m.mu.Unlock()
}

// RemoveWatches implements removeWatches for watcher types 1 to 3: it
// removes w's entry at path in the child table (Children), the data table
// (Data) or both (Any), whatever the entry's modes, and reports whether
// anything was removed (if not, the server answers NoWatcher).
func (m *Manager) RemoveWatches(path string, w Watcher, t proto.WatcherType) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.conns[w]
	if c == nil {
		return false
	}
	switch t {
	case proto.WatcherChildren:
		return m.child.remove(c, path)
	case proto.WatcherData:
		return m.data.remove(c, path)
	case proto.WatcherAny:
		removedChild := m.child.remove(c, path)
		removedData := m.data.remove(c, path)
		return removedChild || removedData
	}
	return false
}

// CheckWatches implements checkWatches for watcher types 1 to 3 exactly as
// ZooKeeper 3.8.0 answers it: true when any connection has an entry at
// path in the child table (Children), the data table (Data) or either
// (Any), or when w has a recursive watch on exactly path there. Java looks
// the path up without the connection, so one connection's check can
// succeed on another's watch; RemoveWatches stays per connection.
func (m *Manager) CheckWatches(path string, w Watcher, t proto.WatcherType) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.conns[w]
	switch t {
	case proto.WatcherChildren:
		return m.child.checkable(c, path)
	case proto.WatcherData:
		return m.data.checkable(c, path)
	case proto.WatcherAny:
		return m.child.checkable(c, path) || m.data.checkable(c, path)
	}
	return false
}

// HasDataWatch reports whether w has an entry of any mode at path in the
// data table.
func (m *Manager) HasDataWatch(path string, w Watcher) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.conns[w]
	return c != nil && m.data.has(c, path)
}

// HasChildWatch reports whether w has an entry of any mode at path in the
// child table.
func (m *Manager) HasChildWatch(path string, w Watcher) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.conns[w]
	return c != nil && m.child.has(c, path)
}

// RemoveWatcher drops every watch w holds and forgets w; the server calls
// it when the connection closes (watches belong to the connection, not the
// session). Until then a connection that ever watched keeps a small
// record, which the reports of 3.8.0 expose.
func (m *Manager) RemoveWatcher(w Watcher) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.conns[w]
	if c == nil {
		return
	}
	m.data.removeConn(c)
	m.child.removeConn(c)
	delete(m.conns, w)
}

// WatchCount returns the number of watch entries in both tables, mntr's
// zk_watch_count: one per (connection, path, table) whatever its modes,
// so a persistent or recursive watch counts twice and a getData plus an
// exists watch of one connection on one path count once.
func (m *Manager) WatchCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.data.entries + m.child.entries
}

// PathCount returns the number of paths with a data table entry, the
// "paths" of wchs.
func (m *Manager) PathCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.data.byPath)
}

// DataWatchSummary returns the three numbers of wchs ("<connections>
// connections watching <paths> paths", "Total watches:<watches>"), all
// about the data table. connections includes connections whose data
// watches have all fired or been removed, until they close, as in 3.8.0.
func (m *Manager) DataWatchSummary() (connections, paths, watches int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.data.connections, len(m.data.byPath), m.data.entries
}

// ByWatcher calls fn once per connection of the data table, as wchc
// lists them, with its paths in sorted order; a connection whose data
// watches have all gone is listed with no paths, as in 3.8.0. The
// connections come in no particular order. fn runs after the registry
// lock is released, on a snapshot.
func (m *Manager) ByWatcher(fn func(w Watcher, paths []string)) {
	type row struct {
		w     Watcher
		paths []string
	}
	m.mu.Lock()
	rows := make([]row, 0, m.data.connections)
	for w, c := range m.conns {
		set := c.paths[dataTable]
		if set == nil {
			continue
		}
		paths := make([]string, 0, len(set))
		for p := range set {
			paths = append(paths, p)
		}
		rows = append(rows, row{w, paths})
	}
	m.mu.Unlock()
	for _, r := range rows {
		slices.Sort(r.paths)
		fn(r.w, r.paths)
	}
}

// ByPath calls fn once per path of the data table, as wchp lists them, in
// sorted path order, with the connections watching it in no particular
// order. fn runs after the registry lock is released, on a snapshot.
func (m *Manager) ByPath(fn func(path string, ws []Watcher)) {
	type row struct {
		path string
		ws   []Watcher
	}
	m.mu.Lock()
	rows := make([]row, 0, len(m.data.byPath))
	for path, set := range m.data.byPath {
		ws := make([]Watcher, 0, set.size())
		if set.multi == nil {
			ws = append(ws, set.single.watcher)
		}
		for c := range set.multi {
			ws = append(ws, c.watcher)
		}
		rows = append(rows, row{path, ws})
	}
	m.mu.Unlock()
	slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.path, b.path) })
	for _, r := range rows {
		fn(r.path, r.ws)
	}
}
