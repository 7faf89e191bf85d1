package zkfiles

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gozk/gozk/proto"
)

// SnapshotWriter writes a snapshot stream as ZooKeeper 3.8's
// FileSnap.serialize does. Call Sessions, then ACLs, then Node for every
// node (the root first, under ""; parents before children), then Finish.
type SnapshotWriter struct {
	c     *checkedWriter
	comp  io.WriteCloser
	state int
	nodes int
}

const (
	swHeader = iota
	swSessions
	swACLs
	swNodes
	swDone
)

// ErrWriterOrder is returned when SnapshotWriter's methods are called out
// of order.
var ErrWriterOrder = errors.New("zkfiles: snapshot writer used out of order")

// NewSnapshotWriter starts a snapshot on w, compressed with c, and writes
// the FileHeader.
func NewSnapshotWriter(w io.Writer, c Compression) *SnapshotWriter {
	comp := Compress(w, c)
	sw := &SnapshotWriter{c: newCheckedWriter(comp), comp: comp}
	h := proto.FileHeader{Magic: SnapMagic, Version: FormatV2, Dbid: SnapDBID}
	h.Encode(&sw.c.jw)
	sw.c.put()
	return sw
}

// Sessions writes the session table (Java's global sessions).
func (sw *SnapshotWriter) Sessions(sessions []proto.SnapshotSession) error {
	if sw.state != swHeader {
		return ErrWriterOrder
	}
	sw.state = swSessions
	jw := &sw.c.jw
	jw.WriteInt(int32(len(sessions)))
	for _, s := range sessions {
		jw.WriteLong(s.Id)
		jw.WriteInt(s.Timeout)
	}
	sw.c.put()
	return sw.c.err
}

// ACLs writes the ACL map. Entries with id -1 (OPEN_ACL_UNSAFE) must not
// be in it.
func (sw *SnapshotWriter) ACLs(acls []proto.ACLCacheEntry) error {
	if sw.state != swSessions {
		return ErrWriterOrder
	}
	sw.state = swACLs
	jw := &sw.c.jw
	jw.WriteInt(int32(len(acls)))
	sw.c.put()
	for i := range acls {
		e := &acls[i]
		if e.Id == -1 {
			return fmt.Errorf("zkfiles: ACL id -1 is OPEN_ACL_UNSAFE and is never stored")
		}
		jw.WriteLong(e.Id)
		jw.WriteInt(int32(len(e.Acl)))
		for j := range e.Acl {
			e.Acl[j].Encode(jw)
		}
		sw.c.put()
	}
	return sw.c.err
}

// Node writes one node.
func (sw *SnapshotWriter) Node(path string, data []byte, aclID int64, stat *proto.StatPersisted) error {
	switch {
	case sw.state == swACLs:
		if path != "" {
			return fmt.Errorf("zkfiles: the first node of a snapshot must be the root (\"\"), not %q", path)
		}
		sw.state = swNodes
	case sw.state != swNodes:
		return ErrWriterOrder
	}
	if path == "/" {
		return fmt.Errorf("zkfiles: \"/\" is the snapshot terminator, the root is written as \"\"")
	}
	jw := &sw.c.jw
	jw.WriteString(path)
	jw.WriteBuffer(data)
	jw.WriteLong(aclID)
	stat.Encode(jw)
	sw.c.put()
	sw.nodes++
	return sw.c.err
}

// Finish writes the terminator and the seal and, when digest is not nil,
// the ZxidDigest and its seal (what 3.8 writes with
// zookeeper.digest.enabled, its default; a zero ZxidDigest means "no
// digest"). It flushes the compressor but does not close the underlying
// writer.
func (sw *SnapshotWriter) Finish(digest *proto.ZxidDigest) error {
	if sw.state != swNodes {
		return ErrWriterOrder
	}
	sw.state = swDone
	jw := &sw.c.jw
	jw.WriteString("/")
	sw.c.put()
	sw.seal()
	if digest != nil {
		jw.WriteLong(digest.Zxid)
		jw.WriteInt(digest.DigestVersion)
		jw.WriteLong(digest.Digest)
		sw.c.put()
		sw.seal()
	}
	if sw.c.err != nil {
		return sw.c.err
	}
	if err := sw.c.w.Flush(); err != nil {
		return err
	}
	return sw.comp.Close()
}

// seal is SnapStream.sealStream: the Adler32 so far as a long, then "/".
func (sw *SnapshotWriter) seal() {
	jw := &sw.c.jw
	jw.WriteLong(int64(sw.c.sum.Sum32()))
	jw.WriteString("/")
	sw.c.put()
}

// Nodes returns how many nodes were written.
func (sw *SnapshotWriter) Nodes() int { return sw.nodes }

// CreateSnapshotFile creates dir/snapshot.<zxid><suffix> through a .tmp
// file that is fsynced and renamed into place once write succeeds, so a
// failed write never leaves a snapshot Java would pick.
func CreateSnapshotFile(dir string, zxid int64, c Compression, write func(*SnapshotWriter) error) (string, error) {
	final := filepath.Join(dir, SnapshotName(zxid, c))
	if err := writeFileAtomic(final, func(f io.Writer) error { return write(NewSnapshotWriter(f, c)) }); err != nil {
		return "", err
	}
	return final, nil
}

// writeFileAtomic writes path via path.tmp, fsync and rename, then
// fsyncs the directory.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("zkfiles: writing %s: %w", path, err)
	}
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("zkfiles: syncing directory %s: %w", dir, err)
	}
	return nil
}
