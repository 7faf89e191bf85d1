package zkfiles

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gozk/gozk/proto"
)

// snapStreamFixture is what a ZooKeeper 3.8.0 leader streams after SNAP
// (testdata/javaoracle/SnapStreamOracle.java; `make snapstream-oracle`
// writes it again).
const snapStreamFixture = "testdata/java-snapstream.bin"

func TestDecodeSnapStreamFromJava(t *testing.T) {
	raw, err := os.ReadFile(snapStreamFixture)
	if err != nil {
		t.Fatal(err)
	}
	// A quorum packet follows the stream on the connection: it must stay
	// unread.
	after := []byte{0, 0, 0, 10, 0xca, 0xfe}
	br := bufio.NewReader(bytes.NewReader(append(append([]byte(nil), raw...), after...)))
	sessions := map[int64]int32{}
	acls := map[int64][]proto.ACL{}
	nodes := map[string]Node{}
	var order []string
	info, err := DecodeSnapStream(br, 0, SnapshotHandler{
		Session: func(id int64, timeout int32) error { sessions[id] = timeout; return nil },
		ACL:     func(e proto.ACLCacheEntry) error { acls[e.Id] = e.Acl; return nil },
		Node: func(n *Node) error {
			nodes[n.Path] = *n
			order = append(order, n.Path)
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	rest, _ := br.ReadBytes(0xfe)
	if !bytes.Equal(rest, after) {
		t.Fatalf("the bytes after the signature were %x, want %x untouched", rest, after)
	}
	if info.Sessions != 2 || sessions[0x100000001] != 30000 || sessions[0x100000002] != 4000 {
		t.Fatalf("sessions %v", sessions)
	}
	if order[0] != "" {
		t.Fatalf("first node %q, want the root", order[0])
	}
	for _, p := range []string{"/zookeeper", "/zookeeper/quota", "/app", "/app/secret", "/app/empty", "/app/null", "/lock", "/lock/owner"} {
		if _, ok := nodes[p]; !ok {
			t.Fatalf("node %s missing; got %v", p, order)
		}
	}
	if got := nodes["/app"].Data; string(got) != "config" {
		t.Errorf("/app data %q", got)
	}
	if got := nodes["/app/empty"].Data; got == nil || len(got) != 0 {
		t.Errorf("/app/empty data %v, want empty and not null", got)
	}
	if got := nodes["/app/null"].Data; got != nil {
		t.Errorf("/app/null data %v, want null", got)
	}
	owner := nodes["/lock/owner"].Stat
	if owner.EphemeralOwner != 0x100000001 || owner.Czxid != 0x100000006 || owner.Ctime != 1700000000005 {
		t.Errorf("/lock/owner stat %+v", owner)
	}
	secret := acls[nodes["/app/secret"].ACLID]
	if len(secret) != 2 || secret[0].Id.Scheme != "digest" || secret[0].Perms != 31 || secret[1].Perms != 1 {
		t.Errorf("/app/secret ACL %+v", secret)
	}
	if open := acls[nodes["/app"].ACLID]; len(open) != 1 || open[0].Id.Scheme != "world" || open[0].Perms != 31 {
		t.Errorf("/app ACL %+v, want world:anyone with every permission", open)
	}
}

func TestDecodeSnapStreamDamage(t *testing.T) {
	raw, err := os.ReadFile(snapStreamFixture)
	if err != nil {
		t.Fatal(err)
	}
	// Another signature.
	bad := append([]byte(nil), raw...)
	copy(bad[len(bad)-10:], "BenWasGone")
	if _, err := DecodeSnapStream(bufio.NewReader(bytes.NewReader(bad)), 0, SnapshotHandler{}); !errors.Is(err, ErrSnapSignature) {
		t.Fatalf("wrong signature: %v", err)
	}
	// Cut anywhere: an error, never a panic nor success.
	for cut := 0; cut < len(raw); cut += 7 {
		if _, err := DecodeSnapStream(bufio.NewReader(bytes.NewReader(raw[:cut])), 0, SnapshotHandler{}); err == nil {
			t.Fatalf("a stream cut at %d of %d decoded", cut, len(raw))
		}
	}
}

func FuzzDecodeSnapStream(f *testing.F) {
	if raw, err := os.ReadFile(snapStreamFixture); err == nil {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		DecodeSnapStream(bufio.NewReader(bytes.NewReader(b)), 1<<16, SnapshotHandler{})
	})
}

// snapStreamContents is what a SNAP stream holds, in the stream's order.
type snapStreamContents struct {
	sessions []proto.SnapshotSession
	acls     []proto.ACLCacheEntry
	nodes    []Node
}

func decodeSnapStreamContents(t *testing.T, raw []byte) snapStreamContents {
	t.Helper()
	var c snapStreamContents
	_, err := DecodeSnapStream(bufio.NewReader(bytes.NewReader(raw)), 0, SnapshotHandler{
		Session: func(id int64, timeout int32) error {
			c.sessions = append(c.sessions, proto.SnapshotSession{Id: id, Timeout: timeout})
			return nil
		},
		ACL:  func(e proto.ACLCacheEntry) error { c.acls = append(c.acls, e); return nil },
		Node: func(n *Node) error { c.nodes = append(c.nodes, *n); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (c snapStreamContents) encode(w io.Writer) error {
	return EncodeSnapStream(w, c.sessions, c.acls, func(put func(*Node) error) error {
		for i := range c.nodes {
			if err := put(&c.nodes[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestEncodeSnapStreamIsJavas: the sessions, ACL map and tree of Java's
// stream encode to Java's bytes, even when the sessions and ACL entries
// come in another order (Java writes them in its HashMap's order).
func TestEncodeSnapStreamIsJavas(t *testing.T) {
	raw, err := os.ReadFile(snapStreamFixture)
	if err != nil {
		t.Fatal(err)
	}
	c := decodeSnapStreamContents(t, raw)
	if len(c.sessions) < 2 || len(c.acls) < 2 {
		t.Fatalf("the fixture has %d sessions and %d ACL entries; the order checks need two of each", len(c.sessions), len(c.acls))
	}
	slices.Reverse(c.sessions)
	slices.Reverse(c.acls)
	var out bytes.Buffer
	if err := c.encode(&out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), raw) {
		at := 0
		for at < min(out.Len(), len(raw)) && out.Bytes()[at] == raw[at] {
			at++
		}
		t.Fatalf("encoded %d bytes, Java wrote %d; first difference at offset %d", out.Len(), len(raw), at)
	}
}

// TestEncodeSnapStreamManyIsJavas: 300 sessions of three servers and an
// ACL map whose ids run past the table Java copies it into come out in
// Java's order from id order, the order gozk's server holds them in.
func TestEncodeSnapStreamManyIsJavas(t *testing.T) {
	raw, err := os.ReadFile("testdata/java-snapstream-many.bin")
	if err != nil {
		t.Fatal(err)
	}
	c := decodeSnapStreamContents(t, raw)
	bySession := func(a, b proto.SnapshotSession) int { return cmp.Compare(a.Id, b.Id) }
	byACL := func(a, b proto.ACLCacheEntry) int { return cmp.Compare(a.Id, b.Id) }
	if len(c.sessions) != 300 || len(c.acls) < 40 {
		t.Fatalf("the fixture has %d sessions and %d ACL entries, want 300 and at least 40", len(c.sessions), len(c.acls))
	}
	if slices.IsSortedFunc(c.sessions, bySession) || slices.IsSortedFunc(c.acls, byACL) {
		t.Fatal("Java wrote the sessions or the ACL map in id order: the fixture checks nothing")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(c.sessions), func(i, j int) { c.sessions[i], c.sessions[j] = c.sessions[j], c.sessions[i] })
	rng.Shuffle(len(c.acls), func(i, j int) { c.acls[i], c.acls[j] = c.acls[j], c.acls[i] })
	slices.SortFunc(c.sessions, bySession)
	slices.SortFunc(c.acls, byACL)
	var out bytes.Buffer
	if err := c.encode(&out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), raw) {
		at := 0
		for at < min(out.Len(), len(raw)) && out.Bytes()[at] == raw[at] {
			at++
		}
		t.Fatalf("encoded %d bytes, Java wrote %d; first difference at offset %d", out.Len(), len(raw), at)
	}
}

// TestEncodeSnapStreamJavaHashOrder: the order of a copied
// HashMap<Long, V>, worked out by hand from HashMap's rules: hash(k) is
// k ^ k>>>32, then h ^ h>>>16; the bucket is that & (capacity-1), and the
// copy's capacity is len/0.75+1 rounded up to a power of two.
func TestEncodeSnapStreamJavaHashOrder(t *testing.T) {
	for _, tc := range []struct{ keys, want []int64 }{
		// 5 entries: a table of 8. Buckets 1, 3, 1, 1 (0x10000 ^ 1),
		// 0 (0xffffffff ^ 0xffffffff); bucket 1 keeps the given order.
		{[]int64{0x0000000900000000, 3, 0x11, 0x10000, -1}, []int64{-1, 0x0000000900000000, 0x11, 0x10000, 3}},
		// 6 entries: 6/0.75+1 = 9, a table of 16, where 9 is in bucket
		// 9, after 2 (in a table of 8 it would be in bucket 1).
		{[]int64{9, 2, 100, 101, 102, 103}, []int64{2, 100, 101, 102, 103, 9}},
	} {
		sessions := make([]proto.SnapshotSession, len(tc.keys))
		for i, k := range tc.keys {
			sessions[i] = proto.SnapshotSession{Id: k, Timeout: int32(i)}
		}
		sortJavaHashOrder(sessions, func(s *proto.SnapshotSession) int64 { return s.Id })
		for i, s := range sessions {
			if s.Id != tc.want[i] {
				t.Fatalf("order %x, want %x", sessions, tc.want)
			}
		}
	}
}

func TestEncodeSnapStreamRefusals(t *testing.T) {
	raw, err := os.ReadFile(snapStreamFixture)
	if err != nil {
		t.Fatal(err)
	}
	c := decodeSnapStreamContents(t, raw)

	// A node whose ACL the map lacks would fail the learner's load.
	bad := c
	bad.nodes = slices.Clone(c.nodes)
	bad.nodes[len(bad.nodes)-1].ACLID = 99
	if err := bad.encode(io.Discard); err == nil || !strings.Contains(err.Error(), "ACL id 99") {
		t.Errorf("unknown ACL id: %v", err)
	}
	// The root comes first.
	bad.nodes = c.nodes[1:]
	if err := bad.encode(io.Discard); err == nil {
		t.Error("a stream without the root first was written")
	}
	bad.nodes = nil
	if err := bad.encode(io.Discard); err == nil {
		t.Error("a stream without nodes was written")
	}
	// OPEN_ACL_UNSAFE is never in the map.
	bad = c
	bad.acls = append(slices.Clone(c.acls), proto.ACLCacheEntry{Id: -1, Acl: proto.OpenACLUnsafe})
	if err := bad.encode(io.Discard); err == nil {
		t.Error("an ACL map with id -1 was written")
	}
	// The walk's own error comes back as is.
	stop := errors.New("walk stopped")
	err = EncodeSnapStream(io.Discard, nil, nil, func(func(*Node) error) error { return stop })
	if err != stop {
		t.Errorf("nodes' error came back as %v", err)
	}
	// So does the connection's.
	broken := errors.New("connection reset")
	if err := c.encode(failingWriter{broken}); !errors.Is(err, broken) {
		t.Errorf("write error came back as %v", err)
	}
}

type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

// TestEncodeSnapStreamLargeRoundTrip: a stream larger than the write
// buffer, with big nodes, decodes to what was encoded.
func TestEncodeSnapStreamLargeRoundTrip(t *testing.T) {
	acl := []proto.ACL{{Perms: 1, Id: proto.Id{Scheme: "world", Id: "anyone"}}}
	c := snapStreamContents{
		sessions: []proto.SnapshotSession{{Id: 7, Timeout: 5000}},
		acls:     []proto.ACLCacheEntry{{Id: 1, Acl: acl}},
		nodes:    []Node{{Path: "", ACLID: -1}},
	}
	for i := range 300 {
		data := bytes.Repeat([]byte{byte(i)}, i*37)
		c.nodes = append(c.nodes, Node{Path: fmt.Sprintf("/n%d", i), Data: data, ACLID: int64(i%2*2 - 1),
			Stat: proto.StatPersisted{Czxid: int64(i), Mzxid: int64(i) + 1, Version: int32(i)}})
	}
	var out bytes.Buffer
	if err := c.encode(&out); err != nil {
		t.Fatal(err)
	}
	got := decodeSnapStreamContents(t, out.Bytes())
	if !reflect.DeepEqual(got.sessions, c.sessions) || !reflect.DeepEqual(got.acls, c.acls) {
		t.Fatalf("sessions %v acls %v", got.sessions, got.acls)
	}
	if len(got.nodes) != len(c.nodes) {
		t.Fatalf("%d nodes, want %d", len(got.nodes), len(c.nodes))
	}
	for i := range c.nodes {
		w, g := c.nodes[i], got.nodes[i]
		if g.Path != w.Path || !bytes.Equal(g.Data, w.Data) || g.ACLID != w.ACLID || g.Stat != w.Stat {
			t.Fatalf("node %d: %+v, want %+v", i, g, w)
		}
	}
}
