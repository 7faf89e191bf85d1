package persistence

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gozk/gozk/proto"
)

// The nodes of a snapshot are read and decoded on a goroutine of their own
// while the visitor builds the tree (see snapshotReader.nodes). These tests
// use snapshots of several batches of nodes so that the reader runs ahead.

// TestSnapshotNodesArriveInOrder reads back a snapshot of many batches of
// nodes, node for node.
func TestSnapshotNodesArriveInOrder(t *testing.T) {
	s := openTestStore(t, StoreOptions{DataDir: t.TempDir()})
	want := makeTestSnapshot(5*nodeBatchSize + 17)
	want.write(t, s, 0x600, nil)
	got, _, err := readTestSnapshot(s, 0x600)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.paths, want.paths) {
		t.Fatalf("paths differ: %d read, %d written", len(got.paths), len(want.paths))
	}
	for i := range want.nodes {
		w, g := want.nodes[i], got.nodes[i]
		if string(w.Data) != string(g.Data) || (w.Data == nil) != (g.Data == nil) || w.Acl != g.Acl || w.Stat != g.Stat {
			t.Fatalf("node %d (%q): read %+v, wrote %+v", i, want.paths[i], g, w)
		}
	}
}

// TestSnapshotVisitorErrorStopsTheReader has the visitor fail in the
// middle of the third batch: its error comes back as is, no node after it
// is visited, and the reader's goroutine is gone.
func TestSnapshotVisitorErrorStopsTheReader(t *testing.T) {
	s := openTestStore(t, StoreOptions{DataDir: t.TempDir()})
	makeTestSnapshot(5*nodeBatchSize).write(t, s, 0x600, nil)
	before := runtime.NumGoroutine()
	failAt := 2*nodeBatchSize + 100
	boom := errors.New("tree full")
	visited := 0
	_, err := s.ReadSnapshot(0x600, SnapshotVisitor{Node: func(path string, n *proto.DataNode) error {
		visited++
		if visited == failAt {
			return boom
		}
		return nil
	}})
	if err != boom {
		t.Fatalf("ReadSnapshot returned %v, want the visitor's error", err)
	}
	if visited != failAt {
		t.Fatalf("%d nodes visited, want %d", visited, failAt)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after ReadSnapshot, %d before", n, before)
	}
}

// TestSnapshotLateDamageComesAfterTheNodesBeforeIt damages the last node
// chunk of a snapshot of several batches: every node before that chunk is
// visited first, and the error counts them.
func TestSnapshotLateDamageComesAfterTheNodesBeforeIt(t *testing.T) {
	const zxid = 0x600
	s := openTestStore(t, StoreOptions{DataDir: t.TempDir()})
	info := makeTestSnapshot(5*nodeBatchSize).write(t, s, zxid, nil)
	tr, err := s.readTrailer(zxid)
	if err != nil {
		t.Fatal(err)
	}
	if tr.nodeChunks < 3 {
		t.Fatalf("the snapshot has %d node chunks; the test needs more", tr.nodeChunks)
	}
	flipChunkByte(t, s, snapshotKey(zxid, kindNodes, uint32(tr.nodeChunks-1)))
	got, _, err := readTestSnapshot(s, zxid)
	var ce *CorruptionError
	if !errors.As(err, &ce) {
		t.Fatalf("ReadSnapshot after damage: %v", err)
	}
	if len(got.paths) < 2*nodeBatchSize || len(got.paths) >= int(info.Nodes) {
		t.Fatalf("%d nodes visited before the damaged last chunk (of %d nodes)", len(got.paths), info.Nodes)
	}
	wantCount := fmt.Sprintf("after %d nodes, the last intact one %q", len(got.paths), got.paths[len(got.paths)-1])
	if !strings.Contains(err.Error(), wantCount) {
		t.Fatalf("error %q does not say %q", err, wantCount)
	}
}
