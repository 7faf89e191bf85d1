package zkfiles

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// ReadEpoch reads an epoch file (acceptedEpoch, currentEpoch): the first
// line, parsed as Java's Long.parseLong. found is false when the file does
// not exist.
func ReadEpoch(path string) (epoch int64, found bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return 0, false, nil
		}
		return 0, false, err
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, 4096)).ReadString('\n')
	if err != nil && err != io.EOF {
		return 0, true, err
	}
	line = trimLineEnd(line)
	v, err := strconv.ParseInt(line, 10, 64)
	if err != nil {
		return 0, true, fmt.Errorf("zkfiles: %s: %q is not an epoch", path, line)
	}
	return v, true, nil
}

func trimLineEnd(s string) string {
	if n := len(s); n > 0 && s[n-1] == '\n' {
		s = s[:n-1]
	}
	if n := len(s); n > 0 && s[n-1] == '\r' {
		s = s[:n-1]
	}
	return s
}

// WriteEpoch writes dir/name as QuorumPeer.writeLongToFile does: the
// decimal value, no newline, through name.tmp and a rename.
func WriteEpoch(dir, name string, epoch int64) error {
	return writeFileAtomic(filepath.Join(dir, name), func(w io.Writer) error {
		_, err := io.WriteString(w, strconv.FormatInt(epoch, 10))
		return err
	})
}

// EpochOf is the epoch part of a zxid (its high 32 bits).
func EpochOf(zxid int64) int64 { return zxid >> 32 }
