package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/gozk/gozk/db"
	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/persistence/zkfiles"
	"github.com/gozk/gozk/proto"
)

func init() {
	dataSubcommands = append(dataSubcommands, dumpLogCommand(), dumpSnapshotCommand())
}

func dumpLogCommand() *cli.Command {
	return &cli.Command{
		Name:      "dump-log",
		Usage:     "print the txns of a log, as ZooKeeper's TxnLogToolkit (zkTxnLogToolkit.sh) does",
		ArgsUsage: "<log.N file of Apache ZooKeeper | gozk dataLogDir or store directory>",
		Description: "A path to a file is read as an Apache ZooKeeper txn log (log.<zxid>); a directory as gozk's\n" +
			"store (the dataLogDir, or its gozk/ subdirectory). Text output follows TxnLogToolkit's layout;\n" +
			"--json prints one JSON object per txn instead.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "one JSON object per line per txn"},
			&cli.Int64Flag{Name: "from", Usage: "gozk store only: first zxid to print"},
		},
		Action: dumpAction("dump-log", zkfiles.KindSnapshot, "a snapshot; dump-snapshot prints it", nil,
			func(c *cli.Context, w *bufio.Writer, path string, store bool) error {
				d := &txnDumper{w: w, json: c.Bool("json"), loc: time.Local}
				if store {
					return dumpGozkLog(d, path, c.Int64("from"))
				}
				return d.javaLog(path)
			}),
	}
}

func dumpSnapshotCommand() *cli.Command {
	return &cli.Command{
		Name:      "dump-snapshot",
		Usage:     "print a snapshot, as ZooKeeper's SnapshotFormatter (zkSnapShotToolkit.sh) does",
		ArgsUsage: "<snapshot.N[.gz|.snappy] file of Apache ZooKeeper | gozk dataDir or store directory>",
		Description: "A path to a file is read as an Apache ZooKeeper snapshot; a directory as gozk's store, whose\n" +
			"newest snapshot is printed. Text output follows SnapshotFormatter's layout and order; --json prints\n" +
			"the whole snapshot as one JSON document.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "d", Usage: "print each node's data (base64), as SnapshotFormatter -d"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON: sessions, ACL map, nodes with stat and data, digest"},
		},
		Action: dumpAction("dump-snapshot", zkfiles.KindLog, "a txn log; dump-log prints it",
			func(c *cli.Context) string {
				if c.Bool("d") && c.Bool("json") {
					return "cannot specify both data dump (-d) and json mode (--json) in same call"
				}
				return ""
			},
			func(c *cli.Context, w *bufio.Writer, path string, store bool) error {
				load := loadJavaSnapshot
				if store {
					load = loadGozkSnapshot
				}
				snap, err := load(path)
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return snap.writeJSON(w)
				}
				snap.writeText(w, c.Bool("d"), time.Local)
				return nil
			}),
	}
}

// dumpAction is the Action of dump-log and dump-snapshot, which take one
// path alike: a directory is gozk's store; a file of the other command's
// kind (wrong, described by wrongMsg) is refused; any other file is read
// as Apache ZooKeeper's. usage, when not nil, checks the flags and returns
// what is wrong with them. dump writes to w, which is flushed before an
// error is reported so that what was printed comes first.
func dumpAction(name string, wrong zkfiles.Kind, wrongMsg string, usage func(*cli.Context) string,
	dump func(c *cli.Context, w *bufio.Writer, path string, store bool) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		if c.NArg() != 1 {
			return cli.Exit(name+" takes one path", exitUsage)
		}
		if usage != nil {
			if msg := usage(c); msg != "" {
				return cli.Exit(msg, exitUsage)
			}
		}
		w := bufio.NewWriter(os.Stdout)
		defer w.Flush()
		path := c.Args().First()
		st, err := os.Stat(path)
		if err != nil {
			return cli.Exit(err.Error(), exitRuntime)
		}
		if !st.IsDir() && isKind(path, wrong) {
			err = fmt.Errorf("%s is %s", path, wrongMsg)
		} else {
			err = dump(c, w, path, st.IsDir())
		}
		if err != nil {
			w.Flush()
			return cli.Exit(err.Error(), exitRuntime)
		}
		return nil
	}
}

// isKind reports whether the file at path is of kind k by its content.
func isKind(path string, k zkfiles.Kind) bool {
	got, err := zkfiles.KindOf(path)
	return err == nil && got == k
}

// --- txn logs ---

// txnDumper prints txns as TxnLogToolkit does, or as JSON lines.
type txnDumper struct {
	w     io.Writer
	json  bool
	loc   *time.Location
	count int
}

