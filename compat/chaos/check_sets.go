package chaos

import (
	"path"
	"sort"
	"strconv"
	"strings"
)

// createAttempts indexes the creates of a history by the tag each
// stored as its data (every create stores a tag no other create uses).
type createAttempt struct {
	outcome Outcome
	path    string // the path the server acknowledged
	server  string
}

func createAttempts(ops []Op) map[string]createAttempt {
	out := map[string]createAttempt{}
	for _, op := range ops {
		if op.Kind == KindCreate {
			out[op.Value] = createAttempt{outcome: op.Outcome, path: op.Path, server: op.Server}
		}
	}
	return out
}

// checkElements judges a grow-only collection of created children (the
// set and unique-ids workloads) against the final views of the parent:
// each member must hold every acknowledged create, under the name the
// server acknowledged, once; nothing a create was refused or never
// attempted; and no name acknowledged to two creates. It returns the
// anomalies and the lost and duplicated counts (the worst member's).
func checkElements(ops []Op, views []finalView) (anomalies []string, lost, duplicated int) {
	var f findings
	attempts := createAttempts(ops)
	byPath := map[string][]string{}
	for _, op := range ops {
		if op.Kind == KindCreate && op.Outcome == OK {
			byPath[op.Path] = append(byPath[op.Path], op.Value)
		}
	}
	var paths []string
	for p := range byPath {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if tags := byPath[p]; len(tags) > 1 {
			duplicated += len(tags) - 1
			f.add("unique ids: %s was acknowledged to %d creates (%s)", p, len(tags), strings.Join(tags, ", "))
		}
	}
	worstLost, worstDup := 0, 0
	for _, v := range views {
		held := map[string][]string{} // tag -> children holding it
		var names []string
		for name := range v.Children {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			tag := v.Children[name].Data
			held[tag] = append(held[tag], name)
			a, ok := attempts[tag]
			switch {
			case !ok:
				f.add("%s holds %s with %q, which no client created", v.Server, name, tag)
			case a.outcome == Failed:
				f.add("%s holds %s with %q, whose create was refused", v.Server, name, tag)
			case a.outcome == OK && path.Base(a.path) != name:
				f.add("%s holds %q as %s, but its create was acknowledged as %s", v.Server, tag, name, a.path)
			}
		}
		l, d := 0, 0
		var tags []string
		for tag := range attempts {
			tags = append(tags, tag)
		}
		sort.Strings(tags)
		for _, tag := range tags {
			a := attempts[tag]
			if a.outcome == OK && len(held[tag]) == 0 {
				l++
				f.add("lost: %s lacks %s (%q), acknowledged by %s", v.Server, a.path, tag, a.server)
			}
			if len(held[tag]) > 1 {
				d += len(held[tag]) - 1
				f.add("duplicated: %s holds %q %d times (%s)", v.Server, tag, len(held[tag]), strings.Join(held[tag], ", "))
			}
		}
		worstLost, worstDup = max(worstLost, l), max(worstDup, d)
	}
	f.list = append(f.list, compareViews(views)...)
	return f.result(), worstLost, duplicated + worstDup
}

// counterValue parses a counter's data: the count, then the writer's tag.
func counterValue(data string) (int, bool) {
	n, err := strconv.Atoi(strings.Fields(data + " x")[0])
	return n, err == nil
}

// checkCounter judges the counter's final value at every member: each
// acknowledged increment counted once, each indeterminate one at most
// once, and the version (one per increment) equal to the value.
func checkCounter(ops []Op, finals []Op) (anomalies []string, lost, duplicated int) {
	var f findings
	acked, maybe := 0, 0
	for _, op := range ops {
		if op.Kind != KindCAS {
			continue
		}
		switch op.Outcome {
		case OK:
			acked++
		case Indeterminate:
			maybe++
		}
	}
	for _, fin := range finals {
		n, ok := counterValue(fin.Data)
		switch {
		case !ok:
			f.add("counter at %s holds %q, not a count", fin.Server, fin.Data)
			continue
		case n < acked:
			lost = max(lost, acked-n)
			f.add("lost: counter at %s is %d after %d acknowledged increments", fin.Server, n, acked)
		case n > acked+maybe:
			duplicated = max(duplicated, n-acked-maybe)
			f.add("duplicated: counter at %s is %d after %d acknowledged and %d indeterminate increments", fin.Server, n, acked, maybe)
		}
		if int(fin.Version) != n {
			f.add("atomicity: counter at %s is %d at version %d (each increment sets both)", fin.Server, n, fin.Version)
		}
	}
	return f.result(), lost, duplicated
}

