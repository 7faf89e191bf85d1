package db

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"unicode/utf16"

	"github.com/gozk/gozk/proto"
)

// TestChildOrderAgainstSetModel creates and deletes children at random
// and checks getChildren against JavaStringSet, the map-based model of
// the same HashSet: the holes, their compaction and node.slot must never
// change the order.
func TestChildOrderAgainstSetModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tree := New(Options{DigestEnabled: true})
	zxid := int64(1)
	apply := func(txn func(int64) bool) {
		t.Helper()
		zxid++
		if !txn(zxid) {
			t.Fatalf("txn at zxid %d failed", zxid)
		}
	}
	apply(func(z int64) bool { return tree.Apply(createTxn(z, "/p", nil, -1)).Err == 0 })
	model := newJavaStringSet(javaChildCapacity)
	live := map[string]bool{}
	for step := range 5000 {
		name := fmt.Sprintf("c%d", rng.IntN(300))
		if live[name] {
			apply(func(z int64) bool { return tree.Apply(deleteTxn(z, "/p/"+name)).Err == 0 })
			model.Remove(name)
			delete(live, name)
		} else {
			apply(func(z int64) bool { return tree.Apply(createTxn(z, "/p/"+name, nil, -1)).Err == 0 })
			model.Add(name)
			live[name] = true
		}
		if step%50 != 0 {
			continue
		}
		got, _, _, _ := tree.GetChildren("/p", nil)
		if want := model.Paths(); !slices.Equal(got, want) {
			t.Fatalf("step %d:\n got %q\nwant %q", step, got, want)
		}
		l := tree.childList(tree.lookup("/p"))
		for i := range l.ids {
			if c := l.at(i); c != nil && int(c.slot) != i {
				t.Fatalf("step %d: %s has slot %d at %d", step, tree.pathOf(c), c.slot, i)
			}
		}
	}
}

func TestJavaSpreadHashMatchesUTF16(t *testing.T) {
	ref := func(s string) uint32 {
		var h int32
		for _, u := range utf16.Encode([]rune(s)) {
			h = 31*h + int32(u)
		}
		x := uint32(h)
		return x ^ (x >> 16)
	}
	for _, s := range []string{"", "a", "abcd", "abcdefghij", "zürich", "日本語のノード", "a😀b", "abc\xffdef", "\xe2\x82", "node-0000000042", "Ωmega-long-name"} {
		if got, want := javaSpreadHash(s), ref(s); got != want {
			t.Errorf("javaSpreadHash(%q) = %#x, want %#x", s, got, want)
		}
	}
	var sink uint32
	if n := testing.AllocsPerRun(100, func() { sink += javaSpreadHash("zürich-😀") }); n != 0 {
		t.Errorf("javaSpreadHash allocates %v times", n)
	}
	_ = sink
}

func deleteTxn(zxid int64, path string) *proto.TxnEntry {
	return &proto.TxnEntry{
		Header: proto.TxnHeader{ClientId: 1, Zxid: zxid, Time: zxid, Type: int32(proto.OpDelete)},
		Body:   &proto.DeleteTxn{Path: path},
	}
}
