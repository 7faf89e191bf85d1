package persistence

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// A snapshot is the data tree and the session table at a zxid: every txn
// up to that zxid is in it, and possibly some later ones (a fuzzy
// snapshot, as Java's), which replaying the log from zxid+1 makes exact.
//
// Its records are jute-encoded as in Java's snapshot files (see
// SnapshotWriter) and packed into chunks of about chunkTarget bytes, one
// Pebble key per chunk:
//
//	's' + zxid (8 bytes BE) + kind (1 byte) + seq (4 bytes BE)
//
// kind is kindNodes, kindACLs, kindSessions or kindTrailer (seq 0). A chunk
// value is the CRC32C of its key and payload (4 bytes BE) followed by the
// payload, a sequence of records of its kind. The trailer holds the counts
// (records and chunks of each kind), the digest and the creation time, so
// a missing chunk is found as surely as a damaged one.
//
// A snapshot is written as one sstable and ingested into the store in one
// atomic step: after a crash it is either wholly there or not at all, and
// writing it costs one sequential write of the data, no WAL, no memtable.
// Nodes are streamed to the table as they come; ACL and session chunks are
// kept in memory and written after them, which is why the kinds are
// numbered so.
const (
	kindNodes    byte = 1
	kindACLs     byte = 2
	kindSessions byte = 3
	kindTrailer  byte = 4
)

const (
	// snapshotPrefixLen is 's' + zxid; snapshotKeyLen adds kind and seq.
	snapshotPrefixLen = 1 + 8
	snapshotKeyLen    = snapshotPrefixLen + 1 + 4

	// chunkTarget is the payload size at which a chunk is closed. Big
	// enough that per-key costs vanish, small enough to be one read.
	chunkTarget = 64 << 10

	// snapshotFormat is the trailer's format number.
	snapshotFormat int32 = 1

	// snapshotBytesPerSync is how much a snapshot writes between
	// background write-backs (sync_file_range).
	snapshotBytesPerSync = 1 << 20

	tempPrefix = "snapshot-"
	tempSuffix = ".tmp"
)

func snapshotKeyPrefix(zxid int64) []byte {
	k := make([]byte, snapshotPrefixLen, snapshotKeyLen)
	k[0] = snapshotPrefix
	binary.BigEndian.PutUint64(k[1:], uint64(zxid))
	return k
}

func snapshotKey(zxid int64, kind byte, seq uint32) []byte {
	k := snapshotKeyPrefix(zxid)
	k = append(k, kind)
	return binary.BigEndian.AppendUint32(k, seq)
}

// snapshotEnd is the first key after every key of the snapshot at zxid.
func snapshotEnd(zxid int64) []byte {
	if zxid == math.MaxInt64 {
		return []byte{snapshotPrefix + 1}
	}
	return snapshotKeyPrefix(zxid + 1)
}

func kindName(kind byte) string {
	switch kind {
	case kindNodes:
		return "nodes"
	case kindACLs:
		return "ACLs"
	case kindSessions:
		return "sessions"
	case kindTrailer:
		return "trailer"
	}
	return fmt.Sprintf("kind %d", kind)
}

// chunkChecksum covers the key too, so a chunk found under another key is
// caught.
func chunkChecksum(key, payload []byte) uint32 {
	return crc32.Update(crc32.Update(0, castagnoli, key), castagnoli, payload)
}

// SnapshotInfo describes a snapshot.
type SnapshotInfo struct {
	// Zxid is the snapshot's zxid: every txn up to it is reflected.
	Zxid int64
	// Nodes, ACLs and Sessions count the records.
	Nodes    int64
	ACLs     int
	Sessions int
	// Bytes is the size of the encoded records (before Pebble's
	// compression).
	Bytes int64
	// Digest is the tree digest at the zxid the writer recorded (for a
	// fuzzy snapshot, the end of the walk), nil when the writer had none.
	Digest *proto.ZxidDigest
	// Created is when the snapshot was committed.
	Created time.Time
	// Err is set by Snapshots when the snapshot's trailer is missing or
	// damaged (a *CorruptionError); only Zxid is meaningful then.
	Err error
}

