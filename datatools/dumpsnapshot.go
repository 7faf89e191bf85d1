package datatools

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/persistence/zkfiles"
	"github.com/gozk/gozk/proto"
)

// SnapshotFormat is the layout DumpSnapshot prints.
type SnapshotFormat int

const (
	// SnapshotText is SnapshotFormatter's layout: each node's stat and
	// data length, the sessions, the last zxid.
	SnapshotText SnapshotFormat = iota
	// SnapshotTextData is SnapshotFormatter -d: each node's data (base64)
	// instead of its length.
	SnapshotTextData
	// SnapshotJSON is one JSON document: zxid, sessions, ACL map, nodes
	// with stat and data, digest.
	SnapshotJSON
)

// SnapshotDumpOptions are the choices of DumpSnapshot.
type SnapshotDumpOptions struct {
	Format SnapshotFormat
	// Location is the time zone of ctime and mtime; nil means
	// time.Local, as Java prints them.
	Location *time.Location
}

// DumpSnapshot prints a snapshot to w as Apache ZooKeeper's
// SnapshotFormatter (zkSnapShotToolkit.sh) does, in its order: a file is
// read as an Apache ZooKeeper snapshot.N (plain, gz or snappy), a
// directory as gozk's store (a dataDir or its gozk-snap/ directory), whose
// newest intact snapshot is printed. A txn log file is refused. A store
// without any snapshot yet fails with an error matching ErrNoSnapshot,
// having printed nothing.
func DumpSnapshot(w io.Writer, path string, o SnapshotDumpOptions) error {
	return dumpPath(w, path, zkfiles.KindLog, "a txn log; dump-log prints it", func(w io.Writer, store bool) error {
		load := loadJavaSnapshot
		if store {
			load = loadGozkSnapshot
		}
		snap, err := load(path)
		if err != nil {
			return err
		}
		loc := o.Location
		if loc == nil {
			loc = time.Local
		}
		switch o.Format {
		case SnapshotJSON:
			return snap.writeJSON(w)
		case SnapshotTextData:
			snap.writeText(w, true, loc)
		default:
			snap.writeText(w, false, loc)
		}
		return nil
	})
}

// snapshotDump is a whole snapshot in memory, for printing.
type snapshotDump struct {
	// zxid is the snapshot's zxid (from the file name for Java files).
	zxid     int64
	sessions []proto.SnapshotSession
	acls     []proto.ACLCacheEntry
	nodes    map[string]*zkfiles.Node
	order    []string // paths in stream order
	digest   *proto.ZxidDigest
}

func newSnapshotDump(zxid int64) *snapshotDump {
	return &snapshotDump{zxid: zxid, nodes: make(map[string]*zkfiles.Node)}
}

func (s *snapshotDump) handler() zkfiles.SnapshotHandler {
	return zkfiles.SnapshotHandler{
		Session: func(id int64, to int32) error {
			s.sessions = append(s.sessions, proto.SnapshotSession{Id: id, Timeout: to})
			return nil
		},
		ACL: func(e proto.ACLCacheEntry) error { s.acls = append(s.acls, e); return nil },
		Node: func(n *zkfiles.Node) error {
			if _, dup := s.nodes[n.Path]; !dup {
				s.order = append(s.order, n.Path)
			}
			cp := *n
			s.nodes[n.Path] = &cp
			return nil
		},
	}
}

func loadJavaSnapshot(path string) (*snapshotDump, error) {
	zxid := zkfiles.ZxidFromName(baseName(path), zkfiles.SnapshotPrefix)
	s := newSnapshotDump(zxid)
	info, err := zkfiles.ReadSnapshotFile(path, 0, s.handler())
	if err != nil {
		return nil, err
	}
	if d, ok := info.DigestValue(); ok {
		s.digest = &d
	}
	return s, nil
}

