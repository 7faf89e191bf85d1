//go:build !linux

package bench

import "testing"

func breakPlatformWatcher(t *testing.T, f watchFleet) {
	t.Fatalf("fleet %T", f)
}
