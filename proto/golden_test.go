package proto_test

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gozk/gozk/jute"
	"github.com/gozk/gozk/proto"
)

// The golden vectors in testdata/golden are written by Apache ZooKeeper's
// own Java classes (proto/testdata/javagen, `make golden`) and committed,
// so these tests never need Java. Each record vector is a .bin holding the
// record as Java's BinaryOutputArchive wrote it and a .json holding its
// field values, keyed by the jute field names.

const (
	goldenDir          = "testdata/golden"
	goldenCompositeDir = "testdata/golden/composite"
)

// goldenExempt lists the records of proto.RecordTypes that need no golden
// vector because ZooKeeper's Java code has no counterpart, with the reason.
// It is empty today: every class of zookeeper.jute exists in ZooKeeper's
// jars, and the four persistence records that ZooKeeper writes by hand
// (DataNode, ACLCacheEntry, SnapshotSession, ZxidDigest) get vectors that
// the Java generator checks against ZooKeeper's own code path.
var goldenExempt = map[string]string{}

// readGoldenManifest returns the fields of every line of a MANIFEST that
// is neither blank nor a comment.
func readGoldenManifest(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("golden vectors missing (regenerate with `make golden`): %v", err)
	}
	defer f.Close()
	var lines [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		lines = append(lines, strings.Fields(line))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

func readGoldenFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// goldenParseJSON decodes one JSON document keeping numbers exact.
func goldenParseJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("data after the JSON value")
	}
	return v, nil
}

// goldenDiffJSON compares two decoded JSON trees and returns one line per
// difference, naming the field path (e.g. "stat.czxid", "acl[1].id.id").
func goldenDiffJSON(path string, java, goVal any) []string {
	name := path
	if name == "" {
		name = "(record)"
	}
	switch j := java.(type) {
	case map[string]any:
		g, ok := goVal.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: java %s, go %s", name, goldenShow(java), goldenShow(goVal))}
		}
		keys := map[string]bool{}
		for k := range j {
			keys[k] = true
		}
		for k := range g {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		var out []string
		for _, k := range sorted {
			sub := k
			if path != "" {
				sub = path + "." + k
			}
			jv, jok := j[k]
			gv, gok := g[k]
			switch {
			case !gok:
				out = append(out, fmt.Sprintf("%s: missing in go (java %s)", sub, goldenShow(jv)))
			case !jok:
				out = append(out, fmt.Sprintf("%s: not in java (go %s)", sub, goldenShow(gv)))
			default:
				out = append(out, goldenDiffJSON(sub, jv, gv)...)
			}
		}
		return out
	case []any:
		g, ok := goVal.([]any)
		if !ok || len(g) != len(j) {
			return []string{fmt.Sprintf("%s: java %s, go %s", name, goldenShow(java), goldenShow(goVal))}
		}
		var out []string
		for i := range j {
			out = append(out, goldenDiffJSON(fmt.Sprintf("%s[%d]", path, i), j[i], g[i])...)
		}
		return out
	default:
		if !reflect.DeepEqual(java, goVal) {
			return []string{fmt.Sprintf("%s: java %s, go %s", name, goldenShow(java), goldenShow(goVal))}
		}
		return nil
	}
}

func goldenShow(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

// goldenCompareJSON checks Go's encoding/json rendering of v against the
// JSON Java wrote.
func goldenCompareJSON(t *testing.T, what string, javaJSON []byte, v any) {
	t.Helper()
	want, err := goldenParseJSON(javaJSON)
	if err != nil {
		t.Fatalf("%s: bad golden JSON: %v", what, err)
	}
	goJSON, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: marshal: %v", what, err)
	}
	got, err := goldenParseJSON(goJSON)
	if err != nil {
		t.Fatalf("%s: reparse: %v", what, err)
	}
	for _, d := range goldenDiffJSON("", want, got) {
		t.Errorf("%s: %s", what, d)
	}
}

// goldenCompareBytes reports where got first departs from Java's bytes.
func goldenCompareBytes(t *testing.T, what string, java, got []byte) {
	t.Helper()
	if bytes.Equal(java, got) {
		return
	}
	i := 0
	for i < len(java) && i < len(got) && java[i] == got[i] {
		i++
	}
	from := max(i-8, 0)
	t.Errorf("%s: re-encoding differs from Java at offset %d (java %d bytes, go %d bytes)\njava ...%s\n  go ...%s",
		what, i, len(java), len(got),
		hex.EncodeToString(java[from:min(len(java), i+16)]), hex.EncodeToString(got[from:min(len(got), i+16)]))
}

