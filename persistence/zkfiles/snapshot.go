package zkfiles

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/gozk/gozk/proto"
)

// File magic numbers and the format version FileTxnSnapLog writes.
const (
	SnapMagic   int32 = 0x5A4B534E // "ZKSN"
	LogMagic    int32 = 0x5A4B4C47 // "ZKLG"
	FormatV2    int32 = 2
	SnapDBID    int64 = -1
	LogDBID     int64 = 0
	statPersLen       = 60
)

// Node is one znode of a snapshot, in the stream's order.
type Node struct {
	Path  string // "" for the root
	Data  []byte // nil for null data
	ACLID int64  // key into the ACL map; -1 is OPEN_ACL_UNSAFE
	Stat  proto.StatPersisted
}

// SnapshotHandler receives a snapshot's contents as they are decoded.
// Nil callbacks skip that part. A callback's error stops decoding and is
// returned as is. Data and ACL slices are newly allocated and may be kept.
type SnapshotHandler struct {
	Header  func(h proto.FileHeader) error
	Session func(id int64, timeout int32) error
	ACL     func(e proto.ACLCacheEntry) error
	Node    func(n *Node) error
}

// SnapshotInfo is what a snapshot says besides its tree.
type SnapshotInfo struct {
	Header   proto.FileHeader
	Sessions int
	ACLs     int
	Nodes    int
	// Checksum is the first seal's Adler32 (over header and tree).
	Checksum int64
	// HasDigest is true when the 3.6+ ZxidDigest section is present.
	// Digest is that section; Java treats zxid 0 as "no digest".
	HasDigest bool
	Digest    proto.ZxidDigest
	// LastProcessedZxid is the 3.9+ section, when present.
	HasLastProcessedZxid bool
	LastProcessedZxid    int64
}

// DigestValue returns the digest and true when the snapshot carries one
// that Java would use (zxid > 0).
func (s *SnapshotInfo) DigestValue() (proto.ZxidDigest, bool) {
	return s.Digest, s.HasDigest && s.Digest.Zxid > 0
}

// ErrBadMagic is returned for a file whose header is not the expected
// one.
var ErrBadMagic = errors.New("zkfiles: bad file magic")

// ErrChecksum is returned when a seal's Adler32 does not match.
var ErrChecksum = errors.New("zkfiles: checksum mismatch")

// DecodeSnapshot reads an uncompressed snapshot stream the way Java's
// FileSnap.deserialize and SnapStream.checkSealIntegrity do: header,
// sessions, ACL map, nodes up to the "/" terminator, then the seal
// (checksum + "/") and, when present, the ZxidDigest and its seal, and the
// 3.9 lastProcessedZxid section. limit bounds every buffer and string
// (jute.maxbuffer plus the extra allowance; <= 0 means the default).
// The structure is checked as Java's loader checks it: the first node is
// the root (path without '/'), every later node's parent precedes it.
func DecodeSnapshot(r io.Reader, limit int, h SnapshotHandler) (SnapshotInfo, error) {
	var info SnapshotInfo
	c := newCheckedReader(r, limit)
	if err := c.record(&info.Header, 16, "fileheader"); err != nil {
		return info, err
	}
	if info.Header.Magic != SnapMagic {
		return info, fmt.Errorf("%w: snapshot header has magic %#x, want %#x", ErrBadMagic, info.Header.Magic, SnapMagic)
	}
	if h.Header != nil {
		if err := h.Header(info.Header); err != nil {
			return info, err
		}
	}
	if err := decodeBody(c, &info, h); err != nil {
		return info, err
	}
	var err error
	if info.Checksum, err = checkSeal(c, "snapshot"); err != nil {
		return info, err
	}
	// The digest section: EOF here is an older snapshot.
	if c.atEOF() {
		return info, nil
	}
	if err := decodeZxidDigest(c, &info.Digest); err != nil {
		return info, err
	}
	info.HasDigest = true
	if _, err := checkSeal(c, "digest"); err != nil {
		return info, err
	}
	if c.atEOF() {
		return info, nil
	}
	// ZooKeeper 3.9's lastProcessedZxid section.
	if info.LastProcessedZxid, err = c.long("lastProcessedZxid"); err != nil {
		return info, err
	}
	info.HasLastProcessedZxid = true
	if _, err := checkSeal(c, "lastProcessedZxid"); err != nil {
		return info, err
	}
	return info, nil
}

