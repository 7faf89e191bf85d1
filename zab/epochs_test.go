package zab

import (
	"errors"
	"strings"
	"testing"

	"github.com/gozk/gozk/persistence/zkfiles"
)

func TestEpochsAtStart(t *testing.T) {
	for _, c := range []struct {
		name             string
		lastZxid         int64
		stored           zkfiles.Epochs
		cur, acc         int64
		writeCur, wrtAcc bool
		err              string
	}{
		{"both kept", 0x300000007, zkfiles.Epochs{Current: 3, Accepted: 4, HasCurrent: true, HasAccepted: true}, 3, 4, false, false, ""},
		{"new server", 0, zkfiles.Epochs{}, 0, 0, true, true, ""},
		{"upgraded: both from the zxid", 0x500000002, zkfiles.Epochs{}, 5, 5, true, true, ""},
		{"current behind the zxid, tmp left", 0x500000001, zkfiles.Epochs{Current: 4, Accepted: 5, HasCurrent: true, HasAccepted: true, CurrentTmp: 5, HasCurrentTmp: true}, 5, 5, true, false, ""},
		{"current behind the zxid", 0x500000001, zkfiles.Epochs{Current: 4, Accepted: 5, HasCurrent: true, HasAccepted: true}, 0, 0, false, false, "older than the last zxid"},
		{"accepted behind current", 0x300000001, zkfiles.Epochs{Current: 3, Accepted: 2, HasCurrent: true, HasAccepted: true}, 0, 0, false, false, "less than the current epoch"},
		{"accepted missing, current ahead of the zxid", 0x200000001, zkfiles.Epochs{Current: 3, HasCurrent: true}, 0, 0, false, false, "less than the current epoch"},
		// Java takes the tmp file's value whatever it is.
		{"tmp older than the zxid still taken", 0x500000001, zkfiles.Epochs{Current: 3, Accepted: 5, HasCurrent: true, HasAccepted: true, CurrentTmp: 4, HasCurrentTmp: true}, 4, 5, true, false, ""},
		{"tmp unreadable and needed", 0x500000001, zkfiles.Epochs{Current: 4, Accepted: 5, HasCurrent: true, HasAccepted: true, HasCurrentTmp: true, CurrentTmpErr: errors.New("garbage")}, 0, 0, false, false, "garbage"},
		{"tmp unreadable, not needed", 0x500000001, zkfiles.Epochs{Current: 5, Accepted: 6, HasCurrent: true, HasAccepted: true, HasCurrentTmp: true, CurrentTmpErr: errors.New("garbage")}, 5, 6, false, false, ""},
		{"current ahead of the zxid is fine", 0x200000009, zkfiles.Epochs{Current: 3, Accepted: 3, HasCurrent: true, HasAccepted: true}, 3, 3, false, false, ""},
	} {
		cur, acc, wc, wa, err := EpochsAtStart(c.lastZxid, c.stored)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want %q", c.name, err, c.err)
			}
			// Callers tell the two refusals apart to name the file.
			if strings.Contains(c.err, "older than") && !errors.Is(err, ErrCurrentEpochBehind) ||
				strings.Contains(c.err, "less than") && !errors.Is(err, ErrAcceptedEpochBehind) {
				t.Errorf("%s: %v wraps neither sentinel as it should", c.name, err)
			}
			continue
		}
		if err != nil || cur != c.cur || acc != c.acc || wc != c.writeCur || wa != c.wrtAcc {
			t.Errorf("%s: (%d, %d, %v, %v, %v), want (%d, %d, %v, %v)", c.name, cur, acc, wc, wa, err, c.cur, c.acc, c.writeCur, c.wrtAcc)
		}
	}
}