// javaLog dumps one Apache ZooKeeper log file, TxnLogToolkit's dump mode:
// the header line, one line per txn (a "CRC ERROR - " line first for a
// record whose checksum fails), and "EOF reached after N txns." at the
// zero tail or the end of the file.
func (d *txnDumper) javaLog(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	lr, err := zkfiles.NewLogFileReader(f, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	lr.CheckCRC = false
	if !d.json {
		fmt.Fprintf(d.w, "ZooKeeper Transactional Log File with dbid %d txnlog format version %d\n", lr.Header.Dbid, lr.Header.Version)
	}
	for {
		rec, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		crcOK := int64(adler32.Checksum(rec.Data)) == rec.Checksum
		if err := d.txn(rec.Data, crcOK, rec.Offset); err != nil {
			return err
		}
	}
	if lr.End == zkfiles.EndPartial {
		// TxnLogToolkit's message, word for word.
		return errPartialTxn
	}
	if !d.json {
		fmt.Fprintf(d.w, "EOF reached after %d txns.\n", d.count)
	}
	return nil
}

// errPartialTxn is what TxnLogToolkit says about a record without its
// 'B' marker.
var errPartialTxn = errors.New("Last transaction was partial.") //lint:ignore ST1005 Java's message

// txn prints one txn entry.
func (d *txnDumper) txn(data []byte, crcOK bool, offset int64) error {
	txn, err := proto.DecodeTxn(data, 0)
	if err != nil {
		return fmt.Errorf("txn at offset %d cannot be decoded: %w", offset, err)
	}
	d.count++
	if d.json {
		return json.NewEncoder(d.w).Encode(txnJSON(txn, crcOK))
	}
	line := javaTxnLine(txn, d.loc)
	if !crcOK {
		io.WriteString(d.w, "CRC ERROR - "+line)
		if !strings.HasSuffix(line, "\n") {
			io.WriteString(d.w, "\n")
		}
	}
	io.WriteString(d.w, line)
	if !strings.HasSuffix(line, "\n") {
		io.WriteString(d.w, "\n")
	}
	return nil
}

// javaOpName is Request.op2String, which differs from the client-side
// names in two places.
func javaOpName(t int32) string {
	switch proto.OpCode(t) {
	case proto.OpCreateTTL:
		return "createTtl"
	case proto.OpAddWatch:
		return "unknown 106"
	}
	return proto.OpCode(t).String()
}

// javaTimeLayout is DateFormat.getDateTimeInstance(SHORT, LONG) in Java
// 17's default en_US locale.
const javaTimeLayout = "1/2/06, 3:04:05 PM MST"

// javaTxnLine is TxnLogToolkit.printTxn's line: time, session, cxid, zxid,
// op name and the record as getFormattedTxnStr renders it (records it has
// no case for end with the newline of jute's toString).
func javaTxnLine(txn *proto.TxnEntry, loc *time.Location) string {
	h := &txn.Header
	return fmt.Sprintf("%s session 0x%s cxid 0x%s zxid 0x%s %s %s",
		time.UnixMilli(h.Time).In(loc).Format(javaTimeLayout),
		strconv.FormatUint(uint64(h.ClientId), 16),
		strconv.FormatUint(uint64(int64(h.Cxid)), 16),
		strconv.FormatUint(uint64(h.Zxid), 16),
		javaOpName(h.Type), javaTxnString(txn.Body))
}

func javaTxnString(body jute.Record) string {
	switch b := body.(type) {
	case nil:
		return ""
	case *proto.CreateTxn:
		return b.Path + "," + javaUTF8(b.Data) + "," + javaACLList(b.Acl) + "," + strconv.FormatBool(b.Ephemeral) + "," + strconv.Itoa(int(b.ParentCVersion))
	case *proto.SetDataTxn:
		return b.Path + "," + javaUTF8(b.Data) + "," + strconv.Itoa(int(b.Version))
	case *proto.CreateContainerTxn:
		return b.Path + "," + javaUTF8(b.Data) + "," + javaACLList(b.Acl) + "," + strconv.Itoa(int(b.ParentCVersion))
	case *proto.CreateTTLTxn:
		return b.Path + "," + javaUTF8(b.Data) + "," + javaACLList(b.Acl) + "," + strconv.Itoa(int(b.ParentCVersion)) + "," + strconv.FormatInt(b.Ttl, 10)
	case *proto.MultiTxn:
		var sb strings.Builder
		for i, t := range b.Txns {
			if i > 0 {
				sb.WriteByte(';')
			}
			sb.WriteString(javaOpName(t.Type) + ":" + javaUTF8(t.Data))
		}
		return sb.String()
	}
	var ts toStringArchive
	ts.record(body)
	return ts.String()
}

// javaUTF8 is new String(data, UTF_8): every malformed byte becomes
// U+FFFD. Null and empty data print as "".
func javaUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		sb.WriteRune(r)
		b = b[n:]
	}
	return sb.String()
}

