package db

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/gozk/gozk/proto"
)

// refNodeDigest is Java's node digest written out from its definition:
// one CRC32 stream over the path ("" for the root), the data and the
// stat block, with nodes under /zookeeper/ left out.
func refNodeDigest(path string, data []byte, s proto.StatPersisted) int64 {
	if strings.HasPrefix(path, "/zookeeper/") {
		return 0
	}
	h := crc32.NewIEEE()
	h.Write([]byte(path))
	h.Write(data)
	var b [60]byte
	binary.BigEndian.PutUint64(b[0:], uint64(s.Czxid))
	binary.BigEndian.PutUint64(b[8:], uint64(s.Mzxid))
	binary.BigEndian.PutUint64(b[16:], uint64(s.Pzxid))
	binary.BigEndian.PutUint64(b[24:], uint64(s.Ctime))
	binary.BigEndian.PutUint64(b[32:], uint64(s.Mtime))
	binary.BigEndian.PutUint32(b[40:], uint32(s.Version))
	binary.BigEndian.PutUint32(b[44:], uint32(s.Cversion))
	binary.BigEndian.PutUint32(b[48:], uint32(s.Aversion))
	binary.BigEndian.PutUint64(b[52:], uint64(s.EphemeralOwner))
	h.Write(b[:])
	return int64(h.Sum32())
}

// TestNodeDigestMatchesDefinition checks the tree's digest of every node,
// computed in one pass over a scratch copy (or in three calls for large
// data), against the definition: data of every length around the
// one-pass bound, null and empty data, nested paths, wide and narrow
// nodes, the root and the built-in nodes.
func TestNodeDigestMatchesDefinition(t *testing.T) {
	tree := New(Options{DigestEnabled: true})
	zxid := int64(0)
	apply := func(txn *proto.TxnEntry) {
		t.Helper()
		if res := tree.Apply(txn); res.Err != proto.ErrOK {
			t.Fatalf("zxid %d: %v", txn.Header.Zxid, res.Err)
		}
	}
	next := func() int64 { zxid++; return zxid }
	apply(createTxn(next(), "/a", nil, -1))
	apply(createTxn(next(), "/a/b", []byte{}, -1))
	apply(createTxn(next(), "/zookeeper/x", []byte("left out"), -1))
	for _, size := range []int{0, 1, 15, 16, 63, 64, 65, 100, 447, 448, 511, 512, 513, 4096} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i*7 + size)
		}
		p := fmt.Sprintf("/a/b/d%d", size)
		apply(createTxn(next(), p, data, -1))
		if size%2 == 1 {
			apply(setDataTxn(next(), p, data[:size/2], 0)) // wide, data kept apart
		}
	}
	check := func(n *node) {
		t.Helper()
		path := tree.pathOf(n)
		if got, want := tree.nodeDigest(n), refNodeDigest(path, tree.dataOf(n), n.persisted()); got != want {
			t.Errorf("%q: digest %d, want %d", path, got, want)
		}
	}
	check(tree.root)
	count := 0
	for n := range tree.nodes.all() {
		check(n)
		count++
	}
	if count < 20 {
		t.Fatalf("only %d nodes checked", count)
	}
	want := tree.Digest()
	tree.recomputeDigest()
	if tree.Digest() != want {
		t.Errorf("the digest kept up over the writes is %d, recomputed %d", want, tree.Digest())
	}
}