// checkQueue judges the queue's history and final views: no element
// dequeued twice, nothing dequeued that was not enqueued, every
// acknowledged enqueue either dequeued (or maybe dequeued) or still
// queued at the end, and nothing dequeued still queued.
func checkQueue(ops []Op, views []finalView) (anomalies []string, lost, duplicated int) {
	var f findings
	enq := createAttempts(ops)
	taken := map[string]int{}       // tag -> acknowledged dequeues
	maybeTaken := map[string]bool{} // tag -> an indeterminate dequeue
	deletedPaths := map[string]bool{}
	pathTag := map[string]string{} // acknowledged enqueue path -> tag
	for tag, a := range enq {
		if a.outcome == OK {
			pathTag[a.path] = tag
		}
	}
	for _, op := range ops {
		if op.Kind != KindDelete {
			continue
		}
		tag := op.Value // the data the dequeuer read before deleting
		if want, ok := pathTag[op.Key]; ok && want != tag && op.Outcome != Failed {
			f.add("dequeue of %s read %q, but its enqueue of %q was acknowledged with that path", op.Key, tag, want)
		}
		switch op.Outcome {
		case OK:
			taken[tag]++
			if deletedPaths[op.Key] {
				f.add("duplicated: %s was dequeued twice", op.Key)
			}
			deletedPaths[op.Key] = true
			a, ok := enq[tag]
			switch {
			case !ok:
				f.add("dequeued %q from %s, which no client enqueued", tag, op.Key)
			case a.outcome == Failed:
				f.add("dequeued %q from %s, whose enqueue was refused", tag, op.Key)
			}
		case Indeterminate:
			maybeTaken[tag] = true
		}
	}
	var tags []string
	for tag := range taken {
		tags = append(tags, tag)
	}
	sort.Strings(tags)
	for _, tag := range tags {
		if n := taken[tag]; n > 1 {
			duplicated += n - 1
			f.add("duplicated: %q was dequeued %d times", tag, n)
		}
	}
	worstLost := 0
	for _, v := range views {
		queued := map[string]bool{}
		var names []string
		for name := range v.Children {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			tag := v.Children[name].Data
			queued[tag] = true
			if a, ok := enq[tag]; !ok || a.outcome == Failed {
				f.add("%s holds %s with %q, which was never enqueued", v.Server, name, tag)
			}
			if taken[tag] > 0 {
				f.add("%s still holds %s with %q, which was dequeued", v.Server, name, tag)
			}
		}
		l := 0
		var all []string
		for tag := range enq {
			all = append(all, tag)
		}
		sort.Strings(all)
		for _, tag := range all {
			a := enq[tag]
			if a.outcome == OK && taken[tag] == 0 && !maybeTaken[tag] && !queued[tag] {
				l++
				f.add("lost: %q (enqueued as %s) neither dequeued nor queued at %s", tag, a.path, v.Server)
			}
		}
		worstLost = max(worstLost, l)
	}
	f.list = append(f.list, compareViews(views)...)
	return f.result(), worstLost, duplicated
}

// ephemeralSession is what the ephemeral workload knows of one session.
type ephemeralSession struct {
	id int64
	// ended: the session was closed or abandoned (or expired under the
	// client), so the ensemble must drop its ephemerals.
	ended bool
	// alive: the session answered after the final views were read, so
	// it held its ephemerals through them.
	alive bool
}

// checkEphemerals judges the final views of the ephemerals' parent:
// nothing of an ended session remains, every acknowledged ephemeral of
// a session still alive is there, each node's owner is the session that
// created it, and nothing is there that no session created.
func checkEphemerals(ops []Op, sessions map[int64]ephemeralSession, views []finalView) (anomalies []string, lost int) {
	var f findings
	attempts := createAttempts(ops)
	owner := map[string]int64{} // tag -> the session that created it
	for _, op := range ops {
		if op.Kind == KindCreate && op.Session != 0 {
			owner[op.Value] = op.Session
		}
	}
	for _, v := range views {
		held := map[string]bool{}
		var names []string
		for name := range v.Children {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			node := v.Children[name]
			tag := node.Data
			held[tag] = true
			a, ok := attempts[tag]
			if !ok || a.outcome == Failed {
				f.add("%s holds ephemeral %s (%q), which no session created", v.Server, name, tag)
				continue
			}
			if s, ok := sessions[node.Owner]; ok && s.ended {
				f.add("%s still holds ephemeral %s of session %#x, which ended", v.Server, name, node.Owner)
			} else if !ok {
				f.add("%s holds ephemeral %s owned by %#x, a session no client had", v.Server, name, node.Owner)
			}
			if want, ok := owner[tag]; ok && want != node.Owner {
				f.add("%s holds ephemeral %s owned by %#x, but session %#x created it", v.Server, name, node.Owner, want)
			}
		}
		l := 0
		for _, op := range ops {
			if op.Kind != KindCreate || op.Outcome != OK || op.Session == 0 {
				continue
			}
			if s := sessions[op.Session]; s.alive && !s.ended && !held[op.Value] {
				l++
				f.add("lost: %s lacks %s of session %#x, which is alive", v.Server, op.Path, op.Session)
			}
		}
		lost = max(lost, l)
	}
	f.list = append(f.list, compareViews(views)...)
	return f.result(), lost
}