// SnapshotWriter writes one snapshot. Records may come in any order,
// except that nodes come parents first, the root (path "") first of all,
// as in Java's snapshots. Nothing is visible until Commit; Abort (or a
// crash) leaves no trace. A SnapshotWriter is not safe for concurrent use.
type SnapshotWriter struct {
	s        *Store
	zxid     int64
	tmp      string
	table    *sstable.Writer
	nodes    chunker
	acls     chunker
	sessions chunker
	aclIDs   map[int64]struct{}
	usedACLs map[int64]string // an ACL id nodes use -> the first such node
	nodeCnt  int64
	aclCnt   int
	sessCnt  int
	bytes    int64
	err      error
	done     bool
	// replace: a damaged snapshot at the same zxid is deleted first.
	replace bool
	// held are the sealed ACL and session chunks, written after the
	// nodes (their keys sort after the nodes').
	held []heldChunk
}

type heldChunk struct{ key, value []byte }

// hold keeps a sealed chunk for Commit.
func (w *SnapshotWriter) hold(key, value []byte) error {
	w.held = append(w.held, heldChunk{key, bytes.Clone(value)})
	return nil
}

// chunker packs records of one kind into chunks. Records are encoded
// straight into the open chunk (enc), not copied there.
type chunker struct {
	kind byte
	enc  jute.Writer // checksum room + payload of the open chunk
	seq  uint32      // chunks closed so far
}

func newChunker(kind byte) chunker {
	return chunker{kind: kind, enc: *jute.NewWriter(make([]byte, checksumLen, checksumLen+chunkTarget+4096))}
}

// full reports that the open chunk should be closed.
func (c *chunker) full() bool { return c.enc.Len()-checksumLen >= chunkTarget }

// close seals the open chunk (if it holds anything) and hands its key and
// value to put.
func (c *chunker) close(zxid int64, put func(key, value []byte) error) error {
	if c.enc.Len() == checksumLen {
		return nil
	}
	key := snapshotKey(zxid, c.kind, c.seq)
	buf := c.enc.Bytes()
	binary.BigEndian.PutUint32(buf, chunkChecksum(key, buf[checksumLen:]))
	if err := put(key, buf); err != nil {
		return err
	}
	c.seq++
	c.enc.Truncate(checksumLen)
	return nil
}

// CreateSnapshot starts writing the snapshot at zxid. It fails with
// ErrSnapshotExists when a complete one is there already; a damaged one at
// the same zxid is replaced by Commit.
func (s *Store) CreateSnapshot(zxid int64) (*SnapshotWriter, error) {
	if s.readOnly {
		return nil, ErrReadOnly
	}
	if zxid < 0 {
		return nil, fmt.Errorf("persistence: snapshot zxid 0x%x is negative", zxid)
	}
	if !s.acquire() {
		return nil, ErrClosed
	}
	info, err := s.snapshotInfo(zxid)
	switch {
	case err == nil:
		s.release()
		return nil, fmt.Errorf("%w: 0x%x (%d nodes, %s)", ErrSnapshotExists, zxid, info.Nodes, info.Created.Format(time.RFC3339))
	case !errors.Is(err, ErrNoSnapshot) && !errors.Is(err, ErrCorrupt):
		s.release()
		return nil, err
	}
	tmp := filepath.Join(s.snapDir, fmt.Sprintf("%s%x-%d%s", tempPrefix, zxid, s.tmpSeq.Add(1), tempSuffix))
	f, err := s.fs.Create(tmp, vfs.WriteCategoryUnspecified)
	if err != nil {
		s.release()
		return nil, fmt.Errorf("persistence: creating %s: %w", tmp, err)
	}
	// Write back as it goes, as Pebble does with its own tables: left to
	// the kernel, hundreds of MB of dirty pages would be flushed at the
	// final fsync, stalling the txn log's fsyncs (and every write) on the
	// same disk meanwhile.
	f = vfs.NewSyncingFile(f, vfs.SyncingFileOptions{BytesPerSync: snapshotBytesPerSync})
	wo := s.writerOptions()
	return &SnapshotWriter{
		s:        s,
		zxid:     zxid,
		tmp:      tmp,
		table:    sstable.NewWriter(objstorageprovider.NewFileWritable(f), wo),
		nodes:    newChunker(kindNodes),
		acls:     newChunker(kindACLs),
		sessions: newChunker(kindSessions),
		aclIDs:   make(map[int64]struct{}),
		usedACLs: make(map[int64]string),
		replace:  err != nil && errors.Is(err, ErrCorrupt),
	}, nil
}

