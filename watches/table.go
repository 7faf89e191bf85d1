package watches

import "strings"

// mode is the set of watch modes one entry holds.
type mode uint8

const (
	modeOneShot mode = 1 << iota
	modePersistent
	modeRecursive
)

// tableKind indexes the two tables in per-connection state.
type tableKind uint8

const (
	dataTable tableKind = iota
	childTable
	tableCount
)

// connState is what the registry knows about one Watcher.
type connState struct {
	watcher Watcher
	// paths holds, per table, the paths this connection has an entry on.
	// A set stays allocated, possibly empty, until the connection is
	// removed, because 3.8.0's reports keep listing such connections.
	paths [tableCount]map[string]struct{}
	// notifiedIn is the Trigger call that last queued a notification for
	// this connection; it makes notifications unique per call without a
	// set.
	notifiedIn uint64
	// countedIn is the table lookup that last counted this connection for
	// the observer, which counts distinct connections per lookup as Java's
	// metrics do.
	countedIn uint64
}

// watcherSet holds the connections watching one path in one table, with
// their modes. Most watched paths have a single watcher, which is kept
// inline so that registering it allocates nothing; a second watcher moves
// the set into a map.
type watcherSet struct {
	single     *connState
	singleMode mode
	multi      map[*connState]mode
}

func (s *watcherSet) lookup(c *connState) (mode, bool) {
	if s.multi != nil {
		md, ok := s.multi[c]
		return md, ok
	}
	if s.single != nil && s.single == c {
		return s.singleMode, true
	}
	return 0, false
}

func (s *watcherSet) store(c *connState, md mode) {
	switch {
	case s.multi != nil:
		s.multi[c] = md
	case s.single == nil || s.single == c:
		s.single, s.singleMode = c, md
	default:
		s.multi = map[*connState]mode{s.single: s.singleMode, c: md}
		s.single, s.singleMode = nil, 0
	}
}

func (s *watcherSet) drop(c *connState) {
	if s.multi != nil {
		delete(s.multi, c)
	} else if s.single == c {
		s.single, s.singleMode = nil, 0
	}
}

func (s *watcherSet) size() int {
	if s.multi != nil {
		return len(s.multi)
	}
	if s.single != nil {
		return 1
	}
	return 0
}

// table is one of the two watch tables. Every entry is recorded twice: in
// byPath (for firing) and in the connection's path set (for removal on
// close), as Java's watchTable and watch2Paths.
type table struct {
	kind   tableKind
	byPath map[string]watcherSet
	// entries counts (connection, path) pairs: Java's size() of one table.
	entries int
	// recursive counts entries holding modeRecursive; while it is zero no
	// event needs the ancestor walk.
	recursive int
	// connections counts connections whose path set exists in this table,
	// emptied or not (Java's watch2Paths.size()).
	connections int
}

func newTable(kind tableKind) table {
	return table{kind: kind, byPath: make(map[string]watcherSet)}
}

// add gives c's entry at path the modes md (on top of those it has).
func (t *table) add(c *connState, path string, md mode) {
	ws := t.byPath[path]
	old, had := ws.lookup(c)
	if !had {
		t.entries++
		set := c.paths[t.kind]
		if set == nil {
			set = make(map[string]struct{})
			c.paths[t.kind] = set
			t.connections++
		}
		set[path] = struct{}{}
	}
	if old&modeRecursive == 0 && md&modeRecursive != 0 {
		t.recursive++
	}
	if old|md != old || !had {
		ws.store(c, old|md)
		t.byPath[path] = ws
	}
}

// remove drops c's entry at path and reports whether there was one.
func (t *table) remove(c *connState, path string) bool {
	ws := t.byPath[path]
	md, ok := ws.lookup(c)
	if !ok {
		return false
	}
	ws.drop(c)
	t.forget(c, path, md)
	t.save(path, ws)
	return true
}

// checkable answers Java 3.8.0's containsWatcher for one table: true when
// any connection watches path there, or when c has a recursive watch on
// exactly path. (3.8.0 looks the leaf up without the connection, which is
// why a connection's checkWatches can succeed on another's watch.)
func (t *table) checkable(c *connState, path string) bool {
	ws, ok := t.byPath[path]
	if ok && ws.size() > 0 {
		return true
	}
	if c == nil {
		return false
	}
	md, ok := ws.lookup(c)
	return ok && md&modeRecursive != 0
}

