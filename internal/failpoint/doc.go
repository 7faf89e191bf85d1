// Package failpoint makes a gozk server fail on purpose at named places,
// for fault-injection tests that run real `gozk server` processes and
// need a crash, a stall or an I/O error at an exact moment of Zab or of
// the disk.
//
// The points are armed from the environment variable GOZK_FAILPOINTS,
// which `gozk server` reads once at start:
//
//	GOZK_FAILPOINTS='name=action[;name=action...]'
//
// where action is one of
//
//	crash             SIGKILL the process at the point, on every hit
//	crash@N           ... on the Nth hit only (hits count from 1)
//	sleep(DURATION)   block the hit that long (Go syntax: 2s, 150ms)
//	sleep(DURATION)@N ... on the Nth hit only
//	error             the hit fails with an I/O error (EIO)
//	error@N           ... the Nth hit only
//
// A crash is kill -9 at that line: one line naming the point goes to
// standard error, then the process kills itself; nothing deferred runs
// and nothing buffered is written. An error is handled by the caller as
// the real I/O error it stands for (a learner drops its leader, a leader
// steps down, a failed fsync or write stops the server). An unknown
// point, a malformed action or a point named twice is refused with an
// error naming the entry, and `gozk server` exits with status 2; armed
// points are logged in one warning line at start.
//
// The points, each a constant of this package whose comment says where
// it fires:
//
//	learner-logged-before-ack    proposal durable on a follower, ACK not sent
//	learner-after-newleader-ack  NEWLEADER's ACK sent, UPTODATE not received
//	learner-mid-snap             first node of a SNAP's tree read, the rest not
//	after-current-epoch          current epoch written (learner and leader)
//	learner-mid-trunc            log truncated by TRUNC, tree not reloaded
//	leader-mid-snap-send         part of a SNAP's tree written to a learner
//	leader-logged-before-commit  leader's proposal durable, its own ACK not counted
//	disk-sync                    every fsync of the stores' files, data loaded
//	disk-write                   every write to the stores' files, data loaded
//
// The Zab points sit in the I/O layers (peer/, server/); zab/ stays free
// of them. The disk points are a Pebble vfs.FS wrapper (FS) that `gozk
// server` puts under its stores only when one of them is armed; they act
// (and count hits) from StartDiskFaults, which it calls once its data is
// loaded, so that hit N is the same operation in every run.
//
// With nothing armed Hit costs one atomic load. Tests arm points with
// Arm, or watch every hit with SetHook, and Disarm afterwards.
package failpoint
