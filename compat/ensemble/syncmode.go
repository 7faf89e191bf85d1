package ensemble

import (
	"regexp"
	"strconv"
	"strings"
)

// The ways a learner catches up with its leader, as the leader's first
// sync packet names them.
const (
	ModeDiff  = "DIFF"
	ModeSnap  = "SNAP"
	ModeTrunc = "TRUNC"
)

// gozkSyncLine and gozkSyncMode pick the sync mode out of a gozk log
// line: a line that speaks of syncing ("sync", "synced", "syncing", not
// "fsync") and names a mode. They are the one place to adjust when
// gozk's wording changes.
var (
	gozkSyncLine = regexp.MustCompile(`(?i)\bsync`)
	gozkSyncMode = regexp.MustCompile(`(?i)\b(diff|snap|trunc)\w*`)
)

// gozkLeaderSyncLine is a gozk leader's line for each learner it syncs
// (console or JSON output), and gozkLearnerField and gozkModeField its
// fields.
var (
	gozkLeaderSyncLine = regexp.MustCompile(`syncing a learner`)
	gozkLearnerField   = regexp.MustCompile(`"?learner"?[=:](\d+)`)
	gozkModeField      = regexp.MustCompile(`"?mode"?[=:]"?(\w+)`)
)

// GozkSyncModes returns the sync modes a gozk member's log reports, one
// per sync with a leader, oldest first. The lines it logs as a leader,
// syncing its learners, are not its own syncs.
func GozkSyncModes(log string) []string {
	var modes []string
	for _, line := range strings.Split(log, "\n") {
		if !gozkSyncLine.MatchString(line) || gozkLeaderSyncLine.MatchString(line) {
			continue
		}
		if m := gozkSyncMode.FindStringSubmatch(line); m != nil {
			modes = append(modes, strings.ToUpper(m[1]))
		}
	}
	return modes
}

// GozkLeaderSyncModes returns the sync modes a gozk leader chose for the
// learner with id sid, oldest first.
func GozkLeaderSyncModes(log string, sid int64) []string {
	var modes []string
	for _, line := range strings.Split(log, "\n") {
		if !gozkLeaderSyncLine.MatchString(line) {
			continue
		}
		l, m := gozkLearnerField.FindStringSubmatch(line), gozkModeField.FindStringSubmatch(line)
		if l == nil || m == nil {
			continue
		}
		if id, err := strconv.ParseInt(l[1], 10, 64); err == nil && id == sid {
			modes = append(modes, strings.ToUpper(m[1]))
		}
	}
	return modes
}

// JavaLearnerSyncModes returns the sync modes a Java follower or
// observer logged (Learner.syncWithLeader), oldest first.
func JavaLearnerSyncModes(log string) []string {
	var modes []string
	for _, line := range strings.Split(log, "\n") {
		switch {
		case strings.Contains(line, "Getting a diff from the leader"):
			modes = append(modes, ModeDiff)
		case strings.Contains(line, "Getting a snapshot from leader"):
			modes = append(modes, ModeSnap)
		case strings.Contains(line, "Truncating log to get in sync with the leader"):
			modes = append(modes, ModeTrunc)
		}
	}
	return modes
}

// javaThread is the thread name slf4j-simple puts in brackets.
var (
	javaThread     = regexp.MustCompile(`\[([^\]]+)\]`)
	javaSyncingSid = regexp.MustCompile(`Synchronizing with Learner sid: (\d+) `)
)

// JavaLeaderSyncModes returns the sync modes a Java leader chose for the
// learner with id sid, oldest first. Each of the leader's LearnerHandler
// threads logs "Synchronizing with Learner sid: N" and then its decision;
// the snapshot line does not name the learner, so lines are matched by
// thread. The TRUNC of a learner past the leader's committed log is
// logged only at debug level. Java logs "Sending TRUNC" where it sends an
// empty DIFF to a learner at a new epoch's first zxid, so that case
// reads as TRUNC here.
func JavaLeaderSyncModes(log string, sid int64) []string {
	var modes []string
	current := map[string]int{} // thread -> index in modes of its sync
	for _, line := range strings.Split(log, "\n") {
		t := javaThread.FindStringSubmatch(line)
		if t == nil {
			continue
		}
		thread := t[1]
		if m := javaSyncingSid.FindStringSubmatch(line); m != nil {
			id, _ := strconv.ParseInt(m[1], 10, 64)
			if id == sid {
				modes = append(modes, "")
				current[thread] = len(modes) - 1
			} else {
				delete(current, thread)
			}
			continue
		}
		i, ok := current[thread]
		if !ok {
			continue
		}
		switch {
		case strings.Contains(line, "Sending DIFF"):
			modes[i] = ModeDiff
		case strings.Contains(line, "Sending TRUNC"):
			modes[i] = ModeTrunc
		case strings.Contains(line, "Sending snapshot"):
			modes[i] = ModeSnap
		}
	}
	return modes
}
