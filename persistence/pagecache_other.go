//go:build !linux

package persistence

import "github.com/cockroachdb/pebble/v2/vfs"

// dropCachedPages does nothing where fadvise is not known.
func dropCachedPages(vfs.File) {}
