package persistence

import "testing"

// Two Appends running at once may finish in either order: the one
// appended later can return first. LastZxid must stay at the higher zxid
// when the earlier one finishes after it.
func TestLastZxidNeverMovesBack(t *testing.T) {
	for _, forceSync := range []bool{false, true} {
		l := openTest(t, Options{Dir: t.TempDir(), ForceSync: forceSync})
		first, err := l.AppendAsync(entriesFor(1, 2))
		if err != nil {
			t.Fatal(err)
		}
		second, err := l.AppendAsync(entriesFor(3))
		if err != nil {
			t.Fatal(err)
		}
		if err := second.Wait(); err != nil {
			t.Fatal(err)
		}
		if err := first.Wait(); err != nil {
			t.Fatal(err)
		}
		if got := l.LastZxid(); got != 3 {
			t.Errorf("forceSync %v: LastZxid 0x%x after waiting 0x3 then 0x2, want 0x3", forceSync, got)
		}
	}
}
