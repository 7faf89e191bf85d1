package db

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// indexNode makes a node for path p to insert into x, whose parent (if
// p is not top-level) x holds.
func indexNode(x *pathIndex, p string) *node {
	parent := rootParent
	if pp := parentPath(p); pp != "" {
		parent = x.indexOf(pp)
	}
	return newNode(baseName(p), parent, nil, false)
}

// TestPathIndexAgainstMap inserts, replaces and removes at random and
// compares the index with a map after every step: the runs that
// backward-shift deletion rearranges must stay findable. The nodes sit
// under two parents and have the same names under both, so only their
// parents tell them apart.
func TestPathIndexAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var x pathIndex
	x.init()
	model := map[string]*node{}
	check := func(step int) {
		t.Helper()
		checkIndex(t, &x, model, fmt.Sprintf("step %d", step))
	}
	for _, p := range []string{"/n", "/m", "/m/n"} {
		n := indexNode(&x, p)
		x.insert(p, n)
		model[p] = n
	}
	parents := []string{"/n", "/m/n"}
	for step := range 40000 {
		// A universe that the table holds at high and low load in turn.
		universe := 200 + 1800*(step/10000%2)
		p := fmt.Sprintf("%s/%d", parents[rng.IntN(2)], rng.IntN(universe/2))
		switch op := rng.IntN(10); {
		case model[p] == nil && op < 6:
			n := indexNode(&x, p)
			if _, ok := x.insert(p, n); !ok {
				t.Fatalf("step %d: insert(%q) found it there", step, p)
			}
			model[p] = n
		case model[p] != nil && op < 2:
			nn := model[p].copyWith([]byte("x"), rng.IntN(2) == 0)
			x.setNode(x.indexOf(p), nn)
			model[p] = nn
		case model[p] != nil:
			if _, ok := x.insert(p, indexNode(&x, p)); ok {
				t.Fatalf("step %d: a second %q was inserted", step, p)
			}
			x.remove(p)
			delete(model, p)
		default:
			x.remove(p) // absent: no change
		}
		if step%997 == 0 {
			check(step)
		}
	}
	check(-1)
	x.reserve(100000)
	check(-2)
	if len(x.slots) < 100000*4/3 {
		t.Errorf("reserve(100000) left %d slots", len(x.slots))
	}
}

// TestPathIndexGrowsInSteps works on the index while a doubled table's
// entries are still moving over: lookups, inserts, replacements and
// removals of moved and unmoved entries alike must all see one
// consistent index, and the move must end.
func TestPathIndexGrowsInSteps(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var x pathIndex
	x.init()
	model := map[string]*node{}
	var paths []string
	add := func(p string) {
		n := indexNode(&x, p)
		if _, ok := x.insert(p, n); !ok {
			t.Fatalf("insert(%q) found it there", p)
		}
		model[p] = n
		paths = append(paths, p)
	}
	check := func(what string) {
		t.Helper()
		checkIndex(t, &x, model, what)
		for _, p := range paths {
			if model[p] == nil && x.get(p) != nil {
				t.Fatalf("%s: removed %q still found", what, p)
			}
		}
	}
	grown := 0
	for i := 0; grown < 3; i++ {
		before := len(x.slots)
		add(fmt.Sprintf("/g%d", i))
		if len(x.slots) == before || len(x.slots) < 8192 {
			continue
		}
		grown++
		// Mid-move: mix every operation, over old and new paths.
		for step := 0; x.old != nil; step++ {
			if step > len(x.old) {
				t.Fatal("the move does not end")
			}
			p := paths[rng.IntN(len(paths))]
			switch op := rng.IntN(4); {
			case model[p] == nil:
				add(p)
			case op == 0:
				nn := model[p].copyWith([]byte("x"), true)
				x.setNode(x.indexOf(p), nn)
				model[p] = nn
			case op == 1:
				if _, ok := x.insert(p, indexNode(&x, p)); ok {
					t.Fatalf("a second %q was inserted mid-move", p)
				}
			default:
				x.remove(p)
				delete(model, p)
			}
			if step%4 == 0 {
				check(fmt.Sprintf("growth %d, step %d", grown, step))
			}
		}
		check(fmt.Sprintf("after growth %d", grown))
	}
}

// checkIndex compares x with model: its size, a get of every path, and
// what all yields.
func checkIndex(t *testing.T, x *pathIndex, model map[string]*node, what string) {
	t.Helper()
	if x.len() != len(model) {
		t.Fatalf("%s: %d nodes, want %d", what, x.len(), len(model))
	}
	for p, n := range model {
		if got := x.get(p); got != n {
			t.Fatalf("%s: get(%q) = %p, want %p", what, p, got, n)
		}
	}
	seen := 0
	for n := range x.all() {
		if model[x.pathOf(n)] != n {
			t.Fatalf("%s: all yields a stale %q", what, x.pathOf(n))
		}
		seen++
	}
	if seen != len(model) {
		t.Fatalf("%s: all yields %d nodes, want %d", what, seen, len(model))
	}
}