// writerOptions are the table options of the store's lowest level, where
// an ingested snapshot lands (its keys overlap nothing).
func (s *Store) writerOptions() sstable.WriterOptions {
	po := pebbleOptions(s.fs, s.logger)
	return po.MakeWriterOptions(len(po.Levels)-1, s.snaps.TableFormat())
}

// Zxid returns the zxid the snapshot is written for.
func (w *SnapshotWriter) Zxid() int64 { return w.zxid }

func (w *SnapshotWriter) put(key, value []byte) error {
	w.bytes += int64(len(value) - checksumLen)
	return w.table.Set(key, value)
}

func (w *SnapshotWriter) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return w.err
}

// AddNode adds a node: its path ("" for the root, never "/"), and its
// data (nil for null data), ACL id (OPEN_ACL_UNSAFE is -1, any other id
// must be added with AddACL before Commit) and persisted stat. Parents
// come before their children. The writer does not keep path or node.
func (w *SnapshotWriter) AddNode(path string, node *proto.DataNode) error {
	if w.err != nil {
		return w.err
	}
	if w.nodeCnt == 0 && path != "" {
		return w.fail(fmt.Errorf("persistence: snapshot 0x%x: the first node must be the root (\"\"), not %q", w.zxid, path))
	}
	if node.Acl != -1 {
		if _, ok := w.usedACLs[node.Acl]; !ok {
			// A copy: the caller may reuse the path's bytes (the
			// tree's snapshot walk does, batch after batch).
			w.usedACLs[node.Acl] = strings.Clone(path)
		}
	}
	w.nodes.enc.WriteString(path)
	node.Encode(&w.nodes.enc)
	w.nodeCnt++
	if w.nodes.full() {
		if err := w.nodes.close(w.zxid, w.put); err != nil {
			return w.fail(fmt.Errorf("persistence: writing snapshot 0x%x: %w", w.zxid, err))
		}
	}
	return nil
}

// AddACL adds an entry of the ACL cache: the id nodes refer to and the
// list. An id added before is ignored, so a writer walking a live tree can
// add each node's ACL as it goes. Id -1 (OPEN_ACL_UNSAFE) is implicit and
// never stored, as in Java.
func (w *SnapshotWriter) AddACL(e *proto.ACLCacheEntry) error {
	if w.err != nil {
		return w.err
	}
	if e.Id == -1 {
		return nil
	}
	if _, dup := w.aclIDs[e.Id]; dup {
		return nil
	}
	w.aclIDs[e.Id] = struct{}{}
	e.Encode(&w.acls.enc)
	w.aclCnt++
	if w.acls.full() {
		return w.acls.close(w.zxid, w.hold)
	}
	return nil
}

// AddSession adds a session of the session table with its timeout (ms).
func (w *SnapshotWriter) AddSession(sess proto.SnapshotSession) error {
	if w.err != nil {
		return w.err
	}
	sess.Encode(&w.sessions.enc)
	w.sessCnt++
	if w.sessions.full() {
		return w.sessions.close(w.zxid, w.hold)
	}
	return nil
}

