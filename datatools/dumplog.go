package datatools

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/persistence/zkfiles"
	"github.com/gozk/gozk/proto"
)

// LogDumpOptions are the choices of DumpLog.
type LogDumpOptions struct {
	// JSON prints one JSON object per txn and line instead of
	// TxnLogToolkit's text.
	JSON bool
	// From is the first zxid printed of gozk's txn log (0: from its
	// start); Java's log files are printed whole.
	From int64
	// Location is the time zone of the txn times; nil means time.Local,
	// as Java prints them.
	Location *time.Location
}

// DumpLog prints the txns of the log at path to w, as Apache ZooKeeper's
// TxnLogToolkit (zkTxnLogToolkit.sh) prints them: a file is read as an
// Apache ZooKeeper log.N, a directory as gozk's txn log (a dataLogDir or
// its gozk/ store directory). A snapshot file is refused. What was
// printed before an error has been written to w when DumpLog returns.
func DumpLog(w io.Writer, path string, o LogDumpOptions) error {
	return dumpPath(w, path, zkfiles.KindSnapshot, "a snapshot; dump-snapshot prints it", func(w io.Writer, store bool) error {
		d := &txnDumper{w: w, json: o.JSON, loc: o.Location}
		if d.loc == nil {
			d.loc = time.Local
		}
		if store {
			return dumpGozkLog(d, path, o.From)
		}
		return d.javaLog(path)
	})
}

// dumpPath is what DumpLog and DumpSnapshot share: path must exist; a
// directory is gozk's store; a file of the other dump's kind (wrong,
// described by wrongMsg) is refused; any other file is read as Apache
// ZooKeeper's. dump writes to a buffer of w, flushed before an error is
// returned so that what was printed comes first.
func dumpPath(w io.Writer, path string, wrong zkfiles.Kind, wrongMsg string, dump func(w io.Writer, store bool) error) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.IsDir() && isKind(path, wrong) {
		return fmt.Errorf("%s is %s", path, wrongMsg)
	}
	bw := bufio.NewWriter(w)
	err = dump(bw, st.IsDir())
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return err
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
