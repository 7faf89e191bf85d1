package zkfiles

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/adler32"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gozk/gozk/proto"
)

// sampleSnapshot is a small tree with every field kind: null and empty
// data, a shared ACL, an open ACL, sessions and a digest.
type sampleSnapshot struct {
	sessions []proto.SnapshotSession
	acls     []proto.ACLCacheEntry
	nodes    []Node
	digest   *proto.ZxidDigest
}

func sample() sampleSnapshot {
	digestACL := []proto.ACL{{Perms: 31, Id: proto.Id{Scheme: "digest", Id: "u:x"}}, {Perms: 1, Id: proto.Id{Scheme: "ip", Id: "10.0.0.0/8"}}}
	st := func(z int64) proto.StatPersisted {
		return proto.StatPersisted{Czxid: z, Mzxid: z, Ctime: 1700000000000 + z, Mtime: 1700000000000 + z, Version: 1, Cversion: 2, Aversion: 3, Pzxid: z}
	}
	return sampleSnapshot{
		sessions: []proto.SnapshotSession{{Id: 0x100000abc0000, Timeout: 30000}, {Id: 7, Timeout: 4000}},
		acls: []proto.ACLCacheEntry{
			{Id: 1, Acl: proto.ReadACLUnsafe},
			{Id: 2, Acl: digestACL},
		},
		nodes: []Node{
			{Path: "", Data: []byte{}, ACLID: -1},
			{Path: "/zookeeper", Data: []byte{}, ACLID: -1},
			{Path: "/zookeeper/quota", Data: []byte{}, ACLID: -1},
			{Path: "/zookeeper/config", Data: []byte{}, ACLID: 1, Stat: proto.StatPersisted{Aversion: -1}},
			{Path: "/a", Data: nil, ACLID: 2, Stat: st(3)},
			{Path: "/a/b", Data: bytes.Repeat([]byte("xyz"), 50000), ACLID: -1, Stat: st(4)},
			{Path: "/é\U0001F600", Data: []byte("unicode"), ACLID: -1, Stat: st(5)},
		},
		digest: &proto.ZxidDigest{Zxid: 9, DigestVersion: 2, Digest: -12345},
	}
}

func (s sampleSnapshot) write(t testing.TB, w io.Writer, c Compression) {
	sw := NewSnapshotWriter(w, c)
	if err := sw.Sessions(s.sessions); err != nil {
		t.Fatal(err)
	}
	if err := sw.ACLs(s.acls); err != nil {
		t.Fatal(err)
	}
	for i := range s.nodes {
		n := &s.nodes[i]
		if err := sw.Node(n.Path, n.Data, n.ACLID, &n.Stat); err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.Finish(s.digest); err != nil {
		t.Fatal(err)
	}
}

func collect(t testing.TB, r io.Reader) (sampleSnapshot, SnapshotInfo, error) {
	var got sampleSnapshot
	info, err := DecodeSnapshot(r, 0, SnapshotHandler{
		Session: func(id int64, to int32) error {
			got.sessions = append(got.sessions, proto.SnapshotSession{Id: id, Timeout: to})
			return nil
		},
		ACL:  func(e proto.ACLCacheEntry) error { got.acls = append(got.acls, e); return nil },
		Node: func(n *Node) error { got.nodes = append(got.nodes, *n); return nil },
	})
	if info.HasDigest {
		d := info.Digest
		got.digest = &d
	}
	return got, info, err
}

func TestSnapshotRoundTrip(t *testing.T) {
	for _, c := range []Compression{Checked, Gzip, Snappy} {
		t.Run(c.String(), func(t *testing.T) {
			s := sample()
			var buf bytes.Buffer
			s.write(t, &buf, c)
			r, err := Decompress(bytes.NewReader(buf.Bytes()), c)
			if err != nil {
				t.Fatal(err)
			}
			got, info, err := collect(t, r)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, s) {
				t.Fatalf("round trip differs:\n got %+v\nwant %+v", got, s)
			}
			if info.Nodes != len(s.nodes) || info.Header.Magic != SnapMagic || info.Header.Dbid != -1 {
				t.Fatalf("info %+v", info)
			}
		})
	}
}