// Commit writes the rest, syncs the table and makes the snapshot part of
// the store in one atomic step. digest is the tree digest at a zxid (for a
// fuzzy snapshot, where the walk ended), nil for none. The writer is done
// afterwards, whether Commit succeeds or not.
func (w *SnapshotWriter) Commit(digest *proto.ZxidDigest) (SnapshotInfo, error) {
	if w.done {
		return SnapshotInfo{}, errors.New("persistence: snapshot writer already finished")
	}
	if w.err != nil {
		w.Abort()
		return SnapshotInfo{}, w.err
	}
	if w.nodeCnt == 0 {
		w.Abort()
		return SnapshotInfo{}, fmt.Errorf("persistence: snapshot 0x%x has no nodes (the root at least is needed)", w.zxid)
	}
	for id, path := range w.usedACLs {
		if _, ok := w.aclIDs[id]; !ok {
			w.Abort()
			return SnapshotInfo{}, fmt.Errorf("persistence: snapshot 0x%x: node %q uses ACL id %d, which was never added", w.zxid, path, id)
		}
	}
	info := SnapshotInfo{
		Zxid: w.zxid, Nodes: w.nodeCnt, ACLs: w.aclCnt, Sessions: w.sessCnt,
		Digest: digest, Created: time.Now(),
	}
	err := w.nodes.close(w.zxid, w.put)
	if err == nil {
		err = w.acls.close(w.zxid, w.hold)
	}
	if err == nil {
		err = w.sessions.close(w.zxid, w.hold)
	}
	slices.SortFunc(w.held, func(a, b heldChunk) int { return bytes.Compare(a.key, b.key) })
	for _, c := range w.held {
		if err == nil {
			err = w.put(c.key, c.value)
		}
	}
	if err == nil {
		t := trailer{
			nodes: w.nodeCnt, acls: int32(w.aclCnt), sessions: int32(w.sessCnt),
			nodeChunks: int32(w.nodes.seq), aclChunks: int32(w.acls.seq), sessionChunks: int32(w.sessions.seq),
			bytes: w.bytes, digest: digest, created: info.Created.UnixMilli(),
		}
		key := snapshotKey(w.zxid, kindTrailer, 0)
		err = w.table.Set(key, t.encode(key))
	}
	info.Bytes = w.bytes
	if err == nil {
		// Close syncs the file, as Ingest requires.
		err = w.table.Close()
		w.table = nil
	}
	if err != nil {
		w.Abort()
		return SnapshotInfo{}, fmt.Errorf("persistence: writing snapshot 0x%x to %s: %w", w.zxid, w.tmp, err)
	}
	w.done = true
	defer w.s.release()
	// A damaged snapshot at the same zxid goes first. Only then: a range
	// deletion in the memtable that overlaps the table would turn the
	// ingestion into a "flushable" one, logged in the WAL and replayed
	// (the table read) at every open until flushed.
	if w.replace {
		err := w.s.snaps.DeleteRange(snapshotKeyPrefix(w.zxid), snapshotEnd(w.zxid), pebble.Sync)
		if err == nil {
			err = w.s.snaps.Flush()
		}
		if err != nil {
			w.s.fs.Remove(w.tmp)
			return SnapshotInfo{}, fmt.Errorf("persistence: replacing snapshot 0x%x in %s: %w", w.zxid, w.s.snapDir, err)
		}
	}
	// A handle on the table, taken before Pebble links it into the store
	// (the same file), to drop its cached pages once a newer snapshot is
	// durable (see snapshotPages). Without one the pages stay cached.
	table, openErr := w.s.fs.Open(w.tmp)
	if err := w.s.snaps.Ingest(context.Background(), []string{w.tmp}); err != nil {
		if openErr == nil {
			table.Close()
		}
		w.s.fs.Remove(w.tmp)
		return SnapshotInfo{}, fmt.Errorf("persistence: adding snapshot 0x%x to %s: %w", w.zxid, w.s.snapDir, err)
	}
	if openErr == nil {
		w.s.pages.committed(table)
	}
	return info, nil
}

// Abort drops the snapshot being written. It is a no-op after Commit.
func (w *SnapshotWriter) Abort() {
	if w.done {
		return
	}
	w.done = true
	if w.table != nil {
		// Close fails for an errored writer; the file goes either way.
		_ = w.table.Close()
		w.table = nil
	}
	_ = w.s.fs.Remove(w.tmp)
	w.s.release()
}

// trailer is the last record of a snapshot.
type trailer struct {
	nodes                                int64
	acls, sessions                       int32
	nodeChunks, aclChunks, sessionChunks int32
	bytes                                int64
	digest                               *proto.ZxidDigest
	created                              int64 // unix ms
}

func (t *trailer) encode(key []byte) []byte {
	var w jute.Writer
	w.WriteRaw(make([]byte, checksumLen))
	w.WriteInt(snapshotFormat)
	w.WriteLong(t.nodes)
	w.WriteInt(t.acls)
	w.WriteInt(t.sessions)
	w.WriteInt(t.nodeChunks)
	w.WriteInt(t.aclChunks)
	w.WriteInt(t.sessionChunks)
	w.WriteLong(t.bytes)
	w.WriteBool(t.digest != nil)
	d := t.digest
	if d == nil {
		d = &proto.ZxidDigest{}
	}
	d.Encode(&w)
	w.WriteLong(t.created)
	b := w.Bytes()
	binary.BigEndian.PutUint32(b, chunkChecksum(key, b[checksumLen:]))
	return b
}

