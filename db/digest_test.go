package db

import (
	"bytes"
	"hash/crc32"
	"testing"

	"github.com/gozk/gozk/proto"
)

// TestNodeDigestOnePassMatchesJavaLayout checks the tree's one-pass node
// digest against the piecewise one (path, data, stat block, as Java's
// DigestCalculator feeds its CRC32) for every shape of node: inline and
// outside data, null and empty data, data too large for the scratch
// buffer, an ephemeral (owner in the block), the root and the excluded
// /zookeeper/ subtree.
func TestNodeDigestOnePassMatchesJavaLayout(t *testing.T) {
	tree := New(Options{DigestEnabled: true})
	b := &txnBuilder{session: 0x1234}
	big := bytes.Repeat([]byte("z"), digestScratchSize)
	mustApply(t, tree, b.create("/inline", []byte("one hundred bytes or so"), -1))
	mustApply(t, tree, b.create("/outside", []byte("first"), -1))
	mustApply(t, tree, b.setData("/outside", []byte("second, kept outside the node"), -1))
	mustApply(t, tree, b.create("/null", nil, -1))
	mustApply(t, tree, b.create("/empty", []byte{}, -1))
	mustApply(t, tree, b.create("/big", big, -1))
	mustApply(t, tree, b.create("/just-fits", big[:digestScratchSize-60-len("/just-fits")], -1))
	mustApply(t, tree, b.ephemeral("/inline/eph"))
	mustApply(t, tree, b.create("/zookeeper/excluded", []byte("x"), -1))

	tree.mu.Lock()
	defer tree.mu.Unlock()
	for _, path := range []string{"", "/zookeeper", "/inline", "/outside", "/null", "/empty", "/big", "/just-fits", "/inline/eph", "/zookeeper/excluded"} {
		n := tree.lookup(path)
		if n == nil {
			t.Fatalf("%q: no node", path)
		}
		s := n.persisted()
		data := tree.dataOf(n)
		want := NodeDigest(path, data, &s)
		if got := tree.nodeDigest(n); got != want {
			t.Errorf("%q: one-pass digest %d, piecewise %d", path, got, want)
		}
		if path == "/zookeeper/excluded" {
			if want != 0 {
				t.Errorf("%q: digest %d, want 0 (excluded)", path, want)
			}
			continue
		}
		// The piecewise digest is CRC32 of path, data and the block, in
		// that order.
		block := appendStatBlock(nil, &s)
		manual := crc32.ChecksumIEEE(append(append([]byte(path), data...), block...))
		if want != int64(manual) {
			t.Errorf("%q: piecewise digest %d, CRC32 of the concatenation %d", path, want, manual)
		}
	}
	if !tree.lookup("/outside").external() {
		t.Error("/outside: data is still inline; the test no longer covers outside data")
	}
}

// TestStatBlockLayout pins the 60-byte block's field order.
func TestStatBlockLayout(t *testing.T) {
	s := proto.StatPersisted{Czxid: 1, Mzxid: 2, Pzxid: 3, Ctime: 4, Mtime: 5, Version: 6, Cversion: 7, Aversion: 8, EphemeralOwner: 9}
	got := appendStatBlock(nil, &s)
	want := []byte{
		0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3,
		0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 5,
		0, 0, 0, 6, 0, 0, 0, 7, 0, 0, 0, 8,
		0, 0, 0, 0, 0, 0, 0, 9,
	}
	if !bytes.Equal(got, want) {
		t.Errorf("block %v, want %v", got, want)
	}
}
