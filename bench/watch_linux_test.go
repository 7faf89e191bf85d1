package bench

import (
	"testing"

	"golang.org/x/sys/unix"
)

func breakPlatformWatcher(t *testing.T, f watchFleet) {
	ef, ok := f.(*epollFleet)
	if !ok {
		t.Fatalf("fleet %T", f)
	}
	// The part notices on its own goroutine: the peer's FIN-less cut
	// shows as end of input.
	if err := unix.Shutdown(ef.parts[0].ws[0].fd, unix.SHUT_RDWR); err != nil {
		t.Fatal(err)
	}
}
