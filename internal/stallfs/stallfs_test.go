package stallfs

import (
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

func syncOp(path string) errorfs.Op { return errorfs.Op{Kind: errorfs.OpFileSync, Path: path} }

// TestHoldsOnlyArmedLogSyncs: a log fsync waits while armed until
// released; other files, other operations and disarmed fsyncs pass.
func TestHoldsOnlyArmedLogSyncs(t *testing.T) {
	s := New()
	defer s.Finish()
	for _, op := range []errorfs.Op{syncOp("d/gozk/000001.log"), syncOp("d/gozk-snap/000001.log"),
		syncOp("d/gozk/MANIFEST-000001"), {Kind: errorfs.OpFileWrite, Path: "d/gozk/000001.log"}} {
		if err := s.MaybeError(op); err != nil {
			t.Fatal(err)
		}
	}
	s.Arm(true)
	for _, op := range []errorfs.Op{syncOp("d/gozk-snap/000001.log"), {Kind: errorfs.OpFileWrite, Path: "d/gozk/000001.log"}} {
		if err := s.MaybeError(op); err != nil {
			t.Fatal(err)
		}
	}
	passed := make(chan error, 1)
	go func() { passed <- s.MaybeError(syncOp("d/gozk/000001.log")) }()
	<-s.Entered
	select {
	case <-passed:
		t.Fatal("an armed log fsync went through before its release")
	case <-time.After(50 * time.Millisecond):
	}
	s.Release()
	if err := <-passed; err != nil {
		t.Fatal(err)
	}
	go func() { passed <- s.MaybeError(syncOp("d/gozk/000002.log")) }()
	<-s.Entered
	s.Finish()
	s.Finish()
	if err := <-passed; err != nil {
		t.Fatal(err)
	}
	if err := s.MaybeError(syncOp("d/gozk/000003.log")); err != nil {
		t.Fatal(err)
	}
	if s.FS(vfs.NewMem()) == nil {
		t.Fatal("no file system")
	}
}