// TestGoldenVectors decodes every record vector Java wrote, compares the
// fields with Java's JSON and the re-encoding with Java's bytes.
func TestGoldenVectors(t *testing.T) {
	entries := readGoldenManifest(t, filepath.Join(goldenDir, "MANIFEST"))
	covered := map[string]int{}
	listed := map[string]bool{}
	// One value per record is reused across all its cases, to check that
	// decoding over a previous value leaves nothing of it behind.
	reused := map[string]jute.Record{}
	for _, e := range entries {
		if len(e) != 2 {
			t.Fatalf("bad MANIFEST line %q", strings.Join(e, " "))
		}
		name, kase := e[0], e[1]
		base := name + "-" + kase
		listed[base+".bin"], listed[base+".json"] = true, true
		newRec, ok := proto.RecordTypes[name]
		if !ok {
			t.Errorf("%s: Java wrote a vector for %s, which proto.RecordTypes does not have", base, name)
			continue
		}
		covered[name]++
		bin := readGoldenFile(t, filepath.Join(goldenDir, base+".bin"))
		js := readGoldenFile(t, filepath.Join(goldenDir, base+".json"))
		t.Run(name+"/"+kase, func(t *testing.T) {
			rec := newRec()
			if err := jute.UnmarshalExact(bin, rec, name); err != nil {
				t.Fatalf("decoding Java's bytes: %v", err)
			}
			goldenCompareJSON(t, "fields", js, rec)
			goldenCompareBytes(t, "bytes", bin, jute.Marshal(rec))

			old := reused[name]
			if old == nil {
				old = newRec()
				reused[name] = old
			}
			if err := jute.UnmarshalExact(bin, old, name); err != nil {
				t.Fatalf("decoding into a reused value: %v", err)
			}
			goldenCompareJSON(t, "fields after reuse", js, old)
			goldenCompareBytes(t, "bytes after reuse", bin, jute.Marshal(old))
		})
	}

	var missing []string
	for name := range proto.RecordTypes {
		if _, exempt := goldenExempt[name]; !exempt && covered[name] == 0 {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no golden vector for %s: add cases to proto/testdata/javagen/GoldenVectors.java and run "+
			"`make golden`, or list the record in goldenExempt with the reason Java has no counterpart",
			strings.Join(missing, ", "))
	}
	for name, why := range goldenExempt {
		if covered[name] > 0 {
			t.Errorf("%s is exempt (%s) but has golden vectors", name, why)
		}
	}

	files, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !f.IsDir() && f.Name() != "MANIFEST" && !listed[f.Name()] {
			t.Errorf("%s is not in the MANIFEST (stale vector?)", f.Name())
		}
	}
}

// Composite vectors: byte streams made of several records and primitives,
// each with a JSON description listing its parts in order.

type goldenPartJSON struct {
	Type  string           `json:"type"`
	Value json.RawMessage  `json:"value"`
	Inner []goldenPartJSON `json:"inner"`
}

type goldenCompositeJSON struct {
	Name        string           `json:"name"`
	Source      string           `json:"source"`
	Description string           `json:"description"`
	Length      int              `json:"length"`
	Parts       []goldenPartJSON `json:"parts"`
}

// goldenPart is one decoded piece of a composite stream: a record or a
// primitive (int32, int64, bool, string or []byte).
type goldenPart struct {
	typ   string
	value any
	inner []goldenPart
}

func goldenRecordPart(rec jute.Record) goldenPart {
	return goldenPart{typ: reflect.TypeOf(rec).Elem().Name(), value: rec}
}

func (p goldenPart) encode(w *jute.Writer) {
	switch v := p.value.(type) {
	case jute.Record:
		v.Encode(w)
	case int32:
		w.WriteInt(v)
	case int64:
		w.WriteLong(v)
	case bool:
		w.WriteBool(v)
	case string:
		w.WriteString(v)
	case []byte:
		w.WriteBuffer(v)
	default:
		panic(fmt.Sprintf("goldenPart: unexpected %T", v))
	}
}

