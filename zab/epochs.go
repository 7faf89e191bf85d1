package zab

import (
	"errors"
	"fmt"

	"github.com/gozk/gozk/persistence/zkfiles"
)

// The two ways EpochsAtStart refuses stored epochs; its errors wrap one
// of them, so that a caller can name the file or key at fault.
var (
	// ErrCurrentEpochBehind: the current epoch is older than the epoch
	// of the last zxid, and there is no currentEpoch.tmp to repair it.
	ErrCurrentEpochBehind = errors.New("the current epoch is older than the last zxid")
	// ErrAcceptedEpochBehind: the accepted epoch is less than the
	// current epoch.
	ErrAcceptedEpochBehind = errors.New("the accepted epoch is less than the current epoch")
)

// EpochsAtStart applies the rules Java's QuorumPeer.loadDataBase applies
// to the epochs once the tree is loaded (lastZxid is its last processed
// zxid):
//   - a missing current or accepted epoch becomes the epoch of lastZxid,
//     and is written (servers from before epochs were kept);
//   - a current epoch older than lastZxid's is replaced by
//     currentEpoch.tmp when there is one (ZOOKEEPER-4269: a crash between
//     writing the tmp file and renaming it), whatever its value, and is
//     an error otherwise; a tmp file that does not read is an error only
//     then, as Java reads it only then;
//   - an accepted epoch below the current one is an error.
//
// It returns the epochs to run with and whether each must be written.
func EpochsAtStart(lastZxid int64, s zkfiles.Epochs) (current, accepted int64, writeCurrent, writeAccepted bool, err error) {
	epochOfZxid := zkfiles.EpochOf(lastZxid)
	current = s.Current
	if !s.HasCurrent {
		current, writeCurrent = epochOfZxid, true
	}
	if epochOfZxid > current {
		if !s.HasCurrentTmp {
			return 0, 0, false, false, fmt.Errorf("zab: %w: current epoch %d, last zxid 0x%x (epoch %d), no %s", ErrCurrentEpochBehind, current, lastZxid, epochOfZxid, zkfiles.CurrentEpochTmpFile)
		}
		if s.CurrentTmpErr != nil {
			return 0, 0, false, false, fmt.Errorf("zab: current epoch %d, last zxid 0x%x (epoch %d), and %s, which would replace it, does not read: %w",
				current, lastZxid, epochOfZxid, zkfiles.CurrentEpochTmpFile, s.CurrentTmpErr)
		}
		current, writeCurrent = s.CurrentTmp, true
	}
	accepted = s.Accepted
	if !s.HasAccepted {
		accepted, writeAccepted = epochOfZxid, true
	}
	if accepted < current {
		return 0, 0, false, false, fmt.Errorf("zab: %w: accepted epoch %d, current epoch %d", ErrAcceptedEpochBehind, accepted, current)
	}
	return current, accepted, writeCurrent, writeAccepted, nil
}
