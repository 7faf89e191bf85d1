package server

import (
	"fmt"
	"slices"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/gozk/gozk/db"
)

// Many writes in flight at once, each a create with its own ACL followed
// by sets: prep decodes into reused structs and keeps the txn records and
// change records in the requests, so an ACL, data or path shared between
// writes would show up as a node with another write's ACL or data.
func TestPipelinedWritesKeepTheirOwnACLAndData(t *testing.T) {
	s := startTestServer(t, t.TempDir(), nil)
	c, _ := connect(t, s)
	const n = 200
	acls := func(i int) []zk.ACL {
		if i%2 == 0 {
			return zk.WorldACL(zk.PermAll)
		}
		return zk.WorldACL(zk.PermRead | int32(i%16)<<1)
	}
	var creates []<-chan error
	for i := range n {
		ch := make(chan error, 1)
		creates = append(creates, ch)
		go func() {
			_, err := c.Create(fmt.Sprintf("/w%d", i), []byte(fmt.Sprint("c", i)), 0, acls(i))
			ch <- err
		}()
	}
	for _, ch := range creates {
		if err := <-ch; err != nil {
			t.Fatal(err)
		}
	}
	var sets []<-chan error
	for i := 0; i < n; i += 2 {
		ch := make(chan error, 1)
		sets = append(sets, ch)
		go func() {
			_, err := c.Set(fmt.Sprintf("/w%d", i), []byte(fmt.Sprint("s", i)), 0)
			ch <- err
		}()
	}
	for _, ch := range sets {
		if err := <-ch; err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		path := fmt.Sprintf("/w%d", i)
		acl, _, err := c.GetACL(path)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(acl, acls(i)) {
			t.Errorf("%s: acl %v, want %v", path, acl, acls(i))
		}
		data, st, err := c.Get(path)
		if err != nil {
			t.Fatal(err)
		}
		want, version := fmt.Sprint("s", i), int32(1)
		if i%2 != 0 {
			want, version = fmt.Sprint("c", i), 0
		}
		if string(data) != want || st.Version != version {
			t.Errorf("%s: %q version %d, want %q version %d", path, data, st.Version, want, version)
		}
	}
}

// The outstanding-changes list reuses its array from the front once final
// has dropped every record, and moves the live records down once enough
// dropped slots pile up in front of a list that never empties; lookups,
// multi rollbacks and the ephemerals listing must see the same records
// throughout.
func TestOutstandingChangesReuseTheirArray(t *testing.T) {
	tree := db.New(db.Options{})
	o := newOutstandingChanges(tree)
	rec := func(zxid int64, path string) *changeRecord {
		return &changeRecord{zxid: zxid, path: path, node: db.NodeInfo{DataLength: int32(zxid)}}
	}
	check := func(path string, want int64) {
		t.Helper()
		n, ok := o.lookup(path)
		if want < 0 {
			if ok {
				t.Fatalf("%s: found %+v after it was applied", path, n)
			}
			return
		}
		if !ok || int64(n.DataLength) != want {
			t.Fatalf("%s: %+v %v, want the record of zxid %d", path, n, ok, want)
		}
	}

	// Emptied after every txn: the array is reused from the start.
	for z := int64(1); z <= 10; z++ {
		o.add(rec(z, "/a"))
		check("/a", z)
		o.applied(z)
		check("/a", -1)
	}
	if o.head != 0 || len(o.records) != 0 {
		t.Fatalf("emptied list: head %d len %d", o.head, len(o.records))
	}

	// Never emptied: one txn stays ahead of final all along.
	z := int64(100)
	o.add(rec(z, fmt.Sprintf("/p%d", z)))
	for range 3 * compactAfter {
		z++
		o.add(rec(z, fmt.Sprintf("/p%d", z)))
		o.applied(z - 1)
		check(fmt.Sprintf("/p%d", z-1), -1)
		check(fmt.Sprintf("/p%d", z), z)
		if live := len(o.records) - o.head; live != 1 {
			t.Fatalf("zxid %d: %d live records, want 1", z, live)
		}
	}
	if len(o.records) > 2*compactAfter+1 {
		t.Fatalf("list grew to %d slots for one live record", len(o.records))
	}

	// A multi rolled back while an earlier txn is still outstanding.
	snap := o.begin(z + 1)
	o.add(rec(z+1, fmt.Sprintf("/p%d", z)))
	o.add(rec(z+1, "/m"))
	check(fmt.Sprintf("/p%d", z), z+1)
	o.rollback(snap)
	check(fmt.Sprintf("/p%d", z), z)
	check("/m", -1)
	o.applied(z)
	check(fmt.Sprintf("/p%d", z), -1)
	if o.head != 0 || len(o.records) != 0 {
		t.Fatalf("emptied list: head %d len %d", o.head, len(o.records))
	}
}