func TestSnapshotWithoutDigestAndDamage(t *testing.T) {
	s := sample()
	s.digest = nil
	var buf bytes.Buffer
	s.write(t, &buf, Checked)
	got, info, err := collect(t, bytes.NewReader(buf.Bytes()))
	if err != nil || info.HasDigest || got.digest != nil {
		t.Fatalf("no-digest snapshot: %v %+v", err, info)
	}
	if !bytes.HasSuffix(buf.Bytes(), snapshotTail) {
		t.Fatal("snapshot does not end with the seal")
	}
	// Flip one byte of node data: the checksum must catch it.
	b := append([]byte(nil), buf.Bytes()...)
	i := bytes.Index(b, []byte("unicode"))
	b[i] ^= 1
	if _, _, err := collect(t, bytes.NewReader(b)); !errors.Is(err, ErrChecksum) {
		t.Fatalf("damaged snapshot: %v", err)
	}
	// Every truncation fails.
	for n := 0; n < len(buf.Bytes())-5; n += 997 {
		if _, _, err := collect(t, bytes.NewReader(buf.Bytes()[:n])); err == nil {
			t.Fatalf("truncated at %d: no error", n)
		}
	}
}

func TestXerialFraming(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 10000) // 160000 bytes: 5 blocks
	var buf bytes.Buffer
	w := NewXerialWriter(&buf)
	w.Write(data[:100])
	w.Write(data[100:])
	w.Close()
	b := buf.Bytes()
	if !bytes.Equal(b[:16], []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1}) {
		t.Fatalf("header % x", b[:16])
	}
	// Two streams back to back read as one (snappy-java's concatenation).
	both := append(append([]byte(nil), b...), b...)
	r, err := NewXerialReader(bytes.NewReader(both))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(out, append(append([]byte(nil), data...), data...)) {
		t.Fatalf("read back %d bytes, %v", len(out), err)
	}
	// An empty stream is just the header.
	buf.Reset()
	w = NewXerialWriter(&buf)
	w.Close()
	if buf.Len() != 16 {
		t.Fatalf("empty stream is %d bytes", buf.Len())
	}
	if _, err := NewXerialReader(strings.NewReader("not snappy at all")); !errors.Is(err, ErrNotSnappy) {
		t.Fatalf("bad magic: %v", err)
	}
}