// javaACLList is List<ACL>.toString: "[" + each ACL's jute toString
// (which ends with a newline) joined by ", " + "]".
func javaACLList(acl []proto.ACL) string {
	parts := make([]string, len(acl))
	for i := range acl {
		var ts toStringArchive
		ts.record(&acl[i])
		parts[i] = ts.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// toStringArchive renders a record as jute's ToStringOutputArchive does
// for the records the log holds.
type toStringArchive struct {
	sb    strings.Builder
	first bool
}

func (a *toStringArchive) String() string { return a.sb.String() }

func (a *toStringArchive) comma() {
	if !a.first {
		a.sb.WriteByte(',')
	}
	a.first = false
}

func (a *toStringArchive) long(v int64) { a.comma(); a.sb.WriteString(strconv.FormatInt(v, 10)) }

func (a *toStringArchive) str(s string) {
	a.comma()
	a.sb.WriteByte('\'')
	for _, c := range s {
		switch c {
		case 0:
			a.sb.WriteString("%00")
		case '\n':
			a.sb.WriteString("%0A")
		case '\r':
			a.sb.WriteString("%0D")
		case ',':
			a.sb.WriteString("%2C")
		case '}':
			a.sb.WriteString("%7D")
		case '%':
			a.sb.WriteString("%25")
		default:
			a.sb.WriteRune(c)
		}
	}
}

func (a *toStringArchive) vector(n int, elem func(i int)) {
	a.comma()
	a.sb.WriteString("v{")
	a.first = true
	for i := 0; i < n; i++ {
		elem(i)
	}
	a.sb.WriteByte('}')
	a.first = false
}

// nested writes a record inside another: "s{" fields "}".
func (a *toStringArchive) nested(fields func()) {
	a.comma()
	a.sb.WriteString("s{")
	a.first = true
	fields()
	a.sb.WriteByte('}')
	a.first = false
}

func (a *toStringArchive) acl(x *proto.ACL) {
	a.long(int64(x.Perms))
	a.nested(func() { a.str(x.Id.Scheme); a.str(x.Id.Id) })
}

// record writes a top-level record: its fields, then a newline.
func (a *toStringArchive) record(r jute.Record) {
	a.first = true
	switch b := r.(type) {
	case *proto.ACL:
		a.acl(b)
	case *proto.DeleteTxn:
		a.str(b.Path)
	case *proto.CreateSessionTxn:
		a.long(int64(b.TimeOut))
	case *proto.CloseSessionTxn:
		a.vector(len(b.Paths2Delete), func(i int) { a.str(b.Paths2Delete[i]) })
	case *proto.ErrorTxn:
		a.long(int64(b.Err))
	case *proto.SetACLTxn:
		a.str(b.Path)
		a.vector(len(b.Acl), func(i int) { a.nested(func() { a.acl(&b.Acl[i]) }) })
		a.long(int64(b.Version))
	case *proto.CheckVersionTxn:
		a.str(b.Path)
		a.long(int64(b.Version))
	default:
		a.sb.WriteString(fmt.Sprintf("%+v", r))
	}
	a.sb.WriteByte('\n')
}

// txnJSON is the --json form of a txn: the header fields, the type's
// name, the record (multi sub-txns decoded) and the digest.
func txnJSON(txn *proto.TxnEntry, crcOK bool) map[string]any {
	h := &txn.Header
	m := map[string]any{
		"zxid":    fmt.Sprintf("0x%x", h.Zxid),
		"session": fmt.Sprintf("0x%x", uint64(h.ClientId)),
		"cxid":    h.Cxid,
		"time":    h.Time,
		"type":    javaOpName(h.Type),
	}
	if !crcOK {
		m["crcError"] = true
	}
	if mt, ok := txn.Body.(*proto.MultiTxn); ok {
		subs := make([]map[string]any, 0, len(mt.Txns))
		for i := range mt.Txns {
			sub := map[string]any{"type": javaOpName(mt.Txns[i].Type)}
			if rec, err := proto.DecodeSubTxn(&mt.Txns[i], 0); err == nil {
				sub["txn"] = rec
			} else {
				sub["data"] = base64.StdEncoding.EncodeToString(mt.Txns[i].Data)
				sub["error"] = err.Error()
			}
			subs = append(subs, sub)
		}
		m["txns"] = subs
	} else if txn.Body != nil {
		m["txn"] = txn.Body
	}
	if txn.Digest != nil {
		m["digest"] = txn.Digest
	}
	return m
}

// --- snapshots ---

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
