package datatools

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/gozk/gozk/persistence/zkfiles"
	"github.com/gozk/gozk/zab"
)

// javaEpochsToImport reads the epoch files of a Java snapshot directory
// and decides what the gozk store keeps of them, given the last zxid
// Java's restore reaches. The files are checked as Java checks them when
// it starts (zab.EpochsAtStart, with its currentEpoch.tmp rule), and
// more strictly in two ways: no epoch may be negative, and a current
// epoch taken from currentEpoch.tmp may not be older than the last
// zxid's (Java would start with it, then refuse its next start). Each
// refusal names the file at fault.
//
// Only epochs the files hold are kept (with currentEpoch.tmp's value
// when Java would take it): a directory without the files, a standalone
// server's, imports without epochs, and the missing ones are derived
// from the last zxid when a server starts, as Java derives them. tookTmp
// says currentEpoch.tmp was used.
func javaEpochsToImport(snapDir string, lastZxid int64) (keep zkfiles.Epochs, tookTmp bool, err error) {
	accPath := filepath.Join(snapDir, zkfiles.AcceptedEpochFile)
	curPath := filepath.Join(snapDir, zkfiles.CurrentEpochFile)
	tmpPath := filepath.Join(snapDir, zkfiles.CurrentEpochTmpFile)
	files, err := zkfiles.ReadEpochs(snapDir)
	if err != nil {
		return keep, false, err
	}
	if files.HasAccepted && files.Accepted < 0 {
		return keep, false, fmt.Errorf("%s: epoch %d is negative", accPath, files.Accepted)
	}
	if files.HasCurrent && files.Current < 0 {
		return keep, false, fmt.Errorf("%s: epoch %d is negative", curPath, files.Current)
	}
	cur, acc, writeCur, _, err := zab.EpochsAtStart(lastZxid, files)
	switch {
	case errors.Is(err, zab.ErrCurrentEpochBehind):
		return keep, false, fmt.Errorf("%s: %w (Java refuses to start on this directory)", curPath, err)
	case errors.Is(err, zab.ErrAcceptedEpochBehind):
		return keep, false, fmt.Errorf("%s: %w (Java refuses to start on this directory)", accPath, err)
	case err != nil:
		// The tmp file, needed and unreadable: its error names it.
		return keep, false, fmt.Errorf("%w (Java refuses to start on this directory)", err)
	}
	// A current epoch that was there and is to be written again came
	// from the tmp file.
	tookTmp = files.HasCurrent && writeCur
	if tookTmp {
		if epoch := zkfiles.EpochOf(lastZxid); cur < epoch {
			return keep, false, fmt.Errorf("%s: epoch %d, which would replace currentEpoch (%d), is older than the last zxid, 0x%x (epoch %d): "+
				"Java would start with it and refuse its next start", tmpPath, cur, files.Current, lastZxid, epoch)
		}
	}
	if files.HasAccepted {
		keep.Accepted, keep.HasAccepted = acc, true
	}
	if files.HasCurrent {
		keep.Current, keep.HasCurrent = cur, true
	}
	return keep, tookTmp, nil
}

// javaEpochsToExport decides the epoch files an export writes into
// snapDir next to a snapshot at zxid, from the gozk store's epochs:
// those the store has, and only those (a standalone server's store has
// none, and Java derives them from the last zxid as it starts). An
// acceptedEpoch already in snapDir and higher than the store's is kept:
// lowering it would take back a promise that server made to a leader.
//
// stale is set when files of snapDir that the export leaves in place
// would make Java refuse to start (an epoch behind the exported zxid's,
// a file that does not read); it says why, for the --force rule.
func javaEpochsToExport(store zkfiles.Epochs, snapDir string, zxid int64) (write zkfiles.Epochs, stale error, err error) {
	if _, _, _, _, err := zab.EpochsAtStart(zxid, store); err != nil {
		return write, nil, fmt.Errorf("gozk's store: %w", err)
	}
	write = zkfiles.Epochs{Accepted: store.Accepted, HasAccepted: store.HasAccepted, Current: store.Current, HasCurrent: store.HasCurrent}
	accPath := filepath.Join(snapDir, zkfiles.AcceptedEpochFile)
	oldAcc, hasOldAcc, accErr := zkfiles.ReadEpoch(accPath)
	if write.HasAccepted && hasOldAcc && accErr == nil && oldAcc > write.Accepted {
		write.Accepted = oldAcc
	}

	// What Java will read: the files written, and the old ones for the
	// rest.
	java := write
	if !write.HasAccepted {
		if accErr != nil {
			return write, accErr, nil
		}
		java.Accepted, java.HasAccepted = oldAcc, hasOldAcc
	}
	if !write.HasCurrent {
		cur, hasCur, err := zkfiles.ReadEpoch(filepath.Join(snapDir, zkfiles.CurrentEpochFile))
		if err != nil {
			return write, err, nil
		}
		java.Current, java.HasCurrent = cur, hasCur
		java.CurrentTmp, java.HasCurrentTmp, java.CurrentTmpErr = zkfiles.ReadEpoch(filepath.Join(snapDir, zkfiles.CurrentEpochTmpFile))
		java.HasCurrentTmp = java.HasCurrentTmp || java.CurrentTmpErr != nil
	}
	_, _, _, _, err = zab.EpochsAtStart(zxid, java)
	switch {
	case errors.Is(err, zab.ErrCurrentEpochBehind):
		return write, fmt.Errorf("%s: %w", filepath.Join(snapDir, zkfiles.CurrentEpochFile), err), nil
	case errors.Is(err, zab.ErrAcceptedEpochBehind):
		return write, fmt.Errorf("%s: %w", accPath, err), nil
	case err != nil:
		return write, err, nil
	}
	return write, nil, nil
}