func (t *table) has(c *connState, path string) bool {
	ws := t.byPath[path]
	_, ok := ws.lookup(c)
	return ok
}

// forget does the bookkeeping for c's entry at path, with modes md, having
// left its watcherSet.
func (t *table) forget(c *connState, path string, md mode) {
	delete(c.paths[t.kind], path)
	t.entries--
	if md&modeRecursive != 0 {
		t.recursive--
	}
}

// save writes back a modified watcherSet, or deletes it once empty.
func (t *table) save(path string, ws watcherSet) {
	if ws.size() == 0 {
		delete(t.byPath, path)
	} else {
		t.byPath[path] = ws
	}
}

// removeConn drops all of c's entries in this table.
func (t *table) removeConn(c *connState) {
	set := c.paths[t.kind]
	if set == nil {
		return
	}
	for path := range set {
		ws := t.byPath[path]
		md, _ := ws.lookup(c)
		ws.drop(c)
		t.forget(c, path, md)
		t.save(path, ws)
	}
	c.paths[t.kind] = nil
	t.connections--
}

// firesAtPath reports whether an entry with modes md at the event's own
// path is selected: always, except that a recursive-only entry never
// reports NodeChildrenChanged.
func firesAtPath(md mode, childrenChanged bool) bool {
	return md&(modeOneShot|modePersistent) != 0 || !childrenChanged
}

// fire selects this table's watchers for an event at path into sel: every
// entry at path (using up one-shot modes) and, unless the event is
// NodeChildrenChanged, the recursive entries of every ancestor.
func (t *table) fire(path string, childrenChanged bool, sel *selection) {
	sel.startLookup()
	if ws, ok := t.byPath[path]; ok {
		if ws.multi == nil {
			if c, md := ws.single, ws.singleMode; firesAtPath(md, childrenChanged) {
				sel.pick(c)
				if md&modeOneShot != 0 {
					if rest := md &^ modeOneShot; rest != 0 {
						ws.singleMode = rest
					} else {
						ws.drop(c)
						t.forget(c, path, md)
					}
					t.save(path, ws)
				}
			}
		} else {
			for c, md := range ws.multi {
				if !firesAtPath(md, childrenChanged) {
					continue
				}
				sel.pick(c)
				if md&modeOneShot != 0 {
					if rest := md &^ modeOneShot; rest != 0 {
						ws.multi[c] = rest
					} else {
						delete(ws.multi, c)
						t.forget(c, path, md)
					}
				}
			}
			if len(ws.multi) == 0 {
				delete(t.byPath, path)
			}
		}
	}

	if t.recursive == 0 || childrenChanged {
		return
	}
	for ancestor := parentOf(path); ancestor != ""; ancestor = parentOf(ancestor) {
		ws, ok := t.byPath[ancestor]
		if !ok {
			continue
		}
		if ws.multi == nil {
			if ws.singleMode&modeRecursive != 0 {
				sel.pick(ws.single)
			}
			continue
		}
		for c, md := range ws.multi {
			if md&modeRecursive != 0 {
				sel.pick(c)
			}
		}
	}
}

// parentOf returns the parent of an absolute path, "/" for a top-level
// node, and "" for "/" and for anything that is not an absolute path (no
// ancestors to visit).
func parentOf(path string) string {
	if path == "/" {
		return ""
	}
	i := strings.LastIndexByte(path, '/')
	switch {
	case i < 0:
		return ""
	case i == 0:
		return "/"
	}
	return path[:i]
}

// selection gathers the connections one Trigger call notifies. It is
// reused from call to call so that firing allocates nothing.
type selection struct {
	call    uint64 // current Trigger call
	lookup  uint64 // current table lookup
	pending []*connState
	counted int // distinct connections the current lookup selected
}

func (s *selection) startLookup() {
	s.lookup++
	s.counted = 0
}

// pick selects c: counted once per table lookup, queued once per call.
func (s *selection) pick(c *connState) {
	if c.countedIn != s.lookup {
		c.countedIn = s.lookup
		s.counted++
	}
	if c.notifiedIn != s.call {
		c.notifiedIn = s.call
		s.pending = append(s.pending, c)
	}
}
