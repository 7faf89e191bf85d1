package zkfiles

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// CurrentEpochTmpFile is what a write of currentEpoch cut short leaves
// behind: the new value, written and synced, not yet renamed over
// currentEpoch.
const CurrentEpochTmpFile = CurrentEpochFile + ".tmp"

// Epochs are a server's epoch records: Java's acceptedEpoch and
// currentEpoch files, which gozk keeps in its store (persistence.Store's
// Epochs), and the currentEpoch.tmp a write cut short may leave among
// Java's files (gozk's store writes atomically and never has one).
// zab.EpochsAtStart turns them into the epochs a server runs with.
type Epochs struct {
	// Accepted is acceptedEpoch: the epoch of the newest NEWEPOCH
	// accepted. HasAccepted is false when it was never written.
	Accepted    int64
	HasAccepted bool
	// Current is currentEpoch: the epoch of the newest NEWLEADER
	// acknowledged. HasCurrent is false when it was never written.
	Current    int64
	HasCurrent bool
	// CurrentTmp is currentEpoch.tmp's value when HasCurrentTmp. Java
	// reads that file only when currentEpoch is behind the last zxid, so
	// one that does not parse is not an error of ReadEpochs: the reason is
	// kept in CurrentTmpErr for whoever needs the value.
	CurrentTmp    int64
	HasCurrentTmp bool
	CurrentTmpErr error
}

// ReadEpochs reads acceptedEpoch, currentEpoch and currentEpoch.tmp from
// dir (a snapshot directory, <dataDir>/version-2). A missing file is
// not an error; an acceptedEpoch or currentEpoch that does not read is,
// naming the file.
func ReadEpochs(dir string) (Epochs, error) {
	var e Epochs
	var err error
	if e.Accepted, e.HasAccepted, err = ReadEpoch(filepath.Join(dir, AcceptedEpochFile)); err != nil {
		return Epochs{}, err
	}
	if e.Current, e.HasCurrent, err = ReadEpoch(filepath.Join(dir, CurrentEpochFile)); err != nil {
		return Epochs{}, err
	}
	e.CurrentTmp, e.HasCurrentTmp, e.CurrentTmpErr = ReadEpoch(filepath.Join(dir, CurrentEpochTmpFile))
	if e.CurrentTmpErr != nil {
		e.HasCurrentTmp = true
	}
	return e, nil
}

// WriteEpochs writes the epochs e has into dir as Java does (each through
// a .tmp file and a rename), acceptedEpoch first: a crash between the two
// writes then never leaves an acceptedEpoch below the currentEpoch,
// which Java refuses to start with, as long as the new accepted epoch is
// not below the old current one.
func WriteEpochs(dir string, e Epochs) error {
	if e.HasAccepted {
		if err := WriteEpoch(dir, AcceptedEpochFile, e.Accepted); err != nil {
			return err
		}
	}
	if e.HasCurrent {
		if err := WriteEpoch(dir, CurrentEpochFile, e.Current); err != nil {
			return err
		}
	}
	return nil
}

// ReadEpoch reads an epoch file (acceptedEpoch, currentEpoch): its first
// line (ended by \n, \r or \r\n, as Java's BufferedReader.readLine ends
// it), parsed as a decimal long. found is false when the file does not
// exist. Java's Long.parseLong also takes digits of other scripts; gozk
// takes ASCII ones only.
func ReadEpoch(path string) (epoch int64, found bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return 0, false, nil
		}
		return 0, false, fmt.Errorf("zkfiles: %w", err)
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, 4096)).ReadString('\n')
	if err != nil && err != io.EOF {
		return 0, true, fmt.Errorf("zkfiles: reading %s: %w", path, err)
	}
	if i := strings.IndexAny(line, "\r\n"); i >= 0 {
		line = line[:i]
	}
	v, err := strconv.ParseInt(line, 10, 64)
	if err != nil {
		return 0, true, fmt.Errorf("zkfiles: %s: %q is not an epoch (a decimal number)", path, line)
	}
	return v, true, nil
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