func (t *trailer) decode(key, value []byte) string {
	if len(value) < checksumLen {
		return fmt.Sprintf("trailer is %d bytes", len(value))
	}
	if stored, computed := binary.BigEndian.Uint32(value), chunkChecksum(key, value[checksumLen:]); stored != computed {
		return fmt.Sprintf("trailer checksum mismatch: stored %08x, computed %08x over %d bytes", stored, computed, len(value)-checksumLen)
	}
	r := jute.NewReader(value[checksumLen:])
	if f := r.ReadInt("format"); r.Err() == nil && f != snapshotFormat {
		return fmt.Sprintf("snapshot format %d, this gozk reads format %d", f, snapshotFormat)
	}
	t.nodes = r.ReadLong("nodes")
	t.acls = r.ReadInt("acls")
	t.sessions = r.ReadInt("sessions")
	t.nodeChunks = r.ReadInt("nodeChunks")
	t.aclChunks = r.ReadInt("aclChunks")
	t.sessionChunks = r.ReadInt("sessionChunks")
	t.bytes = r.ReadLong("bytes")
	hasDigest := r.ReadBool("hasDigest")
	var d proto.ZxidDigest
	d.Decode(r)
	t.created = r.ReadLong("created")
	r.ExpectEnd("trailer")
	if r.Err() != nil {
		return fmt.Sprintf("trailer cannot be decoded: %v", r.Err())
	}
	if hasDigest {
		t.digest = &d
	}
	if t.nodes < 1 || t.acls < 0 || t.sessions < 0 || t.nodeChunks < 1 || t.aclChunks < 0 || t.sessionChunks < 0 {
		return fmt.Sprintf("trailer counts are impossible (%d nodes in %d chunks, %d ACLs in %d, %d sessions in %d)",
			t.nodes, t.nodeChunks, t.acls, t.aclChunks, t.sessions, t.sessionChunks)
	}
	return ""
}

func (t *trailer) info(zxid int64) SnapshotInfo {
	return SnapshotInfo{
		Zxid: zxid, Nodes: t.nodes, ACLs: int(t.acls), Sessions: int(t.sessions),
		Bytes: t.bytes, Digest: t.digest, Created: time.UnixMilli(t.created),
	}
}

// readTrailer returns the trailer of the snapshot at zxid: ErrNoSnapshot
// when it has no keys at all, a *CorruptionError when its trailer is
// missing or damaged.
func (s *Store) readTrailer(zxid int64) (trailer, error) {
	key := snapshotKey(zxid, kindTrailer, 0)
	v, closer, err := s.snaps.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		// Keys without a trailer are a damaged snapshot.
		any, aerr := s.hasKeys(snapshotKeyPrefix(zxid), snapshotEnd(zxid))
		if aerr != nil {
			return trailer{}, aerr
		}
		if !any {
			return trailer{}, fmt.Errorf("%w: 0x%x in %s", ErrNoSnapshot, zxid, s.snapDir)
		}
		return trailer{}, &CorruptionError{Store: s.snapDir, InSnapshot: true, Snapshot: zxid, Key: key, Reason: "its trailer is missing"}
	}
	if err != nil {
		return trailer{}, s.readError(zxid, key, err)
	}
	defer closer.Close()
	var t trailer
	if reason := t.decode(key, v); reason != "" {
		return trailer{}, &CorruptionError{Store: s.snapDir, InSnapshot: true, Snapshot: zxid, Key: key, Reason: reason}
	}
	return t, nil
}

func (s *Store) readError(zxid int64, key []byte, err error) error {
	if pebble.IsCorruptionError(err) {
		// Pebble's message has a detail line meant for its own logs.
		reason, _, _ := strings.Cut(err.Error(), "\n")
		return &CorruptionError{Store: s.snapDir, InSnapshot: true, Snapshot: zxid, Key: bytes.Clone(key), Reason: reason}
	}
	return fmt.Errorf("persistence: reading snapshot 0x%x in %s: %w", zxid, s.snapDir, err)
}

func (s *Store) hasKeys(lower, upper []byte) (bool, error) {
	it, err := s.snaps.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return false, err
	}
	found := it.First()
	return found, errors.Join(it.Error(), it.Close())
}

func (s *Store) snapshotInfo(zxid int64) (SnapshotInfo, error) {
	t, err := s.readTrailer(zxid)
	if err != nil {
		return SnapshotInfo{Zxid: zxid}, err
	}
	return t.info(zxid), nil
}

