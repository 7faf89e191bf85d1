package zkfiles

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// File-name prefixes and the version directory, as FileTxnSnapLog names
// them.
const (
	SnapshotPrefix = "snapshot"
	LogPrefix      = "log"
	VersionDir     = "version-2"

	AcceptedEpochFile = "acceptedEpoch"
	CurrentEpochFile  = "currentEpoch"
)

// ZxidFromName is Java's Util.getZxidFromName: the part after the first
// dot, parsed as a hex long (Long.parseLong(s, 16): either case, an
// optional sign, no 0x), when the part before it is prefix; -1 otherwise.
func ZxidFromName(name, prefix string) int64 {
	parts := strings.Split(name, ".")
	if len(parts) < 2 || parts[0] != prefix {
		return -1
	}
	s := parts[1]
	if s == "" || strings.HasPrefix(s, "+-") || strings.HasPrefix(s, "-+") {
		return -1
	}
	// strconv accepts a sign and both cases; reject what Java rejects:
	// underscores and a 0x prefix.
	if strings.ContainsAny(s, "_xX") {
		return -1
	}
	v, err := strconv.ParseInt(s, 16, 64)
	if err != nil {
		return -1
	}
	return v
}

// SnapshotName is the file name Java gives the snapshot of zxid.
func SnapshotName(zxid int64, c Compression) string {
	return SnapshotPrefix + "." + strconv.FormatUint(uint64(zxid), 16) + c.Suffix()
}

// LogName is the file name of a log whose first txn has zxid.
func LogName(zxid int64) string {
	return LogPrefix + "." + strconv.FormatUint(uint64(zxid), 16)
}

// File is a snapshot or log file with the zxid of its name.
type File struct {
	Path string
	Zxid int64
}

// listFiles returns the files of dir named prefix.<hex zxid>..., in
// ascending zxid order (ties by name, as Java's sort is stable over
// File.listFiles order, which is unspecified).
func listFiles(dir, prefix string) ([]File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []File
	for _, e := range entries {
		if e.IsDir() || !strings.HasPrefix(e.Name(), prefix+".") {
			continue
		}
		z := ZxidFromName(e.Name(), prefix)
		if z == -1 {
			continue
		}
		out = append(out, File{Path: filepath.Join(dir, e.Name()), Zxid: z})
	}
	slices.SortStableFunc(out, func(a, b File) int {
		switch {
		case a.Zxid < b.Zxid:
			return -1
		case a.Zxid > b.Zxid:
			return 1
		}
		return strings.Compare(a.Path, b.Path)
	})
	return out, nil
}

// ListSnapshots returns the snapshot files of dir (a version-2
// directory), newest first.
func ListSnapshots(dir string) ([]File, error) {
	files, err := listFiles(dir, SnapshotPrefix)
	slices.Reverse(files)
	return files, err
}

// ListLogs returns the log files of dir, oldest first.
func ListLogs(dir string) ([]File, error) { return listFiles(dir, LogPrefix) }

// VersionPath returns dir/version-2.
func VersionPath(dir string) string { return filepath.Join(dir, VersionDir) }

// Kind is what a path names: a snapshot file, a log file, or neither.
type Kind int

// Kinds of files.
const (
	KindUnknown Kind = iota
	KindSnapshot
	KindLog
)

// KindOf tells a snapshot from a log by the file's magic number, falling
// back to its name for compressed snapshots.
func KindOf(path string) (Kind, error) {
	f, err := os.Open(path)
	if err != nil {
		return KindUnknown, err
	}
	defer f.Close()
	var b [8]byte
	n, _ := f.Read(b[:])
	if n >= 4 {
		switch string(b[:4]) {
		case "ZKLG":
			return KindLog, nil
		case "ZKSN":
			return KindSnapshot, nil
		}
	}
	if CompressionOf(filepath.Base(path)) != Checked && ZxidFromName(filepath.Base(path), SnapshotPrefix) != -1 {
		return KindSnapshot, nil
	}
	return KindUnknown, fmt.Errorf("zkfiles: %s is neither a ZooKeeper snapshot nor a txn log", path)
}