// decodeBody reads what Java's SerializeUtils.serializeSnapshot writes:
// the sessions with their timeouts, then the tree (ACL map, nodes up to
// the "/" terminator).
func decodeBody(c *checkedReader, info *SnapshotInfo, h SnapshotHandler) error {
	n, err := c.int("session count")
	if err != nil {
		return err
	}
	if n < 0 {
		return fmt.Errorf("zkfiles: negative session count %d", n)
	}
	for i := int32(0); i < n; i++ {
		id, err := c.long("session id")
		if err != nil {
			return err
		}
		to, err := c.int("session timeout")
		if err != nil {
			return err
		}
		if h.Session != nil {
			if err := h.Session(id, to); err != nil {
				return err
			}
		}
	}
	info.Sessions = int(n)
	if err := decodeACLs(c, info, h); err != nil {
		return err
	}
	return decodeNodes(c, info, h)
}

// SnapSignature ends the tree a leader streams to a learner after SNAP.
const SnapSignature = "BenWasHere"

// ErrSnapSignature is returned when a SNAP stream does not end with
// SnapSignature.
var ErrSnapSignature = errors.New("zkfiles: the leader's snapshot lacks its signature")

// DecodeSnapStream reads the tree a leader sends a learner after a SNAP
// packet, as Java's Learner reads it (ZKDatabase.deserializeSnapshot,
// then the "signature" string): sessions, ACL map and nodes as in a
// snapshot file, but with no file header, no checksum seal and no digest
// section, and then SnapSignature. It consumes nothing of r past the
// signature, so the quorum packets that follow are read from r after it.
// Header and Checksum of the result are zero. limit bounds every buffer
// and string as in DecodeSnapshot.
func DecodeSnapStream(r *bufio.Reader, limit int, h SnapshotHandler) (SnapshotInfo, error) {
	var info SnapshotInfo
	c := newCheckedBufReader(r, limit)
	if err := decodeBody(c, &info, h); err != nil {
		return info, err
	}
	sig, err := c.str("signature")
	if err != nil {
		return info, err
	}
	if sig != SnapSignature {
		return info, fmt.Errorf("%w: got %q", ErrSnapSignature, sig)
	}
	return info, nil
}

// EncodeSnapStream writes to w what a ZooKeeper 3.8 leader streams to a
// learner after the SNAP packet (ZKDatabase.serializeSnapshot, then the
// signature), the stream DecodeSnapStream reads: the session table, the
// ACL map, the nodes nodes passes to put, the "/" terminator and
// SnapSignature. There is no header, seal or digest: 3.8.0 sends none,
// and its learner computes the digest from the nodes it loads.
//
// Java copies the session table and the ACL map into a HashMap and
// writes them in that map's order; EncodeSnapStream sorts sessions and
// acls (in place) into the same order, so the bytes are Java's whatever
// order the caller holds them in (within one of the map's buckets the
// caller's order stays, where Java has the order its source map handed
// them over in). acls must not hold id -1 (OPEN_ACL_UNSAFE, which is
// never stored).
//
// nodes calls put for every node, the root first under the path "" and
// parents before their children; each node's ACLID must be -1 or an id of
// acls. put returns the first error writing to w; nodes' error stops the
// stream and is returned as is. Nothing is held beyond one node and the
// write buffer, and the buffer is flushed before EncodeSnapStream returns.
func EncodeSnapStream(w io.Writer, sessions []proto.SnapshotSession, acls []proto.ACLCacheEntry, nodes func(put func(*Node) error) error) error {
	sortJavaHashOrder(sessions, func(s *proto.SnapshotSession) int64 { return s.Id })
	sortJavaHashOrder(acls, func(e *proto.ACLCacheEntry) int64 { return e.Id })
	sw := &SnapshotWriter{c: &checkedWriter{w: bufio.NewWriterSize(w, 64<<10)}}
	if err := sw.Sessions(sessions); err != nil {
		return err
	}
	if err := sw.ACLs(acls); err != nil {
		return err
	}
	known := make(map[int64]struct{}, len(acls))
	for i := range acls {
		known[acls[i].Id] = struct{}{}
	}
	err := nodes(func(n *Node) error {
		if n.ACLID != -1 {
			if _, ok := known[n.ACLID]; !ok {
				return fmt.Errorf("zkfiles: node %q has ACL id %d, which the stream's ACL map does not hold", n.Path, n.ACLID)
			}
		}
		return sw.Node(n.Path, n.Data, n.ACLID, &n.Stat)
	})
	if err != nil {
		return err
	}
	if sw.state != swNodes {
		return errors.New("zkfiles: a SNAP stream needs the root node at least")
	}
	jw := &sw.c.jw
	jw.WriteString("/")
	jw.WriteString(SnapSignature)
	sw.c.put()
	if sw.c.err != nil {
		return sw.c.err
	}
	return sw.c.w.Flush()
}