// Snapshots lists the snapshots in the store, newest (highest zxid)
// first. A snapshot whose trailer is missing or damaged is listed with Err
// set; the chunks of the others are checked only by ReadSnapshot.
func (s *Store) Snapshots() ([]SnapshotInfo, error) {
	if !s.acquire() {
		return nil, ErrClosed
	}
	defer s.release()
	zxids, err := s.listSnapshotZxids()
	if err != nil {
		if !errors.Is(err, ErrCorrupt) {
			return nil, err
		}
		// A damaged block stopped the walk over the keys: take the
		// zxids from the tables' bounds instead (the manifest, no data
		// read), so each snapshot is judged on its own below.
		levels, merr := s.snaps.SSTables()
		if merr != nil {
			return nil, errors.Join(err, merr)
		}
		for _, level := range levels {
			for _, t := range level {
				for _, k := range [][]byte{t.Smallest.UserKey, t.Largest.UserKey} {
					if len(k) >= snapshotPrefixLen && k[0] == snapshotPrefix {
						zxids = append(zxids, int64(binary.BigEndian.Uint64(k[1:])))
					}
				}
			}
		}
		slices.Sort(zxids)
		zxids = slices.Compact(zxids)
	}
	out := make([]SnapshotInfo, 0, len(zxids))
	for i := len(zxids) - 1; i >= 0; i-- {
		info, err := s.snapshotInfo(zxids[i])
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				return nil, err
			}
			info.Err = err
		}
		out = append(out, info)
	}
	return out, nil
}

// listSnapshotZxids walks the snapshot keys, one seek per snapshot, and
// returns their zxids in ascending order (those read before any error).
func (s *Store) listSnapshotZxids() ([]int64, error) {
	it, err := s.snaps.NewIter(&pebble.IterOptions{LowerBound: []byte{snapshotPrefix}, UpperBound: []byte{snapshotPrefix + 1}})
	if err != nil {
		return nil, fmt.Errorf("persistence: reading %s: %w", s.snapDir, err)
	}
	var zxids []int64
	for valid := it.First(); valid; {
		k := it.Key()
		if len(k) < snapshotPrefixLen {
			it.Close()
			return zxids, &CorruptionError{Store: s.snapDir, Key: bytes.Clone(k), Reason: "not a snapshot key"}
		}
		z := int64(binary.BigEndian.Uint64(k[1:]))
		zxids = append(zxids, z)
		if z == math.MaxInt64 {
			break
		}
		valid = it.SeekGE(snapshotEnd(z))
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		if pebble.IsCorruptionError(err) {
			return zxids, fmt.Errorf("%w: listing snapshots in %s: %w", ErrCorrupt, s.snapDir, pebbleError{err})
		}
		return zxids, fmt.Errorf("persistence: listing snapshots in %s: %w", s.snapDir, err)
	}
	return zxids, nil
}

// DeleteSnapshot durably removes the snapshot at zxid, damaged or not.
func (s *Store) DeleteSnapshot(zxid int64) error {
	if s.readOnly {
		return ErrReadOnly
	}
	if !s.acquire() {
		return ErrClosed
	}
	defer s.release()
	if err := s.snaps.DeleteRange(snapshotKeyPrefix(zxid), snapshotEnd(zxid), pebble.Sync); err != nil {
		return fmt.Errorf("persistence: deleting snapshot 0x%x from %s: %w", zxid, s.snapDir, err)
	}
	return nil
}

// SnapshotVisitor receives a snapshot's records from ReadSnapshot, in
// Java's order: every session, then every ACL cache entry, then every node,
// parents before children and the root (path "") first. A nil callback
// skips that kind (its records are still checked). The callbacks own what
// they are given (path, node.Data, the ACL list): they may keep it.
type SnapshotVisitor struct {
	Session func(sess proto.SnapshotSession) error
	ACL     func(e *proto.ACLCacheEntry) error
	Node    func(path string, node *proto.DataNode) error
}