func TestLogRoundTripAndEnds(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, LogName(0x100000001))
	lw, err := CreateLogFile(path, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var want [][]byte
	for z := int64(0x100000001); z <= 0x100000005; z++ {
		e := proto.TxnEntry{
			Header: proto.TxnHeader{ClientId: 5, Cxid: int32(z), Zxid: z, Time: 1700000000000, Type: int32(proto.OpDelete)},
			Body:   &proto.DeleteTxn{Path: "/x"},
			Digest: &proto.TxnDigest{Version: 2, TreeDigest: z},
		}
		b := e.Marshal()
		want = append(want, b)
		if err := lw.Append(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := lw.Close(); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if st.Size() != 16+1<<20 { // the header, then whole preallocation steps
		t.Fatalf("preallocated size %d", st.Size())
	}
	var got [][]byte
	lr, err := ReadLogFile(path, 0, func(r Record) error { got = append(got, r.Data); return nil })
	if err != nil || lr.End != EndZero || !reflect.DeepEqual(got, want) {
		t.Fatalf("read %d records, end %v, err %v", len(got), lr.End, err)
	}
	// From a zxid inside the file: fast-forward.
	got = nil
	if err := ReadLogs(dir, 0x100000004, 0, func(_ string, r Record) error { got = append(got, r.Data); return nil }); err != nil || len(got) != 2 {
		t.Fatalf("ReadLogs from 4: %d records, %v", len(got), err)
	}
	if last, err := LastLoggedZxid(dir, 0); err != nil || last != 0x100000005 {
		t.Fatalf("LastLoggedZxid %#x %v", last, err)
	}

	raw, _ := os.ReadFile(path)
	// A bad checksum is a hard error.
	bad := append([]byte(nil), raw...)
	bad[16+12+3] ^= 0xff
	if _, err := NewLogAndRead(bad); !errors.Is(err, ErrLogCorrupt) {
		t.Fatalf("bad crc: %v", err)
	}
	// A missing 'B' ends the file quietly after the records before it.
	rec0 := 16 + 13 + len(want[0])
	bad = append([]byte(nil), raw...)
	bad[rec0-1] = 'X'
	if n, err := NewLogAndRead(bad); err != nil || n != 0 {
		t.Fatalf("partial record: %d records, %v", n, err)
	}
	// Truncation inside a record ends the file.
	if n, err := NewLogAndRead(raw[:rec0+20]); err != nil || n != 1 {
		t.Fatalf("truncated: %d records, %v", n, err)
	}
}

func NewLogAndRead(b []byte) (int, error) {
	lr, err := NewLogFileReader(bytes.NewReader(b), 0)
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		_, err := lr.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

func TestNamesAndSelection(t *testing.T) {
	cases := map[string]int64{"log.100000001": 0x100000001, "log.A": 10, "log.+f": 15, "log.0x5": -1, "log.": -1, "snapshot.1": -1, "log.1.tmp": 1}
	for name, want := range cases {
		if got := ZxidFromName(name, LogPrefix); got != want {
			t.Errorf("ZxidFromName(%q) = %d, want %d", name, got, want)
		}
	}
	if SnapshotName(0x2000003e8, Snappy) != "snapshot.2000003e8.snappy" || LogName(1) != "log.1" {
		t.Fatal("names")
	}
	files := []File{{Zxid: 1}, {Zxid: 10}, {Zxid: 20}, {Zxid: 30}}
	if got := LogsFrom(files, 15); len(got) != 3 || got[0].Zxid != 10 {
		t.Fatalf("LogsFrom 15: %+v", got)
	}
	if got := LogsFrom(files, 20); len(got) != 3 || got[0].Zxid != 10 {
		t.Fatalf("LogsFrom 20: %+v", got)
	}
	if got := LogsFrom(files, 0); len(got) != 4 {
		t.Fatalf("LogsFrom 0: %+v", got)
	}
	if CompressionOf("snapshot.10.gz") != Gzip || CompressionOf("snapshot.10") != Checked || CompressionOf("snapshot.10.snappy") != Snappy {
		t.Fatal("CompressionOf")
	}
}

func TestEpochFiles(t *testing.T) {
	dir := t.TempDir()
	if _, found, err := ReadEpoch(filepath.Join(dir, CurrentEpochFile)); found || err != nil {
		t.Fatal("missing epoch file")
	}
	if err := WriteEpoch(dir, CurrentEpochFile, 7); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, CurrentEpochFile))
	if string(b) != "7" {
		t.Fatalf("epoch file %q", b)
	}
	if v, found, err := ReadEpoch(filepath.Join(dir, CurrentEpochFile)); v != 7 || !found || err != nil {
		t.Fatal(v, found, err)
	}
	// The first line, as BufferedReader.readLine ends it.
	for text, want := range map[string]int64{"8\n": 8, "9\r\n1": 9, "10\r11": 10, "+12": 12} {
		os.WriteFile(filepath.Join(dir, AcceptedEpochFile), []byte(text), 0o644)
		if v, _, err := ReadEpoch(filepath.Join(dir, AcceptedEpochFile)); v != want || err != nil {
			t.Errorf("%q: %d, %v", text, v, err)
		}
	}
}

// TestReadWriteEpochs: WriteEpochs writes only the epochs it has; a
// currentEpoch.tmp that does not read is kept as CurrentTmpErr (Java reads
// it only when it needs it), a bad acceptedEpoch or currentEpoch is an
// error naming the file.
func TestReadWriteEpochs(t *testing.T) {
	dir := t.TempDir()
	if err := WriteEpochs(dir, Epochs{Current: 4, HasCurrent: true, Accepted: 99}); err != nil {
		t.Fatal(err)
	}
	e, err := ReadEpochs(dir)
	if err != nil || e != (Epochs{Current: 4, HasCurrent: true}) {
		t.Fatalf("%+v, %v", e, err)
	}
	if err := WriteEpochs(dir, Epochs{Accepted: 5, HasAccepted: true}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, CurrentEpochTmpFile), nil, 0o644)
	e, err = ReadEpochs(dir)
	if err != nil || e.Accepted != 5 || e.Current != 4 || !e.HasCurrentTmp || e.CurrentTmpErr == nil {
		t.Fatalf("%+v, %v", e, err)
	}
	os.WriteFile(filepath.Join(dir, CurrentEpochFile), []byte("four"), 0o644)
	if _, err := ReadEpochs(dir); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, CurrentEpochFile)+`: "four" is not an epoch`) {
		t.Fatalf("bad currentEpoch: %v", err)
	}
}

// TestSnapshot39Sections: ZooKeeper 3.9 appends lastProcessedZxid with a
// third seal; it is read, and a bad third checksum is caught.
func TestSnapshot39Sections(t *testing.T) {
	var buf bytes.Buffer
	sample().write(t, &buf, Checked)
	b := buf.Bytes()
	sum := adler32.New()
	sum.Write(b)
	var tail [8]byte
	binary.BigEndian.PutUint64(tail[:], 0x500000007)
	sum.Write(tail[:])
	b = append(b, tail[:]...)
	b = binary.BigEndian.AppendUint64(b, uint64(sum.Sum32()))
	b = append(b, 0, 0, 0, 1, '/')
	_, info, err := collect(t, bytes.NewReader(b))
	if err != nil || !info.HasLastProcessedZxid || info.LastProcessedZxid != 0x500000007 {
		t.Fatalf("3.9 snapshot: %+v %v", info, err)
	}
	b[len(b)-6] ^= 1
	if _, _, err := collect(t, bytes.NewReader(b)); !errors.Is(err, ErrChecksum) {
		t.Fatalf("bad third seal: %v", err)
	}
}
