package db

import (
	"encoding/binary"
	"hash/crc32"
	"strings"

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
	var scratch []byte
	return nodeDigest(&scratch, path, data, stat)
}

// digestInOnePass bounds the data that nodeDigest copies next to the path
// and stat so that one CRC pass covers all three: crc32 runs its
// carry-less-multiply loop only over whole 16-byte blocks of inputs of 64
// bytes or more, and takes a path of 20-odd bytes, the tail of the data
// and the 60-byte stat block a byte at a time through tables, which made
// that the larger part of a setData's digest. Bigger data costs more to
// copy than it saves.
const digestInOnePass = 4 << 10

// nodeDigest computes NodeDigest with a caller's scratch buffer, kept
// between calls (crc32 makes its input escape, and the tree digests on
// every write).
func nodeDigest(scratch *[]byte, path string, data []byte, stat *proto.StatPersisted) int64 {
	if strings.HasPrefix(path, digestExcludedPrefix) {
		return 0
	}
	if path == "/" {
		path = ""
	}
	b := append((*scratch)[:0], path...)
	if len(data) <= digestInOnePass {
		b = append(b, data...)
	}
	statAt := len(b)
	b = binary.BigEndian.AppendUint64(b, uint64(stat.Czxid))
	b = binary.BigEndian.AppendUint64(b, uint64(stat.Mzxid))
	b = binary.BigEndian.AppendUint64(b, uint64(stat.Pzxid))
	b = binary.BigEndian.AppendUint64(b, uint64(stat.Ctime))
	b = binary.BigEndian.AppendUint64(b, uint64(stat.Mtime))
	b = binary.BigEndian.AppendUint32(b, uint32(stat.Version))
	b = binary.BigEndian.AppendUint32(b, uint32(stat.Cversion))
	b = binary.BigEndian.AppendUint32(b, uint32(stat.Aversion))
	b = binary.BigEndian.AppendUint64(b, uint64(stat.EphemeralOwner))
	*scratch = b
	if len(data) <= digestInOnePass {
		return int64(crc32.ChecksumIEEE(b))
	}
	crc := crc32.Update(0, crc32.IEEETable, b[:statAt])
	crc = crc32.Update(crc, crc32.IEEETable, data)
	return int64(crc32.Update(crc, crc32.IEEETable, b[statAt:]))
}

// nodeDigest is n's digest; only called with the write lock held, which
// guards the scratch block.
func (t *Tree) nodeDigest(n *node) int64 {
	path := n.path()
	if strings.HasPrefix(path, digestExcludedPrefix) {
		return 0
	}
	s := n.persisted()
	return nodeDigest(&t.digestScratch, path, t.dataOf(n), &s)
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