// goldenTxnRecord returns an empty txn record for a TxnHeader type, as the
// txn log maps them (create2 shares CreateTxn, deleteContainer DeleteTxn,
// reconfig SetDataTxn).
func goldenTxnRecord(typ int32) jute.Record {
	switch typ {
	case -10:
		return new(proto.CreateSessionTxn)
	case -11:
		return new(proto.CloseSessionTxn)
	case -1:
		return new(proto.ErrorTxn)
	case 1, 15:
		return new(proto.CreateTxn)
	case 2, 20:
		return new(proto.DeleteTxn)
	case 5, 16:
		return new(proto.SetDataTxn)
	case 7:
		return new(proto.SetACLTxn)
	case 13:
		return new(proto.CheckVersionTxn)
	case 14:
		return new(proto.MultiTxn)
	case 19:
		return new(proto.CreateContainerTxn)
	case 21:
		return new(proto.CreateTTLTxn)
	}
	return nil
}

// goldenDecodeTxnEntry decodes a txn log entry body: TxnHeader, the txn
// for its type (absent for old closeSession entries), and a TxnDigest if
// bytes remain. A create that does not fit CreateTxn is read as
// CreateTxnV0, the pre-3.3 layout, as ZooKeeper does.
func goldenDecodeTxnEntry(t *testing.T, b []byte) []goldenPart {
	r := jute.NewReader(b)
	hdr := new(proto.TxnHeader)
	hdr.Decode(r)
	parts := []goldenPart{goldenRecordPart(hdr)}
	if r.Err() == nil && r.Remaining() > 0 {
		txn := goldenTxnRecord(hdr.Type)
		if txn == nil {
			t.Fatalf("txn type %d has no record", hdr.Type)
		}
		if hdr.Type == 1 {
			if err := jute.Unmarshal(r.Rest(), txn); err != nil {
				txn = new(proto.CreateTxnV0)
			}
		}
		txn.Decode(r)
		p := goldenRecordPart(txn)
		if m, ok := txn.(*proto.MultiTxn); ok {
			for i, sub := range m.Txns {
				rec := goldenTxnRecord(sub.Type)
				if rec == nil {
					t.Fatalf("multi txn %d: type %d has no record", i, sub.Type)
				}
				if err := jute.UnmarshalExact(sub.Data, rec, "Txn.data"); err != nil {
					t.Fatalf("multi txn %d: %v", i, err)
				}
				goldenCompareBytes(t, fmt.Sprintf("multi txn %d", i), sub.Data, jute.Marshal(rec))
				p.inner = append(p.inner, goldenRecordPart(rec))
			}
		}
		parts = append(parts, p)
	}
	if r.Err() == nil && r.Remaining() > 0 {
		d := new(proto.TxnDigest)
		d.Decode(r)
		parts = append(parts, goldenRecordPart(d))
	}
	r.ExpectEnd("txn entry")
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return parts
}

// goldenDecodeConnect decodes a Java client's connect payload: the
// ConnectRequest record and the readOnly byte that follows it.
func goldenDecodeConnect(t *testing.T, b []byte) []goldenPart {
	r := jute.NewReader(b)
	req := new(proto.ConnectRequest)
	req.Decode(r)
	readOnly := r.ReadBool("readOnly")
	r.ExpectEnd("connect payload")
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return []goldenPart{goldenRecordPart(req), {typ: "boolean", value: readOnly}}
}

// goldenDecodeDataTree decodes a serialized DataTree: the ACL cache as a
// count and that many ACLCacheEntry, then path and DataNode pairs until
// the path "/".
func goldenDecodeDataTree(t *testing.T, b []byte) []goldenPart {
	r := jute.NewReader(b)
	n := r.ReadInt("aclCount")
	parts := []goldenPart{{typ: "int", value: n}}
	for i := int32(0); i < n && r.Err() == nil; i++ {
		e := new(proto.ACLCacheEntry)
		e.Decode(r)
		parts = append(parts, goldenRecordPart(e))
	}
	for r.Err() == nil {
		path := r.ReadString("path")
		parts = append(parts, goldenPart{typ: "ustring", value: path})
		if path == "/" {
			break
		}
		node := new(proto.DataNode)
		node.Decode(r)
		parts = append(parts, goldenRecordPart(node))
	}
	r.ExpectEnd("datatree")
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return parts
}

