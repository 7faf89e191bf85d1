package zkfiles

import (
	"bufio"
	"bytes"
	"errors"
	"os"
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
