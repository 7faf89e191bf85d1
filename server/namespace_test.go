package server

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// heapInUse is the live heap after a full collection.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// topLevelOps builds one multi's ops over the top-level names
// /<prefix><from> .. /<prefix><to-1>.
func topLevelOps(prefix string, from, to int, create bool) []any {
	ops := make([]any, 0, to-from)
	for i := from; i < to; i++ {
		p := fmt.Sprintf("/%s%d", prefix, i)
		if create {
			ops = append(ops, &zk.CreateRequest{Path: p, Data: []byte("x"), Acl: zk.WorldACL(zk.PermAll)})
		} else {
			ops = append(ops, &zk.DeleteRequest{Path: p, Version: -1})
		}
	}
	return ops
}

// TestNamespaceChurnFreesItsStatistics creates and deletes 20,000
// distinct top-level znodes: once they are gone, their per-namespace
// statistics must cost nothing.
func TestNamespaceChurnFreesItsStatistics(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	c, _ := connect(t, s)
	if _, err := c.Create("/kept", []byte("x"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Get("/kept"); err != nil {
		t.Fatal(err)
	}
	// Deleting below a namespace keeps its figures.
	if _, err := c.Create("/kept/child", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete("/kept/child", -1); err != nil {
		t.Fatal(err)
	}
	before := heapInUse()
	const names, perMulti = 20000, 1000
	for from := 0; from < names; from += perMulti {
		if _, err := c.Multi(topLevelOps("t", from, from+perMulti, true)...); err != nil {
			t.Fatal(err)
		}
		for i := from; i < from+perMulti; i += 97 {
			if _, _, err := c.Get(fmt.Sprintf("/t%d", i)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.Multi(topLevelOps("t", from, from+perMulti, false)...); err != nil {
			t.Fatal(err)
		}
	}
	growth := heapInUse() - before
	t.Logf("heap grew by %.1f MB over %d top-level names", float64(growth)/(1<<20), names)
	if growth > 20<<20 {
		t.Errorf("heap grew by %d bytes over %d created and deleted top-level names", growth, names)
	}
	m := s.Metrics()
	for _, set := range []*SummarySet{m.ReadPerNamespace, m.WritePerNamespace} {
		if keys := set.Keys(); len(keys) != 1 || keys[0] != "kept" {
			t.Errorf("%s keeps %d namespaces (%v...), want only kept", set.Name, len(keys), keys[:min(len(keys), 5)])
		}
	}
	if snap, ok := m.WritePerNamespace.Snapshot("kept"); !ok || snap.Count != 3 || snap.Sum != int64(len("/kept")+1+2*len("/kept/child")) {
		t.Errorf("kept's writes: %+v %v", snap, ok)
	}
}

// TestMultiOfManyTopLevelCreates creates 10,000 top-level znodes in one
// multi: each new namespace costs a few hundred bytes and no copy of the
// others.
func TestMultiOfManyTopLevelCreates(t *testing.T) {
	s := startTestServer(t, t.TempDir(), func(cfg *Config) { cfg.MaxSessionTimeout = 60000 })
	c, _, err := zk.Connect([]string{s.Addr().String()}, 30*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	before := heapInUse()
	const names = 10000
	ops := topLevelOps("n", 0, names, true)
	began := time.Now()
	if _, err := c.Multi(ops...); err != nil {
		t.Fatal(err)
	}
	t.Logf("multi took %v", time.Since(began))
	growth := heapInUse() - before
	t.Logf("heap grew by %.1f MB with %d top-level znodes", float64(growth)/(1<<20), names)
	// The znodes themselves and the log's buffers take a few MB; the
	// per-namespace statistics of 10,000 names used to take 700 MB.
	if growth > 40<<20 {
		t.Errorf("heap grew by %d bytes with %d top-level znodes", growth, names)
	}
	if n := len(s.Metrics().WritePerNamespace.Keys()); n != names {
		t.Errorf("%d namespaces written, want %d", n, names)
	}
}

// TestSummarySetKeyCost bounds what one namespace's figures cost: Java's
// are a few hundred bytes; a full Summary would be 75 KB. Adding a key
// must not copy the others either: what is allocated in all, garbage
// included, stays a small constant per key.
func TestSummarySetKeyCost(t *testing.T) {
	set := NewSummarySet("write_per_namespace")
	const keys = 20000
	names := make([]string, keys)
	for i := range names {
		names[i] = fmt.Sprintf("t%d", i)
	}
	before := heapInUse()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	allocatedBefore := ms.TotalAlloc
	for i, k := range names {
		set.Add(k, int64(3+i%40))
	}
	runtime.ReadMemStats(&ms)
	allocatedPerKey := int64(ms.TotalAlloc-allocatedBefore) / keys
	perKey := (heapInUse() - before) / keys
	t.Logf("%d bytes per namespace kept, %d allocated", perKey, allocatedPerKey)
	if perKey > 1024 {
		t.Errorf("%d bytes kept per namespace", perKey)
	}
	if allocatedPerKey > 4096 {
		t.Errorf("%d bytes allocated per new namespace", allocatedPerKey)
	}
	runtime.KeepAlive(set)
}