// goldenDecodeGuided decodes a stream part by part following the types its
// JSON lists. It is used for the multi request and response bodies, which
// the multi codec (proto/multi.go) is to decode on its own; until that has
// a golden test of its own, this at least checks every part.
func goldenDecodeGuided(t *testing.T, b []byte, want []goldenPartJSON) []goldenPart {
	r := jute.NewReader(b)
	var parts []goldenPart
	for _, w := range want {
		var p goldenPart
		switch w.Type {
		case "int":
			p = goldenPart{typ: w.Type, value: r.ReadInt("int")}
		case "long":
			p = goldenPart{typ: w.Type, value: r.ReadLong("long")}
		case "boolean":
			p = goldenPart{typ: w.Type, value: r.ReadBool("boolean")}
		case "ustring":
			p = goldenPart{typ: w.Type, value: r.ReadString("ustring")}
		case "buffer":
			p = goldenPart{typ: w.Type, value: r.ReadBuffer("buffer")}
		default:
			newRec, ok := proto.RecordTypes[w.Type]
			if !ok {
				t.Fatalf("part type %q is not a record", w.Type)
			}
			rec := newRec()
			rec.Decode(r)
			p = goldenRecordPart(rec)
		}
		parts = append(parts, p)
	}
	r.ExpectEnd("stream")
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return parts
}

// goldenCompareParts checks decoded parts against the JSON description.
func goldenCompareParts(t *testing.T, where string, got []goldenPart, want []goldenPartJSON) {
	t.Helper()
	if len(got) != len(want) {
		var names []string
		for _, p := range got {
			names = append(names, p.typ)
		}
		t.Fatalf("%sdecoded %d parts %v, Java lists %d", where, len(got), names, len(want))
	}
	for i := range want {
		what := fmt.Sprintf("%spart %d (%s)", where, i, want[i].Type)
		if got[i].typ != want[i].Type {
			t.Errorf("%s: decoded a %s", what, got[i].typ)
			continue
		}
		goldenCompareJSON(t, what, want[i].Value, got[i].value)
		if len(want[i].Inner) > 0 || len(got[i].inner) > 0 {
			goldenCompareParts(t, what+": ", got[i].inner, want[i].Inner)
		}
	}
}

// TestGoldenComposites decodes the composite streams with the generated
// records, compares every part with Java's description and re-encodes
// the whole stream byte for byte.
func TestGoldenComposites(t *testing.T) {
	entries := readGoldenManifest(t, filepath.Join(goldenCompositeDir, "MANIFEST"))
	listed := map[string]bool{}
	for _, e := range entries {
		if len(e) != 1 {
			t.Fatalf("bad MANIFEST line %q", strings.Join(e, " "))
		}
		name := e[0]
		listed[name+".bin"], listed[name+".json"] = true, true
		bin := readGoldenFile(t, filepath.Join(goldenCompositeDir, name+".bin"))
		js := readGoldenFile(t, filepath.Join(goldenCompositeDir, name+".json"))
		t.Run(name, func(t *testing.T) {
			var desc goldenCompositeJSON
			if err := json.Unmarshal(js, &desc); err != nil {
				t.Fatalf("bad description: %v", err)
			}
			if desc.Length != len(bin) {
				t.Fatalf("description says %d bytes, file has %d", desc.Length, len(bin))
			}
			var parts []goldenPart
			switch {
			case strings.HasPrefix(name, "txn-"):
				parts = goldenDecodeTxnEntry(t, bin)
			case strings.HasPrefix(name, "connect-request-"):
				parts = goldenDecodeConnect(t, bin)
			case name == "datatree":
				parts = goldenDecodeDataTree(t, bin)
			case strings.HasPrefix(name, "multi"):
				parts = goldenDecodeGuided(t, bin, desc.Parts)
			default:
				t.Fatalf("no decoder for composite %q", name)
			}
			goldenCompareParts(t, "", parts, desc.Parts)
			var w jute.Writer
			for _, p := range parts {
				p.encode(&w)
			}
			goldenCompareBytes(t, "stream", bin, w.Bytes())
		})
	}
	files, err := os.ReadDir(goldenCompositeDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !f.IsDir() && f.Name() != "MANIFEST" && !listed[f.Name()] {
			t.Errorf("composite/%s is not in the MANIFEST (stale vector?)", f.Name())
		}
	}
}