// ReadSnapshot reads the snapshot at zxid and hands its records to v,
// checking every chunk's checksum, every record's encoding, the counts of
// the trailer, and that every ACL id a node uses is in the ACL cache. The
// first error stops it: a callback's error as is, damage as a
// *CorruptionError naming the snapshot, the key and, for nodes, the last
// node read intact; ErrNoSnapshot when there is no such snapshot.
func (s *Store) ReadSnapshot(zxid int64, v SnapshotVisitor) (SnapshotInfo, error) {
	if !s.acquire() {
		return SnapshotInfo{}, ErrClosed
	}
	defer s.release()
	t, err := s.readTrailer(zxid)
	if err != nil {
		return SnapshotInfo{Zxid: zxid}, err
	}
	info := t.info(zxid)
	it, err := s.snaps.NewIter(&pebble.IterOptions{LowerBound: snapshotKeyPrefix(zxid), UpperBound: snapshotEnd(zxid)})
	if err != nil {
		return info, fmt.Errorf("persistence: reading %s: %w", s.snapDir, err)
	}
	defer it.Close()
	rd := snapshotReader{s: s, it: it, zxid: zxid}

	var sessions int32
	err = rd.kind(kindSessions, t.sessionChunks, func(r *jute.Reader) error {
		var sess proto.SnapshotSession
		sess.Decode(r)
		if r.Err() != nil {
			return nil
		}
		sessions++
		if v.Session != nil {
			return visited(v.Session(sess))
		}
		return nil
	})
	if err == nil && sessions != t.sessions {
		err = rd.corrupt(snapshotKey(zxid, kindTrailer, 0), fmt.Sprintf("the trailer counts %d sessions, the chunks hold %d", t.sessions, sessions))
	}
	aclIDs := make(map[int64]struct{}, t.acls)
	if err == nil {
		err = rd.kind(kindACLs, t.aclChunks, func(r *jute.Reader) error {
			var e proto.ACLCacheEntry
			e.Decode(r)
			if r.Err() != nil {
				return nil
			}
			if _, dup := aclIDs[e.Id]; dup || e.Id == -1 {
				return fmt.Errorf("ACL id %d appears twice", e.Id)
			}
			aclIDs[e.Id] = struct{}{}
			if v.ACL != nil {
				return visited(v.ACL(&e))
			}
			return nil
		})
	}
	if err == nil && len(aclIDs) != int(t.acls) {
		err = rd.corrupt(snapshotKey(zxid, kindTrailer, 0), fmt.Sprintf("the trailer counts %d ACL entries, the chunks hold %d", t.acls, len(aclIDs)))
	}
	var nodes int64
	lastPath := ""
	if err == nil {
		err = rd.nodes(t.nodeChunks, aclIDs, func(path string, n *proto.DataNode) error {
			nodes++
			lastPath = path
			if v.Node != nil {
				return v.Node(path, n)
			}
			return nil
		})
		if err != nil {
			var ce *CorruptionError
			if errors.As(err, &ce) && nodes > 0 {
				ce.Reason += fmt.Sprintf(" (after %d nodes, the last intact one %q)", nodes, lastPath)
			}
		}
	}
	if err == nil && nodes != t.nodes {
		err = rd.corrupt(snapshotKey(zxid, kindTrailer, 0), fmt.Sprintf("the trailer counts %d nodes, the chunks hold %d", t.nodes, nodes))
	}
	return info, err
}

// nodeBatch is the nodes of a snapshot decoded together, handed from the
// goroutine reading and decoding them to the one building the tree.
type nodeBatch struct {
	paths []string
	nodes []proto.DataNode
}

const nodeBatchSize = 1024

// nodes reads the node chunks and hands every node, in order, to visit.
// Reading the chunks, checking them and decoding the records is a third
// of the work of loading a snapshot and does not touch the tree, so a
// goroutine of its own does it while visit builds the tree from the
// batches it has decoded (on two cores a restart with 1,000,000 znodes
// loaded them in about a quarter less time). Whatever stops the reader
// (damage, a record that does not decode or check out) comes after every
// node before it has been visited, as if one goroutine did it all; an
// error from visit stops the reader and is returned as is.
func (rd *snapshotReader) nodes(chunks int32, aclIDs map[int64]struct{}, visit func(path string, n *proto.DataNode) error) error {
	full := make(chan *nodeBatch, 4)
	spare := make(chan *nodeBatch, 6)
	stop := make(chan struct{})
	readErr := make(chan error, 1)
	go func() {
		defer close(full)
		batch := &nodeBatch{}
		decoded := 0
		send := func() bool {
			select {
			case full <- batch:
			case <-stop:
				return false
			}
			select {
			case batch = <-spare:
				batch.paths, batch.nodes = batch.paths[:0], batch.nodes[:0]
			default:
				batch = &nodeBatch{}
			}
			return true
		}
		err := rd.kind(kindNodes, chunks, func(r *jute.Reader) error {
			path := r.ReadString("path")
			var n proto.DataNode
			n.Decode(r)
			if r.Err() != nil {
				return nil
			}
			if decoded == 0 && path != "" {
				return fmt.Errorf("the first node is %q, not the root", path)
			}
			if _, ok := aclIDs[n.Acl]; !ok && n.Acl != -1 {
				return fmt.Errorf("node %q uses ACL id %d, which the snapshot does not hold", path, n.Acl)
			}
			decoded++
			batch.paths = append(batch.paths, path)
			batch.nodes = append(batch.nodes, n)
			if len(batch.paths) == nodeBatchSize && !send() {
				return visitorError{errReaderStopped}
			}
			return nil
		})
		if len(batch.paths) > 0 && err != errReaderStopped {
			send()
		}
		readErr <- err
	}()
	var visitErr error
	for batch := range full {
		if visitErr == nil {
			for i := range batch.paths {
				if visitErr = visit(batch.paths[i], &batch.nodes[i]); visitErr != nil {
					close(stop)
					break
				}
			}
		}
		clear(batch.nodes) // the decoded data is garbage once visited
		select {
		case spare <- batch:
		default:
		}
	}
	err := <-readErr
	if visitErr != nil {
		return visitErr
	}
	return err
}