func baseName(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// children returns the child names of every node in the order
// SnapshotFormatter prints them: that of the sets Java rebuilds from the
// snapshot's order.
func (s *snapshotDump) children() map[string][]string {
	out := make(map[string][]string, len(s.nodes))
	for _, p := range s.order {
		if p == "" {
			continue
		}
		i := strings.LastIndexByte(p, '/')
		out[p[:i]] = append(out[p[:i]], p[i+1:])
	}
	for p, c := range out {
		out[p] = db.JavaChildOrder(c)
	}
	return out
}

// javaHex is Java's String.format("%#016x", v): the "0x" counts towards
// the width of 16.
func javaHex(v int64) string {
	h := strconv.FormatUint(uint64(v), 16)
	if len(h) < 14 {
		h = strings.Repeat("0", 14-len(h)) + h
	}
	return "0x" + h
}

// javaDateLayout is java.util.Date.toString.
const javaDateLayout = "Mon Jan 02 15:04:05 MST 2006"

// writeText prints SnapshotFormatter's layout.
func (s *snapshotDump) writeText(w io.Writer, dumpData bool, loc *time.Location) {
	// Java's node count keys the root under both "" and "/".
	fmt.Fprintf(w, "ZNode Details (count=%d):\n", len(s.nodes)+1)
	kids := s.children()
	var maxZxid int64
	var walk func(path string)
	walk = func(path string) {
		n := s.nodes[path]
		if n == nil {
			return
		}
		name := path
		if name == "" {
			name = "/"
		}
		fmt.Fprintf(w, "----\n%s\n", name)
		st := &n.Stat
		fmt.Fprintf(w, "  cZxid = %s\n", javaHex(st.Czxid))
		fmt.Fprintf(w, "  ctime = %s\n", time.UnixMilli(st.Ctime).In(loc).Format(javaDateLayout))
		fmt.Fprintf(w, "  mZxid = %s\n", javaHex(st.Mzxid))
		fmt.Fprintf(w, "  mtime = %s\n", time.UnixMilli(st.Mtime).In(loc).Format(javaDateLayout))
		fmt.Fprintf(w, "  pZxid = %s\n", javaHex(st.Pzxid))
		fmt.Fprintf(w, "  cversion = %d\n", st.Cversion)
		fmt.Fprintf(w, "  dataVersion = %d\n", st.Version)
		fmt.Fprintf(w, "  aclVersion = %d\n", st.Aversion)
		fmt.Fprintf(w, "  ephemeralOwner = %s\n", javaHex(st.EphemeralOwner))
		if dumpData {
			fmt.Fprintf(w, "  data = %s\n", base64.StdEncoding.EncodeToString(n.Data))
		} else {
			fmt.Fprintf(w, "  dataLength = %d\n", len(n.Data))
		}
		maxZxid = max(maxZxid, st.Mzxid, st.Pzxid)
		for _, c := range kids[path] {
			walk(path + "/" + c)
		}
	}
	walk("")
	fmt.Fprintf(w, "----\n")
	fmt.Fprintf(w, "Session Details (sid, timeout, ephemeralCount):\n")
	ephemerals := make(map[int64]int)
	for _, n := range s.nodes {
		if proto.KindOf(n.Stat.EphemeralOwner, true) == proto.KindEphemeral {
			ephemerals[n.Stat.EphemeralOwner]++
		}
	}
	for _, se := range s.sessions {
		fmt.Fprintf(w, "%s, %d, %d\n", javaHex(se.Id), se.Timeout, ephemerals[se.Id])
	}
	fmt.Fprintf(w, "----\nLast zxid: 0x%s\n", strconv.FormatUint(uint64(max(s.zxid, maxZxid)), 16))
}

// writeJSON prints the whole snapshot as one JSON document.
func (s *snapshotDump) writeJSON(w io.Writer) error {
	type aclJSON struct {
		ID  int64       `json:"id"`
		ACL []proto.ACL `json:"acl"`
	}
	type nodeJSON struct {
		Path  string              `json:"path"`
		Data  *string             `json:"data"` // base64; null for null data
		ACLID int64               `json:"aclId"`
		Stat  proto.StatPersisted `json:"stat"`
	}
	type sessionJSON struct {
		ID         string `json:"id"`
		Timeout    int32  `json:"timeout"`
		Ephemerals int    `json:"ephemerals"`
	}
	out := struct {
		Zxid     string            `json:"zxid"`
		Sessions []sessionJSON     `json:"sessions"`
		ACLs     []aclJSON         `json:"acls"`
		Nodes    []nodeJSON        `json:"nodes"`
		Digest   *proto.ZxidDigest `json:"digest,omitempty"`
	}{Zxid: fmt.Sprintf("0x%x", s.zxid), Sessions: []sessionJSON{}, ACLs: []aclJSON{}, Nodes: []nodeJSON{}, Digest: s.digest}
	eph := make(map[int64]int)
	for _, n := range s.nodes {
		if proto.KindOf(n.Stat.EphemeralOwner, true) == proto.KindEphemeral {
			eph[n.Stat.EphemeralOwner]++
		}
	}
	for _, se := range s.sessions {
		out.Sessions = append(out.Sessions, sessionJSON{ID: fmt.Sprintf("0x%x", uint64(se.Id)), Timeout: se.Timeout, Ephemerals: eph[se.Id]})
	}
	for _, a := range s.acls {
		out.ACLs = append(out.ACLs, aclJSON{ID: a.Id, ACL: a.Acl})
	}
	paths := slices.Clone(s.order)
	slices.Sort(paths)
	for _, p := range paths {
		n := s.nodes[p]
		nj := nodeJSON{Path: p, ACLID: n.ACLID, Stat: n.Stat}
		if p == "" {
			nj.Path = "/"
		}
		if n.Data != nil {
			d := base64.StdEncoding.EncodeToString(n.Data)
			nj.Data = &d
		}
		out.Nodes = append(out.Nodes, nj)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
