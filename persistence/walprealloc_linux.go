package persistence

import "golang.org/x/sys/unix"

const canSizePreallocation = true

// preallocateSized reserves length bytes from offset and extends the
// file's size over them (fallocate's default mode: the new range reads
// as zeros).
func preallocateSized(fd uintptr, offset, length int64) error {
	return unix.Fallocate(int(fd), 0, offset, length)
}