// errReaderStopped ends the snapshot reader's goroutine once the tree
// builder has failed.
var errReaderStopped = errors.New("persistence: snapshot reading stopped")

// snapshotReader walks the chunks of one snapshot.
type snapshotReader struct {
	s    *Store
	it   *pebble.Iterator
	zxid int64
	r    jute.Reader
}

func (rd *snapshotReader) corrupt(key []byte, reason string) error {
	return &CorruptionError{Store: rd.s.snapDir, InSnapshot: true, Snapshot: rd.zxid, Key: bytes.Clone(key), Reason: reason}
}

// kind reads chunks 0..n-1 of a kind, calling rec once per record with a
// reader positioned on it. rec decodes one record; a decode error it
// leaves in the reader, or an error it returns that is not the
// callback's, becomes a CorruptionError naming the chunk.
func (rd *snapshotReader) kind(kind byte, n int32, rec func(r *jute.Reader) error) error {
	for seq := uint32(0); seq < uint32(n); seq++ {
		want := snapshotKey(rd.zxid, kind, seq)
		valid := rd.it.SeekGE(want)
		if !valid || !bytes.Equal(rd.it.Key(), want) {
			if err := rd.it.Error(); err != nil {
				return rd.s.readError(rd.zxid, want, err)
			}
			return rd.corrupt(want, fmt.Sprintf("%s chunk %d of %d is missing", kindName(kind), seq, n))
		}
		value, err := rd.it.ValueAndErr()
		if err != nil {
			return rd.s.readError(rd.zxid, want, err)
		}
		if len(value) < checksumLen {
			return rd.corrupt(want, fmt.Sprintf("%s chunk %d is %d bytes", kindName(kind), seq, len(value)))
		}
		payload := value[checksumLen:]
		if stored, computed := binary.BigEndian.Uint32(value), chunkChecksum(want, payload); stored != computed {
			return rd.corrupt(want, fmt.Sprintf("%s chunk %d: checksum mismatch: stored %08x, computed %08x over %d bytes",
				kindName(kind), seq, stored, computed, len(payload)))
		}
		rd.r.Reset(payload)
		rd.r.SetLimit(math.MaxInt32)
		for rd.r.Remaining() > 0 {
			at := rd.r.Offset()
			err := rec(&rd.r)
			if derr := rd.r.Err(); derr != nil {
				return rd.corrupt(want, fmt.Sprintf("%s chunk %d: record at offset %d cannot be decoded: %v", kindName(kind), seq, at, derr))
			}
			if err != nil {
				if ve, ok := err.(visitorError); ok {
					return ve.err
				}
				return rd.corrupt(want, fmt.Sprintf("%s chunk %d: %v", kindName(kind), seq, err))
			}
		}
	}
	// No chunk beyond the count.
	extra := snapshotKey(rd.zxid, kind, uint32(n))
	if rd.it.SeekGE(extra) && bytes.HasPrefix(rd.it.Key(), extra[:snapshotPrefixLen+1]) {
		return rd.corrupt(rd.it.Key(), fmt.Sprintf("%s chunk beyond the %d the trailer counts", kindName(kind), n))
	}
	return rd.it.Error()
}

// visitorError marks an error returned by a SnapshotVisitor callback so it
// is passed through unchanged.
type visitorError struct{ err error }

func (e visitorError) Error() string { return e.err.Error() }

func visited(err error) error {
	if err != nil {
		return visitorError{err}
	}
	return nil
}
