package db

import (
	"encoding/binary"
	"hash/crc32"
	"strings"
	"unsafe"

	"github.com/gozk/gozk/proto"
)

// digestExcludedPrefix: Java leaves everything under /zookeeper/ out of the
// digest (quota stats are rewritten locally and would never agree), but
// keeps /zookeeper itself and the root.
const digestExcludedPrefix = "/zookeeper/"

// NodeDigest is Java's version-2 node digest: CRC32 (IEEE) over the path
// bytes (the root as ""), the data when not null, and the 60-byte
// big-endian block czxid, mzxid, pzxid, ctime, mtime, version, cversion,
// aversion, ephemeralOwner of the stored stat. Paths under /zookeeper/
// contribute 0.
func NodeDigest(path string, data []byte, stat *proto.StatPersisted) int64 {
	var block [60]byte
	return nodeDigest(&block, path, data, stat)
}

// nodeDigest computes NodeDigest with a caller's scratch block: crc32
// makes its input escape, and the tree digests on every write.
func nodeDigest(block *[60]byte, path string, data []byte, stat *proto.StatPersisted) int64 {
	if strings.HasPrefix(path, digestExcludedPrefix) {
		return 0
	}
	if path == "/" {
		path = ""
	}
	b := block[:]
	binary.BigEndian.PutUint64(b[0:], uint64(stat.Czxid))
	binary.BigEndian.PutUint64(b[8:], uint64(stat.Mzxid))
	binary.BigEndian.PutUint64(b[16:], uint64(stat.Pzxid))
	binary.BigEndian.PutUint64(b[24:], uint64(stat.Ctime))
	binary.BigEndian.PutUint64(b[32:], uint64(stat.Mtime))
	binary.BigEndian.PutUint32(b[40:], uint32(stat.Version))
	binary.BigEndian.PutUint32(b[44:], uint32(stat.Cversion))
	binary.BigEndian.PutUint32(b[48:], uint32(stat.Aversion))
	binary.BigEndian.PutUint64(b[52:], uint64(stat.EphemeralOwner))
	crc := crc32.Update(0, crc32.IEEETable, unsafe.Slice(unsafe.StringData(path), len(path)))
	crc = crc32.Update(crc, crc32.IEEETable, data)
	crc = crc32.Update(crc, crc32.IEEETable, b)
	return int64(crc)
}

// nodeDigest is n's digest; only called with the write lock held, which
// guards the scratch block and path.
func (t *Tree) nodeDigest(n *node) int64 {
	t.digestPath = t.nodes.appendPath(t.digestPath[:0], n)
	path := unsafe.String(unsafe.SliceData(t.digestPath), len(t.digestPath))
	if strings.HasPrefix(path, digestExcludedPrefix) {
		return 0
	}
	s := n.persisted()
	return nodeDigest(&t.digestBlock, path, t.dataOf(n), &s)
}

// digestRemove takes n's current contribution out of the tree digest; call
// it before changing n, and digestAdd after.
func (t *Tree) digestRemove(n *node) {
	if t.opts.DigestEnabled {
		t.digest -= t.nodeDigest(n)
	}
}

func (t *Tree) digestAdd(n *node) {
	if t.opts.DigestEnabled {
		t.digest += t.nodeDigest(n)
	}
}

// recomputeDigest rebuilds the tree digest from every node.
func (t *Tree) recomputeDigest() {
	t.digest = 0
	if !t.opts.DigestEnabled {
		return
	}
	t.digest = t.nodeDigest(t.root)
	for n := range t.nodes.all() {
		t.digest += t.nodeDigest(n)
	}
}
