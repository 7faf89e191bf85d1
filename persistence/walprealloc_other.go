//go:build !linux

package persistence

import "errors"

// canSizePreallocation is false where fallocate is not known: WAL files
// keep Pebble's own preallocation.
const canSizePreallocation = false

func preallocateSized(uintptr, int64, int64) error {
	return errors.ErrUnsupported
}
