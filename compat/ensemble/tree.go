package ensemble

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"sync"

	"github.com/go-zookeeper/zk"
)

// Node is one znode as a client reads it: its data and Stat from one
// getData, its ACL from getACL.
type Node struct {
	Path string
	Data []byte
	Stat zk.Stat
	ACL  []zk.ACL
}

// Tree is every znode of a server, sorted by path.
type Tree []Node

// Reader is what Dump needs of a client; *zk.Conn is one.
type Reader interface {
	Children(path string) ([]string, *zk.Stat, error)
	Get(path string) ([]byte, *zk.Stat, error)
	GetACL(path string) ([]zk.ACL, *zk.Stat, error)
}

// Dump reads the whole tree under "/" (the /zookeeper subtree included)
// through r, a level at a time, with up to dumpParallelism requests in
// flight. The tree must hold still while it is read: a node deleted
// between its parent's getChildren and its own getData is an error.
func Dump(r Reader) (Tree, error) {
	var tree Tree
	level := []string{"/"}
	for len(level) > 0 {
		nodes := make([]Node, len(level))
		children := make([][]string, len(level))
		errs := make([]error, len(level))
		work := make(chan int)
		var wg sync.WaitGroup
		for w := 0; w < min(dumpParallelism, len(level)); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range work {
					nodes[i], children[i], errs[i] = readNode(r, level[i])
				}
			}()
		}
		for i := range level {
			work <- i
		}
		close(work)
		wg.Wait()
		var next []string
		for i, p := range level {
			if errs[i] != nil {
				return nil, errs[i]
			}
			tree = append(tree, nodes[i])
			for _, c := range children[i] {
				next = append(next, path.Join(p, c))
			}
		}
		level = next
	}
	sort.Slice(tree, func(i, j int) bool { return tree[i].Path < tree[j].Path })
	return tree, nil
}

// dumpParallelism bounds Dump's requests in flight.
const dumpParallelism = 32

func readNode(r Reader, p string) (Node, []string, error) {
	data, stat, err := r.Get(p)
	if err != nil {
		return Node{}, nil, fmt.Errorf("getData %s: %w", p, err)
	}
	acl, _, err := r.GetACL(p)
	if err != nil {
		return Node{}, nil, fmt.Errorf("getACL %s: %w", p, err)
	}
	children, _, err := r.Children(p)
	if err != nil {
		return Node{}, nil, fmt.Errorf("getChildren %s: %w", p, err)
	}
	return Node{Path: p, Data: data, Stat: *stat, ACL: acl}, children, nil
}

// Get returns the node at p, if the tree has it.
func (t Tree) Get(p string) (Node, bool) {
	i := sort.Search(len(t), func(i int) bool { return t[i].Path >= p })
	if i < len(t) && t[i].Path == p {
		return t[i], true
	}
	return Node{}, false
}

// Without returns the tree without the nodes whose path skip accepts.
func (t Tree) Without(skip func(path string) bool) Tree {
	var out Tree
	for _, n := range t {
		if !skip(n.Path) {
			out = append(out, n)
		}
	}
	return out
}

// DiffTrees compares two trees and describes the first difference in
// path order: a path only one of them has, or the first field of a node
// that differs (data, then each Stat field, then the ACL). "" means the
// trees are identical.
func DiffTrees(a, b Tree) string {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i].Path < b[j].Path):
			return fmt.Sprintf("%s: only on the first", a[i].Path)
		case i == len(a) || b[j].Path < a[i].Path:
			return fmt.Sprintf("%s: only on the second", b[j].Path)
		}
		if d := diffNode(a[i], b[j], a[i].Path == ConfigNode); d != "" {
			return fmt.Sprintf("%s: %s", a[i].Path, d)
		}
		i++
		j++
	}
	return ""
}

// ConfigNode holds the ensemble's configuration. Each Java server writes
// it into its own tree when it loads its configuration, with its own
// clock's time as mtime and no txn: its mtime differs from server to
// server, and is not compared.
const ConfigNode = "/zookeeper/config"

func diffNode(a, b Node, localMtime bool) string {
	if !bytes.Equal(a.Data, b.Data) {
		return fmt.Sprintf("data %q, then %q", a.Data, b.Data)
	}
	x, y := a.Stat, b.Stat
	for _, f := range []struct {
		name string
		a, b int64
		hex  bool
	}{
		{"czxid", x.Czxid, y.Czxid, true},
		{"mzxid", x.Mzxid, y.Mzxid, true},
		{"pzxid", x.Pzxid, y.Pzxid, true},
		{"ctime", x.Ctime, y.Ctime, false},
		{"mtime", x.Mtime, y.Mtime, false},
		{"version", int64(x.Version), int64(y.Version), false},
		{"cversion", int64(x.Cversion), int64(y.Cversion), false},
		{"aversion", int64(x.Aversion), int64(y.Aversion), false},
		{"ephemeralOwner", x.EphemeralOwner, y.EphemeralOwner, true},
		{"dataLength", int64(x.DataLength), int64(y.DataLength), false},
		{"numChildren", int64(x.NumChildren), int64(y.NumChildren), false},
	} {
		if f.a != f.b && !(localMtime && f.name == "mtime") {
			if f.hex {
				return fmt.Sprintf("%s 0x%x, then 0x%x", f.name, f.a, f.b)
			}
			return fmt.Sprintf("%s %d, then %d", f.name, f.a, f.b)
		}
	}
	if fmt.Sprint(a.ACL) != fmt.Sprint(b.ACL) {
		return fmt.Sprintf("acl %v, then %v", a.ACL, b.ACL)
	}
	return ""
}
