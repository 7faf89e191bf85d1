package proto

import (
	"strings"
	"unicode/utf8"
)

// PathError explains why a path is invalid, in the words Java's
// PathUtils uses in its IllegalArgumentException.
type PathError struct {
	Path   string
	Reason string
}

func (e *PathError) Error() string {
	return "Invalid path string \"" + e.Path + "\" caused by " + e.Reason
}

// ValidatePath applies Java's PathUtils.validatePath rules: absolute, no
// trailing slash (except "/" itself), no empty, "." or ".." component, and
// no character Java forbids. Java checks UTF-16 code units, so characters
// outside the Basic Multilingual Plane (which become surrogates) are
// rejected, and so are bytes that are not UTF-8 (which Java decodes as
// U+FFFD, itself in a forbidden range).
func ValidatePath(path string) error {
	if path == "" {
		return &PathError{path, "path length must be > 0"}
	}
	if path[0] != '/' {
		return &PathError{path, "path must start with / character"}
	}
	if len(path) == 1 {
		return nil
	}
	if path[len(path)-1] == '/' {
		return &PathError{path, "path must not end with / character"}
	}
	prev := rune('/')
	for i := 1; i < len(path); {
		c := path[i]
		r, size := rune(c), 1
		if c >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(path[i:])
		}
		switch {
		case r == 0:
			return &PathError{path, "null character not allowed @" + itoa(i)}
		case r == '/' && prev == '/':
			return &PathError{path, "empty node name specified @" + itoa(i)}
		case r == '.' && prev == '.' && path[i-2] == '/' && (i+1 == len(path) || path[i+1] == '/'):
			return &PathError{path, "relative paths not allowed @" + itoa(i)}
		case r == '.' && prev == '/' && (i+1 == len(path) || path[i+1] == '/'):
			return &PathError{path, "relative paths not allowed @" + itoa(i)}
		case r > 0 && r <= 0x1f, r >= 0x7f && r <= 0x9f, r >= 0xd800 && r <= 0xf8ff, r >= 0xfff0:
			// utf8.RuneError (U+FFFD) lands here too, as in Java.
			return &PathError{path, "invalid character @" + itoa(i)}
		}
		prev = r
		i += size
	}
	return nil
}

func itoa(i int) string {
	var b [20]byte
	n := len(b)
	for {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			return string(b[n:])
		}
	}
}

// ParentPath returns the text before the last '/' of path, which is ""
// (the root) for a top-level node, and false when path has no '/'. Java
// looks parents up this way, so "/a/" has the parent "/a".
func ParentPath(path string) (string, bool) {
	i := strings.LastIndexByte(path, '/')
	if i < 0 {
		return "", false
	}
	return path[:i], true
}

// BaseName returns the text after the last '/' of path.
func BaseName(path string) string {
	return path[strings.LastIndexByte(path, '/')+1:]
}

// The reserved nodes every data tree has.
const (
	RootPath        = "/"
	ZooKeeperPath   = "/zookeeper"
	QuotaPath       = "/zookeeper/quota"
	ConfigPath      = "/zookeeper/config"
	QuotaLimitsNode = "zookeeper_limits"
	QuotaStatsNode  = "zookeeper_stats"
	SequenceDigits  = 10
)

// IsReservedPath reports whether path is one of the nodes that can never be
// deleted: "/", "/zookeeper", "/zookeeper/quota" and "/zookeeper/config".
func IsReservedPath(path string) bool {
	switch path {
	case RootPath, ZooKeeperPath, QuotaPath, ConfigPath:
		return true
	}
	return false
}

// AppendSequence appends the sequence suffix Java formats with "%010d":
// ten zero-padded digits, or a minus sign and the digits for a counter
// that wrapped negative.
func AppendSequence(dst []byte, counter int32) []byte {
	v := int64(counter)
	if v < 0 {
		dst = append(dst, '-')
		v = -v
		var b [10]byte
		n := len(b)
		for {
			n--
			b[n] = byte('0' + v%10)
			v /= 10
			if v == 0 {
				break
			}
		}
		// "%010d" pads the whole field, sign included, to ten characters.
		for pad := 10 - 1 - (len(b) - n); pad > 0; pad-- {
			dst = append(dst, '0')
		}
		return append(dst, b[n:]...)
	}
	var b [10]byte
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return append(dst, b[:]...)
}
