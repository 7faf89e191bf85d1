package zab

import (
	"fmt"

	"github.com/gozk/gozk/persistence/zkfiles"
)

// StoredEpochs are a server's epoch records as it starts: Java's
// currentEpoch and acceptedEpoch files (gozk keeps the same two values in
// its store), and a currentEpoch.tmp a write cut short may have left
// behind (Java's files only; gozk's store writes atomically).
type StoredEpochs struct {
	Current, Accepted       int64
	HasCurrent, HasAccepted bool
	CurrentTmp              int64
	HasCurrentTmp           bool
}

// EpochsAtStart applies the rules Java's QuorumPeer.loadDataBase applies
// to the epochs once the tree is loaded (lastZxid is its last processed
// zxid):
//   - a missing current or accepted epoch becomes the epoch of lastZxid,
//     and is written (servers from before epochs were kept);
//   - a current epoch older than lastZxid's is replaced by
//     currentEpoch.tmp when there is one (ZOOKEEPER-4269: a crash between
//     writing the tmp file and renaming it), and is an error otherwise;
//   - an accepted epoch below the current one is an error.
//
// It returns the epochs to run with and whether each must be written.
func EpochsAtStart(lastZxid int64, s StoredEpochs) (current, accepted int64, writeCurrent, writeAccepted bool, err error) {
	epochOfZxid := zkfiles.EpochOf(lastZxid)
	current = s.Current
	if !s.HasCurrent {
		current, writeCurrent = epochOfZxid, true
	}
	if epochOfZxid > current {
		if !s.HasCurrentTmp {
			return 0, 0, false, false, fmt.Errorf("zab: the current epoch, %d, is older than the last zxid, 0x%x", current, lastZxid)
		}
		current, writeCurrent = s.CurrentTmp, true
	}
	accepted = s.Accepted
	if !s.HasAccepted {
		accepted, writeAccepted = epochOfZxid, true
	}
	if accepted < current {
		return 0, 0, false, false, fmt.Errorf("zab: the accepted epoch, %d, is less than the current epoch, %d", accepted, current)
	}
	return current, accepted, writeCurrent, writeAccepted, nil
}