// sortJavaHashOrder sorts s into the order a java.util.HashMap<Long, V>
// copied from a map of len(s) entries iterates in: by bucket,
// spread(Long.hashCode(key)) & (capacity-1), where the copy constructor
// sizes the table to len/0.75+1 rounded up to a power of two. Within a
// bucket the order of s stays (Java: the order of insertion). A bucket of
// more than eight entries, which Java turns into a tree, is not modelled.
func sortJavaHashOrder[E any](s []E, key func(*E) int64) {
	if len(s) < 2 {
		return
	}
	capacity := uint32(javaTableSizeFor(int(float32(len(s))/0.75 + 1)))
	bucket := func(e *E) uint32 {
		k := uint64(key(e))
		h := uint32(k ^ k>>32)
		return (h ^ h>>16) & (capacity - 1)
	}
	slices.SortStableFunc(s, func(a, b E) int { return cmp.Compare(bucket(&a), bucket(&b)) })
}

// javaTableSizeFor is HashMap.tableSizeFor: the smallest power of two at
// least c (and at least 1).
func javaTableSizeFor(c int) int {
	n := 1
	for n < c {
		n <<= 1
	}
	return n
}

func decodeACLs(c *checkedReader, info *SnapshotInfo, h SnapshotHandler) error {
	n, err := c.int("acl map count")
	if err != nil {
		return err
	}
	for i := int32(0); i < n; i++ {
		var e proto.ACLCacheEntry
		if e.Id, err = c.long("acl id"); err != nil {
			return err
		}
		count, err := c.int("acl list count")
		if err != nil {
			return err
		}
		if count < 0 {
			// Java: "Incorrent format of InputArchive ... missing acls".
			return fmt.Errorf("zkfiles: ACL map entry %d has no list (count %d)", e.Id, count)
		}
		if int(count) > c.limit {
			return fmt.Errorf("zkfiles: ACL map entry %d: unreasonable list length %d", e.Id, count)
		}
		e.Acl = make([]proto.ACL, 0, min(int(count), 64))
		for j := int32(0); j < count; j++ {
			var a proto.ACL
			if a.Perms, err = c.int("acl perms"); err != nil {
				return err
			}
			if a.Id.Scheme, err = c.str("acl scheme"); err != nil {
				return err
			}
			if a.Id.Id, err = c.str("acl id"); err != nil {
				return err
			}
			e.Acl = append(e.Acl, a)
		}
		if h.ACL != nil {
			if err := h.ACL(e); err != nil {
				return err
			}
		}
		info.ACLs++
	}
	return nil
}

func decodeNodes(c *checkedReader, info *SnapshotInfo, h SnapshotHandler) error {
	for {
		path, err := c.str("path")
		if err != nil {
			return err
		}
		if path == "/" {
			return nil
		}
		var node Node
		node.Path = path
		if node.Data, err = c.buffer("node data"); err != nil {
			return err
		}
		if node.ACLID, err = c.long("node acl"); err != nil {
			return err
		}
		if err := c.record(&node.Stat, statPersLen, "node stat"); err != nil {
			return err
		}
		if info.Nodes == 0 && path != "" {
			return fmt.Errorf("zkfiles: the snapshot's first node is %q, not the root", path)
		}
		info.Nodes++
		if h.Node != nil {
			if err := h.Node(&node); err != nil {
				return err
			}
		}
	}
}

func decodeZxidDigest(c *checkedReader, d *proto.ZxidDigest) error {
	var err error
	if d.Zxid, err = c.long("digest zxid"); err != nil {
		return err
	}
	if d.DigestVersion, err = c.int("digest version"); err != nil {
		return err
	}
	if d.DigestVersion < 2 {
		// Version 1 wrote the digest as a hex string.
		s, err := c.str("digest")
		if err != nil {
			return err
		}
		var v uint64
		if _, err := fmt.Sscanf(s, "%x", &v); err != nil {
			return fmt.Errorf("zkfiles: digest %q is not hex", s)
		}
		d.Digest = int64(v)
		return nil
	}
	d.Digest, err = c.long("digest")
	return err
}

// checkSeal is SnapStream.checkSealIntegrity: the Adler32 of every byte so
// far, then a long that must equal it and the "/" string (read, not
// checked, as Java does).
func checkSeal(c *checkedReader, what string) (int64, error) {
	want := int64(c.sum.Sum32())
	got, err := c.long(what + " checksum")
	if err != nil {
		return 0, err
	}
	if _, err := c.str(what + " seal"); err != nil {
		return 0, err
	}
	if got != want {
		return 0, fmt.Errorf("%w: %s checksum is %#x, the bytes give %#x", ErrChecksum, what, got, want)
	}
	return got, nil
}
