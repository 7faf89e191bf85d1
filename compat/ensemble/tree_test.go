package ensemble

import (
	"path"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"
)

// fakeReader serves a tree from memory.
type fakeReader map[string]Node

func (f fakeReader) Get(p string) ([]byte, *zk.Stat, error) {
	n, ok := f[p]
	if !ok {
		return nil, nil, zk.ErrNoNode
	}
	st := n.Stat
	return n.Data, &st, nil
}

func (f fakeReader) GetACL(p string) ([]zk.ACL, *zk.Stat, error) {
	n, ok := f[p]
	if !ok {
		return nil, nil, zk.ErrNoNode
	}
	return n.ACL, &zk.Stat{}, nil
}

func (f fakeReader) Children(p string) ([]string, *zk.Stat, error) {
	if _, ok := f[p]; !ok {
		return nil, nil, zk.ErrNoNode
	}
	var children []string
	for q := range f {
		if q != "/" && path.Dir(q) == p {
			children = append(children, path.Base(q))
		}
	}
	return children, &zk.Stat{}, nil
}

func sampleTree() fakeReader {
	acl := zk.WorldACL(zk.PermAll)
	f := fakeReader{}
	for i, p := range []string{"/", "/a", "/a/b", "/a-c", "/zookeeper", "/zookeeper/config"} {
		f[p] = Node{Path: p, Data: []byte("d" + p), ACL: acl, Stat: zk.Stat{Czxid: int64(i), Mzxid: int64(i), Mtime: 1000}}
	}
	return f
}

func TestDumpReadsEveryNodeInPathOrder(t *testing.T) {
	tree, err := Dump(sampleTree())
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, n := range tree {
		paths = append(paths, n.Path)
	}
	if got, want := strings.Join(paths, " "), "/ /a /a-c /a/b /zookeeper /zookeeper/config"; got != want {
		t.Fatalf("dumped %s, want %s", got, want)
	}
	if n, ok := tree.Get("/a/b"); !ok || string(n.Data) != "d/a/b" || n.Stat.Czxid != 2 {
		t.Fatalf("Get(/a/b) = %+v, %v", n, ok)
	}
	if _, ok := tree.Get("/nope"); ok {
		t.Fatal("Get found a node the tree does not have")
	}
	if got := len(tree.Without(func(p string) bool { return strings.HasPrefix(p, "/a") })); got != 3 {
		t.Fatalf("Without kept %d nodes, want 3", got)
	}
}

func TestDumpFailsOnAVanishingNode(t *testing.T) {
	f := sampleTree()
	broken := vanishing{f, "/a/b"}
	if _, err := Dump(broken); err == nil || !strings.Contains(err.Error(), "/a/b") {
		t.Fatalf("Dump = %v, want an error naming /a/b", err)
	}
}

// vanishing lists gone among its parent's children but has no node for it.
type vanishing struct {
	fakeReader
	gone string
}

func (v vanishing) Get(p string) ([]byte, *zk.Stat, error) {
	if p == v.gone {
		return nil, nil, zk.ErrNoNode
	}
	return v.fakeReader.Get(p)
}

func TestDiffTreesNamesTheFirstDifference(t *testing.T) {
	base, err := Dump(sampleTree())
	if err != nil {
		t.Fatal(err)
	}
	if d := DiffTrees(base, base); d != "" {
		t.Fatalf("a tree differs from itself: %s", d)
	}
	for _, c := range []struct {
		name   string
		change func(f fakeReader)
		want   string
	}{
		{"data", func(f fakeReader) { n := f["/a"]; n.Data = []byte("x"); f["/a"] = n }, `/a: data "d/a", then "x"`},
		{"czxid", func(f fakeReader) { n := f["/a/b"]; n.Stat.Czxid = 9; f["/a/b"] = n }, "/a/b: czxid 0x2, then 0x9"},
		{"mzxid", func(f fakeReader) { n := f["/a"]; n.Stat.Mzxid = 0x100000001; f["/a"] = n }, "/a: mzxid 0x1, then 0x100000001"},
		{"pzxid", func(f fakeReader) { n := f["/a"]; n.Stat.Pzxid = 7; f["/a"] = n }, "/a: pzxid 0x0, then 0x7"},
		{"ctime", func(f fakeReader) { n := f["/a"]; n.Stat.Ctime = 5; f["/a"] = n }, "/a: ctime 0, then 5"},
		{"mtime", func(f fakeReader) { n := f["/a"]; n.Stat.Mtime = 5; f["/a"] = n }, "/a: mtime 1000, then 5"},
		{"version", func(f fakeReader) { n := f["/a"]; n.Stat.Version = 1; f["/a"] = n }, "/a: version 0, then 1"},
		{"cversion", func(f fakeReader) { n := f["/a"]; n.Stat.Cversion = 1; f["/a"] = n }, "/a: cversion 0, then 1"},
		{"aversion", func(f fakeReader) { n := f["/a"]; n.Stat.Aversion = 1; f["/a"] = n }, "/a: aversion 0, then 1"},
		{"ephemeralOwner", func(f fakeReader) { n := f["/a"]; n.Stat.EphemeralOwner = 0x10; f["/a"] = n }, "/a: ephemeralOwner 0x0, then 0x10"},
		{"dataLength", func(f fakeReader) { n := f["/a"]; n.Stat.DataLength = 3; f["/a"] = n }, "/a: dataLength 0, then 3"},
		{"numChildren", func(f fakeReader) { n := f["/a"]; n.Stat.NumChildren = 3; f["/a"] = n }, "/a: numChildren 0, then 3"},
		{"acl", func(f fakeReader) { n := f["/a"]; n.ACL = zk.WorldACL(zk.PermRead); f["/a"] = n }, "/a: acl [{31 world anyone}], then [{1 world anyone}]"},
		{"missing", func(f fakeReader) { delete(f, "/a/b") }, "/a/b: only on the first"},
		{"extra", func(f fakeReader) { f["/a/0"] = Node{Path: "/a/0"} }, "/a/0: only on the second"},
		{"first in path order", func(f fakeReader) {
			for _, p := range []string{"/zookeeper", "/a-c"} {
				n := f[p]
				n.Stat.Version = 4
				f[p] = n
			}
		}, "/a-c: version 0, then 4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := sampleTree()
			c.change(f)
			other, err := Dump(f)
			if err != nil {
				t.Fatal(err)
			}
			if d := DiffTrees(base, other); d != c.want {
				t.Fatalf("DiffTrees = %q, want %q", d, c.want)
			}
		})
	}
}

// The configuration node's mtime is each server's own; the rest of it
// is compared.
func TestDiffTreesConfigNodeMtimeIsLocal(t *testing.T) {
	base, _ := Dump(sampleTree())
	f := sampleTree()
	n := f[ConfigNode]
	n.Stat.Mtime = 2000
	f[ConfigNode] = n
	other, _ := Dump(f)
	if d := DiffTrees(base, other); d != "" {
		t.Fatalf("the config node's mtime was compared: %s", d)
	}
	n.Stat.Mzxid = 99
	f[ConfigNode] = n
	other, _ = Dump(f)
	if d := DiffTrees(base, other); d != "/zookeeper/config: mzxid 0x5, then 0x63" {
		t.Fatalf("DiffTrees = %q", d)
	}
}
