package jute

import (
	"errors"
	"fmt"
)

// Sentinel causes carried by DecodeError; test with errors.Is.
var (
	// ErrTruncated means the input ended inside a field.
	ErrTruncated = errors.New("input ends inside the field")
	// ErrNegativeLength means a length or count below -1.
	ErrNegativeLength = errors.New("negative length")
	// ErrTooLarge means a length above the configured limit.
	ErrTooLarge = errors.New("length exceeds jute.maxbuffer")
	// ErrTrailingBytes means bytes were left after a complete record where
	// none were allowed.
	ErrTrailingBytes = errors.New("unexpected bytes after the record")
)

// DecodeError reports where decoding failed: the field (as Record.field),
// the byte offset at which the field started, and why.
type DecodeError struct {
	Field  string
	Offset int
	Length int64 // the offending length or count, when there is one
	Limit  int64 // the limit it broke, when there is one
	Err    error
}

func (e *DecodeError) Error() string {
	switch {
	case errors.Is(e.Err, ErrTooLarge):
		return fmt.Sprintf("jute: %s at offset %d: length %d exceeds the limit %d", e.Field, e.Offset, e.Length, e.Limit)
	case errors.Is(e.Err, ErrNegativeLength):
		return fmt.Sprintf("jute: %s at offset %d: invalid length %d", e.Field, e.Offset, e.Length)
	case errors.Is(e.Err, ErrTruncated) && e.Length > 0:
		return fmt.Sprintf("jute: %s at offset %d: needs %d bytes, %d remain", e.Field, e.Offset, e.Length, e.Limit)
	default:
		return fmt.Sprintf("jute: %s at offset %d: %v", e.Field, e.Offset, e.Err)
	}
}

func (e *DecodeError) Unwrap() error { return e.Err }
