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

// NodeDigestWith is NodeDigest with the caller's scratch block, which
// then costs no allocation (crc32 makes its input escape).
func NodeDigestWith(block *[60]byte, path string, data []byte, stat *proto.StatPersisted) int64 {
	return nodeDigest(block, path, data, stat)
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
	b := appendStatBlock(block[:0], stat)
	crc := crc32.Update(0, crc32.IEEETable, unsafe.Slice(unsafe.StringData(path), len(path)))
	crc = crc32.Update(crc, crc32.IEEETable, data)
	crc = crc32.Update(crc, crc32.IEEETable, b)
	return int64(crc)
}

// digestOnePassMax bounds the data a node digest copies: path, data and
// stat block copied together let crc32 run its vector code (64 bytes at a
// time) over all of them, where three short inputs each take its
// byte-at-a-time path; past a few hundred bytes of data the copy costs
// more than it saves.
const digestOnePassMax = 512

// nodeDigest is n's digest; only called with the write lock held, which
// guards the scratch buffers.
func (t *Tree) nodeDigest(n *node) int64 {
	b := t.nodes.appendPath(t.digestScratch[:0], n)
	if len(b) >= len(digestExcludedPrefix) && string(b[:len(digestExcludedPrefix)]) == digestExcludedPrefix {
		t.digestScratch = b
		return 0
	}
	s := n.persisted()
	data := t.dataOf(n)
	if len(data) > digestOnePassMax {
		t.digestScratch = b
		return nodeDigest(&t.digestBlock, unsafe.String(unsafe.SliceData(b), len(b)), data, &s)
	}
	b = append(b, data...)
	b = appendStatBlock(b, &s)
	t.digestScratch = b
	return int64(crc32.ChecksumIEEE(b))
}

// appendStatBlock appends the 60-byte big-endian stat block of a node
// digest to b.
func appendStatBlock(b []byte, stat *proto.StatPersisted) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(stat.Czxid))
	b = binary.BigEndian.AppendUint64(b, uint64(stat.Mzxid))
	b = binary.BigEndian.AppendUint64(b, uint64(stat.Pzxid))
	b = binary.BigEndian.AppendUint64(b, uint64(stat.Ctime))
	b = binary.BigEndian.AppendUint64(b, uint64(stat.Mtime))
	b = binary.BigEndian.AppendUint32(b, uint32(stat.Version))
	b = binary.BigEndian.AppendUint32(b, uint32(stat.Cversion))
	b = binary.BigEndian.AppendUint32(b, uint32(stat.Aversion))
	return binary.BigEndian.AppendUint64(b, uint64(stat.EphemeralOwner))
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
